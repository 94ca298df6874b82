// tests/support/image_fixture.hpp — what every test binary shares about images, with no GL: pictures
// made pixel by pixel, the pattern scene's expected frame, the committed goldens (tests/golden) loaded and
// checked, and which GPUs a run must have. Links labcore only,
// so unit_tests can use it; app_fixture.hpp adds the GL side (an App, read-backs, expected frames).
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/image/golden.hpp"
#include "app/image/image_io.hpp"
#include "kernels/postprocess.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace labtest {

// How many CUDA devices with working GL interop this machine must have: INTEROP_LAB_REQUIRE_GPUS, which
// scripts/gpu-tests.sh sets on a GPU server; 0 (the default) elsewhere.
int required_gpus();

// A GPU test whose hardware is absent: skips with the reason where no GPU is required, fails where
// INTEROP_LAB_REQUIRE_GPUS says `count` devices must be there, so that a broken interop probe cannot
// turn a GPU run into a run of skips that passes.
#define LABTEST_NEEDS_GPUS(count, message)                                                   \
  do {                                                                                       \
    if (::labtest::required_gpus() >= (count)) {                                             \
      GTEST_FAIL() << message << " (INTEROP_LAB_REQUIRE_GPUS=" << ::labtest::required_gpus() \
                   << ": this machine must have it)";                                        \
    } else {                                                                                 \
      GTEST_SKIP() << message;                                                               \
    }                                                                                        \
  } while (0)

// The pattern scene's frame `index` at width x height as the app must show it (top row first),
// computed with the CPU reference.
lab::Image expected_pattern_frame(int width, int height, long long index);

// A width x height RGBA8 image whose pixel (x, y) is `texel(x, y)`, for tests that need known pictures.
template <class Texel>
lab::Image synthetic_image(int width, int height, const Texel& texel) {
  lab::Image image;
  image.width = width;
  image.height = height;
  image.rgba.resize(static_cast<size_t>(width) * height * 4);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const std::array<uint8_t, 4> rgba = texel(x, y);
      std::copy(rgba.begin(), rgba.end(),
                image.rgba.begin() + (static_cast<std::ptrdiff_t>(y) * width + x) * 4);
    }
  return image;
}

// How far a frame may be from an image: pixels with a channel more than max_diff (/255) apart may make up
// at most max_fraction of the image. A golden's tolerances are capped (app/image/golden.hpp); other checks'
// are not.
using Tolerance = lab::GoldenTolerance;

// A golden image (tests/golden/<scene>.png) and what its JSON beside it records: how it was rendered
// and the tolerances it is compared at. scripts/update-goldens.sh writes both; tests only read them.
struct Golden {
  lab::SceneId scene = lab::SceneId::Pattern;
  std::string png_path;
  int width = 0, height = 0;
  long long frame = 0;
  kernels::Filter filter = kernels::Filter::Sobel;  // the postprocess scene's
  std::string renderer;                             // GL_RENDERER of the context that rendered it
  std::string version;                              // interop-lab's
  // On the renderer that made the golden, and on any other: the postprocess scene filters what GL
  // rasterised, so another rasteriser's edges show through the filter.
  Tolerance same_renderer, other_renderer;
  lab::Image image;

  const Tolerance& tolerance_for(const std::string& gl_renderer) const {
    return gl_renderer == renderer ? same_renderer : other_renderer;
  }
};

// Where the goldens are: $INTEROP_LAB_GOLDEN_DIR (test binaries copied to another machine), else
// `built_in` (the source tree's tests/golden, compiled into the test binary).
std::string golden_dir(const char* built_in);

// Reads <dir>/<scene>.json (through lab::read_golden_json, which validates it and caps its tolerances)
// and <dir>/<scene>.png. On failure returns nullopt and says why in
// `problem`; a missing golden's problem says how to create it.
std::optional<Golden> load_golden(const std::string& dir, lab::SceneId scene, std::string& problem);

}  // namespace labtest
