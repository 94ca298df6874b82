// kernels/points.cu — CUDA launcher of the points' drawing (kernels/points.hpp): one thread a point keeps the
// nearest key of each pixel it covers with a 64-bit atomicMin, then one thread a pixel looks up the winner.
#include "kernels/points.hpp"

namespace kernels {
namespace {

constexpr int kBlock = 256;

__global__ void splat_kernel(PointsDesc desc, unsigned long long* keys) {
  const long long index = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= desc.count) return;
  const Footprint at = footprint(desc, index);
  for (int row = at.first_row; row < at.end_row; ++row)
    for (int column = at.first_column; column < at.end_column; ++column) {
      unsigned long long* pixel = keys + static_cast<size_t>(row) * desc.width + column;
      // Most points on a crowded pixel lose: a plain read spares them the atomic.
      if (*pixel > at.key) atomicMin(pixel, at.key);
    }
}

__global__ void resolve_kernel(const unsigned long long* keys, const Rgba8* rgba, ImageTarget frame) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= frame.width || y >= frame.height) return;
  store(frame, x, y, pixel_of(keys[static_cast<size_t>(y) * frame.width + x], rgba));
}

}  // namespace

cudaError_t draw_points(const PointsDesc& desc, unsigned long long* keys, const ImageTarget& frame,
                        cudaStream_t stream) {
  if (desc.width <= 0 || desc.height <= 0) return cudaSuccess;
  if (frame.width != desc.width || frame.height != desc.height) return cudaErrorInvalidValue;
  if (desc.count < 0 || desc.count > kMaxDrawnPoints) return cudaErrorInvalidValue;
  cudaError_t status = cudaMemsetAsync(keys, 0xff, points_keys_bytes(desc.width, desc.height), stream);
  if (status != cudaSuccess) return status;
  if (desc.count > 0) {
    const auto blocks = static_cast<unsigned int>((desc.count + kBlock - 1) / kBlock);
    splat_kernel<<<blocks, kBlock, 0, stream>>>(desc, keys);
    if ((status = cudaGetLastError()) != cudaSuccess) return status;
  }
  const dim3 block(32, 8);
  const dim3 grid((desc.width + block.x - 1) / block.x, (desc.height + block.y - 1) / block.y);
  resolve_kernel<<<grid, block, 0, stream>>>(keys, desc.rgba, frame);
  return cudaGetLastError();
}

}  // namespace kernels
