// app/image/screenshots.hpp — the screenshot key's files: numbered PNGs that never overwrite one another.
#pragma once

#include "app/image/image_io.hpp"

#include <string>

namespace lab {

// <dir>/interop-lab-NNNN.png with NNNN one past the highest number already in `dir` (0001 in an empty
// folder), so a screenshot never overwrites one and the numbers keep the order they were taken in.
// `dir` "" is the current folder.
std::string next_screenshot_path(const std::string& dir);

// The screenshot key: `image` written to next_screenshot_path(dir). Returns what the panel shows: the
// path, or "not written: <why>" (said on stderr too); a file that cannot be written never ends the run.
std::string take_numbered_screenshot(const std::string& dir, const Image& image);

}  // namespace lab
