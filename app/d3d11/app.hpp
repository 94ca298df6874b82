// app/d3d11/app.hpp — interop-lab on Direct3D 11 (--api d3d11): app/core/app.hpp's App over the
// Direct3D 11 device, renderer, modes and window output (app/d3d11/renderer.hpp, app/d3d11/modes.hpp,
// app/d3d11/presenter.hpp). Windows only.
#pragma once

#include "app/core/app.hpp"
#include "app/core/cli.hpp"
#include "app/d3d/backend.hpp"
#include "app/d3d11/modes.hpp"
#include "app/d3d11/presenter.hpp"
#include "app/d3d11/renderer.hpp"

#include <memory>
#include <string>

namespace lab::d3d11 {

// What app/core/app.hpp's App needs of Direct3D 11.
struct Direct3D11 : d3d::Backend<GraphicsApi::D3d11, Device, DeviceDesc, d3d11::create_device> {
  using Renderer = d3d11::Renderer;

  static ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda,
                                            const std::string& cuda_error) {
    return d3d11::mode_availability(mode, cuda, cuda_error);
  }
  static std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
    return d3d11::create_mode(id, cuda);
  }
  static std::unique_ptr<d3d::Presenter> create_presenter(Renderer& renderer,
                                                          Device& /*device: the renderer's*/,
                                                          glfw::Window& window, Extent extent, bool with_ui,
                                                          bool vsync) {
    return std::make_unique<d3d11::Presenter>(renderer, d3d::hwnd(window), extent, with_ui, vsync);
  }
};

using App = core::App<Direct3D11>;

}  // namespace lab::d3d11
