// tests/support/app_fixture.hpp — what the GL and GPU tests share: options for an App on the test
// platform, expected frames computed from the kernels' CPU functions, and GL read-backs.
#pragma once

#include "app/app.hpp"
#include "app/golden.hpp"
#include "app/image_compare.hpp"
#include "app/scene_compute.hpp"
#include "kernels/postprocess.hpp"
#include "kernels/wave.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace labtest {

// How many CUDA devices with working GL interop this machine must have: INTEROP_LAB_REQUIRE_GPUS, which
// scripts/gpu-tests.sh sets on a GPU server; 0 (the default) elsewhere.
int required_gpus();

// A GPU test whose hardware is absent: skips with the reason where no GPU is required, fails where
// INTEROP_LAB_REQUIRE_GPUS says `count` devices must be there, so that a broken interop probe cannot
// turn a GPU run into a run of skips that passes.
#define LABTEST_NEEDS_GPUS(count, message)                                                                   \
  do {                                                                                                       \
    if (::labtest::required_gpus() >= (count)) {                                                             \
      GTEST_FAIL() << message << " (INTEROP_LAB_REQUIRE_GPUS=" << ::labtest::required_gpus()                 \
                   << ": this machine must have it)";                                                        \
    } else {                                                                                                 \
      GTEST_SKIP() << message;                                                                               \
    }                                                                                                        \
  } while (0)

// Headless EGL, unless INTEROP_LAB_TEST_PLATFORM=window (a GLFW window: Xvfb in CI, Xvfb + NVIDIA GLX
// on a GPU server).
bool use_window();

lab::Options app_options(lab::SceneId scene, lab::ModeId mode, int width, int height);

// The pattern scene's frame `index` at width x height as the app must show it (top row first),
// computed with the CPU reference.
lab::Image expected_pattern_frame(int width, int height, long long index);

// The wave scene's vertices for frame `index`, computed with the CPU reference.
std::vector<kernels::WaveVertex> expected_wave_vertices(long long index);

// The vertex buffer a scene's first resource names, read back from GL.
std::vector<kernels::WaveVertex> read_vertex_buffer(lab::App& app);

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
      std::copy(rgba.begin(), rgba.end(), image.rgba.begin() + (static_cast<std::ptrdiff_t>(y) * width + x) * 4);
    }
  return image;
}

// Renders frame `index` in the app's current mode and reads it back.
lab::Image render(lab::App& app, long long index);

// The postprocess scene's frame as the app must show it: kernels::postprocess_cpu applied to the
// scene's rendered input texture, read back from GL (so call it right after rendering the frame).
lab::Image expected_postprocess_frame(lab::App& app, kernels::Filter filter);

// The frame `scene` must show in any mode: computed from the kernels' CPU functions.
lab::Image expected_frame(lab::App& app, lab::SceneId scene, long long index);

// How far a frame may be from an image: pixels with a channel more than max_diff (/255) apart may make up
// at most max_fraction of the image. A golden's tolerances are capped (app/golden.hpp); other checks' are not.
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

// Compares `actual` with `expected` (`what`, in messages) at `tolerance`. On failure writes actual.png,
// heatmap.png and metrics.json into <$INTEROP_LAB_TEST_RESULTS, else the build folder's
// golden-results>/<name>/ and returns a message naming that folder; "" when the images match.
std::string check_against(const lab::Image& actual, const lab::Image& expected, const Tolerance& tolerance,
                          const std::string& name, const std::string& what);

}  // namespace labtest
