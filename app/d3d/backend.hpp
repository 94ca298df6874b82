// app/d3d/backend.hpp — what the Direct3D 11 and 12 backends of the one frame loop (app/core/app.hpp) say
// alike (app/d3d11/app.hpp, app/d3d12/app.hpp derive from it): the device on the CUDA device's adapter
// (matched by LUID), the window's title, and what the panel shows of the swap chain and of timing. Windows
// only; needs the CUDA runtime's API (the build without CUDA links a runtime that finds no device).
#pragma once

#include "app/core/mode.hpp"
#include "app/core/vocabulary.hpp"
#include "app/d3d/window.hpp"
#include "app/glfw/window.hpp"
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

template <GraphicsApi Api, class DeviceType, class DeviceDesc, DeviceType (*create)(const DeviceDesc&)>
struct Backend {
  static constexpr GraphicsApi kApi = Api;
  static constexpr bool kSemaphoreChoice = false;  // the external modes' hand-overs are their links' business
  using Device = DeviceType;
  using Presenter = d3d::Presenter;

  // On the CUDA device's adapter where there is one, else the default one.
  static std::unique_ptr<Device> create_device(const CudaContext& cuda, const glfw::Window* /*window*/) {
    DeviceDesc desc;
    if (cuda.device >= 0) desc.adapter_luid = luid_of_cuda_device(cuda.device);
    return std::make_unique<Device>(create(desc));
  }
  static std::string device_name(const Device& device) { return device.adapter; }
  template <class Renderer>
  static std::unique_ptr<GpuTimerQueries> timer_queries(Renderer&) {
    return nullptr;
  }
  template <class Renderer>
  static std::string graphics_untimed(const Renderer&) {
    return "the Direct3D renderers have no timer queries yet";
  }
  static std::vector<std::pair<std::string, std::string>> status_lines(const Device&,
                                                                       const Presenter* presenter) {
    if (presenter == nullptr) return {};
    return {{"vsync", presenter->vsync() ? "on" : "off"}};
  }
  static glfw::WindowDesc window_desc(Extent extent) {
    glfw::WindowDesc desc;
    desc.extent = extent;
    desc.title = std::string("interop-lab (") + display_name(Api) + ")";
    return desc;
  }
};

}  // namespace lab::d3d
