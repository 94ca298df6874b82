// tests/support/app_fixture.cpp
#include "tests/support/app_fixture.hpp"

#include "kernels/pattern.hpp"

#include <cstdlib>
#include <cstring>

namespace labtest {

bool use_window() {
  const char* platform = std::getenv("INTEROP_LAB_TEST_PLATFORM");
  return platform != nullptr && std::strcmp(platform, "window") == 0;
}

lab::Options app_options(lab::SceneId scene, lab::ModeId mode, int width, int height) {
  lab::Options options;
  options.scene = scene;
  options.mode = mode;
  options.width = width;
  options.height = height;
  options.headless = !use_window();
  options.no_ui = true;
  options.frames = 1;
  return options;
}

lab::Image expected_pattern_frame(int width, int height, long long index) {
  lab::Image image;
  image.width = width;
  image.height = height;
  image.rgba.resize(static_cast<size_t>(width) * height * 4);
  const kernels::PatternParams params{width, height, kernels::time_of_frame(index)};
  kernels::pattern_cpu(kernels::linear_target(reinterpret_cast<kernels::Rgba8*>(image.rgba.data()),
                                              static_cast<size_t>(width) * 4, width, height),
                       params);
  lab::flip_rows(image);  // texture row 0 is the bottom of the screen
  return image;
}

std::vector<kernels::WaveVertex> expected_wave_vertices(long long index) {
  kernels::WaveParams params;
  params.grid_x = lab::kWaveGrid;
  params.grid_z = lab::kWaveGrid;
  params.time = kernels::time_of_frame(index);
  std::vector<kernels::WaveVertex> vertices(static_cast<size_t>(kernels::wave_vertex_count(params)));
  kernels::wave_cpu(vertices.data(), params);
  return vertices;
}

std::vector<kernels::WaveVertex> read_vertex_buffer(lab::App& app) {
  const lab::ResourceSpec& spec = app.scene().resources().at(0);
  std::vector<kernels::WaveVertex> vertices(spec.bytes / sizeof(kernels::WaveVertex));
  glGetNamedBufferSubData(spec.gl_name, 0, static_cast<GLsizeiptr>(spec.bytes), vertices.data());
  return vertices;
}

lab::Image render(lab::App& app, long long index) {
  app.set_frame_index(index);
  EXPECT_TRUE(app.render_frame());
  return app.read_frame();
}

lab::Image expected_postprocess_frame(lab::App& app, kernels::Filter filter) {
  const lab::ResourceSpec& input = app.scene().resources().at(0);
  std::vector<kernels::Rgba8> rendered(static_cast<size_t>(input.width) * input.height);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(input.gl_name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(rendered.size() * 4),
                    rendered.data());
  lab::Image image;
  image.width = input.width;
  image.height = input.height;
  image.rgba.resize(rendered.size() * 4);
  kernels::PostprocessParams params;
  params.filter = filter;
  std::vector<kernels::Vec4> scratch(kernels::postprocess_scratch_bytes(input.width, input.height) /
                                     sizeof(kernels::Vec4));
  kernels::ImageSource source;
  source.pixels = rendered.data();
  source.pitch = static_cast<size_t>(input.width) * 4;
  source.width = input.width;
  source.height = input.height;
  kernels::ImageTarget target;
  target.pixels = reinterpret_cast<kernels::Rgba8*>(image.rgba.data());
  target.pitch = source.pitch;
  target.width = input.width;
  target.height = input.height;
  kernels::postprocess_cpu(source, target, params, scratch.data());
  lab::flip_rows(image);
  return image;
}

lab::Image expected_frame(lab::App& app, lab::SceneId scene, long long index) {
  const lab::Extent extent = app.platform().framebuffer_extent();
  switch (scene) {
    case lab::SceneId::Pattern: return expected_pattern_frame(extent.width, extent.height, index);
    case lab::SceneId::Postprocess: return expected_postprocess_frame(app, kernels::Filter::Sobel);
    case lab::SceneId::Wave: break;
  }
  ADD_FAILURE() << "the wave scene's frame depends on the rasteriser; compare its vertices instead";
  return {};
}

}  // namespace labtest
