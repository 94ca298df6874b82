// tests/fuzz/fuzz_golden_json.cpp — libFuzzer target for the golden JSON parser: any bytes through
// parse_golden_json. Only GoldenError may come out, and whatever it accepts must be within the caps; a crash,
// a leak, an ASan/UBSan report or another exception is a finding. Built by scripts/fuzz.sh, not by CMake.
#include "app/image/golden.hpp"
#include "app/image/image_io.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const lab::GoldenRecord record =
        lab::parse_golden_json(std::string(reinterpret_cast<const char*>(data), size));
    for (const lab::GoldenTolerance& tolerance : {record.same_renderer, record.other_renderer}) {
      if (tolerance.max_diff < 0 || tolerance.max_diff > lab::kGoldenMaxDiffCap) __builtin_trap();
      if (!(tolerance.max_fraction >= 0.0 && tolerance.max_fraction <= lab::kGoldenMaxFractionCap))
        __builtin_trap();
    }
    if (record.width < 1 || record.width > lab::kMaxImageEdge || record.height < 1 ||
        record.height > lab::kMaxImageEdge || record.frame < 0)
      __builtin_trap();
  } catch (const lab::GoldenError&) {
  }
  return 0;
}
