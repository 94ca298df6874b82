// kernels/pattern.cu — CUDA launcher of the pattern scene: one thread per texel, written with store()
// into a surface or linear memory. It runs pattern_texel, like the CPU reference.
#include "kernels/pattern.hpp"

#include <cassert>

namespace kernels {
namespace {

__global__ void pattern_kernel(ImageTarget target, PatternParams params) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= params.width || y >= params.height) return;
  store(target, x, y, pattern_texel(x, y, params));
}

}  // namespace

void pattern_cuda(ImageTarget target, const PatternParams& params, cudaStream_t stream) {
  assert(target.width == params.width && target.height == params.height &&
         "pattern_cuda: ImageTarget and PatternParams must have the same size; build both from one extent");
  if (params.width <= 0 || params.height <= 0) return;  // a 0-block grid is a launch error
  const dim3 block(32, 8);
  const dim3 grid((params.width + block.x - 1) / block.x, (params.height + block.y - 1) / block.y);
  pattern_kernel<<<grid, block, 0, stream>>>(target, params);
}

}  // namespace kernels
