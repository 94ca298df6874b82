// tests/unit/test_stripe_hash.cpp — the desk's per-stripe change hashes (kernels/stripe_hash.hpp) on the
// CPU: the definition on a picture small enough to sum by hand, and that a changed pixel changes exactly
// its own stripe's hash. tests/gpu/test_desk_read_back.cpp checks the GPU's hashes against these.
#include "kernels/stripe_hash.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

// A picture whose every pixel differs from its neighbours: rows top-first, pitch_bytes apart.
std::vector<uint8_t> test_picture(int width, int height, size_t pitch_bytes) {
  std::vector<uint8_t> pixels(pitch_bytes * static_cast<size_t>(height), 0xee);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = pixels.data() + static_cast<size_t>(y) * pitch_bytes + static_cast<size_t>(x) * 4;
      p[0] = static_cast<uint8_t>(x * 7 + y);
      p[1] = static_cast<uint8_t>(y * 3);
      p[2] = static_cast<uint8_t>(x ^ y);
      p[3] = 255;
    }
  }
  return pixels;
}

std::vector<uint64_t> hashes_of(const std::vector<uint8_t>& pixels, int width, int height, size_t pitch) {
  std::vector<uint64_t> hashes(static_cast<size_t>(kernels::stripe_count(height)));
  kernels::stripe_hashes_cpu(pixels.data(), width, height, pitch, hashes.data());
  return hashes;
}

TEST(StripeHash, Mix64IsTheSplitmix64Finalizer) {
  // splitmix64 seeded with 0 returns mix64(0x9e3779b97f4a7c15) first: its published first output.
  EXPECT_EQ(kernels::mix64(0x9e3779b97f4a7c15ull), 0xe220a8397b1dcdafull);
  EXPECT_EQ(kernels::mix64(0), 0u);
}

TEST(StripeHash, StripesAre64RowsFromTheTopTheLastOneShorter) {
  EXPECT_EQ(kernels::kStripeRows, 64);
  EXPECT_EQ(kernels::stripe_count(0), 0);
  EXPECT_EQ(kernels::stripe_count(1), 1);
  EXPECT_EQ(kernels::stripe_count(64), 1);
  EXPECT_EQ(kernels::stripe_count(65), 2);
  EXPECT_EQ(kernels::stripe_count(1080), 17);
  EXPECT_EQ(kernels::stripe_count(2160), 34);
}

TEST(StripeHash, AStripesHashIsTheSumOfItsPixelsTermsByTheirPlaceInTheStripe) {
  // Two pixels in one row, then a second row: indices 0, 1, 2, 3 within the one stripe.
  const uint8_t pixels[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  uint64_t hash = 0;
  kernels::stripe_hashes_cpu(pixels, 2, 2, 8, &hash);
  const uint64_t expected = kernels::mix64(0x0403020100000000ull) + kernels::mix64(0x0807060500000001ull) +
                            kernels::mix64(0x0c0b0a0900000002ull) + kernels::mix64(0x100f0e0d00000003ull);
  EXPECT_EQ(hash, expected);
}

TEST(StripeHash, AChangedPixelChangesExactlyItsStripesHash) {
  const int width = 37;
  const int height = 200;  // stripes of 64, 64, 64 and 8 rows
  const size_t pitch = 37 * 4 + 12;
  std::vector<uint8_t> pixels = test_picture(width, height, pitch);
  const std::vector<uint64_t> before = hashes_of(pixels, width, height, pitch);
  ASSERT_EQ(before.size(), 4u);
  for (const int row : {0, 63, 64, 130, 199}) {
    std::vector<uint8_t> changed = pixels;
    changed[static_cast<size_t>(row) * pitch + 5 * 4 + 1] ^= 1;
    const std::vector<uint64_t> after = hashes_of(changed, width, height, pitch);
    for (size_t stripe = 0; stripe < before.size(); ++stripe) {
      if (static_cast<int>(stripe) == row / 64) {
        EXPECT_NE(after[stripe], before[stripe]) << "row " << row << ", its stripe " << stripe;
      } else {
        EXPECT_EQ(after[stripe], before[stripe]) << "row " << row << ", stripe " << stripe;
      }
    }
  }
}

TEST(StripeHash, TwoPixelsSwappedChangeTheHashAndThePitchsPaddingDoesNot) {
  const int width = 16;
  const int height = 64;
  const size_t pitch = 16 * 4 + 8;
  std::vector<uint8_t> pixels = test_picture(width, height, pitch);
  const uint64_t before = hashes_of(pixels, width, height, pitch)[0];

  std::vector<uint8_t> swapped = pixels;
  std::memcpy(swapped.data() + 4, pixels.data() + 8, 4);
  std::memcpy(swapped.data() + 8, pixels.data() + 4, 4);
  EXPECT_NE(hashes_of(swapped, width, height, pitch)[0], before);

  std::vector<uint8_t> padded = pixels;
  padded[pitch - 1] ^= 0xff;  // past the row's last pixel
  EXPECT_EQ(hashes_of(padded, width, height, pitch)[0], before);
}

}  // namespace
