// app/scene_postprocess.cpp — the `postprocess` scene: GL renders lit, rotating cubes over a floor into
// a texture; the kernels read that texture (through a texture object in interop mode) and write a
// filtered image — Sobel edges or a separable Gaussian blur — into a second texture (through a surface
// object), which is the frame itself (Scene::frame_image). Both textures are the size of the
// framebuffer: a resize re-creates them.
#include "app/gl_objects.hpp"
#include "app/out_of_memory.hpp"
#include "app/scene.hpp"
#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "kernels/postprocess.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <imgui.h>

#include <array>
#include <cstdint>
#include <new>
#include <vector>

namespace lab {
namespace {

struct LitVertex {
  float position[3];
  float normal[3];
};

// A unit cube, four vertices per face so each face has its own normal.
void cube_mesh(std::vector<LitVertex>& vertices, std::vector<uint32_t>& indices) {
  const std::array<std::array<float, 3>, 6> normals = {
      {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}};
  for (const auto& n : normals) {
    // Two axes spanning the face, chosen so (u x v) == n keeps the winding counter-clockwise.
    const glm::vec3 normal(n[0], n[1], n[2]);
    const glm::vec3 u = std::abs(normal.y) > 0.5f ? glm::vec3(0, 0, normal.y) : glm::vec3(-normal.z, 0, normal.x);
    const glm::vec3 v = glm::cross(normal, u);
    const uint32_t base = static_cast<uint32_t>(vertices.size());
    for (const auto& [a, b] : {std::pair{-1.f, -1.f}, std::pair{1.f, -1.f}, std::pair{1.f, 1.f}, std::pair{-1.f, 1.f}}) {
      const glm::vec3 p = 0.5f * (normal + a * u + b * v);
      vertices.push_back({{p.x, p.y, p.z}, {normal.x, normal.y, normal.z}});
    }
    indices.insert(indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
}

constexpr glm::vec3 kEye(0.0f, 2.2f, 4.2f);

class PostprocessScene final : public Scene {
 public:
  explicit PostprocessScene(kernels::Filter filter) { m_params.filter = filter; }

  SceneId id() const override { return SceneId::Postprocess; }

  void on_attach(Extent extent) override {
    std::vector<LitVertex> vertices;
    std::vector<uint32_t> indices;
    cube_mesh(vertices, indices);
    m_index_count = static_cast<GLsizei>(indices.size());
    m_vertices = create_buffer(vertices.size() * sizeof(LitVertex), vertices.data(), 0, "cubes vertices");
    m_indices = create_buffer(indices.size() * sizeof(uint32_t), indices.data(), 0, "cubes indices");
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
    m_scratch = interop::DeviceBuffer();
    m_host_scratch = {};
    m_filtered = GlTexture();
    m_rendered = OffscreenTarget();
    m_lit = GlProgram();
    m_mesh = GlVertexArray();
    m_indices = GlBuffer();
    m_vertices = GlBuffer();
  }

  bool resize_recreates_resources() const override { return true; }

  void on_resize(Extent extent) override {
    m_extent = extent;
    m_rendered = create_offscreen_target(extent.width, extent.height, "postprocess input");
    m_filtered = create_texture_2d(GL_RGBA8, extent.width, extent.height, "postprocess output");
    const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
    ResourceSpec input;
    input.label = "rendered scene";
    input.kind = ResourceKind::Texture2D;
    input.role = ResourceRole::Input;
    input.gl_name = m_rendered.color.get();
    input.width = extent.width;
    input.height = extent.height;
    input.bytes = bytes;
    ResourceSpec output = input;
    output.label = "filtered image";
    output.role = ResourceRole::Output;
    output.gl_name = m_filtered.get();
    m_resources = {input, output};
    m_scratch = interop::DeviceBuffer();  // re-allocated at the new size on the next CUDA frame
    m_host_scratch.clear();
  }

  const std::vector<ResourceSpec>& resources() const override { return m_resources; }

  void compute_cuda(const FrameInfo&, const std::vector<CudaResourceView>& views, cudaStream_t stream) override {
    const size_t scratch_bytes = kernels::postprocess_scratch_bytes(m_extent.width, m_extent.height);
    int device = -1;
    INTEROP_CUDA_CHECK(cudaGetDevice(&device));  // the split mode runs the kernels on its compute device
    if (m_scratch.size() != scratch_bytes || m_scratch.device() != device) {
      m_scratch = interop::DeviceBuffer();  // freed first: at 8K the old scratch is 500 MB
      m_scratch = interop::DeviceBuffer(scratch_bytes);
    }
    kernels::postprocess_cuda(cuda_source(views[0]), cuda_target(views[1]), m_params,
                              static_cast<kernels::Vec4*>(m_scratch.data()), stream);
  }

  void compute_cpu(const FrameInfo&, const std::vector<HostResourceView>& views) override {
    const size_t scratch_bytes = kernels::postprocess_scratch_bytes(m_extent.width, m_extent.height);
    try {
      m_host_scratch.resize(scratch_bytes / sizeof(kernels::Vec4));
    } catch (const std::bad_alloc&) {
      throw_out_of_memory("the cpu filter's scratch image", scratch_bytes);
    }
    const int width = m_extent.width, height = m_extent.height;
    kernels::postprocess_cpu(
        kernels::linear_source(static_cast<const kernels::Rgba8*>(views[0].pointer), views[0].pitch, width, height),
        kernels::linear_target(static_cast<kernels::Rgba8*>(views[1].pointer), views[1].pitch, width, height),
        m_params, m_host_scratch.data());
  }

  // The 3D scene, into the texture the kernels read.
  void prepare(const FrameInfo& frame) override {
    glBindFramebuffer(GL_FRAMEBUFFER, m_rendered.framebuffer.get());
    glViewport(0, 0, m_extent.width, m_extent.height);
    glClearColor(0.10f, 0.11f, 0.14f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    glUseProgram(m_lit.get());
    const float aspect = static_cast<float>(m_extent.width) / static_cast<float>(m_extent.height);
    const glm::mat4 view_projection = glm::perspective(glm::radians(45.0f), aspect, 0.1f, 50.0f) *
                                      glm::lookAt(kEye, glm::vec3(0.0f, 0.3f, 0.0f), glm::vec3(0.0f, 1.0f, 0.0f));
    glUniformMatrix4fv(0, 1, GL_FALSE, glm::value_ptr(view_projection));
    glUniform3fv(3, 1, glm::value_ptr(kEye));
    glBindVertexArray(m_mesh.get());
    // The floor: a flat, wide cube.
    draw_cube(glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, -0.55f, 0.0f)), glm::vec3(8.0f, 0.1f, 8.0f)),
              glm::vec3(0.35f, 0.37f, 0.40f));
    constexpr int kCubes = 7;
    for (int i = 0; i < kCubes; ++i) {
      const float angle = frame.time * 0.6f + static_cast<float>(i) * glm::two_pi<float>() / kCubes;
      glm::mat4 model = glm::translate(glm::mat4(1.0f), glm::vec3(1.6f * std::cos(angle), 0.0f, 1.6f * std::sin(angle)));
      model = glm::rotate(model, frame.time * (0.8f + 0.15f * static_cast<float>(i)), glm::vec3(0.3f, 1.0f, 0.2f));
      model = glm::scale(model, glm::vec3(0.6f));
      const float hue = static_cast<float>(i) / kCubes;
      draw_cube(model, glm::vec3(0.5f + 0.5f * std::cos(6.2832f * hue), 0.5f + 0.5f * std::cos(6.2832f * (hue - 0.33f)),
                                 0.5f + 0.5f * std::cos(6.2832f * (hue - 0.67f))));
    }
    draw_cube(glm::rotate(glm::scale(glm::mat4(1.0f), glm::vec3(0.9f)), frame.time * 0.4f, glm::vec3(0, 1, 0)),
              glm::vec3(0.9f, 0.9f, 0.85f));
    glBindVertexArray(0);
    glDisable(GL_CULL_FACE);
    glDisable(GL_DEPTH_TEST);
  }

  bool has_prepare() const override { return true; }
  GLuint frame_image() const override { return m_filtered.get(); }

  void on_ui() override {
    ImGui::TextUnformatted("filter");
    for (const kernels::FilterName& filter : kernels::kFilterNames) {
      ImGui::SameLine();
      if (ImGui::RadioButton(filter.name, m_params.filter == filter.value)) m_params.filter = filter.value;
    }
    if (m_params.filter == kernels::Filter::Blur) ImGui::SliderInt("radius", &m_params.blur_radius, 1, 16);
  }

 private:
  // The mapped texture itself (interop, reregister) or linear memory (pbo, staging).
  kernels::ImageSource cuda_source(const CudaResourceView& view) const {
    if (view.texture != 0) return kernels::texture_source(view.texture, m_extent.width, m_extent.height);
    return kernels::linear_source(static_cast<const kernels::Rgba8*>(view.pointer), view.pitch, m_extent.width,
                                  m_extent.height);
  }

  kernels::ImageTarget cuda_target(const CudaResourceView& view) const {
    if (view.surface != 0) return kernels::surface_target(view.surface, m_extent.width, m_extent.height);
    return kernels::linear_target(static_cast<kernels::Rgba8*>(view.pointer), view.pitch, m_extent.width,
                                  m_extent.height);
  }

  void draw_cube(const glm::mat4& model, const glm::vec3& color) {
    glUniformMatrix4fv(1, 1, GL_FALSE, glm::value_ptr(model));
    glUniform3fv(2, 1, glm::value_ptr(color));
    glDrawElements(GL_TRIANGLES, m_index_count, GL_UNSIGNED_INT, nullptr);
  }

  kernels::PostprocessParams m_params;
  Extent m_extent;
  GlBuffer m_vertices;
  GlBuffer m_indices;
  GlVertexArray m_mesh;
  GLsizei m_index_count = 0;
  GlProgram m_lit;
  OffscreenTarget m_rendered;
  GlTexture m_filtered;
  std::vector<ResourceSpec> m_resources;
  interop::DeviceBuffer m_scratch;           // the blur's intermediate rows, on the device
  std::vector<kernels::Vec4> m_host_scratch;  // the same for the CPU reference
};

}  // namespace

std::unique_ptr<Scene> create_postprocess_scene(kernels::Filter filter) {
  return std::make_unique<PostprocessScene>(filter);
}

}  // namespace lab
