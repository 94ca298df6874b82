// app/d3d/d3d_handoff.cpp — the Direct3D-free rules of the Direct3D backends' CUDA modes (d3d_handoff.hpp).
#include "app/d3d/d3d_handoff.hpp"
#include "app/cli/remedy.hpp"

#include <cstring>
#include <stdexcept>

namespace lab {

CudaAdapterFacts cuda_device_facts(int device, const std::string& cuda_error) {
  CudaAdapterFacts facts;
  facts.cuda_error = cuda_error;
  if (device < 0) return facts;
  cudaDeviceProp properties{};
  const cudaError_t error = cudaGetDeviceProperties(&properties, device);
  if (error != cudaSuccess) {
    cudaGetLastError();  // answered here; not sticky for the next call
    facts.cuda_error = "cudaGetDeviceProperties(" + std::to_string(device) + "): " + cudaGetErrorName(error);
    return facts;
  }
  facts.cuda_device = device;
  facts.cuda_name = std::string(properties.name) + " (CUDA device " + std::to_string(device) + ")";
  facts.tcc_driver = properties.tccDriver != 0;
  std::memcpy(facts.cuda_luid.data(), properties.luid, facts.cuda_luid.size());
  return facts;
}

ModeAvailability cuda_mode_availability(GraphicsApi api, ModeId mode, const CudaAdapterFacts& facts) {
  const std::string name = std::string(to_string(mode));
  if (!has_mode(api, mode)) return {false, name + " is not a mode of --api " + to_string(api)};
  if (is_cpu_mode(mode)) return {true, ""};
  if (facts.cuda_device < 0) return {false, no_cuda_device_reason(facts.cuda_error)};
  if (!shares_graphics_memory(mode)) return {true, ""};
  const std::string api_name = display_name(api);
  if (facts.tcc_driver)
    return {false, facts.cuda_name + " runs the TCC (or MCDM) driver, which has no graphics: " + api_name +
                       " cannot share memory with it, so " + name +
                       " cannot work; switch the GPU to WDDM (nvidia-smi -g N -dm 0, then reboot) or use "
                       "--mode staging"};
  if (facts.has_graphics_device && !facts.graphics_on_cuda_device)
    return {false, "the " + api_name + " device renders on " + facts.adapter + ", not on " + facts.cuda_name +
                       ": " + name + " needs both on the same GPU; create the " + api_name +
                       " device on that GPU's adapter (its LUID) or use --mode staging"};
  return {true, ""};
}

void throw_if_unavailable(ModeId mode, const ModeAvailability& availability) {
  if (!availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(mode) +
                             " is unavailable: " + availability.reason);
}

const std::vector<KeyedMutexStep>& keyed_mutex_steps(KeyedMutexPhase phase) {
  static const std::vector<KeyedMutexStep> attach = {{MutexSide::Direct3D, MutexOp::Acquire, 0}};
  static const std::vector<KeyedMutexStep> before = {{MutexSide::Direct3D, MutexOp::Release, 0},
                                                     {MutexSide::Cuda, MutexOp::Acquire, 0}};
  static const std::vector<KeyedMutexStep> after = {{MutexSide::Cuda, MutexOp::Release, 1},
                                                    {MutexSide::Direct3D, MutexOp::Acquire, 1}};
  static const std::vector<KeyedMutexStep> detach = {{MutexSide::Direct3D, MutexOp::Release, 0}};
  switch (phase) {
    case KeyedMutexPhase::Attach:
      return attach;
    case KeyedMutexPhase::BeforeKernels:
      return before;
    case KeyedMutexPhase::AfterKernels:
      return after;
    case KeyedMutexPhase::Detach:
      return detach;
  }
  return detach;
}

FenceFrame FenceTimeline::next_frame() {
  FenceFrame frame;
  frame.graphics_signal = ++m_value;
  frame.cuda_wait = frame.graphics_signal;
  frame.cuda_signal = ++m_value;
  frame.graphics_wait = frame.cuda_signal;
  return frame;
}

uint64_t FenceTimeline::next_teardown() {
  return ++m_value;
}

interop::ExternalMemoryDesc shared_resource_import(interop::ExternalHandleType type, void* handle,
                                                   uint64_t allocation_size) {
  interop::ExternalMemoryDesc desc;
  desc.type = type;
  desc.win32_handle = handle;
  desc.size = allocation_size;
  desc.dedicated = true;
  return desc;
}

}  // namespace lab
