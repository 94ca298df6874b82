// app/vulkan/app/app.hpp — interop-lab on Vulkan (--api vulkan): app/loop/app.hpp's App over the Vulkan
// device (the CUDA device's own, matched by UUID, where there is one), the Vulkan renderer, its modes
// (app/vulkan/modes.hpp) and the presenter (app/vulkan/presenter.hpp) in a window. --bench measures its
// modes (app/vulkan/app/bench.hpp). Tests drive it frame by frame.
#pragma once

#include "app/cli/cli.hpp"
#include "app/doctor/doctor.hpp"
#include "app/loop/app.hpp"
#include "app/modes/backend.hpp"
#include "app/vulkan/device.hpp"
#include "app/vulkan/modes.hpp"
#include "app/vulkan/presenter.hpp"
#include "app/vulkan/renderer.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lab::vulkan {

// What app/loop/contract.hpp asks of Vulkan; the optional verbs are app/modes/backend.hpp's defaults.
struct Vulkan : BackendDefaults {
  static constexpr GraphicsApi kApi = GraphicsApi::Vulkan;
  static constexpr bool kSemaphoreChoice = true;  // timeline or binary semaphores (--semaphores)
  using Device = Context;
  using Renderer = vulkan::Renderer;
  using Presenter = vulkan::Presenter;

  // The CUDA device's own GPU, so CUDA can import what Vulkan exports; without CUDA, the first device. In a
  // window, with the instance extensions its surface needs.
  static std::unique_ptr<Context> create_device(const CudaContext& cuda, const glfw::Window* window,
                                                const Options& options);
  static std::string device_name(const Context& context) { return context.info().name; }
  static std::unique_ptr<GpuTimerQueries> timer_queries(Renderer& renderer) {
    return renderer.timer_queries();
  }
  static std::string graphics_untimed(const Renderer& renderer) { return renderer.timestamp_reason(); }
  static std::vector<std::pair<std::string, std::string>> status_lines(const Context& context,
                                                                       const Presenter* presenter);
  static ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda,
                                            const std::string& cuda_error, const CudaProbe& = {}) {
    return vulkan::mode_availability(mode, cuda, cuda_error);
  }
  static std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
    return vulkan::create_mode(id, cuda);
  }
  // The doctor's report for the panel's tab and the page, as --doctor makes it: every source of this build,
  // GL's judged on a headless context of its own beside the app's Vulkan device.
  static DoctorReport doctor_report(const CudaContext& cuda, Context&,
                                    const std::vector<DoctorSource>& sources) {
    return collect_doctor_report_beside(cuda.device, cuda.compute_device, cuda.split_copy, sources);
  }
  static std::unique_ptr<Presenter> create_presenter(Renderer& renderer, Context& context,
                                                     glfw::Window& window, Extent extent, bool with_ui,
                                                     bool vsync);
  static glfw::WindowDesc window_desc(Extent extent);
};

using App = loop::App<Vulkan>;

}  // namespace lab::vulkan
