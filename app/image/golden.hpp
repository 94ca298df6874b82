// app/image/golden.hpp — the JSON beside each screenshot golden (tests/golden/<scene>.json): how the image
// was rendered and the tolerances it is compared at, parsed and validated in one place. The tests load
// goldens through it and the fuzz target feeds it arbitrary bytes; it needs nlohmann/json only (no CUDA, no
// GL).
//
// Tolerance caps: a golden may allow at most kGoldenMaxDiffCap (16/255) per channel on at most
// kGoldenMaxFractionCap (1%) of pixels. Looser goldens would stop meaning anything: at the caps an all-black
// frame still fails against every golden in tests/golden (a unit test checks that), and the loosest golden
// today allows 12/255 (postprocess on another GL) and 0.1% (wave).
#pragma once

#include <stdexcept>
#include <string>

namespace lab {

constexpr int kGoldenMaxDiffCap = 16;
constexpr double kGoldenMaxFractionCap = 0.01;

// Pixels with a channel more than max_diff (/255) apart may make up at most max_fraction of the image.
struct GoldenTolerance {
  int max_diff = 0;
  double max_fraction = 0.0;
};

struct GoldenRecord {
  std::string scene;  // "pattern"
  std::string image;  // the PNG's file name beside the JSON, "pattern.png"
  int width = 0, height = 0;
  long long frame = 0;
  std::string filter;    // the postprocess scene's ("sobel", "blur"); "" when the key is absent
  std::string renderer;  // GL_RENDERER of the context that rendered it
  std::string version;   // interop-lab's
  // On the renderer that made the golden, and on any other.
  GoldenTolerance same_renderer, other_renderer;
};

// Its messages name the key, the value and what is accepted, e.g.
// "tolerance.max_diff is 40; the cap is 16 (a golden this loose would pass a wrong image)".
class GoldenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses and validates the text of a golden's JSON; throws GoldenError (never another exception).
// Required: scene, image, width and height (1..kMaxImageEdge), frame (>= 0), renderer,
// interop_lab_version, tolerance and other_renderer_tolerance ({max_diff 0..kGoldenMaxDiffCap,
// max_fraction 0..kGoldenMaxFractionCap}); optional: filter (a string).
GoldenRecord parse_golden_json(const std::string& text);

// Reads and parses `path`; GoldenError messages start with the path.
GoldenRecord read_golden_json(const std::string& path);

}  // namespace lab
