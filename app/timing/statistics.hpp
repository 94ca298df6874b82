// app/timing/statistics.hpp — the one definition of a median and a percentile, for the benchmark's report
// and the panel's timings alike (so the README's medians and the panel's agree).
//
// A percentile interpolates linearly between the two closest ranks (numpy's default, Excel's
// PERCENTILE.INC): of n sorted samples, percentile p sits at position p * (n - 1). The median is
// percentile 0.5: the middle sample, or the mean of the two middle samples when n is even.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace lab {

// `sorted` ascending; p in [0, 1]. 0 for no samples.
template <class T>
double percentile_of_sorted(const std::vector<T>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  const double position = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(position);
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return static_cast<double>(sorted[below]) +
         fraction * (static_cast<double>(sorted[above]) - static_cast<double>(sorted[below]));
}

template <class T>
double percentile(std::vector<T> samples, double p) {
  std::sort(samples.begin(), samples.end());
  return percentile_of_sorted(samples, p);
}

template <class T>
double median(std::vector<T> samples) {
  return percentile(std::move(samples), 0.5);
}

}  // namespace lab
