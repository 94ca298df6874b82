// tests/gl/test_linear_images.cpp — GL's renderer with the scene's images in buffers, as the buffer mode
// places them, on any GL 4.5 (llvmpipe in CI) through the cpu mode: each image scene's frame equals its
// frame from textures byte for byte, headless (the buffer is the frame, read back) and in a window (the
// show pass reads the buffer as a shader storage buffer), and the images go back into textures after.
// The buffer mode's CUDA half (registered buffers written through mapped pointers) is tests/gpu's.
#include "app/gl/mode.hpp"
#include "app/image/image_compare.hpp"
#include "tests/support/app_fixture.hpp"

#include <cstdlib>
#include <string>
#include <tuple>

namespace {

using lab::SceneId;

// An image scene, and whether it runs in a window.
class LinearImages : public ::testing::TestWithParam<std::tuple<SceneId, bool>> {};

int texture_count(lab::gl::App& app, bool linear) {
  int count = 0;
  for (const lab::gl::Resource& resource : app.renderer().resources())
    if (resource.desc.kind == lab::ResourceKind::Texture2D && resource.linear == linear) {
      // The object is what it says: a buffer of the image's bytes, or a texture of its size.
      GLint size = 0;
      if (linear)
        glGetNamedBufferParameteriv(resource.gl_name, GL_BUFFER_SIZE, &size);
      else
        glGetTextureLevelParameteriv(resource.gl_name, 0, GL_TEXTURE_WIDTH, &size);
      EXPECT_EQ(size, linear ? static_cast<GLint>(resource.desc.bytes) : resource.desc.width)
          << resource.desc.label;
      ++count;
    }
  return count;
}

TEST_P(LinearImages, FramesFromBuffersAreTheFramesFromTextures) {
  const auto [scene, windowed] = GetParam();
  if (windowed && std::getenv("DISPLAY") == nullptr) GTEST_SKIP() << "needs an X display: run under xvfb-run";
  lab::Options options = labtest::app_options(scene, lab::ModeId::Cpu, 321, 203);
  options.headless = !windowed;
  lab::gl::App app(options);
  const lab::Image from_textures = labtest::render(app, 9);
  const int images = texture_count(app, false);
  ASSERT_GE(images, 1) << "an image scene has a texture";

  app.renderer().place_resources({nullptr, /*linear_images=*/true});
  app.use_mode(lab::gl::create_mode(lab::ModeId::Cpu, lab::CudaContext{}, lab::AccessSettings{}));
  EXPECT_EQ(texture_count(app, true), images) << "every image is in a buffer";
  EXPECT_EQ(app.renderer().frame_image(app.plan()), 0u) << "no texture holds the frame";
  const lab::Image from_buffers = labtest::render(app, 9);
  const lab::ImageDifference difference = lab::compare_images(from_buffers, from_textures, 0);
  EXPECT_EQ(difference.pixels_over, 0u) << lab::to_string(difference, 0);

  app.renderer().place_resources({});
  EXPECT_EQ(texture_count(app, false), images) << "the images are textures again";
  const lab::Image again = labtest::render(app, 9);
  EXPECT_EQ(lab::compare_images(again, from_textures, 0).pixels_over, 0u);
}

INSTANTIATE_TEST_SUITE_P(ImageScenes, LinearImages,
                         ::testing::Combine(::testing::Values(SceneId::Pattern, SceneId::Postprocess),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<SceneId, bool>>& param) {
                           return std::string(lab::to_string(std::get<0>(param.param))) +
                                  (std::get<1>(param.param) ? "_window" : "_headless");
                         });

}  // namespace
