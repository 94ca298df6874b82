// app/null/renderer.hpp — the null backend's device and renderer: the frame loop with no graphics driver,
// as bgfx's noop renderer runs its API. The scene's resources are host memory; the copying modes (cpu,
// staging) upload into it and download from it as into any API's resources. The passes draw nothing: they
// count what they were asked, so a test sees the loop's calls. read_frame() is a ShowImage plan's image,
// top row first (the frame every API shows for it), else the frame cleared to kClearColor.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/image/image_io.hpp"
#include "app/modes/mode.hpp"
#include "app/scene/scene_compute.hpp"

#include <glm/mat4x4.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace lab::null {

// No driver: nothing to open.
struct Device {
  std::string name = "null device (no graphics driver)";
};

// One resource of the scene, in host memory.
struct Resource {
  ResourceDesc desc;
  std::vector<uint8_t> bytes;
};

class Renderer {
 public:
  using PassSync = NoPassSync;

  Renderer(Device& device, Extent extent);

  Extent extent() const { return m_extent; }
  void resize(Extent extent) { m_extent = extent; }

  // The scene's resources, zeroed, in FrameSource::resources() order; `importable` means nothing here.
  void create_resources(const std::vector<ResourceDesc>& descs, bool importable);
  void destroy_resources() { m_resources.clear(); }
  const std::vector<Resource>& resources() const { return m_resources; }
  // The copying modes: desc.bytes into or out of resources()[index].
  void upload(int index, const void* data);
  void download(int index, void* data) const;

  // Count the passes; nothing is drawn.
  void draw_cubes(int target, const CubesView& view, const PassSync& sync);
  void draw_frame(const DrawPlan& plan, const glm::mat4& view_projection, const PassSync& sync);
  // A ShowImage plan's image, top row first; any other plan's frame at extent(), cleared to kClearColor.
  Image read_frame(const DrawPlan& plan) const;
  void wait_idle() {}  // nothing is ever in flight

  long long cubes_passes() const { return m_cubes_passes; }
  long long frame_passes() const { return m_frame_passes; }

 private:
  Resource& resource(int index);
  const Resource& resource(int index) const;

  Extent m_extent;
  std::vector<Resource> m_resources;
  long long m_cubes_passes = 0;
  long long m_frame_passes = 0;
};

}  // namespace lab::null
