// app/null/backend.hpp — the null backend: app/loop/app.hpp's frame loop with no graphics driver, the way
// bgfx's noop renderer runs bgfx. Its device opens nothing, its renderer keeps the scene's resources in host
// memory and counts its passes (app/null/renderer.hpp), and its modes are the ones that need no graphics
// API: cpu, and staging where there is a CUDA device. The loop's own work (the switches, the fallbacks, the
// timing, the animation clock, the desk's state) runs as it does on a GPU, so tests drive it anywhere, and
// `--api none` (Backend<GraphicsApi::None>) serves pictures to the desk from a machine with no GL or Vulkan.
// `Api` is the API whose list of modes the loop offers (the panel, the page, the next-mode key); every mode
// of it but cpu and staging is refused, saying why. Headless only: there is nothing to present.
#pragma once

#include "app/cli/cli.hpp"
#include "app/core/vocabulary.hpp"
#include "app/glfw/window.hpp"
#include "app/modes/backend.hpp"
#include "app/modes/cpu_mode.hpp"
#include "app/modes/mode.hpp"
#include "app/modes/staging_mode.hpp"
#include "app/null/renderer.hpp"
#include "app/timing/timing.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

struct ImDrawData;

namespace lab::null {

// Never made: the null backend runs headless (create_device refuses a window).
class Presenter {
 public:
  void begin_ui_frame() {}
  void draw(const DrawPlan&, ImDrawData*) {}
  Image read_back_buffer() const { return {}; }
  void present() {}
  void resize(Extent) {}
  bool vsync() const { return false; }
  void set_vsync(bool) {}
};

inline constexpr const char* kNoSharedResources =
    "the null backend has no graphics resources for CUDA to share; cpu and staging run on it";

template <GraphicsApi Api = GraphicsApi::Vulkan>
struct Backend : BackendDefaults {
  static constexpr GraphicsApi kApi = Api;
  static constexpr bool kSemaphoreChoice = false;
  using Device = null::Device;
  using Renderer = null::Renderer;
  using Presenter = null::Presenter;

  static std::unique_ptr<Device> create_device(const CudaContext&, glfw::Window* window, const Options&) {
    if (window != nullptr)
      throw std::runtime_error("the null backend draws nothing to show: run it headless");
    return std::make_unique<Device>();
  }
  static std::string device_name(const Device& device) { return device.name; }
  static std::unique_ptr<GpuTimerQueries> timer_queries(Renderer&) { return nullptr; }
  static std::string graphics_untimed(const Renderer&) { return "the null backend draws nothing"; }
  static std::vector<std::pair<std::string, std::string>> status_lines(const Device&, const Presenter*) {
    return {};
  }
  static ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda,
                                            const std::string& cuda_error, const CudaProbe& = {}) {
    if (mode == cpu_mode()) return {true, ""};
    if (mode != copy_mode()) return {false, kNoSharedResources};
    if (cuda.device < 0) return {false, cuda_error.empty() ? "no CUDA device" : cuda_error};
    return {true, ""};
  }
  static std::unique_ptr<Mode<Renderer>> create_mode(ModeId id, const CudaContext& cuda) {
    if (const ModeAvailability runs = mode_availability(id, cuda, ""); !runs.available)
      throw std::runtime_error(std::string(to_string(id)) + " is unavailable: " + runs.reason);
    // Uploads into host memory are done when upload returns: timed as the copy phase of the API it stands
    // in for.
    constexpr Phase copy = Api == GraphicsApi::Vulkan ? Phase::VulkanCopy
                           : Api == GraphicsApi::None ? Phase::HostCopy
                                                      : Phase::GlCopy;
    if (id == cpu_mode()) return std::make_unique<CpuMode<Renderer>>(copy, true);
    return std::make_unique<StagingMode<Renderer>>(cuda.stream, copy, true);
  }
  static std::unique_ptr<Presenter> create_presenter(Renderer&, Device&, glfw::Window&, Extent, bool, bool) {
    return std::make_unique<Presenter>();
  }
  static glfw::WindowDesc window_desc(Extent extent) {
    glfw::WindowDesc desc;
    desc.extent = extent;
    desc.title = "interop-lab (null backend)";
    return desc;
  }
};

}  // namespace lab::null
