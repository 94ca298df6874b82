// app/gl/scene_pattern.cpp — the `pattern` scene in GL: one texture the size of the framebuffer, which the
// kernels (app/scene/scene_compute.cpp) rewrite every frame (through a surface object in interop mode). The
// texture is the frame itself (Scene::frame_image): the scene draws nothing. A resize re-creates it,
// so the mode re-registers it.
#include "app/gl/gl_objects.hpp"
#include "app/gl/scene.hpp"

namespace lab {
namespace {

class PatternScene final : public ComputedScene {
 public:
  PatternScene() : ComputedScene(create_scene_compute(SceneId::Pattern, kernels::Filter::Sobel)) {}

  void on_attach(Extent extent) override { on_resize(extent); }

  void on_detach() override {
    m_resources.clear();
    m_texture = GlTexture();
  }

  void on_resize(Extent extent) override {
    const std::vector<ResourceDesc> descs = compute().resources(extent);
    const ResourceDesc& image = descs.at(static_cast<size_t>(compute().draw_plan().image_resource));
    m_extent = extent;
    m_texture = GlTexture();  // freed first: at 8K it is 133 MB
    m_texture = resource_texture(static_cast<size_t>(compute().draw_plan().image_resource), image.width,
                                 image.height, "pattern image");
    m_resources = {gl_resource_spec(image, m_texture.get())};
  }

  GLuint frame_image() const override { return m_texture.get(); }

 protected:
  void recreate_resources() override { on_resize(m_extent); }

 private:
  Extent m_extent;
  GlTexture m_texture;
};

}  // namespace

std::unique_ptr<Scene> create_pattern_scene() {
  return std::make_unique<PatternScene>();
}

}  // namespace lab
