// app/d3d12/app/app.hpp — interop-lab on Direct3D 12 (--api d3d12): app/loop/app.hpp's App over app/d3d's
// Backend (app/d3d/backend.hpp: the device, the mode factory, the window) with the Direct3D 12 renderer,
// CUDA modes and window output (app/d3d12/renderer.hpp, app/d3d12/cuda_modes.hpp,
// app/d3d12/presenter.hpp). Windows 10 or later.
#pragma once

#include "app/d3d/backend.hpp"
#include "app/d3d12/cuda_modes.hpp"
#include "app/d3d12/presenter.hpp"
#include "app/d3d12/renderer.hpp"
#include "app/loop/app.hpp"

namespace lab::d3d12 {

// What app/loop/app.hpp's App needs of Direct3D 12.
using Direct3D12 = d3d::Backend<GraphicsApi::D3d12, Renderer, Presenter, DeviceDesc, create_device>;

using App = loop::App<Direct3D12>;

}  // namespace lab::d3d12
