// tests/unit/test_image_compare.cpp — the image comparer the frame tests rely on, its heat map and its
// JSON.
#include "app/image/image_compare.hpp"
#include "tests/support/image_fixture.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace {

lab::Image gradient(int width, int height) {
  return labtest::synthetic_image(width, height, [](int x, int y) {
    return std::array<uint8_t, 4>{static_cast<uint8_t>(x * 7), static_cast<uint8_t>(y * 5),
                                  static_cast<uint8_t>(x + y), 255};
  });
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
  EXPECT_NE(lab::to_string(d, 1).find(", first at (10, 4)"), std::string::npos) << lab::to_string(d, 1);
}

// -1 is how the struct says "none"; the text says nothing rather than print a pixel that is not there.
TEST(ImageCompare, TextNamesNoFirstPixelWhereNoneIsOverTheThreshold) {
  const lab::Image a = gradient(31, 17);
  lab::Image b = a;
  b.rgba[0] += 1;  // within a threshold of 1
  for (const lab::Image* other : {&a, static_cast<const lab::Image*>(&b)}) {
    const std::string text = lab::to_string(lab::compare_images(a, *other, 1), 1);
    EXPECT_EQ(text.find("first at"), std::string::npos) << text;
    EXPECT_EQ(text.find("-1"), std::string::npos) << text;
  }
}

TEST(ImageCompare, RefusesDifferentSizes) {
  EXPECT_THROW(lab::compare_images(gradient(4, 4), gradient(4, 5), 0), std::invalid_argument);
  EXPECT_THROW(lab::difference_heatmap(gradient(4, 4), gradient(5, 4)), std::invalid_argument);
}

TEST(ImageCompare, OnePixelOverTheThresholdFailsWithCountOne) {
  const lab::Image a = gradient(64, 48);
  lab::Image b = a;
  b.rgba[(static_cast<size_t>(20) * 64 + 33) * 4 + 2] ^= 0x40;  // (33, 20), blue off by 64
  const lab::ImageDifference d = lab::compare_images(a, b, 2);
  EXPECT_EQ(d.pixels_over, 1u);
  EXPECT_EQ(d.max_difference, 64);
  EXPECT_GT(d.fraction_over, 0.0) << "a zero max_fraction must reject it";
  EXPECT_EQ(d.first_x, 33);
  EXPECT_EQ(d.first_y, 20);
}

TEST(ImageCompare, AOnePixelShiftDiffersAlmostEverywhere) {
  const lab::Image a = gradient(64, 48);
  lab::Image shifted = a;
  for (int y = 0; y < 48; ++y)
    for (int x = 1; x < 64; ++x)
      std::copy(a.pixel(x - 1, y), a.pixel(x - 1, y) + 4,
                &shifted.rgba[(static_cast<size_t>(y) * 64 + x) * 4]);
  const lab::ImageDifference d = lab::compare_images(a, shifted, 2);
  // Red steps by 7 per column: every shifted pixel differs (column 0 stays).
  EXPECT_EQ(d.pixels_over, 63u * 48u);
  EXPECT_GT(d.fraction_over, 0.9);
}

TEST(DifferenceHeatmap, IdenticalImagesGiveOpaqueBlack) {
  const lab::Image a = gradient(31, 17);
  const lab::Image heatmap = lab::difference_heatmap(a, a);
  ASSERT_EQ(heatmap.width, 31);
  ASSERT_EQ(heatmap.height, 17);
  for (size_t p = 0; p < heatmap.rgba.size(); p += 4) {
    ASSERT_EQ(heatmap.rgba[p + 0], 0) << "pixel " << p / 4;
    ASSERT_EQ(heatmap.rgba[p + 1], 0) << "pixel " << p / 4;
    ASSERT_EQ(heatmap.rgba[p + 2], 0) << "pixel " << p / 4;
    ASSERT_EQ(heatmap.rgba[p + 3], 255) << "pixel " << p / 4;
  }
}

// Pixel x of `b` differs from black by x in its green channel; the heat map shows each pixel's difference.
TEST(DifferenceHeatmap, ColourGrowsWithTheDifference) {
  lab::Image a;
  a.width = 64;
  a.height = 1;
  a.rgba.assign(64 * 4, 0);
  lab::Image b = a;
  for (int x = 0; x < 64; ++x) b.rgba[static_cast<size_t>(x) * 4 + 1] = static_cast<uint8_t>(x);
  const lab::Image heatmap = lab::difference_heatmap(a, b);

  const uint8_t* faint = heatmap.pixel(1, 0);  // 1 LSB: visible, but faint and blue
  EXPECT_GT(faint[2], 0);
  EXPECT_GT(faint[2], faint[0]);
  EXPECT_LT(std::max({faint[0], faint[1], faint[2]}), 96);
  const uint8_t* middle = heatmap.pixel(lab::kHeatmapSaturation / 2, 0);  // yellow
  EXPECT_EQ(middle[0], 255);
  EXPECT_EQ(middle[1], 255);
  EXPECT_EQ(middle[2], 0);
  for (int x = lab::kHeatmapSaturation; x < 64; ++x) {  // saturated: red
    EXPECT_EQ(heatmap.pixel(x, 0)[0], 255) << x;
    EXPECT_EQ(heatmap.pixel(x, 0)[1], 0) << x;
    EXPECT_EQ(heatmap.pixel(x, 0)[2], 0) << x;
  }
  // Red (the heat) rises with the difference up to yellow and stays; blue fades on the way to yellow.
  for (int x = 1; x < lab::kHeatmapSaturation; ++x) {
    const uint8_t* lower = heatmap.pixel(x, 0);
    const uint8_t* higher = heatmap.pixel(x + 1, 0);
    if (x < lab::kHeatmapSaturation / 2) {
      EXPECT_GT(higher[0], lower[0]) << x;
    } else {
      EXPECT_EQ(higher[0], 255) << x;
      EXPECT_LT(higher[1], lower[1]) << x << ": green fades from yellow to red";
    }
    EXPECT_EQ(heatmap.pixel(x, 0)[3], 255) << x;
  }
}

TEST(ImageDifferenceJson, RoundTripsTheNumbers) {
  const lab::Image a = gradient(31, 17);
  lab::Image b = a;
  b.rgba[(static_cast<size_t>(4) * 31 + 10) * 4 + 1] += 3;
  const lab::ImageDifference d = lab::compare_images(a, b, 1);
  const nlohmann::json json = nlohmann::json::parse(lab::to_json(d, 1, 0.25));
  EXPECT_EQ(json.at("max_diff").get<int>(), 1);
  EXPECT_DOUBLE_EQ(json.at("max_fraction").get<double>(), 0.25);
  EXPECT_EQ(json.at("max_difference").get<int>(), 3);
  EXPECT_EQ(json.at("pixels_over").get<size_t>(), 1u);
  EXPECT_DOUBLE_EQ(json.at("fraction_over").get<double>(), d.fraction_over);
  EXPECT_DOUBLE_EQ(json.at("psnr_db").get<double>(), d.psnr_db);
  EXPECT_EQ(json.at("first_over"), nlohmann::json::array({10, 4}));
  EXPECT_TRUE(json.at("passed").get<bool>());
  EXPECT_FALSE(nlohmann::json::parse(lab::to_json(d, 1, 0.0)).at("passed").get<bool>());
}

TEST(ImageDifferenceJson, IdenticalImagesHaveNullPsnrAndNoFirstPixel) {
  const lab::Image a = gradient(8, 8);
  const nlohmann::json json = nlohmann::json::parse(lab::to_json(lab::compare_images(a, a, 0), 0, 0.0));
  EXPECT_TRUE(json.at("psnr_db").is_null()) << "JSON has no infinity";
  EXPECT_TRUE(json.at("first_over").is_null());
  EXPECT_EQ(json.at("pixels_over").get<size_t>(), 0u);
  EXPECT_TRUE(json.at("passed").get<bool>());
}

}  // namespace
