// app/d3d11/cuda_modes.cpp — the factory of the Direct3D 11 backend's CUDA modes and what decides whether
// they run (cuda_modes.hpp): app/d3d/mode_factory.hpp's create_cuda_mode and cuda_mode_availability for
// d3d11::Renderer. staging is app/modes/staging_mode.hpp's, as every copying backend's.
#include "app/d3d11/cuda_modes.hpp"

#include "app/d3d/d3d_handoff.hpp"
#include "app/modes/mode_table.hpp"
#include "app/modes/staging_mode.hpp"
#include "interop/d3d11.hpp"

#include <algorithm>
#include <vector>

namespace lab {
namespace d3d11 {

std::unique_ptr<Mode> create_interop_mode(ModeId id, const CudaContext& cuda);  // interop, reregister
std::unique_ptr<Mode> create_external_mode(const CudaContext& cuda);

}  // namespace d3d11

namespace {

// Direct3D 11's CUDA modes (cpu is every API's, made by app/d3d/mode_factory.hpp): a row each.
struct D3d11ModeRow {
  ModeId id;
  std::unique_ptr<d3d11::Mode> (*create)(const CudaContext& cuda);
};

const D3d11ModeRow kD3d11CudaModes[] = {
    {ModeId::Interop,
     [](const CudaContext& cuda) { return d3d11::create_interop_mode(ModeId::Interop, cuda); }},
    {ModeId::Reregister,
     [](const CudaContext& cuda) { return d3d11::create_interop_mode(ModeId::Reregister, cuda); }},
    {ModeId::Staging,
     [](const CudaContext& cuda) -> std::unique_ptr<d3d11::Mode> {
       return std::make_unique<StagingMode<d3d11::Renderer>>(cuda.stream);
     }},
    {ModeId::External, d3d11::create_external_mode},
};

}  // namespace

template <>
std::unique_ptr<d3d11::Mode> d3d::create_cuda_mode<d3d11::Renderer>(ModeId id, const CudaContext& cuda) {
  if (const D3d11ModeRow* row = mode_row_of(kD3d11CudaModes, id)) return row->create(cuda);
  return nullptr;
}

template <>
ModeAvailability d3d::cuda_mode_availability<d3d11::Renderer>(ModeId id, const CudaContext& cuda,
                                                              const std::string& cuda_error,
                                                              const d3d11::Device* device) {
  return lab::cuda_mode_availability(
      GraphicsApi::D3d11, id, cuda.device, cuda_error, device != nullptr ? &device->adapter : nullptr,
      [&](const CudaAdapterFacts&) {
        const std::vector<int> devices = interop::cuda_devices_of(device->device.Get());
        return std::find(devices.begin(), devices.end(), cuda.device) != devices.end();
      });
}

}  // namespace lab
