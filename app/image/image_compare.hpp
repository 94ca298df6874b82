// app/image/image_compare.hpp — how far apart two RGBA8 images are: the largest per-channel difference,
// how many pixels exceed a threshold, and PSNR. Tests state their tolerances in these terms; a heat map
// shows where two images differ, and the metrics travel as JSON beside failed golden tests.
#pragma once

#include "app/image/image_io.hpp"

#include <cstddef>
#include <string>

namespace lab {

struct ImageDifference {
  int max_difference = 0;          // largest |a - b| over all channels, 0..255
  size_t pixels_over = 0;          // pixels with any channel differing by more than the threshold
  double fraction_over = 0.0;      // pixels_over / pixel count
  double psnr_db = 0.0;            // infinity for identical images
  int first_x = -1, first_y = -1;  // the first pixel over the threshold (row-major), -1 if none
};

// Throws std::invalid_argument when the sizes differ.
ImageDifference compare_images(const Image& a, const Image& b, int threshold);

// "max 3/255, 12 pixels (0.0013%) over 1, PSNR 58.2 dB, first at (10, 4)" for failure messages; without
// ", first at" where no pixel is over the threshold.
std::string to_string(const ImageDifference& difference, int threshold);

// Where a and b differ: per pixel the largest channel difference d on a ramp that is black for d = 0,
// dim blue for 1-LSB noise, then blue -> yellow -> red, saturating at kHeatmapSaturation. Opaque.
// Throws std::invalid_argument when the sizes differ.
constexpr int kHeatmapSaturation = 32;
Image difference_heatmap(const Image& a, const Image& b);

// The metrics and the tolerance they were judged by, as one JSON object:
// {"max_diff": threshold, "max_fraction": .., "max_difference": .., "pixels_over": .., "fraction_over": ..,
//  "psnr_db": .. (null for identical images: JSON has no infinity), "first_over": [x, y] or null,
//  "passed": fraction_over <= max_fraction}.
std::string to_json(const ImageDifference& difference, int threshold, double max_fraction);

}  // namespace lab
