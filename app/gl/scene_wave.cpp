// app/gl/scene_wave.cpp — the `wave` scene in GL: the vertex buffer of the 256x256 height field, which the
// kernels (app/scene/scene_compute.cpp) rewrite every frame, drawn lit with the scene's fixed camera.
#include "app/gl/gl_objects.hpp"
#include "app/gl/scene.hpp"
#include "kernels/wave.hpp"

#include <glm/gtc/type_ptr.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lab {
namespace {

class WaveScene final : public ComputedScene {
 public:
  WaveScene() : ComputedScene(create_scene_compute(SceneId::Wave, kernels::Filter::Sobel)) {}

  void on_attach(Extent extent) override {
    m_extent = extent;
    const std::vector<uint32_t> indices = wave_mesh_indices();
    m_index_count = static_cast<GLsizei>(indices.size());
    m_indices = create_buffer(indices.size() * sizeof(uint32_t), indices.data(), 0, "wave indices");

    m_vertex_array = create_vertex_array("wave mesh");
    const GLuint vao = m_vertex_array.get();
    glVertexArrayElementBuffer(vao, m_indices.get());
    glEnableVertexArrayAttrib(vao, 0);
    glVertexArrayAttribFormat(vao, 0, 3, GL_FLOAT, GL_FALSE, offsetof(kernels::WaveVertex, position));
    glVertexArrayAttribBinding(vao, 0, 0);
    glEnableVertexArrayAttrib(vao, 1);
    glVertexArrayAttribFormat(vao, 1, 3, GL_FLOAT, GL_FALSE, offsetof(kernels::WaveVertex, normal));
    glVertexArrayAttribBinding(vao, 1, 0);
    m_program = create_program("wave.vert", "wave.frag");
    recreate_resources();
  }

  void on_detach() override {
    m_resources.clear();
    m_program = GlProgram();
    m_vertex_array = GlVertexArray();
    m_indices = GlBuffer();
    m_vertices = GlBuffer();
  }

  // The mesh does not depend on the window (resize_recreates_resources() is false): a resize only
  // changes the camera's aspect ratio, which render() computes each frame.
  void on_resize(Extent) override {}

  // The vertex buffer the kernels write, bound to the mesh's vertex array.
  void recreate_resources() override {
    const std::vector<ResourceDesc> descs = compute().resources(m_extent);
    const size_t index = static_cast<size_t>(compute().draw_plan().mesh_resource);
    m_vertices = GlBuffer();
    m_vertices = resource_buffer(index, descs.at(index).bytes, GL_DYNAMIC_STORAGE_BIT, "wave vertices");
    glVertexArrayVertexBuffer(m_vertex_array.get(), 0, m_vertices.get(), 0, sizeof(kernels::WaveVertex));
    m_resources = {gl_resource_spec(descs.at(index), m_vertices.get())};
  }

  void render(const FrameInfo& frame) override {
    glClearColor(kClearColor[0], kClearColor[1], kClearColor[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glUseProgram(m_program.get());
    const glm::mat4 view_projection = wave_view_projection(frame.extent);
    glUniformMatrix4fv(0, 1, GL_FALSE, glm::value_ptr(view_projection));
    glBindVertexArray(m_vertex_array.get());
    glDrawElements(GL_TRIANGLES, m_index_count, GL_UNSIGNED_INT, nullptr);
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
  }

 private:
  Extent m_extent;
  GlBuffer m_vertices;
  GlBuffer m_indices;
  GlVertexArray m_vertex_array;
  GlProgram m_program;
  GLsizei m_index_count = 0;
};

}  // namespace

std::unique_ptr<Scene> create_wave_scene() {
  return std::make_unique<WaveScene>();
}

}  // namespace lab
