// tests/unit/test_layout.cpp — where a panel may stand in a window (app/core/layout.hpp): inside it whatever
// a saved layout or a resize left, its title bar and left edge in view when it is larger than the window.
#include "app/core/layout.hpp"

#include <gtest/gtest.h>

namespace {

using lab::keep_inside;
using lab::PanelRect;

TEST(PanelLayout, APanelInsideTheWindowStaysWhereItIs) {
  const PanelRect panel{10.0f, 10.0f, 300.0f, 200.0f};
  EXPECT_EQ(keep_inside(panel, 640.0f, 480.0f), panel);
  const PanelRect touching{340.0f, 280.0f, 300.0f, 200.0f};  // right and bottom edges on the window's
  EXPECT_EQ(keep_inside(touching, 640.0f, 480.0f), touching);
}

TEST(PanelLayout, APositionAboveOrLeftOfTheWindowComesBackToItsEdge) {
  // What a layout file held after the window was resized very small: the title bar and left edge cut off.
  EXPECT_EQ(keep_inside({-18.0f, -13.0f, 300.0f, 200.0f}, 640.0f, 480.0f),
            (PanelRect{0.0f, 0.0f, 300.0f, 200.0f}));
  EXPECT_EQ(keep_inside({50.0f, -40.0f, 300.0f, 200.0f}, 640.0f, 480.0f),
            (PanelRect{50.0f, 0.0f, 300.0f, 200.0f}));
}

TEST(PanelLayout, APositionRightOfOrBelowTheWindowMovesTheLeastThatBringsItIn) {
  EXPECT_EQ(keep_inside({600.0f, 400.0f, 300.0f, 200.0f}, 640.0f, 480.0f),
            (PanelRect{340.0f, 280.0f, 300.0f, 200.0f}));
  EXPECT_EQ(keep_inside({5000.0f, 20.0f, 300.0f, 200.0f}, 640.0f, 480.0f),
            (PanelRect{340.0f, 20.0f, 300.0f, 200.0f}));
}

TEST(PanelLayout, APanelLargerThanTheWindowKeepsItsTopLeftCornerInView) {
  EXPECT_EQ(keep_inside({30.0f, 30.0f, 300.0f, 200.0f}, 1.0f, 1.0f), (PanelRect{0.0f, 0.0f, 300.0f, 200.0f}));
  EXPECT_EQ(keep_inside({-5.0f, 100.0f, 900.0f, 200.0f}, 640.0f, 480.0f),
            (PanelRect{0.0f, 100.0f, 900.0f, 200.0f}));
}

}  // namespace
