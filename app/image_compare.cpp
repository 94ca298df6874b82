// app/image_compare.cpp — the image comparer.
#include "app/image_compare.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace lab {

ImageDifference compare_images(const Image& a, const Image& b, int threshold) {
  if (a.width != b.width || a.height != b.height)
    throw std::invalid_argument("images differ in size: " + std::to_string(a.width) + "x" + std::to_string(a.height) +
                                " vs " + std::to_string(b.width) + "x" + std::to_string(b.height));
  ImageDifference result;
  double squared_error = 0.0;
  const size_t pixel_count = static_cast<size_t>(a.width) * a.height;
  for (size_t p = 0; p < pixel_count; ++p) {
    int pixel_max = 0;
    for (int c = 0; c < 4; ++c) {
      const int d = std::abs(static_cast<int>(a.rgba[p * 4 + c]) - static_cast<int>(b.rgba[p * 4 + c]));
      squared_error += static_cast<double>(d) * d;
      if (d > pixel_max) pixel_max = d;
    }
    if (pixel_max > result.max_difference) result.max_difference = pixel_max;
    if (pixel_max > threshold) {
      if (result.pixels_over == 0) {
        result.first_x = static_cast<int>(p % static_cast<size_t>(a.width));
        result.first_y = static_cast<int>(p / static_cast<size_t>(a.width));
      }
      ++result.pixels_over;
    }
  }
  result.fraction_over = pixel_count ? static_cast<double>(result.pixels_over) / static_cast<double>(pixel_count) : 0.0;
  const double mse = pixel_count ? squared_error / (static_cast<double>(pixel_count) * 4.0) : 0.0;
  result.psnr_db = mse == 0.0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(255.0 * 255.0 / mse);
  return result;
}

std::string to_string(const ImageDifference& difference, int threshold) {
  char text[200];
  std::snprintf(text, sizeof text, "max %d/255, %zu pixels (%.4f%%) over %d, PSNR %.1f dB, first at (%d, %d)",
                difference.max_difference, difference.pixels_over, difference.fraction_over * 100.0, threshold,
                difference.psnr_db, difference.first_x, difference.first_y);
  return text;
}

}  // namespace lab
