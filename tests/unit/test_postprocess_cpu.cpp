// tests/unit/test_postprocess_cpu.cpp — the image vocabulary (load/store) and the postprocess filters'
// texel functions and CPU launcher, no GPU needed.
#include "kernels/pattern.hpp"
#include "kernels/postprocess.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using kernels::Rgba8;

constexpr Rgba8 kGuard{255, 255, 255, 255};

std::string text(Rgba8 c) {
  return "(" + std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + "," +
         std::to_string(c.a) + ")";
}

bool within_one(Rgba8 a, Rgba8 b) {
  return std::abs(a.r - b.r) <= 1 && std::abs(a.g - b.g) <= 1 && std::abs(a.b - b.b) <= 1 &&
         std::abs(a.a - b.a) <= 1;
}

// A host image of `fill` with `padding` texels at the end of every row and a guard row above and below,
// all of kGuard: a filter that reads outside the image sees white, one that writes outside changes it.
class HostImage {
 public:
  HostImage(int width, int height, Rgba8 fill, int padding = 0)
      : m_width(width),
        m_height(height),
        m_stride(width + padding),
        m_storage(static_cast<size_t>(m_stride) * (height + 2), kGuard) {
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) at(x, y) = fill;
  }

  int width() const { return m_width; }
  int height() const { return m_height; }
  Rgba8& at(int x, int y) { return m_storage[index(x, y)]; }
  Rgba8 at(int x, int y) const { return m_storage[index(x, y)]; }

  kernels::ImageSource source() const {
    return kernels::linear_source(&m_storage[index(0, 0)], pitch(), m_width, m_height);
  }
  kernels::ImageTarget target() {
    return kernels::linear_target(&m_storage[index(0, 0)], pitch(), m_width, m_height);
  }

  // Every texel outside the image (padding and guard rows) still holds kGuard.
  bool guards_intact() const {
    for (int y = -1; y <= m_height; ++y)
      for (int x = 0; x < m_stride; ++x)
        if ((y < 0 || y >= m_height || x >= m_width) && m_storage[index(x, y)] != kGuard) return false;
    return true;
  }

 private:
  size_t pitch() const { return static_cast<size_t>(m_stride) * sizeof(Rgba8); }
  size_t index(int x, int y) const { return static_cast<size_t>(y + 1) * m_stride + x; }

  int m_width, m_height, m_stride;
  std::vector<Rgba8> m_storage;
};

// Runs the CPU launcher from `input` into a fresh image of the same size.
HostImage filtered(const HostImage& input, const kernels::PostprocessParams& params) {
  HostImage output(input.width(), input.height(), Rgba8{0, 0, 0, 0}, 3);
  std::vector<kernels::Vec4> scratch(kernels::postprocess_scratch_bytes(input.width(), input.height()) /
                                     sizeof(kernels::Vec4));
  kernels::postprocess_cpu(input.source(), output.target(), params, scratch.data());
  EXPECT_TRUE(output.guards_intact()) << "the launcher wrote outside its target";
  return output;
}

kernels::PostprocessParams sobel() {
  return {kernels::Filter::Sobel, 6};
}
kernels::PostprocessParams blur(int radius) {
  return {kernels::Filter::Blur, radius};
}

Rgba8 dark_copy(Rgba8 c) {
  const kernels::Vec4 v{c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, c.a / 255.0f};
  Rgba8 out = kernels::to_rgba8(kernels::sobel_background(v));
  out.a = c.a;
  return out;
}

TEST(ImageAccess, LoadClampsToTheEdgeAndNormalises) {
  HostImage image(3, 2, Rgba8{0, 0, 0, 0});
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      image.at(x, y) = Rgba8{static_cast<uint8_t>(10 * x), static_cast<uint8_t>(100 + 10 * y), 255, 51};
  const kernels::ImageSource source = image.source();
  const auto expect_texel = [&](int x, int y, int inside_x, int inside_y) {
    const kernels::Vec4 v = kernels::load(source, x, y);
    const Rgba8 c = image.at(inside_x, inside_y);
    EXPECT_EQ(v.x, c.r / 255.0f) << "load(" << x << ", " << y << ")";
    EXPECT_EQ(v.y, c.g / 255.0f) << "load(" << x << ", " << y << ")";
    EXPECT_EQ(v.z, c.b / 255.0f) << "load(" << x << ", " << y << ")";
    EXPECT_EQ(v.w, c.a / 255.0f) << "load(" << x << ", " << y << ")";
  };
  expect_texel(1, 1, 1, 1);
  expect_texel(-1, -1, 0, 0);
  expect_texel(-100, 1, 0, 1);
  expect_texel(3, 0, 2, 0);
  expect_texel(1, 2, 1, 1);
  expect_texel(50, 50, 2, 1);
  EXPECT_EQ(kernels::load(source, 2, 0).z, 1.0f);
  EXPECT_EQ(kernels::load(source, 0, 0).x, 0.0f);
}

TEST(ImageAccess, StoreWritesOnlyItsTexel) {
  HostImage image(4, 3, Rgba8{7, 7, 7, 7}, 2);
  kernels::store(image.target(), 3, 1, Rgba8{1, 2, 3, 4});  // the last column, next to the padding
  kernels::store(image.target(), 0, 2, Rgba8{5, 6, 7, 8});  // the last row, next to the guard row
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 4; ++x) {
      const Rgba8 expected = x == 3 && y == 1   ? Rgba8{1, 2, 3, 4}
                             : x == 0 && y == 2 ? Rgba8{5, 6, 7, 8}
                                                : Rgba8{7, 7, 7, 7};
      EXPECT_EQ(image.at(x, y), expected) << "at " << x << "," << y << ": " << text(image.at(x, y));
    }
  }
  EXPECT_TRUE(image.guards_intact());
}

TEST(PostprocessFilter, NamesForTheCommandLineAndPanel) {
  EXPECT_STREQ(kernels::to_string(kernels::Filter::Sobel), "sobel");
  EXPECT_STREQ(kernels::to_string(kernels::Filter::Blur), "blur");
}

TEST(SobelFilter, ConstantImageIsTheDarkTintedCopyWithoutEdges) {
  const Rgba8 colour{200, 120, 40, 255};
  const HostImage input(16, 12, colour);
  for (int y = 0; y < input.height(); ++y)
    for (int x = 0; x < input.width(); ++x) ASSERT_EQ(kernels::sobel_magnitude(input.source(), x, y), 0.0f);
  const Rgba8 expected = dark_copy(colour);
  EXPECT_LT(expected.r, colour.r / 4) << "the copy under the edges is dark";
  EXPECT_GT(expected.r, 0) << "but still visible";
  EXPECT_NE(expected.r * 255 / colour.r, expected.b * 255 / colour.b) << "and tinted";
  const HostImage output = filtered(input, sobel());
  for (int y = 0; y < input.height(); ++y)
    for (int x = 0; x < input.width(); ++x)
      ASSERT_EQ(output.at(x, y), expected) << "at " << x << "," << y << ": " << text(output.at(x, y));
}

TEST(SobelFilter, VerticalStepRespondsOnTheStepColumnsOnly) {
  const Rgba8 dark{20, 20, 20, 255};
  const Rgba8 bright{230, 230, 230, 255};
  HostImage input(10, 6, dark);
  for (int y = 0; y < input.height(); ++y)
    for (int x = 5; x < input.width(); ++x) input.at(x, y) = bright;
  const HostImage output = filtered(input, sobel());
  const Rgba8 edge = kernels::to_rgba8(kernels::sobel_edge_colour());
  for (int y = 0; y < input.height(); ++y) {
    for (int x = 0; x < input.width(); ++x) {
      const float magnitude = kernels::sobel_magnitude(input.source(), x, y);
      if (x == 4 || x == 5) {
        // The same in every row, the first and last included: clamped rows carry no vertical gradient.
        EXPECT_EQ(magnitude, kernels::sobel_magnitude(input.source(), x, 2)) << "at " << x << "," << y;
        EXPECT_GT(magnitude * kernels::kSobelEdgeGain, 1.0f) << "a full-contrast edge saturates";
        EXPECT_GE(output.at(x, y).r, edge.r) << "at " << x << "," << y;
        EXPECT_GE(output.at(x, y).g, edge.g) << "at " << x << "," << y;
        EXPECT_GE(output.at(x, y).b, edge.b) << "at " << x << "," << y;
      } else {
        EXPECT_EQ(magnitude, 0.0f) << "at " << x << "," << y;
        EXPECT_EQ(output.at(x, y), dark_copy(input.at(x, y))) << "at " << x << "," << y;
      }
    }
  }
}

TEST(SobelFilter, SingleTexelAndTinyImagesReadNothingOutside) {
  const Rgba8 colour{10, 20, 30, 255};
  for (const auto& [width, height] : {std::pair{1, 1}, std::pair{3, 2}}) {
    const HostImage input(width, height, colour, 2);  // padding and guard rows are white
    const HostImage output = filtered(input, sobel());
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        EXPECT_EQ(output.at(x, y), dark_copy(colour)) << width << "x" << height << " at " << x << "," << y;
  }
}

TEST(BlurFilter, WeightsAreNormalisedGaussians) {
  for (int radius = 1; radius <= kernels::kMaxBlurRadius; ++radius) {
    const kernels::BlurWeights w = kernels::blur_weights(blur(radius));
    ASSERT_EQ(w.radius, radius);
    double sum = w.weight[0];
    for (int i = 1; i <= radius; ++i) {
      sum += 2.0 * w.weight[i];
      EXPECT_LT(w.weight[i], w.weight[i - 1]) << "radius " << radius << " tap " << i;
    }
    EXPECT_NEAR(sum, 1.0, 1e-5) << "radius " << radius;
    // sigma = radius / 2.5: the outermost tap is exp(-2.5^2 / 2) of the centre one.
    EXPECT_NEAR(w.weight[radius] / w.weight[0], std::exp(-3.125), 1e-5) << "radius " << radius;
  }
  const kernels::BlurWeights none = kernels::blur_weights(blur(0));
  EXPECT_EQ(none.radius, 0);
  EXPECT_EQ(none.weight[0], 1.0f);
}

TEST(BlurFilter, ConstantImageStaysConstant) {
  const Rgba8 colour{90, 160, 30, 200};
  const HostImage input(20, 15, colour);
  for (int radius : {0, 1, 6, kernels::kMaxBlurRadius}) {
    const HostImage output = filtered(input, blur(radius));
    for (int y = 0; y < input.height(); ++y)
      for (int x = 0; x < input.width(); ++x)
        ASSERT_TRUE(within_one(output.at(x, y), colour))
            << "radius " << radius << " at " << x << "," << y << ": " << text(output.at(x, y));
  }
}

TEST(BlurFilter, SingleTexelAndTinyImagesReadNothingOutside) {
  const Rgba8 colour{10, 20, 30, 255};
  for (const auto& [width, height] : {std::pair{1, 1}, std::pair{3, 2}}) {
    const HostImage input(width, height, colour, 2);  // padding and guard rows are white
    const HostImage output = filtered(input, blur(6));
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        EXPECT_TRUE(within_one(output.at(x, y), colour))
            << width << "x" << height << " at " << x << "," << y << ": " << text(output.at(x, y));
  }
}

TEST(BlurFilter, SingleBrightTexelSpreadsSymmetricallyAroundItsPeak) {
  for (int radius : {2, 6}) {
    const int size = 2 * radius + 9, centre = size / 2;
    HostImage input(size, size, Rgba8{0, 0, 0, 255});
    input.at(centre, centre) = Rgba8{255, 255, 255, 255};
    const HostImage output = filtered(input, blur(radius));
    const Rgba8 peak = output.at(centre, centre);
    EXPECT_GT(peak.r, 0);
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        const Rgba8 c = output.at(x, y);
        const std::string where =
            "radius " + std::to_string(radius) + " at " + std::to_string(x) + "," + std::to_string(y);
        ASSERT_EQ(c, output.at(size - 1 - x, y)) << where;  // mirrored in x
        ASSERT_EQ(c, output.at(x, size - 1 - y)) << where;  // mirrored in y
        ASSERT_EQ(c, output.at(y, x)) << where;             // the same along x as along y
        ASSERT_EQ(c.a, 255) << where;
        if (std::abs(x - centre) > radius || std::abs(y - centre) > radius) {
          ASSERT_EQ(c.r, 0) << where;
        }
        if (x != centre || y != centre) {
          ASSERT_LE(c.r, peak.r) << where;
          if (radius == 2) {  // at radius 6 the centre's neighbours may round to the peak's value
            ASSERT_LT(c.r, peak.r) << where;
          }
        }
      }
    }
  }
}

TEST(PostprocessCpu, LauncherRunsTheTexelFunctionsOnEveryTexel) {
  // A pattern frame as source, tall enough that the rows are split over threads.
  const int width = 67, height = 70;
  HostImage input(width, height, Rgba8{0, 0, 0, 0}, 5);
  kernels::pattern_cpu(input.target(), kernels::PatternParams{width, height, 1.25f});
  const HostImage edges = filtered(input, sobel());
  const kernels::PostprocessParams params = blur(4);
  const HostImage blurred = filtered(input, params);
  const kernels::BlurWeights weights = kernels::blur_weights(params);
  std::vector<kernels::Vec4> scratch(static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      scratch[static_cast<size_t>(y) * width + x] =
          kernels::blur_horizontal_texel(input.source(), x, y, weights);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      ASSERT_EQ(edges.at(x, y), kernels::sobel_texel(input.source(), x, y)) << "sobel at " << x << "," << y;
      ASSERT_EQ(blurred.at(x, y), kernels::blur_vertical_texel(scratch.data(), width, height, x, y, weights))
          << "blur at " << x << "," << y;
    }
  }
}

TEST(PostprocessCpu, RejectsWhatItCannotRun) {
  HostImage input(8, 4, Rgba8{1, 2, 3, 4});
  HostImage output(8, 4, Rgba8{0, 0, 0, 0});
  HostImage small(4, 4, Rgba8{0, 0, 0, 0});
  std::vector<kernels::Vec4> scratch(8 * 4);
  const auto message = [](const std::function<void()>& run) {
    try {
      run();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no exception)");
  };
  EXPECT_NE(message([&] {
              kernels::postprocess_cpu(input.source(), small.target(), sobel(), scratch.data());
            }).find("8x4 but ImageTarget is 4x4"),
            std::string::npos);
  EXPECT_NE(message([&] {
              kernels::postprocess_cpu(input.source(), output.target(), blur(33), scratch.data());
            }).find("blur_radius is 33; use 0..32"),
            std::string::npos);
  EXPECT_NE(message([&] {
              kernels::postprocess_cpu(input.source(), output.target(), blur(6), nullptr);
            }).find("postprocess_scratch_bytes"),
            std::string::npos);
  EXPECT_NE(message([&] {
              kernels::postprocess_cpu(kernels::texture_source(1, 8, 4), output.target(), sobel(),
                                       scratch.data());
            }).find("texture object"),
            std::string::npos);
  EXPECT_NE(message([&] {
              kernels::postprocess_cpu(input.source(), kernels::surface_target(1, 8, 4), sobel(),
                                       scratch.data());
            }).find("surface object"),
            std::string::npos);
  EXPECT_NE(message([&] {
              kernels::postprocess_cpu(kernels::as_source(output.target()), output.target(), sobel(),
                                       scratch.data());
            }).find("in place"),
            std::string::npos);
  EXPECT_EQ(message([&] { kernels::postprocess_cpu(input.source(), output.target(), sobel(), nullptr); }),
            "(no exception)")
      << "Sobel needs no scratch";
}

}  // namespace
