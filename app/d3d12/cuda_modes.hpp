// app/d3d12/cuda_modes.hpp — the Direct3D 12 backend's CUDA modes, which create_mode makes in a CUDA
// build, and whether they can run here:
//   staging   the kernels write cudaMalloc memory, copied through pinned host memory
//   app/core/staging_mode.hpp external  shared committed resources and a shared fence imported into CUDA
//   once; each
//             frame is ordered by fence values on the queue and the stream             mode_external.cpp
// Needs the CUDA runtime and the interop library.
#pragma once

#include "app/d3d12/modes.hpp"

#include <memory>
#include <string>

namespace lab::d3d12 {

// As app/d3d11/cuda_modes.hpp's: nullptr for cpu and for modes D3D12 does not have; the device is on the
// CUDA device when its adapter's LUID is the CUDA device's (cudaDeviceProp::luid).
std::unique_ptr<Mode> create_cuda_mode(ModeId id, const CudaContext& cuda);
ModeAvailability cuda_mode_availability(ModeId id, const CudaContext& cuda, const std::string& cuda_error,
                                        const Device* device = nullptr);

}  // namespace lab::d3d12
