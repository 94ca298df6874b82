// app/d3d11/app.hpp — interop-lab on Direct3D 11 (--api d3d11): app/d3d/app.hpp's App over the
// Direct3D 11 device, renderer, modes and window output (app/d3d11/renderer.hpp, app/d3d11/modes.hpp,
// app/d3d11/presenter.hpp). Windows only.
#pragma once

#include "app/core/cli.hpp"
#include "app/d3d/app.hpp"
#include "app/d3d11/modes.hpp"
#include "app/d3d11/presenter.hpp"
#include "app/d3d11/renderer.hpp"

#include <memory>
#include <string>

namespace lab::d3d11 {

// What app/d3d/app.hpp's App needs of Direct3D 11.
struct Direct3D11 {
  static constexpr GraphicsApi kApi = GraphicsApi::D3d11;
  using Device = d3d11::Device;
  using DeviceDesc = d3d11::DeviceDesc;
  using Renderer = d3d11::Renderer;
  using Mode = d3d11::Mode;

  static Device create_device(const DeviceDesc& desc) { return d3d11::create_device(desc); }
  static ModeAvailability mode_availability(ModeId mode, const CudaContext& cuda,
                                            const std::string& cuda_error) {
    return d3d11::mode_availability(mode, cuda, cuda_error);
  }
  static std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda) {
    return d3d11::create_mode(id, cuda);
  }
  static std::unique_ptr<d3d::Presenter> create_presenter(Renderer& renderer, Device& device, HWND window,
                                                          Extent extent, bool with_ui, bool vsync) {
    (void)device;  // the renderer's
    return std::make_unique<Presenter>(renderer, window, extent, with_ui, vsync);
  }
};

using App = d3d::App<Direct3D11>;

// main()'s entry for --api d3d11: App(options).run().
int run_app(const Options& options);

}  // namespace lab::d3d11
