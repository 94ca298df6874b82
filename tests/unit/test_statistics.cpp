// tests/unit/test_statistics.cpp — app/timing/statistics.hpp's median and percentile, which the benchmark's
// report and the panel's timings share: linear interpolation between the two closest ranks (numpy's
// default), so an even count's median is the mean of the two middle samples.
#include "app/timing/statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

// The definition itself, as the benchmark uses it on doubles.
TEST(StatisticsTest, MedianAndPercentileInterpolateBetweenTheClosestRanks) {
  EXPECT_DOUBLE_EQ(lab::median(std::vector<double>{}), 0.0);
  EXPECT_DOUBLE_EQ(lab::median(std::vector<double>{4.0}), 4.0);
  EXPECT_DOUBLE_EQ(lab::median(std::vector<double>{9.0, 1.0, 5.0}), 5.0);
  EXPECT_DOUBLE_EQ(lab::median(std::vector<double>{4.0, 1.0, 3.0, 2.0}), 2.5);  // not 2, the lower middle
  EXPECT_DOUBLE_EQ(lab::percentile(std::vector<double>{1.0, 2.0, 3.0, 4.0, 5.0}, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(lab::percentile(std::vector<double>{1.0, 2.0, 3.0}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(lab::percentile(std::vector<double>{1.0, 2.0, 3.0}, 1.0), 3.0);
}

}  // namespace
