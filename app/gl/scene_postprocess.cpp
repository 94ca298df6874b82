// app/gl/scene_postprocess.cpp — the `postprocess` scene in GL: GL renders the lit, rotating cubes over a
// floor (cubes_view in app/scene/scene_compute.cpp) into a texture; the kernels read that texture (through a
// texture object in interop mode) and write the filtered image — Sobel edges or a separable Gaussian
// blur — into a second texture (through a surface object), which is the frame itself
// (Scene::frame_image). Both textures are the size of the framebuffer: a resize re-creates them.
#include "app/gl/gl_objects.hpp"
#include "app/gl/scene.hpp"

#include <glm/gtc/type_ptr.hpp>

#include <cstdint>
#include <vector>

namespace lab {
namespace {

class PostprocessScene final : public ComputedScene {
 public:
  explicit PostprocessScene(kernels::Filter filter)
      : ComputedScene(create_scene_compute(SceneId::Postprocess, filter)) {}

  void on_attach(Extent extent) override {
    const CubeMesh mesh = cube_mesh();
    m_index_count = static_cast<GLsizei>(mesh.indices.size());
    m_vertices =
        create_buffer(mesh.vertices.size() * sizeof(LitVertex), mesh.vertices.data(), 0, "cubes vertices");
    m_indices =
        create_buffer(mesh.indices.size() * sizeof(uint32_t), mesh.indices.data(), 0, "cubes indices");
    m_mesh = create_vertex_array("cubes");
    const GLuint vao = m_mesh.get();
    glVertexArrayVertexBuffer(vao, 0, m_vertices.get(), 0, sizeof(LitVertex));
    glVertexArrayElementBuffer(vao, m_indices.get());
    for (GLuint attribute : {0u, 1u}) {
      glEnableVertexArrayAttrib(vao, attribute);
      glVertexArrayAttribFormat(vao, attribute, 3, GL_FLOAT, GL_FALSE, attribute * 3 * sizeof(float));
      glVertexArrayAttribBinding(vao, attribute, 0);
    }
    m_lit = create_program("lit.vert", "lit.frag");
    on_resize(extent);
  }

  void on_detach() override {
    m_resources.clear();
    compute().release_scratch();
    m_filtered = GlTexture();
    m_rendered = OffscreenTarget();
    m_lit = GlProgram();
    m_mesh = GlVertexArray();
    m_indices = GlBuffer();
    m_vertices = GlBuffer();
  }

  void on_resize(Extent extent) override {
    m_extent = extent;
    const DrawPlan plan = compute().draw_plan();
    const std::vector<ResourceDesc> descs = compute().resources(extent);
    // Freed before the new ones are made: at 8K each is 133 MB.
    m_rendered = OffscreenTarget();
    m_filtered = GlTexture();
    m_rendered =
        create_offscreen_target(resource_texture(static_cast<size_t>(plan.cubes_target), extent.width,
                                                 extent.height, "postprocess input colour"),
                                extent.width, extent.height, "postprocess input");
    m_filtered = resource_texture(static_cast<size_t>(plan.image_resource), extent.width, extent.height,
                                  "postprocess output");
    m_resources.clear();
    for (size_t i = 0; i < descs.size(); ++i) {
      const int index = static_cast<int>(i);
      const GLuint name = index == plan.cubes_target     ? m_rendered.color.get()
                          : index == plan.image_resource ? m_filtered.get()
                                                         : 0;
      m_resources.push_back(gl_resource_spec(descs[i], name));
    }
    compute().release_scratch();  // re-allocated at the new size on the next frame
  }

  void recreate_resources() override { on_resize(m_extent); }

  // The 3D scene, into the texture the kernels read.
  void prepare(const FrameInfo& frame) override {
    glBindFramebuffer(GL_FRAMEBUFFER, m_rendered.framebuffer.get());
    glViewport(0, 0, m_extent.width, m_extent.height);
    glClearColor(kCubesClearColor[0], kCubesClearColor[1], kCubesClearColor[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    glUseProgram(m_lit.get());
    const CubesView view = cubes_view(m_extent, frame.time);
    glUniformMatrix4fv(0, 1, GL_FALSE, glm::value_ptr(view.view_projection));
    glUniform3fv(3, 1, glm::value_ptr(view.eye));
    glBindVertexArray(m_mesh.get());
    for (const CubeInstance& cube : view.cubes) {
      glUniformMatrix4fv(1, 1, GL_FALSE, glm::value_ptr(cube.model));
      glUniform3fv(2, 1, glm::value_ptr(cube.color));
      glDrawElements(GL_TRIANGLES, m_index_count, GL_UNSIGNED_INT, nullptr);
    }
    glBindVertexArray(0);
    glDisable(GL_CULL_FACE);
    glDisable(GL_DEPTH_TEST);
  }

  bool has_prepare() const override { return true; }
  GLuint frame_image() const override { return m_filtered.get(); }

 private:
  Extent m_extent;
  GlBuffer m_vertices;
  GlBuffer m_indices;
  GlVertexArray m_mesh;
  GLsizei m_index_count = 0;
  GlProgram m_lit;
  OffscreenTarget m_rendered;
  GlTexture m_filtered;
};

}  // namespace

std::unique_ptr<Scene> create_postprocess_scene(kernels::Filter filter) {
  return std::make_unique<PostprocessScene>(filter);
}

}  // namespace lab
