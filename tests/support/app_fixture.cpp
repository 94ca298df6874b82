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
  kernels::pattern_cpu({reinterpret_cast<kernels::Rgba8*>(image.rgba.data()), static_cast<size_t>(width) * 4, width,
                        height},
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

}  // namespace labtest
