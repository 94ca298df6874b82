// app/image/image_compare.cpp — the image comparer, its heat map and its JSON (nlohmann-json).
#include "app/image/image_compare.hpp"

#include "app/core/text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace lab {
namespace {

void check_same_size(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height)
    throw std::invalid_argument("images differ in size: " + size_text(a.width, a.height) + " vs " +
                                size_text(b.width, b.height));
}

int max_channel_difference(const uint8_t* a, const uint8_t* b) {
  int largest = 0;
  for (int c = 0; c < 4; ++c)
    largest = std::max(largest, std::abs(static_cast<int>(a[c]) - static_cast<int>(b[c])));
  return largest;
}

// The heat map's colour for a largest channel difference `difference` > 0.
void heat_colour(int difference, uint8_t* rgba) {
  const float t = static_cast<float>(std::min(difference, kHeatmapSaturation)) / kHeatmapSaturation;
  float r, g, b;
  if (t <= 0.5f) {
    // Blue -> yellow, brightening from a quarter so that 1-LSB noise shows, but faintly.
    const float u = 2.0f * t;
    const float brightness = 0.25f + 0.75f * u;
    r = g = u * brightness;
    b = (1.0f - u) * brightness;
  } else {
    r = 1.0f;  // yellow -> red
    g = 2.0f - 2.0f * t;
    b = 0.0f;
  }
  rgba[0] = static_cast<uint8_t>(std::lround(r * 255.0f));
  rgba[1] = static_cast<uint8_t>(std::lround(g * 255.0f));
  rgba[2] = static_cast<uint8_t>(std::lround(b * 255.0f));
  rgba[3] = 255;
}

}  // namespace

ImageDifference compare_images(const Image& a, const Image& b, int threshold) {
  check_same_size(a, b);
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
  result.fraction_over =
      pixel_count ? static_cast<double>(result.pixels_over) / static_cast<double>(pixel_count) : 0.0;
  const double mse = pixel_count ? squared_error / (static_cast<double>(pixel_count) * 4.0) : 0.0;
  result.psnr_db =
      mse == 0.0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(255.0 * 255.0 / mse);
  return result;
}

std::string to_string(const ImageDifference& difference, int threshold) {
  char text[200];
  std::snprintf(text, sizeof text, "max %d/255, %zu pixels (%.4f%%) over %d, PSNR %.1f dB",
                difference.max_difference, difference.pixels_over, difference.fraction_over * 100.0,
                threshold, difference.psnr_db);
  std::string result = text;
  // No pixel over the threshold has no first one: its -1 is the struct's, not the reader's.
  if (difference.pixels_over > 0)
    result +=
        ", first at (" + std::to_string(difference.first_x) + ", " + std::to_string(difference.first_y) + ")";
  return result;
}

Image difference_heatmap(const Image& a, const Image& b) {
  check_same_size(a, b);
  Image heatmap;
  heatmap.width = a.width;
  heatmap.height = a.height;
  heatmap.rgba.assign(a.rgba.size(), 0);
  for (size_t offset = 0; offset < heatmap.rgba.size(); offset += 4) {
    const int difference = max_channel_difference(&a.rgba[offset], &b.rgba[offset]);
    if (difference == 0)
      heatmap.rgba[offset + 3] = 255;
    else
      heat_colour(difference, &heatmap.rgba[offset]);
  }
  return heatmap;
}

std::string to_json(const ImageDifference& difference, int threshold, double max_fraction) {
  nlohmann::json json;
  json["max_diff"] = threshold;
  json["max_fraction"] = max_fraction;
  json["max_difference"] = difference.max_difference;
  json["pixels_over"] = difference.pixels_over;
  json["fraction_over"] = difference.fraction_over;
  json["psnr_db"] = std::isfinite(difference.psnr_db) ? nlohmann::json(difference.psnr_db) : nlohmann::json();
  json["first_over"] = difference.first_x < 0
                           ? nlohmann::json()
                           : nlohmann::json::array({difference.first_x, difference.first_y});
  json["passed"] = difference.fraction_over <= max_fraction;
  return json.dump(2) + "\n";
}

}  // namespace lab
