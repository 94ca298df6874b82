// tests/support/app_fixture.hpp — what the GL and GPU tests share: options for an App on the test
// platform, expected frames computed from the kernels' CPU functions, and GL read-backs; with what
// image_fixture.hpp shares with the unit tests (synthetic images, goldens).
#pragma once

#include "app/gl/app/app.hpp"
#include "app/image/image_compare.hpp"
#include "app/scene/scene_compute.hpp"
#include "kernels/postprocess.hpp"
#include "kernels/wave.hpp"
#include "tests/support/image_fixture.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace labtest {

// Headless EGL, unless INTEROP_LAB_TEST_PLATFORM=window (a GLFW window: Xvfb in CI, Xvfb + NVIDIA GLX
// on a GPU server).
bool use_window();

lab::Options app_options(lab::SceneId scene, lab::ModeId mode, int width, int height);

// The wave scene's vertices for frame `index`, computed with the CPU reference.
std::vector<kernels::WaveVertex> expected_wave_vertices(long long index);

// The vertex buffer a scene's first resource names, read back from GL.
std::vector<kernels::WaveVertex> read_vertex_buffer(lab::gl::App& app);

// Renders frame `index` in the app's current mode and reads it back.
lab::Image render(lab::gl::App& app, long long index);

// The postprocess scene's frame as the app must show it: kernels::postprocess_cpu applied to the
// scene's rendered input texture, read back from GL (so call it right after rendering the frame).
lab::Image expected_postprocess_frame(lab::gl::App& app, kernels::Filter filter);

// The frame `scene` must show in any mode: computed from the kernels' CPU functions.
lab::Image expected_frame(lab::gl::App& app, lab::SceneId scene, long long index);

// Compares `actual` with `expected` (`what`, in messages) at `tolerance`. On failure writes actual.png,
// heatmap.png and metrics.json into <$INTEROP_LAB_TEST_RESULTS, else the build folder's
// golden-results>/<name>/ and returns a message naming that folder; "" when the images match.
std::string check_against(const lab::Image& actual, const lab::Image& expected, const Tolerance& tolerance,
                          const std::string& name, const std::string& what);

}  // namespace labtest
