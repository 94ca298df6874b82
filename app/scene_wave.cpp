// app/scene_wave.cpp — the `wave` scene: a 256x256 height-field mesh whose vertex buffer (positions
// + normals) the kernels rewrite every frame; GL draws it lit, with a fixed camera.
#include "app/scene_wave.hpp"

#include "app/gl_objects.hpp"
#include "app/scene.hpp"
#include "kernels/wave.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include <cstdint>
#include <vector>

namespace lab {

glm::mat4 wave_view_projection(Extent extent) {
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  const glm::mat4 projection = glm::perspective(glm::radians(45.0f), aspect, 0.1f, 20.0f);
  const glm::mat4 view = glm::lookAt(glm::vec3(0.0f, 1.5f, 2.2f), glm::vec3(0.0f, -0.1f, 0.0f),
                                     glm::vec3(0.0f, 1.0f, 0.0f));
  return projection * view;
}

namespace {

kernels::WaveParams wave_params(const FrameInfo& frame) {
  kernels::WaveParams params;
  params.grid_x = kWaveGrid;
  params.grid_z = kWaveGrid;
  params.time = frame.time;
  return params;
}

// Two triangles per grid cell, counter-clockwise seen from above.
std::vector<uint32_t> grid_indices(int grid_x, int grid_z) {
  std::vector<uint32_t> indices;
  indices.reserve(static_cast<size_t>(grid_x - 1) * (grid_z - 1) * 6);
  for (int j = 0; j + 1 < grid_z; ++j) {
    for (int i = 0; i + 1 < grid_x; ++i) {
      const uint32_t a = static_cast<uint32_t>(j * grid_x + i);
      const uint32_t b = a + 1;
      const uint32_t c = a + static_cast<uint32_t>(grid_x);
      const uint32_t d = c + 1;
      indices.insert(indices.end(), {a, c, b, b, c, d});
    }
  }
  return indices;
}

class WaveScene final : public Scene {
 public:
  SceneId id() const override { return SceneId::Wave; }

  void on_attach(Extent) override {
    const size_t vertex_bytes = sizeof(kernels::WaveVertex) * kWaveGrid * kWaveGrid;
    m_vertices = create_buffer(vertex_bytes, nullptr, GL_DYNAMIC_STORAGE_BIT, "wave vertices");
    const std::vector<uint32_t> indices = grid_indices(kWaveGrid, kWaveGrid);
    m_index_count = static_cast<GLsizei>(indices.size());
    m_indices = create_buffer(indices.size() * sizeof(uint32_t), indices.data(), 0, "wave indices");

    m_vertex_array = create_vertex_array("wave mesh");
    const GLuint vao = m_vertex_array.get();
    glVertexArrayVertexBuffer(vao, 0, m_vertices.get(), 0, sizeof(kernels::WaveVertex));
    glVertexArrayElementBuffer(vao, m_indices.get());
    glEnableVertexArrayAttrib(vao, 0);
    glVertexArrayAttribFormat(vao, 0, 3, GL_FLOAT, GL_FALSE, offsetof(kernels::WaveVertex, position));
    glVertexArrayAttribBinding(vao, 0, 0);
    glEnableVertexArrayAttrib(vao, 1);
    glVertexArrayAttribFormat(vao, 1, 3, GL_FLOAT, GL_FALSE, offsetof(kernels::WaveVertex, normal));
    glVertexArrayAttribBinding(vao, 1, 0);
    m_program = create_program("wave.vert", "wave.frag");

    ResourceSpec spec;
    spec.label = "vertex buffer";
    spec.kind = ResourceKind::Buffer;
    spec.role = ResourceRole::Output;
    spec.gl_name = m_vertices.get();
    spec.bytes = vertex_bytes;
    m_resources = {spec};
  }

  void on_detach() override {
    m_resources.clear();
    m_program = GlProgram();
    m_vertex_array = GlVertexArray();
    m_indices = GlBuffer();
    m_vertices = GlBuffer();
  }

  // The mesh does not depend on the window: a resize only changes the camera's aspect ratio.
  bool resize_recreates_resources() const override { return false; }
  void on_resize(Extent) override {}

  const std::vector<ResourceSpec>& resources() const override { return m_resources; }

  void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream) override {
    kernels::wave_cuda(static_cast<kernels::WaveVertex*>(views[0].pointer), wave_params(frame), stream);
  }

  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override {
    kernels::wave_cpu(static_cast<kernels::WaveVertex*>(views[0].pointer), wave_params(frame));
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
  GlBuffer m_vertices;
  GlBuffer m_indices;
  GlVertexArray m_vertex_array;
  GlProgram m_program;
  GLsizei m_index_count = 0;
  std::vector<ResourceSpec> m_resources;
};

}  // namespace

std::unique_ptr<Scene> create_wave_scene() { return std::make_unique<WaveScene>(); }

}  // namespace lab
