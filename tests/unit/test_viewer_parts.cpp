// tests/unit/test_viewer_parts.cpp — the Python viewer's GL-free parts: its fits and free view
// (app/scene/view.hpp), its readout (app/scene/readout.hpp), its controls' registry
// (app/scene/caller_controls.hpp) and the points' orbit camera (app/scene/orbit.hpp). No GL, no CUDA
// device.
#include "app/scene/caller_controls.hpp"
#include "app/scene/orbit.hpp"
#include "app/scene/readout.hpp"
#include "app/scene/view.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace {

using namespace lab::view;

TEST(ViewerViewTest, ContainLetterboxesAndKeepsTheAspect) {
  const Rect rect = fit_rect(Fit::Contain, {256, 256}, {1280, 720});
  EXPECT_EQ(rect.x, 280);
  EXPECT_EQ(rect.y, 0);
  EXPECT_EQ(rect.width, 720);
  EXPECT_EQ(rect.height, 720);
  const Rect tall = fit_rect(Fit::Contain, {100, 50}, {100, 100});
  EXPECT_EQ(tall.y, 25);
  EXPECT_EQ(tall.height, 50);
  EXPECT_EQ(tall.width, 100);
}

TEST(ViewerViewTest, StretchCoverAndActualPlaceThePictureAsNamed) {
  const Rect stretch = fit_rect(Fit::Stretch, {256, 256}, {1280, 720});
  EXPECT_EQ(stretch.width, 1280);
  EXPECT_EQ(stretch.height, 720);
  const Rect cover = fit_rect(Fit::Cover, {256, 256}, {1280, 720});
  EXPECT_EQ(cover.width, 1280);
  EXPECT_EQ(cover.height, 1280);
  EXPECT_EQ(cover.y, -280);
  const Rect actual = fit_rect(Fit::Actual, {256, 256}, {1280, 720});
  EXPECT_EQ(actual.width, 256);
  EXPECT_EQ(actual.x, 512);
  EXPECT_EQ(actual.y, 232);
  EXPECT_EQ(fit_named("cover"), Fit::Cover);
  EXPECT_FALSE(fit_named("fill").has_value());
}

// The rule the viewer drew every picture by before fits: image pixel = pixel * image / viewport, in GL's
// bottom-up rows. A picture of the viewport's aspect still picks the same pixels.
TEST(ViewerViewTest, APictureOfTheFramesAspectPicksThePixelsOfTheOldRule) {
  const Size viewport{40, 24};
  for (const Size image : {Size{20, 12}, Size{40, 24}, Size{5, 3}, Size{80, 48}}) {
    for (int y = 0; y < viewport.height; ++y) {
      for (int x = 0; x < viewport.width; ++x) {
        const int up = viewport.height - 1 - y;
        const int old_x = x * image.width / viewport.width;
        const int old_y = image.height - 1 - up * image.height / viewport.height;
        const std::optional<Pixel> now = pixel_at(View{}, image, viewport, x, y);
        ASSERT_TRUE(now.has_value());
        EXPECT_EQ(now->x, old_x);
        EXPECT_EQ(now->y, old_y);
      }
    }
  }
}

TEST(ViewerViewTest, TheLetterboxShowsNoPixel) {
  EXPECT_FALSE(pixel_at(View{}, {256, 256}, {1280, 720}, 279, 360).has_value());
  EXPECT_TRUE(pixel_at(View{}, {256, 256}, {1280, 720}, 280, 360).has_value());
  EXPECT_FALSE(pixel_at(View{}, {256, 256}, {1280, 720}, 1000, 360).has_value());
}

TEST(ViewerViewTest, ZoomAtAPointKeepsThatImagePointUnderIt) {
  const Size image{256, 256}, viewport{1280, 720};
  View view;
  for (const double factor : {1.25, 2.0, 0.5, 10.0}) {
    const double x = 700.3, y = 211.7;
    const Transform before = transform_of(view, image, viewport);
    view = zoom_at(view, image, viewport, x, y, factor);
    const Transform after = transform_of(view, image, viewport);
    EXPECT_TRUE(view.free);
    EXPECT_NEAR((x - before.origin_x) / before.scale_x, (x - after.origin_x) / after.scale_x, 1e-9);
    EXPECT_NEAR((y - before.origin_y) / before.scale_y, (y - after.origin_y) / after.scale_y, 1e-9);
    EXPECT_NEAR(after.scale_x, before.scale_x * factor, 1e-9);
  }
  view = zoom_at(view, image, viewport, 0, 0, 1e9);
  EXPECT_EQ(transform_of(view, image, viewport).scale_x, kMaxScale);
}

TEST(ViewerViewTest, ZoomedInEachImagePixelIsABlockOfFramebufferPixels) {
  const Size image{4, 4}, viewport{64, 64};  // contain: 16 framebuffer pixels an image pixel
  const View view = zoom_at(View{}, image, viewport, 0, 0, 2.0);  // 32, from the top-left corner
  for (int x = 0; x < 64; ++x) EXPECT_EQ(pixel_at(view, image, viewport, x, 5)->x, x / 32);
}

TEST(ViewerViewTest, PanActualSizeAndFitMoveTheView) {
  const Size image{256, 256}, viewport{1280, 720};
  const View panned = pan_by(View{}, image, viewport, 10, -5);
  EXPECT_EQ(transform_of(panned, image, viewport).origin_x, 290);
  EXPECT_EQ(transform_of(panned, image, viewport).origin_y, -5);
  const View actual = actual_size_at(View{}, image, viewport, 640, 360);
  EXPECT_EQ(transform_of(actual, image, viewport).scale_x, 1.0);
  EXPECT_EQ(pixel_at(actual, image, viewport, 640, 360)->x, 128);
  EXPECT_EQ(pixel_at(actual, image, viewport, 641, 360)->x, 129);
  EXPECT_FALSE(fitted(actual).free);
  EXPECT_TRUE(uses_integer_rule(fitted(actual)));
}

using kernels::ElementType;
using namespace lab::readout;

TEST(ViewerReadoutTest, EachTypesBytesReadAsTheirValue) {
  const double tenth = 0.1;
  unsigned char bytes[8];
  std::memcpy(bytes, &tenth, 8);
  EXPECT_EQ(element_value(ElementType::F64, bytes), 0.1);  // exact: the array's value, not its byte
  const uint16_t half = 0x3e00;                            // 1.5
  std::memcpy(bytes, &half, 2);
  EXPECT_EQ(element_value(ElementType::F16, bytes), 1.5);
  const uint16_t bfloat = 0xc040;  // -3.0
  std::memcpy(bytes, &bfloat, 2);
  EXPECT_EQ(element_value(ElementType::BF16, bytes), -3.0);
  const uint32_t big = 4000000000u;
  std::memcpy(bytes, &big, 4);
  EXPECT_EQ(element_value(ElementType::U32, bytes), 4e9);
  const int8_t minus = -5;
  std::memcpy(bytes, &minus, 1);
  EXPECT_EQ(element_value(ElementType::I8, bytes), -5.0);
  const uint16_t nan_half = 0x7e00;
  std::memcpy(bytes, &nan_half, 2);
  EXPECT_TRUE(std::isnan(element_value(ElementType::F16, bytes)));
  EXPECT_EQ(element_bytes(ElementType::F64), 8);
  EXPECT_EQ(element_bytes(ElementType::BF16), 2);
}

TEST(ViewerReadoutTest, AnElementIsFoundByItsStrides) {
  Source source;
  source.frame_stride = 1000;
  source.row_stride = 100;
  source.column_stride = 8;
  source.channel_stride = 2;
  EXPECT_EQ(element_offset(source, 2, 3, 4, 1), 2000 + 400 + 24 + 2);
}

TEST(ViewerReadoutTest, TheLineSaysWhereAndTheValues) {
  const double one[] = {0.1};
  EXPECT_EQ(format_readout(12, 40, ElementType::F64, one, 1), "x 12  y 40  0.1");
  const double rgb[] = {255, 0, 17};
  EXPECT_EQ(format_readout(0, 1, ElementType::U8, rgb, 3), "x 0  y 1  (255, 0, 17)");
  const double specials[] = {NAN, INFINITY, -INFINITY};
  EXPECT_EQ(format_readout(0, 0, ElementType::F32, specials, 3), "x 0  y 0  (nan, inf, -inf)");
  const double truth[] = {1.0};
  EXPECT_EQ(format_readout(0, 0, ElementType::Bool, truth, 1), "x 0  y 0  True");
}

using namespace lab::caller;

Control slider(const char* name, double low, double high, double value) {
  Control control;
  control.kind = Kind::Slider;
  control.name = name;
  control.low = low;
  control.high = high;
  control.value = value;
  return control;
}

TEST(ViewerControlsTest, TheUsersChangesAreCountedAndTheProgramsAreNot) {
  Registry registry;
  const int exposure = registry.add(slider("exposure", 0.0, 4.0, 1.0));
  EXPECT_TRUE(registry.change(exposure, 2.5));
  EXPECT_FALSE(registry.change(exposure, 2.5));  // no change
  EXPECT_TRUE(registry.change(exposure, 9.0));   // clamped
  EXPECT_EQ(registry.at(exposure).value, 4.0);
  EXPECT_EQ(registry.at(exposure).changes, 2);
  registry.set(exposure, 0.5);
  EXPECT_EQ(registry.at(exposure).value, 0.5);
  EXPECT_EQ(registry.at(exposure).changes, 2);
  Control reset;
  reset.kind = Kind::Button;
  reset.name = "reset";
  const int button = registry.add(reset);
  registry.change(button, 1.0);
  registry.change(button, 1.0);
  EXPECT_EQ(registry.at(button).changes, 2);
  EXPECT_EQ(registry.at(button).value, 2.0);
  Control pick;
  pick.kind = Kind::Choice;
  pick.name = "colormap";
  pick.options = {"gray", "viridis"};
  const int choice = registry.add(pick);
  EXPECT_TRUE(registry.change(choice, 7.0));  // the last option
  EXPECT_EQ(registry.at(choice).value, 1.0);
}

TEST(ViewerControlsTest, APagesValueIsFoundByNameAndCheckedNotClamped) {
  Registry registry;
  registry.add(slider("exposure", 0.0, 4.0, 1.0));
  const int gain = registry.add(slider("gain", -1.0, 1.0, 0.0));
  EXPECT_EQ(registry.find_named("gain"), gain);
  EXPECT_EQ(registry.find_named("exposure"), 0);
  EXPECT_EQ(registry.find_named("nothing"), -1);
  EXPECT_NO_THROW(registry.check(gain, -1.0));
  try {
    registry.check(gain, 1.5);
    ADD_FAILURE() << "1.5 is outside -1..1";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "slider 'gain': value 1.5 is outside -1..1: pass one within the range");
  }
  EXPECT_EQ(registry.at(gain).value, 0.0);  // checking changes nothing
  EXPECT_EQ(registry.at(gain).changes, 0);
}

TEST(ViewerControlsTest, BadControlsAreRefusedNamingTheFix) {
  Registry registry;
  registry.add(slider("exposure", 0.0, 4.0, 1.0));
  EXPECT_THROW(registry.add(slider("exposure", 0.0, 1.0, 0.0)), std::invalid_argument);  // taken
  EXPECT_THROW(registry.add(slider("", 0.0, 1.0, 0.0)), std::invalid_argument);
  EXPECT_THROW(registry.add(slider("gain", 1.0, 1.0, 1.0)), std::invalid_argument);
  EXPECT_THROW(registry.add(slider("gain", 0.0, 1.0, 2.0)), std::invalid_argument);
  Control empty;
  empty.kind = Kind::Choice;
  empty.name = "nothing";
  EXPECT_THROW(registry.add(empty), std::invalid_argument);
  EXPECT_THROW(registry.set(0, 5.0), std::invalid_argument);
  EXPECT_THROW(registry.at(7), std::invalid_argument);
  try {
    registry.add(slider("gain", 0.0, 1.0, 2.0));
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "slider 'gain': value 2 is outside 0..1: pass one within the range");
  }
}

// The points' orbit camera --------------------------------------------------------------------------------

// Where `point` lands in clip space's normalised cube (x, y in -1..1 on screen, z in -1..1 between the
// planes).
glm::vec3 ndc_of(const glm::mat4& view_projection, const glm::vec3& point) {
  const glm::vec4 clip = view_projection * glm::vec4(point, 1.0f);
  return glm::vec3(clip) / clip.w;
}

TEST(ViewerCameraTest, FramingKeepsEveryCornerOfTheBoundsInTheFrame) {
  lab::orbit::Bounds bounds;
  bounds.low = {-3.0f, 10.0f, 0.5f};
  bounds.high = {5.0f, 11.0f, 40.0f};
  bounds.empty = false;
  for (const auto& [width, height] : {std::pair{1280, 720}, std::pair{300, 900}, std::pair{64, 64}}) {
    for (const double yaw : {0.0, 0.6, 2.5, -1.2}) {
      lab::orbit::Orbit from;
      from.yaw = yaw;
      const lab::orbit::Orbit camera = lab::orbit::framing(bounds, width, height, from);
      EXPECT_EQ(camera.yaw, yaw);  // framing keeps the direction it looks from
      const glm::mat4 matrix = lab::orbit::view_projection(camera, width, height);
      for (int corner = 0; corner < 8; ++corner) {
        const glm::vec3 point((corner & 1) ? bounds.high.x : bounds.low.x,
                              (corner & 2) ? bounds.high.y : bounds.low.y,
                              (corner & 4) ? bounds.high.z : bounds.low.z);
        const glm::vec3 ndc = ndc_of(matrix, point);
        for (int axis = 0; axis < 3; ++axis) {
          EXPECT_GE(ndc[axis], -1.0f) << width << "x" << height << " yaw " << yaw << " corner " << corner;
          EXPECT_LE(ndc[axis], 1.0f) << width << "x" << height << " yaw " << yaw << " corner " << corner;
        }
      }
      // The target, the box's centre, is the frame's centre.
      const glm::vec3 centre = ndc_of(matrix, (bounds.low + bounds.high) * 0.5f);
      EXPECT_NEAR(centre.x, 0.0f, 1e-5f);
      EXPECT_NEAR(centre.y, 0.0f, 1e-5f);
    }
  }
}

TEST(ViewerCameraTest, NoBoundsFrameTheUnitCubeAndOnePointAUnitSphere) {
  const lab::orbit::Orbit empty = lab::orbit::framing({}, 100, 100);
  EXPECT_EQ(empty.target, glm::vec3(0.0f));
  EXPECT_FLOAT_EQ(empty.radius, std::sqrt(3.0f));
  lab::orbit::Bounds one;
  one.low = one.high = {2.0f, 2.0f, 2.0f};
  one.empty = false;
  const lab::orbit::Orbit point = lab::orbit::framing(one, 100, 100);
  EXPECT_EQ(point.target, glm::vec3(2.0f));
  EXPECT_EQ(point.radius, 1.0f);
  EXPECT_GT(point.distance, 1.0);
}

TEST(ViewerCameraTest, ADragTurnsAboutTheTargetAtItsDistanceAndThePitchStopsShortOfThePoles) {
  lab::orbit::Orbit camera;
  camera.target = {1.0f, 2.0f, 3.0f};
  const lab::orbit::Orbit turned = lab::orbit::orbit(camera, 40.0, -20.0);
  EXPECT_DOUBLE_EQ(turned.yaw, camera.yaw - 0.4);
  EXPECT_DOUBLE_EQ(turned.pitch, camera.pitch - 0.2);
  EXPECT_NEAR(glm::length(lab::orbit::eye(turned) - turned.target), camera.distance, 1e-5);
  EXPECT_EQ(lab::orbit::orbit(camera, 0.0, 1e6).pitch, lab::orbit::kMaxPitch);
  EXPECT_EQ(lab::orbit::orbit(camera, 0.0, -1e6).pitch, -lab::orbit::kMaxPitch);
}

TEST(ViewerCameraTest, TheWheelDividesTheDistanceWithinItsLimits) {
  lab::orbit::Orbit camera;
  camera.radius = 2.0f;
  camera.distance = 10.0;
  EXPECT_DOUBLE_EQ(lab::orbit::zoom(camera, 2.0).distance, 5.0);
  EXPECT_DOUBLE_EQ(lab::orbit::zoom(camera, 1e9).distance, 2.0 * lab::orbit::kMinDistanceOfRadius);
  EXPECT_DOUBLE_EQ(lab::orbit::zoom(camera, 1e-9).distance, 2.0 * lab::orbit::kMaxDistanceOfRadius);
  EXPECT_DOUBLE_EQ(lab::orbit::zoom(camera, 0.0).distance, 10.0);  // no factor: no move
  EXPECT_DOUBLE_EQ(lab::orbit::zoom(camera, std::nan("")).distance, 10.0);
}

}  // namespace
