// kernels/pattern.cu — CUDA launchers of the pattern scene: one thread per texel, written through a
// surface object or into linear memory. Both use pattern_texel, like the CPU reference.
#include "kernels/pattern.hpp"

namespace kernels {
namespace {

__global__ void pattern_surface_kernel(cudaSurfaceObject_t surface, PatternParams params) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= params.width || y >= params.height) return;
  const Rgba8 c = pattern_texel(x, y, params);
  surf2Dwrite(make_uchar4(c.r, c.g, c.b, c.a), surface, x * static_cast<int>(sizeof(uchar4)), y);
}

__global__ void pattern_linear_kernel(PitchedImage image, PatternParams params) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= params.width || y >= params.height) return;
  row(image, y)[x] = pattern_texel(x, y, params);
}

dim3 grid_for(int width, int height, dim3 block) {
  return dim3((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
}

}  // namespace

void pattern_cuda_surface(cudaSurfaceObject_t surface, const PatternParams& params, cudaStream_t stream) {
  const dim3 block(32, 8);
  pattern_surface_kernel<<<grid_for(params.width, params.height, block), block, 0, stream>>>(surface, params);
}

void pattern_cuda_linear(PitchedImage image, const PatternParams& params, cudaStream_t stream) {
  const dim3 block(32, 8);
  pattern_linear_kernel<<<grid_for(params.width, params.height, block), block, 0, stream>>>(image, params);
}

}  // namespace kernels
