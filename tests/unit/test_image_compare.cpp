// tests/unit/test_image_compare.cpp — the image comparer the frame tests rely on.
#include "app/image_compare.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

lab::Image gradient(int width, int height) {
  lab::Image image;
  image.width = width;
  image.height = height;
  image.rgba.resize(static_cast<size_t>(width) * height * 4);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      uint8_t* p = &image.rgba[(static_cast<size_t>(y) * width + x) * 4];
      p[0] = static_cast<uint8_t>(x * 7);
      p[1] = static_cast<uint8_t>(y * 5);
      p[2] = static_cast<uint8_t>(x + y);
      p[3] = 255;
    }
  return image;
}

TEST(ImageCompare, IdenticalImagesDifferNowhere) {
  const lab::Image a = gradient(31, 17);
  const lab::ImageDifference d = lab::compare_images(a, a, 0);
  EXPECT_EQ(d.max_difference, 0);
  EXPECT_EQ(d.pixels_over, 0u);
  EXPECT_TRUE(std::isinf(d.psnr_db));
  EXPECT_EQ(d.first_x, -1);
}

TEST(ImageCompare, CountsPixelsOverTheThresholdAndFindsTheFirst) {
  const lab::Image a = gradient(31, 17);
  lab::Image b = a;
  b.rgba[(static_cast<size_t>(4) * 31 + 10) * 4 + 1] += 3;  // (10, 4), green +3
  b.rgba[(static_cast<size_t>(9) * 31 + 2) * 4 + 0] += 1;   // (2, 9), red +1: within a threshold of 1
  const lab::ImageDifference d = lab::compare_images(a, b, 1);
  EXPECT_EQ(d.max_difference, 3);
  EXPECT_EQ(d.pixels_over, 1u);
  EXPECT_EQ(d.first_x, 10);
  EXPECT_EQ(d.first_y, 4);
  EXPECT_NEAR(d.fraction_over, 1.0 / (31 * 17), 1e-12);
  // MSE = (9 + 1) / (31 * 17 * 4)
  EXPECT_NEAR(d.psnr_db, 10.0 * std::log10(255.0 * 255.0 / (10.0 / (31 * 17 * 4))), 1e-9);
  EXPECT_NE(lab::to_string(d, 1).find("max 3/255"), std::string::npos);
}

TEST(ImageCompare, RefusesDifferentSizes) {
  EXPECT_THROW(lab::compare_images(gradient(4, 4), gradient(4, 5), 0), std::invalid_argument);
}

}  // namespace
