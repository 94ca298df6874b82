// kernels/stripe_hash.cpp — the CPU reference of the per-stripe change hashes (stripe_hash.hpp): what the
// desk's server computes when a frame comes without GPU hashes, and what the GPU's hashes are tested
// against.
#include "kernels/stripe_hash.hpp"

#include <cstring>

namespace kernels {

void stripe_hashes_cpu(const uint8_t* rgba_top_first, int width, int height, size_t pitch_bytes,
                       uint64_t* out) {
  const int stripes = stripe_count(height);
  for (int stripe = 0; stripe < stripes; ++stripe) {
    const int first_row = stripe * kStripeRows;
    const int rows = height - first_row < kStripeRows ? height - first_row : kStripeRows;
    uint64_t sum = 0;
    for (int row = 0; row < rows; ++row) {
      const uint8_t* pixels = rgba_top_first + static_cast<size_t>(first_row + row) * pitch_bytes;
      for (int x = 0; x < width; ++x) {
        uint32_t word;
        std::memcpy(&word, pixels + static_cast<size_t>(x) * 4, sizeof word);
        sum += stripe_hash_term(word, static_cast<uint32_t>(row * width + x));
      }
    }
    out[stripe] = sum;
  }
}

}  // namespace kernels
