// app/d3d11/app/app.hpp — interop-lab on Direct3D 11 (--api d3d11): app/loop/app.hpp's App over app/d3d's
// Backend (app/d3d/backend.hpp: the device, the mode factory, the window) with the Direct3D 11 renderer,
// CUDA modes and window output (app/d3d11/renderer.hpp, app/d3d11/cuda_modes.hpp,
// app/d3d11/presenter.hpp). Windows only.
#pragma once

#include "app/d3d/backend.hpp"
#include "app/d3d11/cuda_modes.hpp"
#include "app/d3d11/presenter.hpp"
#include "app/d3d11/renderer.hpp"
#include "app/loop/app.hpp"

namespace lab::d3d11 {

// What app/loop/app.hpp's App needs of Direct3D 11.
using Direct3D11 = d3d::Backend<GraphicsApi::D3d11, Renderer, Presenter, DeviceDesc, create_device>;

using App = loop::App<Direct3D11>;

}  // namespace lab::d3d11
