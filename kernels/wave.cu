// kernels/wave.cu — CUDA launcher of the wave scene: one thread per vertex.
#include "kernels/wave.hpp"

namespace kernels {
namespace {

__global__ void wave_kernel(WaveVertex* vertices, WaveParams params) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= params.grid_x || j >= params.grid_z) return;
  vertices[j * params.grid_x + i] = wave_vertex(i, j, params);
}

}  // namespace

void wave_cuda(WaveVertex* vertices, const WaveParams& params, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((params.grid_x + block.x - 1) / block.x, (params.grid_z + block.y - 1) / block.y);
  wave_kernel<<<grid, block, 0, stream>>>(vertices, params);
}

}  // namespace kernels
