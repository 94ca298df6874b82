// tests/support/image_fixture.cpp — the pattern scene's expected frame, the GPUs a run must have, and goldens
// from tests/golden, read and checked against their JSON.
#include "tests/support/image_fixture.hpp"

#include "kernels/pattern.hpp"

#include <cstdlib>
#include <filesystem>

namespace labtest {

int required_gpus() {
  const char* required = std::getenv("INTEROP_LAB_REQUIRE_GPUS");
  return required == nullptr ? 0 : std::atoi(required);
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

std::string golden_dir(const char* built_in) {
  const char* from_environment = std::getenv("INTEROP_LAB_GOLDEN_DIR");
  return from_environment != nullptr && *from_environment != '\0' ? from_environment : built_in;
}

std::optional<Golden> load_golden(const std::string& dir, lab::SceneId scene, std::string& problem) {
  const std::string name = lab::to_string(scene);
  const std::string json_path = dir + "/" + name + ".json";
  Golden golden;
  golden.scene = scene;
  golden.png_path = dir + "/" + name + ".png";
  for (const std::string& path : {json_path, golden.png_path}) {
    if (!std::filesystem::exists(path)) {
      problem = "the golden " + path + " is missing: run scripts/update-goldens.sh to create it";
      return std::nullopt;
    }
  }
  try {
    const lab::GoldenRecord record = lab::read_golden_json(json_path);
    if (record.scene != name)
      throw lab::GoldenError(json_path + ": scene: is \"" + record.scene + "\", not \"" + name + "\"");
    golden.width = record.width;
    golden.height = record.height;
    golden.frame = record.frame;
    golden.renderer = record.renderer;
    golden.version = record.version;
    golden.same_renderer = record.same_renderer;
    golden.other_renderer = record.other_renderer;
    if (record.filter == kernels::to_string(kernels::Filter::Blur))
      golden.filter = kernels::Filter::Blur;
    else if (!record.filter.empty() && record.filter != kernels::to_string(kernels::Filter::Sobel))
      throw lab::GoldenError(json_path + ": filter: unknown filter \"" + record.filter + "\"; sobel or blur");
  } catch (const lab::GoldenError& error) {
    problem = error.what();
    return std::nullopt;
  }
  try {
    golden.image = lab::read_png(golden.png_path);
  } catch (const lab::ImageError& error) {
    problem = error.what();
    return std::nullopt;
  }
  if (golden.image.width != golden.width || golden.image.height != golden.height) {
    problem = golden.png_path + " is " + std::to_string(golden.image.width) + "x" +
              std::to_string(golden.image.height) + " but " + json_path + " says " +
              std::to_string(golden.width) + "x" + std::to_string(golden.height) +
              ": run scripts/update-goldens.sh";
    return std::nullopt;
  }
  return golden;
}

}  // namespace labtest
