// app/image/diff.hpp — `interop-lab diff A.png B.png`: the image comparer as a command. Exit 0 when the
// images match within the tolerance, 1 when they differ (metrics printed, heat map written if asked),
// 2 when an input is missing, unreadable, not a regular file, corrupt, too large or of another size, or
// when --heatmap names one of the inputs (each its own message).
#pragma once

#include <string>

namespace lab {

// What the command line gives `interop-lab diff` (app/core/cli.cpp parses it).
struct DiffOptions {
  std::string a, b;
  std::string heatmap;        // PNG of the per-pixel difference; "" for none
  int max_diff = 2;           // a pixel differs when any channel is more than this apart (/255)
  double max_fraction = 0.0;  // the images are "the same" while at most this fraction of pixels differ
};

int run_diff(const DiffOptions& options);

}  // namespace lab
