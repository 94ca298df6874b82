// tests/gl/test_eglstream_support.cpp — where GL's eglstream mode cannot run, it says exactly why: on an EGL
// display without the stream extensions (Mesa's, in CI) availability names the first one missing, as the
// display itself lists them, and --mode eglstream exits 1 with that reason (cli.eglstream_* in
// tests/CMakeLists.txt); without an EGL context (before any platform, or a GLFW window's GLX one) it
// says an EGL context is needed. Which scenes a stream can carry is judged from their resources alone.
// The frames themselves are tests/gpu/test_eglstream.cpp's (NVIDIA's EGL device platform).
#include "tests/support/app_fixture.hpp"

#include "app/gl/mode.hpp"
#include "app/scene/scene_compute.hpp"

#include <glad/egl.h>

#include <stdexcept>
#include <string>

namespace {

using lab::ModeId;
using lab::SceneId;

bool lists(const char* extensions, const std::string& name) {
  return extensions != nullptr &&
         (" " + std::string(extensions) + " ").find(" " + name + " ") != std::string::npos;
}

TEST(EglstreamSupport, OnAHeadlessDisplayItFollowsTheDisplaysExtensions) {
  std::unique_ptr<lab::gl::App> app;
  try {
    app = std::make_unique<lab::gl::App>(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 32, 32));
  } catch (const std::runtime_error& error) {
    GTEST_SKIP() << "needs headless GL (EGL): " << error.what();
  }
  if (app->platform().is_window()) GTEST_SKIP() << "a headless platform's case (the window's is below)";
  const char* extensions = eglQueryString(eglGetCurrentDisplay(), EGL_EXTENSIONS);
  const lab::ModeAvailability verdict = app->availability(ModeId::Eglstream);
  std::string first_missing;
  for (const char* name : {"EGL_KHR_stream", "EGL_KHR_stream_fifo", "EGL_KHR_stream_consumer_gltexture"})
    if (first_missing.empty() && !lists(extensions, name)) first_missing = name;
  if (!first_missing.empty()) {
    EXPECT_FALSE(verdict.available);
    EXPECT_NE(verdict.reason.find("lacks " + first_missing), std::string::npos) << verdict.reason;
    EXPECT_EQ(verdict.reason, lab::gl::eglstream_support().reason);
    // Asked for, the mode is refused with the same reason before anything is made.
    EXPECT_FALSE(app->request_mode(ModeId::Eglstream).available);
    labtest::render(*app, 0);
    EXPECT_EQ(app->mode_id(), ModeId::Cpu);
  } else {
    // NVIDIA's display: then only a CUDA device decides (tests/gpu runs the frames).
    EXPECT_EQ(verdict.available, app->cuda_device() >= 0) << verdict.reason;
  }
}

TEST(EglstreamSupport, WithoutAnEglContextItSaysOneIsNeeded) {
  if (eglGetCurrentDisplay != nullptr && eglGetCurrentDisplay() != EGL_NO_DISPLAY) {
    ASSERT_TRUE(eglMakeCurrent(eglGetCurrentDisplay(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
  }
  const lab::ModeAvailability verdict = lab::gl::eglstream_support();
  EXPECT_FALSE(verdict.available);
  EXPECT_TRUE(verdict.reason.find("not an EGL context") != std::string::npos ||
              verdict.reason.find("libEGL cannot be loaded") != std::string::npos)
      << verdict.reason;
}

TEST(EglstreamSupport, OnlyTheScenesOfCudasOutputImagesTravel) {
  for (const SceneId scene : lab::all_scenes()) {
    SCOPED_TRACE(lab::to_string(scene));
    const std::vector<lab::ResourceDesc> resources =
        lab::create_scene_compute(scene, kernels::Filter::Sobel)->resources({64, 48});
    const lab::ModeAvailability verdict = lab::gl::eglstream_scene_availability(resources);
    bool images_out = true;
    std::string first_other;
    for (const lab::ResourceDesc& desc : resources) {
      if (desc.kind == lab::ResourceKind::Texture2D && desc.role == lab::ResourceRole::Output) continue;
      if (images_out) first_other = desc.label;
      images_out = false;
    }
    EXPECT_EQ(verdict.available, images_out) << verdict.reason;
    if (!images_out) {
      EXPECT_NE(verdict.reason.find(first_other), std::string::npos) << verdict.reason;
    }
  }
  EXPECT_TRUE(lab::gl::eglstream_scene_availability(
                  lab::create_scene_compute(SceneId::Pattern, kernels::Filter::Sobel)->resources({5, 3}))
                  .available)
      << "the pattern is CUDA's one output image";
}

}  // namespace
