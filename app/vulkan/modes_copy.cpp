// app/vulkan/modes_copy.cpp — the Vulkan backend's copying modes, shared with the Direct3D backends:
// `cpu` (app/modes/cpu_mode.hpp: the CPU reference writes host memory, which Renderer::upload copies into the
// resources; no CUDA at all) and `staging` (app/modes/staging_mode.hpp: the kernels write cudaMalloc memory,
// which comes to pinned host memory and is uploaded from there). What the kernels read comes the other
// way, Renderer::download after the cubes pass, timed as "vulkan copy".
#include "app/modes/cpu_mode.hpp"
#include "app/modes/staging_mode.hpp"
#include "app/vulkan/modes.hpp"

namespace lab::vulkan {

std::unique_ptr<Mode> create_cpu_mode() {
  return std::make_unique<CpuMode<Renderer>>(Phase::VulkanCopy);
}
std::unique_ptr<Mode> create_staging_mode(const CudaContext& cuda) {
  return std::make_unique<StagingMode<Renderer>>(cuda.stream, Phase::VulkanCopy);
}

}  // namespace lab::vulkan
