// kernels/postprocess.cu — CUDA launchers of the postprocess filters: one thread per texel, reading
// through load() (texture object or linear memory) and writing through store() (surface or linear),
// with the texel functions the CPU reference runs too.
#include "kernels/postprocess.hpp"

namespace kernels {
namespace {

__global__ void sobel_kernel(ImageSource source, ImageTarget target) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= target.width || y >= target.height) return;
  store(target, x, y, sobel_texel(source, x, y));
}

__global__ void blur_horizontal_kernel(ImageSource source, Vec4* scratch, BlurWeights weights) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= source.width || y >= source.height) return;
  scratch[static_cast<size_t>(y) * static_cast<size_t>(source.width) + static_cast<size_t>(x)] =
      blur_horizontal_texel(source, x, y, weights);
}

__global__ void blur_vertical_kernel(const Vec4* scratch, ImageTarget target, BlurWeights weights) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= target.width || y >= target.height) return;
  store(target, x, y, blur_vertical_texel(scratch, target.width, target.height, x, y, weights));
}

}  // namespace

void postprocess_cuda(const ImageSource& source, const ImageTarget& target, const PostprocessParams& params,
                      Vec4* scratch, cudaStream_t stream) {
  validate_postprocess(source, target, params, scratch);
  if (target.width == 0 || target.height == 0) return;  // a 0-block grid is a launch error
  const dim3 block(32, 8);
  const dim3 grid((target.width + block.x - 1) / block.x, (target.height + block.y - 1) / block.y);
  switch (params.filter) {
    case Filter::Sobel:
      sobel_kernel<<<grid, block, 0, stream>>>(source, target);
      break;
    case Filter::Blur: {
      const BlurWeights weights = blur_weights(params);
      // Same stream: the vertical pass starts after the horizontal one has written all of scratch.
      blur_horizontal_kernel<<<grid, block, 0, stream>>>(source, scratch, weights);
      blur_vertical_kernel<<<grid, block, 0, stream>>>(scratch, target, weights);
      break;
    }
  }
}

}  // namespace kernels
