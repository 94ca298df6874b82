// kernels/stripe_hash.cu — the desk's read-back on the GPU: turns a GL frame (rows bottom-first) into a
// top-first RGBA8 image in device memory and hashes its stripes (stripe_hash.hpp) in the same pass, so
// the host receives the picture in the order it sends it and the hashes with it.
#include "kernels/stripe_hash.hpp"

#include <cuda_runtime_api.h>

namespace kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kPixelsPerThread = 4;

// One block per (row of the output, run of kThreads * kPixelsPerThread pixels): copies the run from the
// source's mirrored row and adds the run's hash terms to its stripe's sum. Threads touch neighbouring
// pixels on each step, so loads and stores coalesce.
__global__ void flip_and_hash_kernel(const uint8_t* source, size_t source_pitch, int width, int height,
                                     uint8_t* top_first, uint64_t* hashes) {
  const int row = blockIdx.y;  // top-first
  const uint32_t* in =
      reinterpret_cast<const uint32_t*>(source + static_cast<size_t>(height - 1 - row) * source_pitch);
  uint32_t* out = reinterpret_cast<uint32_t*>(top_first + static_cast<size_t>(row) * width * 4);
  const uint32_t row_in_stripe = static_cast<uint32_t>(row % kStripeRows);
  uint64_t sum = 0;
  const int first = blockIdx.x * kThreads * kPixelsPerThread + threadIdx.x;
  for (int k = 0; k < kPixelsPerThread; ++k) {
    const int x = first + k * kThreads;
    if (x < width) {
      const uint32_t word = in[x];
      out[x] = word;
      sum += stripe_hash_term(word, row_in_stripe * static_cast<uint32_t>(width) + static_cast<uint32_t>(x));
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ uint64_t warp_sums[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint64_t block_sum = 0;
    for (int w = 0; w < kThreads / 32; ++w) block_sum += warp_sums[w];
    atomicAdd(reinterpret_cast<unsigned long long*>(&hashes[row / kStripeRows]),
              static_cast<unsigned long long>(block_sum));
  }
}

}  // namespace

int flip_and_hash_linear(const uint8_t* source_bottom_first, size_t pitch_bytes, int width, int height,
                         uint8_t* top_first, uint64_t* device_hashes, CUstream_st* stream) {
  if (width <= 0 || height <= 0) return cudaSuccess;
  cudaError_t error = cudaMemsetAsync(device_hashes, 0, sizeof(uint64_t) * stripe_count(height), stream);
  if (error != cudaSuccess) return error;
  const int per_block = kThreads * kPixelsPerThread;
  const dim3 grid((width + per_block - 1) / per_block, height);
  flip_and_hash_kernel<<<grid, kThreads, 0, stream>>>(source_bottom_first, pitch_bytes, width, height,
                                                      top_first, device_hashes);
  return cudaGetLastError();
}

int flip_and_hash_array(cudaArray* source, int width, int height, uint8_t* scratch, uint8_t* top_first,
                        uint64_t* device_hashes, CUstream_st* stream) {
  if (width <= 0 || height <= 0) return cudaSuccess;
  const size_t pitch = static_cast<size_t>(width) * 4;
  const cudaError_t error = cudaMemcpy2DFromArrayAsync(scratch, pitch, source, 0, 0, pitch, height,
                                                       cudaMemcpyDeviceToDevice, stream);
  if (error != cudaSuccess) return error;
  return flip_and_hash_linear(scratch, pitch, width, height, top_first, device_hashes, stream);
}

}  // namespace kernels
