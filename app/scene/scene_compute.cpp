// app/scene/scene_compute.cpp — the three scenes' compute in no graphics API's terms
// (app/scene/scene_compute.hpp): their resources, their kernels and CPU references, the postprocess filter's
// scratch memory and panel controls, and the draw data every backend draws with (the wave's grid and camera,
// the cube mesh and where the postprocess scene's cubes stand at a given time).
#include "app/scene/scene_compute.hpp"

#include "app/os/out_of_memory.hpp"
#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "kernels/pattern.hpp"
#include "kernels/wave.hpp"

#include <glm/gtc/constants.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <array>
#include <cmath>
#include <new>
#include <stdexcept>
#include <utility>

namespace lab {

// Two triangles per grid cell, counter-clockwise seen from above.
std::vector<uint32_t> wave_mesh_indices() {
  std::vector<uint32_t> indices;
  indices.reserve(static_cast<size_t>(kWaveGrid - 1) * (kWaveGrid - 1) * 6);
  for (int j = 0; j + 1 < kWaveGrid; ++j) {
    for (int i = 0; i + 1 < kWaveGrid; ++i) {
      const uint32_t a = static_cast<uint32_t>(j * kWaveGrid + i);
      const uint32_t b = a + 1;
      const uint32_t c = a + static_cast<uint32_t>(kWaveGrid);
      const uint32_t d = c + 1;
      indices.insert(indices.end(), {a, c, b, b, c, d});
    }
  }
  return indices;
}

glm::mat4 wave_view_projection(Extent extent) {
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  const glm::mat4 projection = glm::perspective(glm::radians(45.0f), aspect, 0.1f, 20.0f);
  const glm::mat4 view =
      glm::lookAt(glm::vec3(0.0f, 1.5f, 2.2f), glm::vec3(0.0f, -0.1f, 0.0f), glm::vec3(0.0f, 1.0f, 0.0f));
  return projection * view;
}

// A unit cube, four vertices per face so each face has its own normal.
CubeMesh cube_mesh() {
  CubeMesh mesh;
  const std::array<std::array<float, 3>, 6> normals = {
      {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}};
  for (const auto& n : normals) {
    // Two axes spanning the face, chosen so (u x v) == n keeps the winding counter-clockwise.
    const glm::vec3 normal(n[0], n[1], n[2]);
    const glm::vec3 u =
        std::abs(normal.y) > 0.5f ? glm::vec3(0, 0, normal.y) : glm::vec3(-normal.z, 0, normal.x);
    const glm::vec3 v = glm::cross(normal, u);
    const uint32_t base = static_cast<uint32_t>(mesh.vertices.size());
    for (const auto& [a, b] :
         {std::pair{-1.f, -1.f}, std::pair{1.f, -1.f}, std::pair{1.f, 1.f}, std::pair{-1.f, 1.f}}) {
      const glm::vec3 p = 0.5f * (normal + a * u + b * v);
      mesh.vertices.push_back({{p.x, p.y, p.z}, {normal.x, normal.y, normal.z}});
    }
    mesh.indices.insert(mesh.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  return mesh;
}

CubesView cubes_view(Extent extent, float time) {
  CubesView view;
  view.eye = glm::vec3(0.0f, 2.2f, 4.2f);
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  view.view_projection = glm::perspective(glm::radians(45.0f), aspect, 0.1f, 50.0f) *
                         glm::lookAt(view.eye, glm::vec3(0.0f, 0.3f, 0.0f), glm::vec3(0.0f, 1.0f, 0.0f));
  // The floor: a flat, wide cube.
  view.cubes.push_back({glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, -0.55f, 0.0f)),
                                   glm::vec3(8.0f, 0.1f, 8.0f)),
                        glm::vec3(0.35f, 0.37f, 0.40f)});
  constexpr int kCubes = 7;
  for (int i = 0; i < kCubes; ++i) {
    const float angle = time * 0.6f + static_cast<float>(i) * glm::two_pi<float>() / kCubes;
    glm::mat4 model =
        glm::translate(glm::mat4(1.0f), glm::vec3(1.6f * std::cos(angle), 0.0f, 1.6f * std::sin(angle)));
    model = glm::rotate(model, time * (0.8f + 0.15f * static_cast<float>(i)), glm::vec3(0.3f, 1.0f, 0.2f));
    model = glm::scale(model, glm::vec3(0.6f));
    const float hue = static_cast<float>(i) / kCubes;
    view.cubes.push_back({model, glm::vec3(0.5f + 0.5f * std::cos(6.2832f * hue),
                                           0.5f + 0.5f * std::cos(6.2832f * (hue - 0.33f)),
                                           0.5f + 0.5f * std::cos(6.2832f * (hue - 0.67f)))});
  }
  view.cubes.push_back(
      {glm::rotate(glm::scale(glm::mat4(1.0f), glm::vec3(0.9f)), time * 0.4f, glm::vec3(0, 1, 0)),
       glm::vec3(0.9f, 0.9f, 0.85f)});
  return view;
}

ResourceDesc frame_sized_texture(const char* label, ResourceRole role, Extent extent) {
  ResourceDesc desc;
  desc.label = label;
  desc.kind = ResourceKind::Texture2D;
  desc.role = role;
  desc.width = extent.width;
  desc.height = extent.height;
  desc.bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  return desc;
}

kernels::ImageTarget linear_image(void* pixels, size_t pitch, Extent extent) {
  return kernels::linear_target(static_cast<kernels::Rgba8*>(pixels), pitch, extent.width, extent.height);
}

kernels::ImageTarget cuda_target(const CudaResourceView& view, Extent extent) {
  if (view.surface != 0) return kernels::surface_target(view.surface, extent.width, extent.height);
  return linear_image(view.pointer, view.pitch, extent);
}

namespace {

// The `wave` scene: a kWaveGrid x kWaveGrid height field whose vertex buffer (positions + normals) the
// kernels rewrite every frame.
class WaveCompute final : public SceneCompute {
 public:
  SceneId id() const override { return SceneId::Wave; }

  std::vector<ResourceDesc> resources(Extent) const override {
    ResourceDesc desc;
    desc.label = "vertex buffer";
    desc.kind = ResourceKind::Buffer;
    desc.role = ResourceRole::Output;
    desc.bytes = sizeof(kernels::WaveVertex) * kWaveGrid * kWaveGrid;
    return {desc};
  }

  // The mesh does not depend on the frame's size: a resize only changes the camera's aspect ratio.
  bool resize_recreates_resources() const override { return false; }

  DrawPlan draw_plan() const override { return lit_mesh_plan(0); }

  void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream) override {
    kernels::wave_cuda(static_cast<kernels::WaveVertex*>(views[0].pointer), wave_params(frame), stream);
  }

  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override {
    kernels::wave_cpu(static_cast<kernels::WaveVertex*>(views[0].pointer), wave_params(frame));
  }

 private:
  static kernels::WaveParams wave_params(const FrameInfo& frame) {
    kernels::WaveParams params;
    params.grid_x = kWaveGrid;
    params.grid_z = kWaveGrid;
    params.time = frame.time;
    return params;
  }
};

// The `pattern` scene: an image the size of the frame that the kernels rewrite every frame; the image
// is the frame itself.
class PatternCompute final : public SceneCompute {
 public:
  SceneId id() const override { return SceneId::Pattern; }

  std::vector<ResourceDesc> resources(Extent extent) const override {
    return {frame_sized_texture("pattern texture", ResourceRole::Output, extent)};
  }

  bool resize_recreates_resources() const override { return true; }

  DrawPlan draw_plan() const override { return show_image_plan(0); }

  void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream) override {
    kernels::pattern_cuda(cuda_target(views[0], frame.extent), pattern_params(frame), stream);
  }

  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override {
    kernels::pattern_cpu(linear_image(views[0].pointer, views[0].pitch, frame.extent), pattern_params(frame));
  }

 private:
  static kernels::PatternParams pattern_params(const FrameInfo& frame) {
    return {frame.extent.width, frame.extent.height, frame.time};
  }
};

// The `postprocess` scene: lit cubes rendered by the graphics API into one image (the Input), which the
// kernels filter — Sobel edges or a separable Gaussian blur — into a second one (the Output), the frame.
class PostprocessCompute final : public SceneCompute {
 public:
  explicit PostprocessCompute(kernels::Filter filter) { m_params.filter = filter; }

  SceneId id() const override { return SceneId::Postprocess; }

  std::vector<ResourceDesc> resources(Extent extent) const override {
    return {frame_sized_texture("rendered scene", ResourceRole::Input, extent),
            frame_sized_texture("filtered image", ResourceRole::Output, extent)};
  }

  bool resize_recreates_resources() const override { return true; }

  DrawPlan draw_plan() const override {
    DrawPlan plan = show_image_plan(1);
    plan.cubes_target = 0;
    return plan;
  }

  void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream) override {
    const Extent extent = frame.extent;
    const size_t scratch_bytes = kernels::postprocess_scratch_bytes(extent.width, extent.height);
    int device = -1;
    INTEROP_CUDA_CHECK(cudaGetDevice(&device));  // the split mode runs the kernels on its compute device
    if (m_scratch.size() != scratch_bytes || m_scratch.device() != device) {
      m_scratch = interop::DeviceBuffer();  // freed first: at 8K the old scratch is 500 MB
      m_scratch = interop::DeviceBuffer(scratch_bytes);
    }
    kernels::postprocess_cuda(cuda_source(views[0], extent), cuda_target(views[1], extent), m_params,
                              static_cast<kernels::Vec4*>(m_scratch.data()), stream);
  }

  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override {
    const int width = frame.extent.width, height = frame.extent.height;
    const size_t scratch_bytes = kernels::postprocess_scratch_bytes(width, height);
    try {
      m_host_scratch.resize(scratch_bytes / sizeof(kernels::Vec4));
    } catch (const std::bad_alloc&) {
      throw_out_of_memory("the cpu filter's scratch image", scratch_bytes);
    }
    kernels::postprocess_cpu(
        kernels::linear_source(static_cast<const kernels::Rgba8*>(views[0].pointer), views[0].pitch, width,
                               height),
        kernels::linear_target(static_cast<kernels::Rgba8*>(views[1].pointer), views[1].pitch, width, height),
        m_params, m_host_scratch.data());
  }

  void release_scratch() override {
    m_scratch = interop::DeviceBuffer();
    m_host_scratch = {};
  }

  std::optional<kernels::Filter> filter() const override { return m_params.filter; }
  bool set_filter(kernels::Filter filter) override {
    m_params.filter = filter;
    return true;
  }
  std::optional<int> blur_radius() const override { return m_params.blur_radius; }
  bool set_blur_radius(int radius) override {
    if (radius < 0 || radius > kernels::kMaxBlurRadius) return false;
    m_params.blur_radius = radius;
    return true;
  }

 private:
  // The mapped or imported texture itself (interop, reregister) or linear memory (pbo, staging).
  static kernels::ImageSource cuda_source(const CudaResourceView& view, Extent extent) {
    if (view.texture != 0) return kernels::texture_source(view.texture, extent.width, extent.height);
    return kernels::linear_source(static_cast<const kernels::Rgba8*>(view.pointer), view.pitch, extent.width,
                                  extent.height);
  }

  kernels::PostprocessParams m_params;
  interop::DeviceBuffer m_scratch;            // the blur's intermediate rows, on the device
  std::vector<kernels::Vec4> m_host_scratch;  // the same for the CPU reference
};

}  // namespace

std::unique_ptr<SceneCompute> create_scene_compute(SceneId id, kernels::Filter filter) {
  switch (id) {
    case SceneId::Wave:
      return std::make_unique<WaveCompute>();
    case SceneId::Pattern:
      return std::make_unique<PatternCompute>();
    case SceneId::Postprocess:
      return std::make_unique<PostprocessCompute>(filter);
  }
  throw std::invalid_argument("unknown scene");
}

}  // namespace lab
