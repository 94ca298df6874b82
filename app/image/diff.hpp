// app/image/diff.hpp — `interop-lab diff A.png B.png`: the image comparer as a command. Exit 0 when the
// images are the same or within the tolerance, 1 when they differ (metrics printed, heat map written and
// its path said if asked), 2 when an input is missing, unreadable, not a regular file, corrupt, too large
// or of another size, or when --heatmap names one of the inputs (each its own message).
#pragma once

#include "app/image/image_compare.hpp"

#include <string>

namespace lab {

// What the command line gives `interop-lab diff` (app/cli/cli.cpp parses it).
struct DiffOptions {
  std::string a, b;
  std::string heatmap;        // PNG of the per-pixel difference; "" for none
  int max_diff = 2;           // a pixel differs when any channel is more than this apart (/255)
  double max_fraction = 0.0;  // the images match while at most this fraction of pixels differ
};

// The verdict diff prints: "same" for identical images (no channel of any pixel apart), "within tolerance"
// while at most `max_fraction` of the pixels differ by more than the threshold, else "different".
const char* verdict(const ImageDifference& difference, double max_fraction);

int run_diff(const DiffOptions& options);

}  // namespace lab
