// app/d3d/mode_factory.hpp — what the Direct3D mode factories share (modes.cpp in a build with CUDA,
// cpu_only.cpp in one without; one pair per API): how a mode is judged and made. cpu runs everywhere; the
// CUDA modes are judged by the API's cuda_mode_availability (app/d3d11/cuda_modes.hpp,
// app/d3d12/cuda_modes.hpp), or, in a build without CUDA, refused saying so.
#pragma once

#include "app/core/cpu_mode.hpp"
#include "app/core/vocabulary.hpp"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace lab::d3d {

// What a build without CUDA says of a CUDA mode: it needs a build with CUDA.
ModeAvailability without_cuda(ModeId mode);

// `mode` on `api`: not one of its modes, cpu (always available), or a CUDA mode judged by `judge_cuda`.
inline ModeAvailability judge_mode(GraphicsApi api, ModeId mode,
                                   const std::function<ModeAvailability()>& judge_cuda) {
  if (!has_mode(api, mode))
    return {false, std::string(to_string(mode)) + " is not a mode of --api " + to_string(api)};
  if (mode == ModeId::Cpu) return {true, ""};
  return judge_cuda();
}

// The mode `id` as judged by `availability` (std::runtime_error with the reason when it is not available):
// cpu is app/core/cpu_mode.hpp's over `Renderer`, the CUDA modes are made by `make_cuda` (null in a build
// without CUDA, whose availability refuses them).
template <class Renderer>
std::unique_ptr<Mode<Renderer>> make_mode(ModeId id, const ModeAvailability& availability,
                                          const std::function<std::unique_ptr<Mode<Renderer>>()>& make_cuda) {
  if (!availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(id) +
                             " is unavailable: " + availability.reason);
  std::unique_ptr<Mode<Renderer>> mode;
  if (id == ModeId::Cpu)
    mode = std::make_unique<CpuMode<Renderer>>();
  else if (make_cuda)
    mode = make_cuda();
  if (!mode)
    throw std::logic_error(std::string("mode_availability passed ") + to_string(id) +
                           " but no factory makes it");
  return mode;
}

}  // namespace lab::d3d
