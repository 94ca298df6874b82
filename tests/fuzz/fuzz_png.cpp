// tests/fuzz/fuzz_png.cpp — libFuzzer target for the PNG reader: any bytes through read_png's decoder
// (fmemopen gives it the same FILE* path read_png takes). Only ImageError may come out; a crash, a leak, an
// ASan/UBSan report or another exception is a finding. Built by scripts/fuzz.sh, not by CMake.
#include "app/image/image_io.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace {

// 4 Mpixels (16 MiB of RGBA8) rather than the app's 1 GiB: the limit itself is what is fuzzed, and
// gigabyte allocations would only slow the run (libFuzzer's -rss_limit_mb is 2048).
constexpr size_t kFuzzMaxPixels = size_t{1} << 22;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;  // fmemopen refuses an empty buffer
  FILE* file = fmemopen(const_cast<uint8_t*>(data), size, "rb");
  if (file == nullptr) return 0;
  try {
    const lab::Image image = lab::read_png_stream(file, size, "fuzz.png", kFuzzMaxPixels);
    if (image.rgba.size() != static_cast<size_t>(image.width) * image.height * 4) __builtin_trap();
  } catch (const lab::ImageError&) {
  }
  std::fclose(file);
  return 0;
}
