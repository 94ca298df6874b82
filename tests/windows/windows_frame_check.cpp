// tests/windows/windows_frame_check.cpp — the Linux half of the Direct3D proof: lists the goldens
// (tests/golden/*.json) for scripts/windows-cross.sh to render under Wine with interop-lab.exe's
// --screenshot, then judges each screenshot against its golden with the project's own
// comparison (app/image/golden.hpp, app/image/image_compare.hpp), at the golden's tolerance for another
// renderer. One line per scene; a failure leaves <scene>-actual.png, <scene>-heatmap.png and
// <scene>-metrics.json beside the frames.
//
//   windows_frame_check list GOLDEN_DIR             "scene width height frame [filter]" per golden
//   windows_frame_check compare GOLDEN_DIR FRAMES LABEL   judge FRAMES/<scene>.png; LABEL
//                                                         ("interop-lab.exe --api d3d11") starts each line
// Exit 0 every frame within its tolerance, 1 any not (or missing), 2 usage or unreadable goldens.
#include "app/image/golden.hpp"
#include "app/image/image_compare.hpp"
#include "app/image/image_io.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Golden {
  lab::GoldenRecord record;
  fs::path image;
};

std::vector<Golden> read_goldens(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<Golden> goldens;
  for (const fs::path& file : files) goldens.push_back({lab::read_golden_json(file.string()), {}});
  for (Golden& golden : goldens) golden.image = dir / golden.record.image;
  return goldens;
}

// The screenshot interop-lab.exe wrote, or an empty image when there is none of the golden's size (said why).
lab::Image read_frame(const fs::path& frames, const lab::GoldenRecord& record, std::string& problem) {
  const fs::path png = frames / (record.scene + ".png");
  if (!fs::exists(png)) {
    problem = "no screenshot at " + png.string() + " (the run failed: its message is above)";
    return {};
  }
  lab::Image image;
  try {
    image = lab::read_png(png.string());
  } catch (const std::exception& error) {  // this frame's failure, not the goldens'
    problem = error.what();
    return {};
  }
  if (image.width != record.width || image.height != record.height) {
    problem = png.string() + " is " + std::to_string(image.width) + "x" + std::to_string(image.height) +
              "; the golden is " + std::to_string(record.width) + "x" + std::to_string(record.height);
    return {};
  }
  return image;
}

int compare(const fs::path& golden_dir, const fs::path& frames, const std::string& label) {
  const std::vector<Golden> goldens = read_goldens(golden_dir);
  if (goldens.empty()) {
    std::printf("%s: FAILED: no goldens (*.json) in %s to compare with\n", label.c_str(),
                golden_dir.string().c_str());
    return 1;
  }
  int failed = 0;
  for (const Golden& golden : goldens) {
    const lab::GoldenRecord& record = golden.record;
    const std::string what = label + " " + record.scene + " " + std::to_string(record.width) + "x" +
                             std::to_string(record.height) + " frame " + std::to_string(record.frame);
    std::string problem;
    const lab::Image actual = read_frame(frames, record, problem);
    if (actual.rgba.empty()) {
      std::printf("%s: FAILED: %s\n", what.c_str(), problem.c_str());
      ++failed;
      continue;
    }
    const lab::Image expected = lab::read_png(golden.image.string());
    const lab::GoldenTolerance tolerance = record.other_renderer;  // Direct3D is another renderer than GL
    const lab::ImageDifference difference = lab::compare_images(actual, expected, tolerance.max_diff);
    const bool passed = difference.fraction_over <= tolerance.max_fraction;
    std::printf("%s vs %s: %s, %s (tolerance: over %d/255 on at most %g%% of pixels)\n", what.c_str(),
                golden.image.filename().string().c_str(), passed ? "passed" : "FAILED",
                lab::to_string(difference, tolerance.max_diff).c_str(), tolerance.max_diff,
                tolerance.max_fraction * 100.0);
    if (passed) continue;
    ++failed;
    const fs::path base = frames / record.scene;
    lab::write_png(base.string() + "-actual.png", actual);
    lab::write_png(base.string() + "-heatmap.png", lab::difference_heatmap(actual, expected));
    lab::write_text_file(base.string() + "-metrics.json",
                         lab::to_json(difference, tolerance.max_diff, tolerance.max_fraction) + "\n");
    std::printf("  left %s-actual.png, -heatmap.png and -metrics.json\n", base.string().c_str());
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::strcmp(argv[1], "list") == 0) {
      for (const Golden& golden : read_goldens(argv[2])) {
        const lab::GoldenRecord& record = golden.record;
        std::printf("%s %d %d %lld%s%s\n", record.scene.c_str(), record.width, record.height, record.frame,
                    record.filter.empty() ? "" : " ", record.filter.c_str());
      }
      return 0;
    }
    if (argc == 5 && std::strcmp(argv[1], "compare") == 0) return compare(argv[2], argv[3], argv[4]);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "windows_frame_check: %s\n", error.what());
    return 2;
  }
  std::fprintf(stderr, "usage: windows_frame_check list GOLDEN_DIR | compare GOLDEN_DIR FRAMES_DIR LABEL\n");
  return 2;
}
