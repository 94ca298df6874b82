// app/diff.hpp — `interop-lab diff A.png B.png`: the image comparer as a command. Exit 0 when the
// images match within the tolerance, 1 when they differ (metrics printed, heat map written if asked),
// 2 when an input is missing, unreadable, not a regular file, corrupt, too large or of another size, or
// when --heatmap names one of the inputs (each its own message).
#pragma once

#include "app/cli.hpp"

namespace lab {

int run_diff(const DiffOptions& options);

}  // namespace lab
