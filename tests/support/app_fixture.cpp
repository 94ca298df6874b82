// tests/support/app_fixture.cpp
#include "tests/support/app_fixture.hpp"

#include "interop/error.hpp"
#include "kernels/pattern.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>

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
  options.layout_file = "";  // a test's panel never reads or writes the user's imgui.ini
  return options;
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

std::vector<kernels::WaveVertex> read_vertex_buffer(lab::gl::App& app) {
  const lab::gl::Resource& spec = app.renderer().resources().at(0);
  std::vector<kernels::WaveVertex> vertices(spec.desc.bytes / sizeof(kernels::WaveVertex));
  glGetNamedBufferSubData(spec.gl_name, 0, static_cast<GLsizeiptr>(spec.desc.bytes), vertices.data());
  return vertices;
}

lab::Image render(lab::gl::App& app, long long index) {
  app.set_frame_index(index);
  EXPECT_TRUE(app.render_frame());
  return app.read_frame();
}

lab::Image expected_postprocess_frame(lab::gl::App& app, kernels::Filter filter) {
  const lab::gl::Resource& input = app.renderer().resources().at(0);
  std::vector<kernels::Rgba8> rendered(static_cast<size_t>(input.desc.width) * input.desc.height);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(input.gl_name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(rendered.size() * 4),
                    rendered.data());
  lab::Image image;
  image.width = input.desc.width;
  image.height = input.desc.height;
  image.rgba.resize(rendered.size() * 4);
  kernels::PostprocessParams params;
  params.filter = filter;
  std::vector<kernels::Vec4> scratch(kernels::postprocess_scratch_bytes(input.desc.width, input.desc.height) /
                                     sizeof(kernels::Vec4));
  const size_t pitch = static_cast<size_t>(input.desc.width) * 4;
  kernels::postprocess_cpu(
      kernels::linear_source(rendered.data(), pitch, input.desc.width, input.desc.height),
      kernels::linear_target(reinterpret_cast<kernels::Rgba8*>(image.rgba.data()), pitch, input.desc.width,
                             input.desc.height),
      params, scratch.data());
  lab::flip_rows(image);
  return image;
}

lab::Image expected_frame(lab::gl::App& app, lab::SceneId scene, long long index) {
  const lab::Extent extent = app.platform().framebuffer_extent();
  switch (scene) {
    case lab::SceneId::Pattern:
      return expected_pattern_frame(extent.width, extent.height, index);
    case lab::SceneId::Postprocess:
      return expected_postprocess_frame(app, kernels::Filter::Sobel);
    case lab::SceneId::Wave:
      break;
  }
  ADD_FAILURE() << "the wave scene's frame depends on the rasteriser; compare its vertices instead";
  return {};
}

namespace {

// $INTEROP_LAB_TEST_RESULTS, else golden-results in the build folder (the test binary's parent's parent:
// binaries live in <build>/tests).
std::filesystem::path results_root() {
  const char* from_environment = std::getenv("INTEROP_LAB_TEST_RESULTS");
  if (from_environment != nullptr && *from_environment != '\0') return from_environment;
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return std::filesystem::current_path() / "golden-results";
  return executable.parent_path().parent_path() / "golden-results";
}

}  // namespace

std::string check_against(const lab::Image& actual, const lab::Image& expected, const Tolerance& tolerance,
                          const std::string& name, const std::string& what) {
  const int max_diff = tolerance.max_diff;
  const double max_fraction = tolerance.max_fraction;
  std::optional<lab::ImageDifference> difference;
  if (actual.width == expected.width && actual.height == expected.height) {
    difference = lab::compare_images(actual, expected, max_diff);
    if (difference->fraction_over <= max_fraction) return "";
  }

  const std::filesystem::path folder = results_root() / name;
  std::string message = name + " differs from " + what + ": ";
  if (difference) {
    char allowed[120];
    std::snprintf(allowed, sizeof allowed, " (allowed: %g%% of pixels over %d)", max_fraction * 100.0,
                  max_diff);
    message += lab::to_string(*difference, max_diff) + allowed;
  } else {
    message += "the frame is " + std::to_string(actual.width) + "x" + std::to_string(actual.height) +
               ", not " + std::to_string(expected.width) + "x" + std::to_string(expected.height);
  }
  try {
    std::filesystem::create_directories(folder);
    lab::write_png((folder / "actual.png").string(), actual);
    if (difference) {
      lab::write_png((folder / "heatmap.png").string(), lab::difference_heatmap(actual, expected));
      nlohmann::json metrics = nlohmann::json::parse(lab::to_json(*difference, max_diff, max_fraction));
      metrics["compared_with"] = what;
      metrics["renderer"] = interop::current_gl_renderer();
      lab::write_text_file((folder / "metrics.json").string(), metrics.dump(2) + "\n");
    }
    message += "; actual.png" + std::string(difference ? ", heatmap.png and metrics.json" : "") + " are in " +
               folder.string();
  } catch (const std::exception& error) {
    message += std::string("; could not save the results: ") + error.what();
  }
  return message;
}

}  // namespace labtest
