// app/d3d12/cuda_modes.cpp — the factory of the Direct3D 12 backend's CUDA modes and what decides whether
// they run (cuda_modes.hpp): app/d3d/mode_factory.hpp's create_cuda_mode and cuda_mode_availability for
// d3d12::Renderer. staging is app/modes/staging_mode.hpp's, as every copying backend's.
#include "app/d3d12/cuda_modes.hpp"

#include "app/d3d/d3d_handoff.hpp"
#include "app/modes/mode_table.hpp"
#include "app/modes/staging_mode.hpp"

#include <cstring>

namespace lab {
namespace d3d12 {

std::unique_ptr<Mode> create_external_mode(const CudaContext& cuda);

}  // namespace d3d12

namespace {

// Direct3D 12's CUDA modes (cpu is every API's, made by app/d3d/mode_factory.hpp): a row each.
struct D3d12ModeRow {
  ModeId id;
  std::unique_ptr<d3d12::Mode> (*create)(const CudaContext& cuda);
};

const D3d12ModeRow kD3d12CudaModes[] = {
    {ModeId::Staging,
     [](const CudaContext& cuda) -> std::unique_ptr<d3d12::Mode> {
       return std::make_unique<StagingMode<d3d12::Renderer>>(cuda.stream);
     }},
    {ModeId::External, d3d12::create_external_mode},
};

}  // namespace

template <>
std::unique_ptr<d3d12::Mode> d3d::create_cuda_mode<d3d12::Renderer>(ModeId id, const CudaContext& cuda) {
  if (const D3d12ModeRow* row = mode_row_of(kD3d12CudaModes, id)) return row->create(cuda);
  return nullptr;  // cpu, and the modes Direct3D 12 does not have
}

template <>
ModeAvailability d3d::cuda_mode_availability<d3d12::Renderer>(ModeId id, const CudaContext& cuda,
                                                              const std::string& cuda_error,
                                                              const d3d12::Device* device) {
  // CUDA has no D3D12 device query: the adapter's LUID is the CUDA device's, or it is another GPU.
  return lab::cuda_mode_availability(GraphicsApi::D3d12, id, cuda.device, cuda_error,
                                     device != nullptr ? &device->adapter : nullptr,
                                     [&](const CudaAdapterFacts& facts) {
                                       const LUID luid = device->device->GetAdapterLuid();
                                       return std::memcmp(&luid, facts.cuda_luid.data(), sizeof luid) == 0;
                                     });
}

}  // namespace lab
