// app/image_compare.hpp — how far apart two RGBA8 images are: the largest per-channel difference,
// how many pixels exceed a threshold, and PSNR. Tests state their tolerances in these terms.
#pragma once

#include "app/image_io.hpp"

#include <cstddef>
#include <string>

namespace lab {

struct ImageDifference {
  int max_difference = 0;        // largest |a - b| over all channels, 0..255
  size_t pixels_over = 0;        // pixels with any channel differing by more than the threshold
  double fraction_over = 0.0;    // pixels_over / pixel count
  double psnr_db = 0.0;          // infinity for identical images
  int first_x = -1, first_y = -1;  // the first pixel over the threshold (row-major), -1 if none
};

// Throws std::invalid_argument when the sizes differ.
ImageDifference compare_images(const Image& a, const Image& b, int threshold);

// "max 3/255, 12 pixels (0.0013%) over 1, PSNR 58.2 dB, first at (10, 4)" for failure messages.
std::string to_string(const ImageDifference& difference, int threshold);

}  // namespace lab
