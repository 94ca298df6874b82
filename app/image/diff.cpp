// app/image/diff.cpp — `interop-lab diff A.png B.png`: reads both images, compares them at --max-diff and
// --max-fraction, prints the verdict and the metrics, and writes the heat map when asked (also when they
// match), saying where. The verdict is "same" for identical images only, "within tolerance" for images
// that differ no more than --max-diff and --max-fraction allow, else "different".
// Exit codes are the diff's own contract: 0 same or within tolerance, 1 different, 2 an input or the heat
// map failed, or the heat map would overwrite an input. Every message starts with kPrefix, as the command
// line's own diff messages do (app/cli/cli.cpp).
#include "app/image/diff.hpp"

#include "app/core/text.hpp"
#include "app/image/image_compare.hpp"
#include "app/image/image_io.hpp"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

namespace lab {
namespace {

constexpr int kMatch = 0;  // the same, or within the tolerance
constexpr int kDifferent = 1;
constexpr int kError = 2;
constexpr const char* kPrefix = "interop-lab diff: ";

std::string size_text(const Image& image) {
  return lab::size_text(image.width, image.height);
}

// read_png's message names the file and the cause; the kind says which of the diff's errors it is.
std::string read_problem(const ImageError& error) {
  switch (error.kind()) {
    case ImageError::Kind::NotFound:
      return std::string("missing input: ") + error.what();
    case ImageError::Kind::Unreadable:
      return std::string("unreadable input: ") + error.what();
    case ImageError::Kind::Corrupt:
      return std::string("corrupt input: ") + error.what();
    case ImageError::Kind::TooLarge:
      return std::string("input too large: ") + error.what();
    case ImageError::Kind::Unwritable:
      break;
  }
  return error.what();
}

std::optional<Image> read_input(const std::string& path) {
  try {
    return read_png(path);
  } catch (const ImageError& error) {
    std::fprintf(stderr, "%s%s\n", kPrefix, read_problem(error).c_str());
    return std::nullopt;
  }
}

// Whether `output` is the file `input` already is (the same path, a symlink, a hard link): writing the
// heat map there would replace an input. A path that does not exist yet is no input.
// (std::filesystem::equivalent compares the device and inode, or Windows' volume and file index.)
bool same_file(const std::string& output, const std::string& input) {
  std::error_code error;
  return std::filesystem::equivalent(output, input, error) && !error;
}

}  // namespace

const char* verdict(const ImageDifference& difference, double max_fraction) {
  if (difference.max_difference == 0) return "same";
  return difference.fraction_over <= max_fraction ? "within tolerance" : "different";
}

int run_diff(const DiffOptions& options) {
  // Before reading anything: refusing late would still be right, but refusing first costs nothing.
  for (const std::string* input : {&options.a, &options.b}) {
    if (options.heatmap.empty() || !same_file(options.heatmap, *input)) continue;
    std::fprintf(
        stderr,
        "%s--heatmap %s is the input %s (the same file); writing the heat map would replace it: give "
        "another path\n",
        kPrefix, options.heatmap.c_str(), input->c_str());
    return kError;
  }
  const std::optional<Image> a = read_input(options.a);
  const std::optional<Image> b = read_input(options.b);
  if (!a || !b) return kError;
  if (a->width != b->width || a->height != b->height) {
    std::fprintf(stderr, "%s%s is %s but %s is %s; only images of one size compare\n", kPrefix,
                 options.a.c_str(), size_text(*a).c_str(), options.b.c_str(), size_text(*b).c_str());
    return kError;
  }

  const ImageDifference difference = compare_images(*a, *b, options.max_diff);
  const bool match = difference.fraction_over <= options.max_fraction;
  std::printf("%s: %s (%s, at most %g%% of pixels may differ by more than %d)\n",
              verdict(difference, options.max_fraction), to_string(difference, options.max_diff).c_str(),
              size_text(*a).c_str(), options.max_fraction * 100.0, options.max_diff);

  if (!options.heatmap.empty()) {
    try {
      write_png(options.heatmap, difference_heatmap(*a, *b));
    } catch (const ImageError& error) {
      std::fprintf(stderr, "%s%s\n", kPrefix, error.what());
      return kError;
    }
    std::fprintf(stderr, "%swrote the heat map to %s\n", kPrefix, options.heatmap.c_str());
  }
  return match ? kMatch : kDifferent;
}

}  // namespace lab
