// app/d3d11/cuda_modes.hpp — the Direct3D 11 backend's CUDA modes, which create_mode makes in a CUDA
// build, and whether they can run here:
//   interop     each resource registered once (cudaGraphicsD3D11RegisterResource), mapped and unmapped
//               every frame on the stream                                                mode_interop.cpp
//   reregister  the same, registered and unregistered every frame (what it costs)         mode_interop.cpp
//   staging     the kernels write cudaMalloc memory, copied through pinned host memory
//   app/core/staging_mode.hpp external    keyed-mutex shared resources imported into CUDA once, handed over
//   with
//               their keyed mutexes every frame                                         mode_external.cpp
// Needs the CUDA runtime (and on Windows its cuda_d3d11_interop.h) and the interop library.
#pragma once

#include "app/d3d11/modes.hpp"

#include <memory>
#include <string>

namespace lab::d3d11 {

// The CUDA mode `id` on `cuda`; nullptr for cpu and for modes D3D11 does not have. Attach checks what
// cuda_mode_availability checks, with the renderer's device, and throws its reason.
std::unique_ptr<Mode> create_cuda_mode(ModeId id, const CudaContext& cuda);

// Whether `id` can run with `cuda` (cuda_error: why there is no CUDA device) and, once it exists,
// `device` (nullptr: not created yet, only the CUDA side is judged): app/d3d/d3d_handoff.hpp's rules, with
// the D3D11 device on the CUDA device when cudaD3D11GetDevices names it.
ModeAvailability cuda_mode_availability(ModeId id, const CudaContext& cuda, const std::string& cuda_error,
                                        const Device* device = nullptr);

}  // namespace lab::d3d11
