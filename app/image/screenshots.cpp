#include "app/image/screenshots.hpp"

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace lab {

std::string next_screenshot_path(const std::string& dir) {
  const std::filesystem::path folder = dir.empty() ? std::filesystem::path(".") : std::filesystem::path(dir);
  long highest = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    long number = 0;
    int consumed = 0;
    // "interop-lab-0042.png": the digits, then exactly ".png".
    if (std::sscanf(name.c_str(), "interop-lab-%ld.png%n", &number, &consumed) == 1 &&
        static_cast<size_t>(consumed) == name.size() && number > highest)
      highest = number;
  }
  char file[40];
  std::snprintf(file, sizeof file, "interop-lab-%04ld.png", highest + 1);
  return dir.empty() ? std::string(file) : (folder / file).string();
}

std::string take_numbered_screenshot(const std::string& dir, const Image& image) {
  const std::string path = next_screenshot_path(dir);
  try {
    write_png(path, image);
    std::fprintf(stderr, "interop-lab: wrote %s\n", path.c_str());
    return path;
  } catch (const ImageError& error) {
    const std::string failed = std::string("not written: ") + error.what();
    std::fprintf(stderr, "interop-lab: screenshot %s\n", failed.c_str());
    return failed;
  }
}

}  // namespace lab
