// kernels/stripe_hash.hpp — per-stripe change hashes of an RGBA8 picture, for the desk's changed-stripe
// sending: the server sends a stripe again only when its hash changed. The picture is cut into stripes of
// kStripeRows rows counted from the TOP row (the last stripe may be shorter). A stripe's hash is the
// 64-bit wrapping sum over its pixels of mix64((uint64_t(rgba_word) << 32) | index_in_stripe), where
// rgba_word is the pixel's four bytes R, G, B, A read as one little-endian uint32 and index_in_stripe =
// row_in_stripe * width + x. A sum is order-free, so the GPU adds its threads' terms in any order and
// gets the CPU reference's value exactly.
//
// The CPU reference (stripe_hash.cpp) needs no CUDA: the server hashes with it when no GPU hashes come
// with a frame. The CUDA launchers (stripe_hash.cu) take the stream and the array as CUDA's own opaque
// pointer types (cudaStream_t is CUstream_st*, cudaArray_t is cudaArray*), so this header includes no
// CUDA header.
#pragma once

#include "kernels/common.hpp"

#include <cstddef>
#include <cstdint>

struct CUstream_st;
struct cudaArray;

namespace kernels {

constexpr int kStripeRows = 64;

// The number of stripes of a picture height rows tall.
KERNELS_HD inline int stripe_count(int height) {
  return height <= 0 ? 0 : (height + kStripeRows - 1) / kStripeRows;
}

// The splitmix64 finalizer: a bijection of 64-bit words whose output bits each depend on every input bit.
KERNELS_HD inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// One pixel's term of its stripe's sum.
KERNELS_HD inline uint64_t stripe_hash_term(uint32_t rgba_word, uint32_t index_in_stripe) {
  return mix64((static_cast<uint64_t>(rgba_word) << 32) | index_in_stripe);
}

// Hashes an RGBA8 picture whose first row in memory is its top row, rows pitch_bytes apart, into
// out[0 .. stripe_count(height)).
void stripe_hashes_cpu(const uint8_t* rgba_top_first, int width, int height, size_t pitch_bytes,
                       uint64_t* out);

// --- CUDA (stripe_hash.cu) -------------------------------------------------------------------------

// Copies the RGBA8 cudaArray `source` (a GL texture's level 0, its rows bottom-first as GL keeps them)
// into the device buffer `top_first` (rows width * 4 bytes apart, top row first) and hashes it into the
// device array device_hashes[0 .. stripe_count(height)), which it zeroes first. The array goes through
// `scratch` (width * height * 4 bytes of device memory) on its way. Asynchronous on `stream`; returns the
// first failing call's cudaError_t as an int (0 = cudaSuccess).
int flip_and_hash_array(cudaArray* source, int width, int height, uint8_t* scratch, uint8_t* top_first,
                        uint64_t* device_hashes, CUstream_st* stream);

// The same from a linear device image (a GL buffer or PBO mapped into CUDA), rows pitch_bytes apart,
// bottom row first.
int flip_and_hash_linear(const uint8_t* source_bottom_first, size_t pitch_bytes, int width, int height,
                         uint8_t* top_first, uint64_t* device_hashes, CUstream_st* stream);

}  // namespace kernels
