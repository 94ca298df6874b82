// kernels/blit.cu — CUDA launcher of a picture's copy into the frame: one thread per texel.
#include "kernels/blit.hpp"

namespace kernels {
namespace {

__global__ void blit_kernel(ImageTarget target, BlitParams params) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= target.width || y >= target.height) return;
  store(target, x, y, blit_texel(x, y, target.width, target.height, params));
}

}  // namespace

void blit_cuda(ImageTarget target, const BlitParams& params, cudaStream_t stream) {
  if (target.width <= 0 || target.height <= 0 || params.width <= 0 || params.height <= 0) return;
  const dim3 block(32, 8);
  const dim3 grid((target.width + block.x - 1) / block.x, (target.height + block.y - 1) / block.y);
  blit_kernel<<<grid, block, 0, stream>>>(target, params);
}

}  // namespace kernels
