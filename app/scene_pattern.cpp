// app/scene_pattern.cpp — the `pattern` scene: a texture the size of the framebuffer that the kernels
// rewrite every frame (through a surface object in interop mode). The texture is the frame itself
// (Scene::frame_image): the scene draws nothing. A resize re-creates it, so the mode re-registers it.
#include "app/gl_objects.hpp"
#include "app/scene.hpp"
#include "kernels/pattern.hpp"

namespace lab {
namespace {

class PatternScene final : public Scene {
 public:
  SceneId id() const override { return SceneId::Pattern; }

  void on_attach(Extent extent) override { on_resize(extent); }

  void on_detach() override {
    m_resources.clear();
    m_texture = GlTexture();
  }

  bool resize_recreates_resources() const override { return true; }

  void on_resize(Extent extent) override {
    m_extent = extent;
    m_texture = create_texture_2d(GL_RGBA8, extent.width, extent.height, "pattern image");
    ResourceSpec spec;
    spec.label = "pattern texture";
    spec.kind = ResourceKind::Texture2D;
    spec.role = ResourceRole::Output;
    spec.gl_name = m_texture.get();
    spec.width = extent.width;
    spec.height = extent.height;
    spec.bytes = static_cast<size_t>(extent.width) * extent.height * 4;
    spec.internal_format = GL_RGBA8;
    m_resources = {spec};
  }

  const std::vector<ResourceSpec>& resources() const override { return m_resources; }

  void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream) override {
    kernels::pattern_cuda(cuda_target(views[0]), pattern_params(frame), stream);
  }

  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override {
    kernels::pattern_cpu(linear_image(views[0].pointer, views[0].pitch), pattern_params(frame));
  }

  GLuint frame_image() const override { return m_texture.get(); }

 private:
  kernels::PatternParams pattern_params(const FrameInfo& frame) const {
    return {m_extent.width, m_extent.height, frame.time};
  }

  // The mapped texture itself when the mode gives a surface, else the linear copy it gives instead.
  kernels::ImageTarget cuda_target(const CudaResourceView& view) const {
    if (view.surface != 0) return kernels::surface_target(view.surface, m_extent.width, m_extent.height);
    return linear_image(view.pointer, view.pitch);
  }

  kernels::ImageTarget linear_image(void* pixels, size_t pitch) const {
    return kernels::linear_target(static_cast<kernels::Rgba8*>(pixels), pitch, m_extent.width,
                                  m_extent.height);
  }

  Extent m_extent;
  GlTexture m_texture;
  std::vector<ResourceSpec> m_resources;
};

}  // namespace

std::unique_ptr<Scene> create_pattern_scene() { return std::make_unique<PatternScene>(); }

}  // namespace lab
