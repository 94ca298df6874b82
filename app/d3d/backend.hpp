// app/d3d/backend.hpp — what app/loop/app.hpp's one frame loop needs of Direct3D, once for both APIs
// (app/d3d11/app/app.hpp, app/d3d12/app/app.hpp name theirs with their renderer, presenter and device): the
// device on the CUDA device's adapter (matched by LUID), the mode factory (app/d3d/mode_factory.hpp: cpu, and
// the API's CUDA modes), the window output, the window's title, what the panel shows of the swap chain and of
// timing, and the doctor's report for the panel. Windows only; needs the CUDA runtime's API (the build
// without CUDA links a runtime that finds no device).
#pragma once

#include "app/cli/cli.hpp"
#include "app/core/vocabulary.hpp"
#include "app/d3d/mode_factory.hpp"
#include "app/d3d/window.hpp"
#include "app/doctor/doctor.hpp"
#include "app/glfw/window.hpp"
#include "app/modes/backend.hpp"
#include "app/modes/mode.hpp"
#include "app/timing/timing.hpp"
#include "interop/error.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab::d3d {

// The adapter of CUDA device `device` (cudaDeviceProp::luid): Direct3D resources CUDA registers or imports
// must live on the CUDA device's own GPU.
inline std::array<unsigned char, 8> luid_of_cuda_device(int device) {
  cudaDeviceProp properties{};
  INTEROP_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  std::array<unsigned char, 8> luid{};
  static_assert(sizeof(properties.luid) == luid.size(), "CUDA's LUID is not a DXGI LUID");
  std::memcpy(luid.data(), properties.luid, luid.size());
  return luid;
}

// `Renderer` draws on its Renderer::Device, which `create` makes; `ApiPresenter` is the API's Presenter
// (app/d3d/window.hpp), made from the renderer, its device, the window's HWND, the extent, with_ui and vsync.
template <GraphicsApi Api, class RendererType, class ApiPresenter, class DeviceDesc,
          typename RendererType::Device (*create)(const DeviceDesc&)>
struct Backend : BackendDefaults {
  static constexpr GraphicsApi kApi = Api;
  static constexpr bool kSemaphoreChoice = false;  // the external modes' hand-overs are their links' business
  using Renderer = RendererType;
  using Device = typename Renderer::Device;
  using Presenter = d3d::Presenter;

  // On the CUDA device's adapter where there is one, else the default one.
  static std::unique_ptr<Device> create_device(const CudaContext& cuda, const glfw::Window* /*window*/,
                                               const Options& /*options: none are Direct3D's own*/) {
    DeviceDesc desc;
    if (cuda.device >= 0) desc.adapter_luid = luid_of_cuda_device(cuda.device);
    return std::make_unique<Device>(create(desc));
  }
  static std::string device_name(const Device& device) { return device.adapter; }
  // Whether `mode` runs on this API here (cuda_error: why there is no CUDA device, when there is none).
  static ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda,
                                            const std::string& cuda_error, const CudaProbe& = {}) {
    return judge_mode<Renderer>(Api, mode, cuda, cuda_error);
  }
  // The mode `id`; throws std::runtime_error with the reason when it is unavailable.
  static std::unique_ptr<Mode<Renderer>> create_mode(ModeId id, const CudaContext& cuda) {
    return make_mode<Renderer>(id, mode_availability(id, cuda, ""), cuda);
  }
  static std::unique_ptr<Presenter> create_presenter(Renderer& renderer, Device& device, glfw::Window& window,
                                                     Extent extent, bool with_ui, bool vsync) {
    return std::make_unique<ApiPresenter>(renderer, device, hwnd(window), extent, with_ui, vsync);
  }
  static std::unique_ptr<GpuTimerQueries> timer_queries(Renderer&) { return nullptr; }
  static std::string graphics_untimed(const Renderer&) {
    return "the Direct3D renderers have no timer queries yet";
  }
  static std::vector<std::pair<std::string, std::string>> status_lines(const Device&,
                                                                       const Presenter* presenter) {
    if (presenter == nullptr) return {};
    return {{"vsync", presenter->vsync() ? "on" : "off"}};
  }
  // The doctor's report for the panel's doctor section, as --doctor makes it: this build's sources (DXGI's
  // adapters, and what each Direct3D API creates on them) opened beside the app, with the app's CUDA device.
  static DoctorReport doctor_report(const CudaContext& cuda, Device&,
                                    const std::vector<DoctorSource>& sources) {
    return collect_doctor_report_beside(cuda.device, cuda.compute_device, cuda.split_copy, sources);
  }
  static glfw::WindowDesc window_desc(Extent extent) {
    glfw::WindowDesc desc;
    desc.extent = extent;
    desc.title = std::string("interop-lab (") + display_name(Api) + ")";
    return desc;
  }
};

}  // namespace lab::d3d
