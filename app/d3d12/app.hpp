// app/d3d12/app.hpp — interop-lab on Direct3D 12 (--api d3d12): app/core/app.hpp's App over the
// Direct3D 12 device, renderer, modes and window output (app/d3d12/renderer.hpp, app/d3d12/modes.hpp,
// app/d3d12/presenter.hpp). Windows 10 or later.
#pragma once

#include "app/core/app.hpp"
#include "app/core/cli.hpp"
#include "app/d3d/backend.hpp"
#include "app/d3d12/modes.hpp"
#include "app/d3d12/presenter.hpp"
#include "app/d3d12/renderer.hpp"

#include <memory>
#include <string>

namespace lab::d3d12 {

// What app/core/app.hpp's App needs of Direct3D 12.
struct Direct3D12 : d3d::Backend<GraphicsApi::D3d12, Device, DeviceDesc, d3d12::create_device> {
  using Renderer = d3d12::Renderer;

  static ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda,
                                            const std::string& cuda_error) {
    return d3d12::mode_availability(mode, cuda, cuda_error);
  }
  static std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
    return d3d12::create_mode(id, cuda);
  }
  static std::unique_ptr<d3d::Presenter> create_presenter(Renderer& renderer, Device& device,
                                                          glfw::Window& window, Extent extent, bool with_ui,
                                                          bool vsync) {
    return std::make_unique<d3d12::Presenter>(renderer, device, d3d::hwnd(window), extent, with_ui, vsync);
  }
};

using App = core::App<Direct3D12>;

}  // namespace lab::d3d12
