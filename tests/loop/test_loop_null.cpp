// tests/loop/test_loop_null.cpp — the one frame loop (app/loop/app.hpp) on the null backend (app/null): no
// graphics driver, so these run on any machine. What they hold the loop to is its own work, the same on
// every API: the frames of the cpu mode, the switches (scene, mode, size) at the start of the next frame, a
// refused switch that changes nothing and says why, the fallback of a failing mode one tier down, the
// per-phase timing, the animation clock's pause and step, through the commands the panel and the page send
// (app/loop/commands.hpp), and a caller's pictures and points as the frames (the array source).
#include "tests/loop/null_options.hpp"
#include "tests/support/image_fixture.hpp"
#include "tests/support/stand_in_error.hpp"

#include "app/cli/cli.hpp"
#include "app/controls/controls.hpp"
#include "app/loop/app.hpp"
#include "app/loop/commands.hpp"
#include "app/null/backend.hpp"
#include "app/scene/array_source.hpp"
#include "interop/error.hpp"
#include "kernels/convert.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <glm/glm.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using lab::ModeId;
using lab::SceneId;
using NullApp = lab::loop::App<lab::null::Backend<>>;
using NullRenderer = lab::null::Renderer;

lab::Options null_options(SceneId scene) {
  return labtest::null_options(scene, 48, 32);
}

lab::Command command(lab::Command::Kind kind, bool on = false) {
  lab::Command made;
  made.kind = kind;
  made.on = on;
  return made;
}

// The frame the loop shows now, against the pattern scene's frame `index` from the CPU reference.
bool shows_pattern_frame(NullApp& app, long long index) {
  const lab::Extent extent = app.extent();
  return app.read_frame().rgba == labtest::expected_pattern_frame(extent.width, extent.height, index).rgba;
}

TEST(NullLoop, RunsWithNoDriverAndItsFramesAreTheCpuReferences) {
  NullApp app(null_options(SceneId::Pattern));
  EXPECT_EQ(app.adapter(), "null device (no graphics driver)");
  EXPECT_EQ(app.mode_id(), ModeId::Cpu);
  for (long long index = 0; index < 3; ++index) ASSERT_TRUE(app.render_frame(index));
  EXPECT_TRUE(shows_pattern_frame(app, 2));
  EXPECT_FALSE(shows_pattern_frame(app, 1)) << "the pattern moves: frame 1 is another picture";
  EXPECT_EQ(app.renderer().frame_passes(), 3);
  EXPECT_EQ(app.renderer().cubes_passes(), 0) << "the pattern scene has no cubes pass";
  EXPECT_EQ(app.frame_index(), 3);
}

TEST(NullLoop, ARefusedModeChangesNothingAndSaysWhy) {
  NullApp app(null_options(SceneId::Pattern));
  const lab::ModeAvailability refused = app.request_mode(ModeId::External);
  EXPECT_FALSE(refused.available);
  EXPECT_EQ(refused.reason, lab::null::kNoSharedResources);
  EXPECT_EQ(app.notice(), std::string("external is unavailable: ") + lab::null::kNoSharedResources);
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_EQ(app.mode_id(), ModeId::Cpu);
  EXPECT_TRUE(shows_pattern_frame(app, 0));
  // The page's path says the same, as the refusal the desk shows.
  lab::Command mode = command(lab::Command::Kind::Mode);
  mode.mode = ModeId::Exported;
  EXPECT_EQ(lab::loop::apply_command(app, mode),
            std::string("mode exported is unavailable: ") + lab::null::kNoSharedResources);
}

TEST(NullLoop, SwitchesApplyAtTheStartOfTheNextFrame) {
  NullApp app(null_options(SceneId::Pattern));
  ASSERT_TRUE(app.render_frame(0));
  app.request_scene(SceneId::Postprocess);
  EXPECT_EQ(app.scene_id(), SceneId::Pattern) << "a switch waits for the next frame";
  ASSERT_TRUE(app.render_frame(1));
  EXPECT_EQ(app.scene_id(), SceneId::Postprocess);
  EXPECT_EQ(app.renderer().cubes_passes(), 1) << "the postprocess scene renders its cubes first";
  app.resize({20, 12});
  EXPECT_EQ(app.extent(), (lab::Extent{20, 12})) << "headless, a resize is the frame's size at once";
  app.request_scene(SceneId::Pattern);
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_EQ(app.read_frame().width, 20);
  EXPECT_TRUE(shows_pattern_frame(app, 2));
}

// Stands in for a CUDA mode whose frames fail the way a lost registration would.
class FailingMode final : public lab::Mode<NullRenderer> {
 public:
  explicit FailingMode(bool sticky) : m_sticky(sticky) {}
  ModeId id() const override { return ModeId::External; }
  void attach(NullRenderer&) override {}
  void detach() override {}
  void produce(NullRenderer&, lab::FrameSource&, const lab::FrameInfo&, lab::FrameTimers&) override {
    throw labtest::stand_in_cuda_error(
        m_sticky, "cudaWaitExternalSemaphoresAsync(&semaphore, &params, 1, stream)", __FILE__, __LINE__);
  }

 private:
  bool m_sticky;
};

TEST(NullLoop, AFailingModeGivesWayOneTierDownAndTheFrameIsStillRight) {
  NullApp app(null_options(SceneId::Pattern));
  app.use_mode(std::make_unique<FailingMode>(false));
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(app.mode_id(), app.fallback_for(ModeId::External));
  EXPECT_EQ(app.mode_id(), app.cuda_device() >= 0 ? ModeId::Staging : ModeId::Cpu);
  EXPECT_NE(app.notice().find("external failed"), std::string::npos) << app.notice();
  EXPECT_NE(app.notice().find("cudaErrorUnknown"), std::string::npos) << app.notice();
  EXPECT_TRUE(shows_pattern_frame(app, 4)) << "the next tier drew the frame the failed one could not";
}

TEST(NullLoop, AStickyErrorEndsTheRun) {
  NullApp app(null_options(SceneId::Pattern));
  app.use_mode(std::make_unique<FailingMode>(true));
  try {
    app.render_frame(0);
    FAIL() << "a sticky error was swallowed";
  } catch (const interop::Error& error) {
    EXPECT_TRUE(error.sticky());
  }
}

TEST(NullLoop, EveryFrameIsTimedUntilTimingIsTurnedOff) {
  NullApp app(null_options(SceneId::Pattern));
  const int cpu = static_cast<int>(ModeId::Cpu);
  for (long long index = 0; index < 4; ++index) ASSERT_TRUE(app.render_frame(index));
  app.timers().flush();
  EXPECT_EQ(app.timers().stats(cpu, lab::Phase::Kernel).samples, 4) << "the CPU reference, on the host clock";
  EXPECT_EQ(app.timers().stats(cpu, lab::Phase::Frame).samples, 3) << "start to start: one fewer than frames";
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Timing, false)), "");
  for (long long index = 4; index < 7; ++index) ASSERT_TRUE(app.render_frame(index));
  app.timers().flush();
  EXPECT_EQ(app.timers().stats(cpu, lab::Phase::Kernel).samples, 4) << "no frame is timed while it is off";
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Timing, true)), "");
  ASSERT_TRUE(app.render_frame(7));
  app.timers().flush();
  EXPECT_EQ(app.timers().stats(cpu, lab::Phase::Kernel).samples, 1) << "timing starts afresh";
}

TEST(NullLoop, PauseStopsTheAnimationClockAndStepMovesItOneFrame) {
  NullApp app(null_options(SceneId::Pattern));
  for (long long index = 0; index < 3; ++index) ASSERT_TRUE(app.render_frame(index));
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Pause, true)), "");
  EXPECT_TRUE(app.paused());
  ASSERT_TRUE(app.render_frame(3));
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_TRUE(shows_pattern_frame(app, 3)) << "paused where the next frame would have been";
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Step)), "");
  ASSERT_TRUE(app.render_frame(5));
  EXPECT_TRUE(shows_pattern_frame(app, 4)) << "a step is one frame of the clock";
  EXPECT_TRUE(app.paused()) << "and leaves it paused";
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Pause, false)), "");
  ASSERT_TRUE(app.render_frame(6));
  EXPECT_TRUE(shows_pattern_frame(app, 4)) << "on from where it stopped";
  ASSERT_TRUE(app.render_frame(7));
  EXPECT_TRUE(shows_pattern_frame(app, 5));
  EXPECT_EQ(app.frame_index(), 8) << "the frames went on all along";
}

// ---- The array source: a caller's pictures as the frames ------------------------------------------------

using kernels::ElementType;

// Pixel (x, y) of `image` (top row first) as RGBA.
std::array<uint8_t, 4> pixel(const lab::Image& image, int x, int y) {
  const size_t at = (static_cast<size_t>(y) * image.width + x) * 4;
  return {image.rgba[at], image.rgba[at + 1], image.rgba[at + 2], image.rgba[at + 3]};
}

std::array<uint8_t, 4> gray(int value) {
  return {static_cast<uint8_t>(value), static_cast<uint8_t>(value), static_cast<uint8_t>(value), 255};
}

// The loop with an array source in place of its scene: the caller keeps the source to feed it.
lab::ArraySource& use_array_source(NullApp& app) {
  auto made = std::make_unique<lab::ArraySource>();
  lab::ArraySource& source = *made;
  app.use_source(std::move(made));
  return source;
}

TEST(NullLoop, AnArraySourceShowsTheCallersPictureAsTheFrameAndASceneTakesOverAgain) {
  NullApp app(null_options(SceneId::Pattern));
  ASSERT_TRUE(app.render_frame(0));
  lab::ArraySource& source = use_array_source(app);
  ASSERT_TRUE(app.render_frame(1));
  EXPECT_FALSE(app.scene_id()) << "the array source is no scene";
  EXPECT_EQ(source.status(), "waiting for the first picture");
  const lab::Image black = app.read_frame();
  EXPECT_EQ(pixel(black, 0, 0), gray(0));
  EXPECT_EQ(pixel(black, 47, 31), gray(0)) << "black before the first picture";

  // A packed RGBA8 picture of the frame's size is the frame, top row first, byte for byte.
  std::vector<uint8_t> rgba(48 * 32 * 4);
  for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<uint8_t>(i * 7 + i / 190);
  source.show(lab::PictureDesc::packed(rgba.data(), false, 48, 32, 4, ElementType::U8, 1, 48 * 4));
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_EQ(app.read_frame().rgba, rgba);
  EXPECT_EQ(source.status(), "uint8x4 48x32, picture 1");

  // A picture of another size is sampled nearest onto the frame, which keeps its size.
  std::vector<uint8_t> small(24 * 16);
  for (size_t i = 0; i < small.size(); ++i) small[i] = static_cast<uint8_t>(i);
  source.show(lab::PictureDesc::packed(small.data(), false, 24, 16, 1, ElementType::U8, 1, 24));
  ASSERT_TRUE(app.render_frame(3));
  const lab::Image scaled = app.read_frame();
  ASSERT_EQ(scaled.width, 48);
  for (const auto& [x, y] : {std::pair{0, 0}, {47, 31}, {13, 9}, {30, 20}})
    EXPECT_EQ(pixel(scaled, x, y), gray(small[static_cast<size_t>(y / 2) * 24 + x / 2])) << x << "," << y;

  // A scene asked for replaces the source.
  app.request_scene(SceneId::Pattern);
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(app.scene_id(), SceneId::Pattern);
  EXPECT_TRUE(shows_pattern_frame(app, 4));
}

// A source its caller pins to the loop (a Python viewer's) stays: the scene and source commands are refused
// from every UI, saying why, and neither the panel nor the page offers them.
TEST(NullLoop, APinnedSourceRefusesEverySceneAndSourceCommandAndIsNotOfferedThem) {
  NullApp app(null_options(SceneId::Pattern));
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_EQ(app.pinned_why(), "") << "a scene's loop takes every scene";
  auto made = std::make_unique<lab::ArraySource>();
  lab::ArraySource& source = *made;
  app.pin_source(std::move(made));
  std::vector<uint8_t> rgba(48 * 32 * 4);
  for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<uint8_t>(i * 5 + 3);
  source.show(lab::PictureDesc::packed(rgba.data(), false, 48, 32, 4, ElementType::U8, 1, 48 * 4));
  ASSERT_TRUE(app.render_frame(1));
  ASSERT_EQ(app.read_frame().rgba, rgba);

  const std::string why = "the frames are the caller's (" + source.name() +
                          "), which feeds this loop; no scene or other source replaces them";
  EXPECT_EQ(app.pinned_why(), why);
  lab::Command scene = command(lab::Command::Kind::Scene);
  scene.scene = SceneId::Wave;
  EXPECT_EQ(lab::loop::apply_command(app, scene), "scene wave refused: " + why)
      << "the panel's and the page's";
  lab::Command other = command(lab::Command::Kind::Source);
  other.source = "sim";
  EXPECT_EQ(lab::loop::apply_command(app, other), "source sim refused: " + why);
  app.handle_hotkey(lab::Hotkey::NextScene);
  EXPECT_EQ(app.notice(), "scene wave refused: " + why) << "the key's refusal is the notice";
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_FALSE(app.scene_id()) << "the caller's source still makes the frames";
  EXPECT_EQ(app.read_frame().rgba, rgba);

  const lab::serve::AppState state = app.app_state(2);
  EXPECT_EQ(std::count(state.controls.begin(), state.controls.end(), "scene"), 0)
      << "the page hides the scenes";
  EXPECT_EQ(std::count(state.controls.begin(), state.controls.end(), "mode"), 1) << "and keeps the rest";
  EXPECT_EQ(state.source, "array");
}

TEST(NullLoop, AnArraySourceShowsEveryElementTypeByThePythonViewersRule) {
  NullApp app(null_options(SceneId::Pattern));
  lab::ArraySource& source = use_array_source(app);
  // float32, one channel, over 0..1 through the gray colormap: t = v clamped, byte = floor(t * 255 + 0.5);
  // NaN magenta, +inf white, -inf black.
  std::vector<float> values(48 * 32, 0.25f);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::array<std::pair<float, std::array<uint8_t, 4>>, 7> cases = {{{0.0f, gray(0)},
                                                                          {1.0f, gray(255)},
                                                                          {0.5f, gray(128)},
                                                                          {2.0f, gray(255)},
                                                                          {-3.0f, gray(0)},
                                                                          {nan, {255, 0, 255, 255}},
                                                                          {-inf, {0, 0, 0, 255}}}};
  for (size_t i = 0; i < cases.size(); ++i) values[i] = cases[i].first;
  values[cases.size()] = inf;
  source.show(lab::PictureDesc::packed(values.data(), false, 48, 32, 1, ElementType::F32, 4, 48 * 4));
  ASSERT_TRUE(app.render_frame(0));
  const lab::Image shown = app.read_frame();
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(pixel(shown, static_cast<int>(i), 0), cases[i].second) << "value " << cases[i].first;
  EXPECT_EQ(pixel(shown, static_cast<int>(cases.size()), 0), gray(255)) << "+inf";
  EXPECT_EQ(pixel(shown, 5, 20), gray(64)) << "0.25";
  EXPECT_EQ(source.status(), "float32x1 48x32, range 0..1, picture 1");

  // uint16: the range is the first picture's finite bounds, kept for the next picture of the kind.
  std::vector<uint16_t> counts(48 * 32, 600);
  counts[0] = 100;
  counts[1] = 1100;
  source.show(lab::PictureDesc::packed(counts.data(), false, 48, 32, 1, ElementType::U16, 2, 48 * 2));
  ASSERT_TRUE(app.render_frame(1));
  EXPECT_EQ(pixel(app.read_frame(), 0, 0), gray(0));
  EXPECT_EQ(pixel(app.read_frame(), 1, 0), gray(255));
  EXPECT_EQ(pixel(app.read_frame(), 2, 0), gray(128)) << "600 is half way from 100 to 1100";
  EXPECT_EQ(source.status(), "uint16x1 48x32, range 100..1100 (auto: the first frame's), picture 2");
  std::vector<uint16_t> later(48 * 32, 2200);
  source.show(lab::PictureDesc::packed(later.data(), false, 48, 32, 1, ElementType::U16, 2, 48 * 2));
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_EQ(pixel(app.read_frame(), 9, 9), gray(255)) << "past the kept range: clamped";

  // Any strides: a column-major uint8 picture is read where its elements are.
  std::vector<uint8_t> columns(48 * 32);
  for (size_t i = 0; i < columns.size(); ++i) columns[i] = static_cast<uint8_t>(i % 251);
  lab::PictureDesc transposed;
  transposed.pixels = columns.data();
  transposed.width = 48;
  transposed.height = 32;
  transposed.channels = 1;
  transposed.row_stride = 1;
  transposed.column_stride = 32;
  transposed.channel_stride = 1;
  source.show(transposed);
  ASSERT_TRUE(app.render_frame(3));
  for (const auto& [x, y] : {std::pair{0, 0}, {47, 31}, {3, 17}})
    EXPECT_EQ(pixel(app.read_frame(), x, y), gray(columns[static_cast<size_t>(x) * 32 + y])) << x << "," << y;
}

// A colormap of its own: entry i is (255 - i, i / 2, 7, 255), nothing like gray.
std::array<uint8_t, 256 * 4> ramp_colormap() {
  std::array<uint8_t, 256 * 4> table{};
  for (int i = 0; i < 256; ++i) {
    table[static_cast<size_t>(i) * 4] = static_cast<uint8_t>(255 - i);
    table[static_cast<size_t>(i) * 4 + 1] = static_cast<uint8_t>(i / 2);
    table[static_cast<size_t>(i) * 4 + 2] = 7;
    table[static_cast<size_t>(i) * 4 + 3] = 255;
  }
  return table;
}

// The caller's own mapping (the Python viewer's range= and colormap=) in place of the blit's rule: the frame
// is kernels/convert.hpp's bytes for that range and colormap, the colorbar and the page's colormap say them.
TEST(NullLoop, AnArraySourceMapsValuesThroughTheCallersRangeAndColormap) {
  NullApp app(null_options(SceneId::Pattern));
  lab::ArraySource& source = use_array_source(app);
  std::vector<float> values(48 * 32);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5f + 2.0f * static_cast<float>(i % 97) / 96.0f;
  std::array<uint8_t, 256 * 4> table = ramp_colormap();
  lab::PictureDesc picture =
      lab::PictureDesc::packed(values.data(), false, 48, 32, 1, ElementType::F32, 4, 48 * 4);
  picture.mapping = lab::ValueMapping{0.5, 2.0, false, table.data()};
  source.show(picture);
  table.fill(0);  // the source keeps its own copy of the colormap: the caller's may change after show()
  ASSERT_TRUE(app.render_frame(0));

  kernels::ConvertDesc desc;
  desc.source = values.data();
  desc.width = 48;
  desc.height = 32;
  desc.channels = 1;
  desc.type = ElementType::F32;
  desc.row_stride = 48 * 4;
  desc.column_stride = 4;
  desc.channel_stride = 4;
  desc.low = 0.5;
  desc.range = 2.0;
  const std::array<uint8_t, 256 * 4> expected_table = ramp_colormap();
  desc.colormap = expected_table.data();
  std::vector<uint8_t> expected(48 * 32 * 4);
  kernels::convert_to_rgba8_cpu(desc, expected.data(), 48 * 4);
  const lab::Image shown = app.read_frame();
  for (const auto& [x, y] : {std::pair{0, 0}, {47, 31}, {13, 9}, {30, 20}}) {
    const size_t at = (static_cast<size_t>(y) * 48 + x) * 4;
    EXPECT_EQ(pixel(shown, x, y),
              (std::array<uint8_t, 4>{expected[at], expected[at + 1], expected[at + 2], expected[at + 3]}))
        << x << "," << y;
  }
  EXPECT_EQ(pixel(shown, 0, 0), (std::array<uint8_t, 4>{255, 0, 7, 255})) << "0.5, the range's low end";
  EXPECT_EQ(source.status(), "float32x1 48x32, range 0.5..2.5 (the caller's), picture 1");
  ASSERT_TRUE(app.picture_tools());
  EXPECT_EQ(*app.picture_tools()->colorbar, (std::array<double, 2>{0.5, 2.5}));
  EXPECT_EQ(app.app_state(0).settings.colormap.substr(0, 12), "ff0007fe0007") << "the caller's colormap";

  // Packed bytes through a colormap are converted, not blitted as gray.
  std::vector<uint8_t> bytes(48 * 32, 10);
  lab::PictureDesc gray_bytes =
      lab::PictureDesc::packed(bytes.data(), false, 48, 32, 1, ElementType::U8, 1, 48);
  gray_bytes.mapping = lab::ValueMapping{0.0, 255.0, false, expected_table.data()};
  source.show(gray_bytes);
  ASSERT_TRUE(app.render_frame(1));
  EXPECT_EQ(pixel(app.read_frame(), 4, 4), (std::array<uint8_t, 4>{245, 5, 7, 255}));

  // A mapping that cannot be computed is refused, and the picture before stays.
  lab::PictureDesc bad = picture;
  bad.mapping->range = 0.0;
  EXPECT_THROW(source.show(bad), std::invalid_argument);
  bad.mapping = lab::ValueMapping{std::numeric_limits<double>::infinity(), 1.0, false, nullptr};
  EXPECT_THROW(source.show(bad), std::invalid_argument);
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_EQ(pixel(app.read_frame(), 4, 4), (std::array<uint8_t, 4>{245, 5, 7, 255}));
}

TEST(NullLoop, AnArraySourceRefusesAPictureItCannotShowAndKeepsTheOneBefore) {
  NullApp app(null_options(SceneId::Pattern));
  lab::ArraySource& source = use_array_source(app);
  std::vector<uint8_t> rgba(48 * 32 * 4, 90);
  source.show(lab::PictureDesc::packed(rgba.data(), false, 48, 32, 4, ElementType::U8, 1, 48 * 4));
  std::vector<uint8_t> two(48 * 32 * 2, 7);
  try {
    source.show(lab::PictureDesc::packed(two.data(), false, 48, 32, 2, ElementType::U8, 1, 48 * 2));
    ADD_FAILURE() << "two channels were taken";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "array: a picture of 2 channels; 1, 3 or 4 are shown");
  }
  EXPECT_THROW(source.show(lab::PictureDesc::packed(rgba.data(), false, 0, 32, 4, ElementType::U8, 1, 0)),
               std::invalid_argument);
  EXPECT_THROW(source.show(lab::PictureDesc::packed(nullptr, false, 48, 32, 4, ElementType::U8, 1, 48 * 4)),
               std::invalid_argument);
  EXPECT_THROW(source.show(lab::PictureDesc::packed(rgba.data() + 31 * 48 * 4, false, 48, 32, 4,
                                                    ElementType::U8, 1, -48 * 4)),
               std::invalid_argument)
      << "a picture upside down (a negative row stride) is refused";
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_EQ(app.read_frame().rgba, rgba);
  EXPECT_EQ(source.pictures(), 1);
}

// With a CUDA device, the staging mode blits the same pictures through CUDA (a host picture copied to the
// device first, a device picture read where it is, an "auto" range found by the bounds kernel), and cpu mode
// copies a device picture to the host first: every frame equals the cpu mode's of the host picture.
// ---- The picture's view: zoom, pan, 1:1 and fit, as the window's pointer and the page ask -------------

lab::Command view_command(lab::Command::Kind kind, double x, double y, double factor = 1.0) {
  lab::Command made = command(kind);
  made.x = x;
  made.y = y;
  made.factor = factor;
  return made;
}

// A 24x8 gray picture, value = 10 * row + column, in the 48x32 frame.
std::vector<uint8_t> ramp_picture() {
  std::vector<uint8_t> values(24 * 8);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 24; ++x) values[static_cast<size_t>(y) * 24 + x] = static_cast<uint8_t>(10 * y + x);
  return values;
}

// The frame's pixel (x, y) shows picture pixel (px, py) of ramp_picture.
std::array<uint8_t, 4> ramp(int px, int py) {
  return gray(10 * py + px);
}

TEST(NullLoop, APicturesViewFitsZoomsPansAndGoesOneToOneAsTheCommandsAsk) {
  NullApp app(null_options(SceneId::Pattern));
  lab::Command zoom = view_command(lab::Command::Kind::Zoom, 0.0, 0.0, 2.0);
  EXPECT_EQ(lab::loop::apply_command(app, zoom),
            "zoom refused: the pattern scene fills the frame; a picture (--attach, a caller's arrays) has a "
            "view to move");
  lab::Command cover = command(lab::Command::Kind::PictureFit);
  cover.text = "cover";
  EXPECT_EQ(lab::loop::apply_command(app, cover),
            "picture_fit cover refused: the pattern scene fills the frame; a picture (--attach, a caller's "
            "arrays) has a view");
  EXPECT_EQ(app.control_states()[static_cast<size_t>(lab::Command::Kind::PictureFit)].why_not,
            "the pattern scene fills the frame; a picture (--attach, a caller's arrays) has a view");
  lab::ArraySource& source = use_array_source(app);
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_EQ(lab::loop::apply_command(app, zoom), "zoom refused: no picture yet");
  const std::vector<uint8_t> values = ramp_picture();
  source.show(lab::PictureDesc::packed(values.data(), false, 24, 8, 1, ElementType::U8, 1, 24));

  // Stretched over the frame unless asked otherwise: each picture pixel 2 wide and 4 high.
  ASSERT_TRUE(app.render_frame(1));
  for (const auto& [x, y] : {std::pair{0, 0}, {47, 31}, {13, 9}, {30, 20}})
    EXPECT_EQ(pixel(app.read_frame(), x, y), ramp(x / 2, y / 4)) << x << "," << y;

  // Contained (the picture_fit control, as the panel's and the page's select send it): 48x16 in rows 8..23,
  // black above and below.
  lab::Command fit = command(lab::Command::Kind::PictureFit);
  fit.text = "contain";
  EXPECT_EQ(app.control_states()[static_cast<size_t>(lab::Command::Kind::PictureFit)].choice, "stretch");
  EXPECT_EQ(lab::loop::apply_command(app, fit), "");
  EXPECT_EQ(app.control_states()[static_cast<size_t>(lab::Command::Kind::PictureFit)].choice, "contain");
  ASSERT_TRUE(app.render_frame(2));
  lab::Image frame = app.read_frame();
  for (const auto& [x, y] : {std::pair{0, 0}, {47, 7}, {20, 24}, {5, 31}})
    EXPECT_EQ(pixel(frame, x, y), gray(0)) << "letterbox " << x << "," << y;
  for (const auto& [x, y] : {std::pair{0, 8}, {47, 23}, {13, 9}, {30, 16}})
    EXPECT_EQ(pixel(frame, x, y), ramp(x / 2, (y - 8) / 2)) << x << "," << y;

  // Zoomed 2x about the frame's corner: 4 frame pixels a picture pixel, the picture's top at row 16.
  EXPECT_EQ(lab::loop::apply_command(app, zoom), "");
  ASSERT_TRUE(app.render_frame(3));
  frame = app.read_frame();
  EXPECT_EQ(pixel(frame, 5, 15), gray(0)) << "above the picture";
  EXPECT_EQ(pixel(frame, 5, 17), ramp(1, 0));
  EXPECT_EQ(pixel(frame, 47, 31), ramp(11, 3));
  EXPECT_EQ(pixel(frame, 0, 20), ramp(0, 1));

  // Panned 4 pixels left: one picture column further on.
  EXPECT_EQ(lab::loop::apply_command(app, view_command(lab::Command::Kind::Pan, -4.0, 0.0)), "");
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(pixel(app.read_frame(), 0, 16), ramp(1, 0));
  EXPECT_EQ(pixel(app.read_frame(), 47, 31), ramp(12, 3));

  // Back to the fit, then 1:1 about the frame's centre: picture pixel (12, 4) stays at (24, 16).
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Fit)), "");
  EXPECT_EQ(lab::loop::apply_command(app, view_command(lab::Command::Kind::ActualSize, 24.0, 16.0)), "");
  ASSERT_TRUE(app.render_frame(5));
  frame = app.read_frame();
  EXPECT_EQ(pixel(frame, 24, 16), ramp(12, 4));
  EXPECT_EQ(pixel(frame, 12, 12), ramp(0, 0));
  EXPECT_EQ(pixel(frame, 35, 19), ramp(23, 7));
  EXPECT_EQ(pixel(frame, 11, 12), gray(0)) << "left of the picture";
  EXPECT_EQ(pixel(frame, 36, 19), gray(0)) << "right of it";
  EXPECT_EQ(pixel(frame, 20, 20), gray(0)) << "below it";

  EXPECT_EQ(lab::loop::apply_command(app, view_command(lab::Command::Kind::Zoom, 1.0, 1.0, 0.0)),
            "zoom refused: a zoom by 0; a factor above 0 zooms");
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Fit)), "");
  ASSERT_TRUE(app.render_frame(6));
  EXPECT_EQ(pixel(app.read_frame(), 30, 16), ramp(15, 4)) << "contained again";
}

TEST(NullLoop, APicturesToolsSayWhereItLiesAndTheValueUnderThePagesCursor) {
  NullApp app(null_options(SceneId::Pattern));
  lab::Command hover = view_command(lab::Command::Kind::Hover, 10.5, 3.2);
  hover.on = true;
  EXPECT_EQ(lab::loop::apply_command(app, hover), "") << "a hover is taken over a scene too";
  EXPECT_FALSE(app.picture_tools()) << "a scene has no picture to read";
  lab::ArraySource& source = use_array_source(app);
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_FALSE(app.picture_tools()) << "nor has an array source before its first picture";

  // float32, value = x + y / 2, at the frame's size.
  std::vector<float> values(48 * 32);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 48; ++x) values[static_cast<size_t>(y) * 48 + x] = x + 0.5f * y;
  source.show(lab::PictureDesc::packed(values.data(), false, 48, 32, 1, ElementType::F32, 4, 48 * 4));
  ASSERT_TRUE(app.render_frame(1));
  std::optional<lab::serve::ViewerTools> tools = app.picture_tools();
  ASSERT_TRUE(tools);
  EXPECT_EQ(tools->fit, "stretch");
  EXPECT_FALSE(tools->free);
  EXPECT_EQ(tools->scale_x, 1.0);
  EXPECT_EQ(tools->image.width, 48);
  ASSERT_TRUE(tools->cursor);
  EXPECT_EQ(*tools->cursor, (std::array<int, 2>{10, 3}));
  EXPECT_EQ(tools->readout, "x 10  y 3  11.5") << "the array's own value, not its gray byte";
  ASSERT_TRUE(tools->colorbar) << "one channel: its gray runs over float32's 0..1";
  EXPECT_EQ(*tools->colorbar, (std::array<double, 2>{0.0, 1.0}));
  EXPECT_EQ(app.app_state(1).settings.colormap.substr(0, 12), "000000010101") << "the gray colormap";

  // Zoomed 2x about the corner: the cursor's frame point is over picture pixel (5, 1).
  EXPECT_EQ(lab::loop::apply_command(app, view_command(lab::Command::Kind::Zoom, 0.0, 0.0, 2.0)), "");
  ASSERT_TRUE(app.render_frame(2));
  tools = app.picture_tools();
  ASSERT_TRUE(tools);
  EXPECT_TRUE(tools->free);
  EXPECT_EQ(tools->scale_x, 2.0);
  EXPECT_EQ(tools->readout, "x 5  y 1  5.5");

  // Panned away from under the cursor, then the cursor off the frame.
  EXPECT_EQ(lab::loop::apply_command(app, view_command(lab::Command::Kind::Pan, 40.0, 0.0)), "");
  EXPECT_EQ(app.picture_tools()->readout, "(cursor off the picture)");
  EXPECT_FALSE(app.picture_tools()->cursor);
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Fit)), "");
  EXPECT_EQ(app.picture_tools()->readout, "x 10  y 3  11.5");
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Hover, false)), "");
  EXPECT_EQ(app.picture_tools()->readout, "(cursor off the picture)");

  // uint16: the first picture's bounds; RGBA: no colorbar.
  std::vector<uint16_t> counts(48 * 32, 600);
  counts[0] = 100;
  counts[1] = 1100;
  source.show(lab::PictureDesc::packed(counts.data(), false, 48, 32, 1, ElementType::U16, 2, 48 * 2));
  ASSERT_TRUE(app.render_frame(3));
  EXPECT_EQ(*app.picture_tools()->colorbar, (std::array<double, 2>{100.0, 1100.0}));
  std::vector<uint8_t> rgba(48 * 32 * 4, 9);
  source.show(lab::PictureDesc::packed(rgba.data(), false, 48, 32, 4, ElementType::U8, 1, 48 * 4));
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_FALSE(app.picture_tools()->colorbar);
  EXPECT_EQ(app.app_state(4).settings.colormap, "") << "no colormap without a colorbar";
}

// A caller that converts its arrays itself (the Python viewer: once at show(), into memory of its own) shows
// the converted picture and says what it was made from: the readout reads the caller's array, the colorbar
// says the caller's range and colours, until a picture comes without them.
TEST(NullLoop, APictureMadeFromTheCallersArrayReadsThatArrayAndSaysItsColorbar) {
  NullApp app(null_options(SceneId::Pattern));
  lab::ArraySource& source = use_array_source(app);
  lab::Command hover = view_command(lab::Command::Kind::Hover, 10.5, 3.2);
  hover.on = true;
  EXPECT_EQ(lab::loop::apply_command(app, hover), "");
  std::vector<double> values(48 * 32);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 1000.0 + static_cast<double>(i);
  std::vector<uint8_t> rgba(48 * 32 * 4, 77);  // what the caller made of them
  lab::ArraySource::Origin origin;
  origin.values.data = reinterpret_cast<const unsigned char*>(values.data());
  origin.values.type = ElementType::F64;
  origin.values.width = 48;
  origin.values.height = 32;
  origin.values.channels = 1;
  origin.values.row_stride = 48 * 8;
  origin.values.column_stride = 8;
  origin.values.channel_stride = 8;
  origin.colorbar = std::array<double, 2>{1000.0, 2535.0};
  origin.colours = ramp_colormap();
  const auto packed = lab::PictureDesc::packed(rgba.data(), false, 48, 32, 4, ElementType::U8, 1, 48 * 4);
  source.show(packed, origin);
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_EQ(app.read_frame().rgba, rgba) << "the picture the caller made is the frame";
  const std::optional<lab::serve::ViewerTools> tools = app.picture_tools();
  ASSERT_TRUE(tools);
  EXPECT_EQ(tools->readout, "x 10  y 3  1154")
      << "the caller's array under the cursor, not the picture's byte";
  EXPECT_EQ(tools->colorbar, origin.colorbar);
  EXPECT_EQ(app.app_state(0).settings.colormap, lab::serve::colormap_hex(origin.colours.data()));

  source.show(packed);
  ASSERT_TRUE(app.render_frame(1));
  EXPECT_EQ(app.picture_tools()->readout, "x 10  y 3  (77, 77, 77, 77)") << "the picture's own bytes again";
  EXPECT_FALSE(app.picture_tools()->colorbar);
}

// The caller's tools: the stack its picture is a frame of and its own controls, which the page's commands
// (and the panel's, the same commands) set for the caller to read, and which the page's state shows.
TEST(NullLoop, AnArraySourcesStackAndCallersControlsAreSetByThePagesCommands) {
  NullApp app(null_options(SceneId::Pattern));
  lab::Command index;
  index.kind = lab::Command::Kind::Index;
  index.index = 1;
  EXPECT_EQ(lab::loop::apply_command(app, index), "index refused: the pattern scene shows no stack");
  lab::Command gain;
  gain.kind = lab::Command::Kind::Control;
  gain.name = "gain";
  gain.value = lab::Command::Value::Number;
  gain.number = 2.5;
  EXPECT_EQ(lab::loop::apply_command(app, gain),
            "control 'gain' refused: the pattern scene has no caller's controls");

  lab::ArraySource& source = use_array_source(app);
  lab::caller::Control slider;
  slider.name = "gain";
  slider.low = 0.0;
  slider.high = 4.0;
  slider.value = 1.0;
  const int gain_id = source.caller_controls()->add(slider);
  lab::caller::Control choice;
  choice.kind = lab::caller::Kind::Choice;
  choice.name = "map";
  choice.options = {"gray", "viridis"};
  const int map_id = source.caller_controls()->add(choice);
  *source.stack() = {0, 3};  // the caller shows frame 0 of 3
  std::vector<uint8_t> rgba(48 * 32 * 4, 40);
  source.show(lab::PictureDesc::packed(rgba.data(), false, 48, 32, 4, ElementType::U8, 1, 48 * 4));
  ASSERT_TRUE(app.render_frame(0));

  std::optional<lab::serve::ViewerTools> tools = app.app_state(0).viewer;
  ASSERT_TRUE(tools);
  EXPECT_EQ(tools->index, 0);
  EXPECT_EQ(tools->frames, 3);
  ASSERT_EQ(tools->controls.size(), 2u);
  EXPECT_EQ(tools->controls[0].name, "gain");
  EXPECT_EQ(tools->controls[0].kind, "slider");
  EXPECT_EQ(tools->controls[0].high, 4.0);
  EXPECT_EQ(tools->controls[1].kind, "choice");
  EXPECT_EQ(tools->controls[1].options, (std::vector<std::string>{"gray", "viridis"}));

  // Taken: the caller reads the frame asked for and the change, counted as the user's.
  index.index = 2;
  EXPECT_EQ(lab::loop::apply_command(app, index), "");
  EXPECT_EQ(source.stack()->index, 2);
  EXPECT_EQ(lab::loop::apply_command(app, gain), "");
  EXPECT_EQ(source.caller_controls()->at(gain_id).value, 2.5);
  EXPECT_EQ(source.caller_controls()->at(gain_id).changes, 1);
  lab::Command pick;
  pick.kind = lab::Command::Kind::Control;
  pick.name = "map";
  pick.value = lab::Command::Value::Text;
  pick.text = "viridis";
  EXPECT_EQ(lab::loop::apply_command(app, pick), "");
  EXPECT_EQ(source.caller_controls()->at(map_id).value, 1.0);
  tools = app.app_state(0).viewer;
  EXPECT_EQ(tools->index, 2);
  EXPECT_EQ(tools->controls[0].value, 2.5);

  // Refused, with why, and nothing changes.
  index.index = 3;
  EXPECT_EQ(lab::loop::apply_command(app, index),
            "index 3: the array shown has 3 frames: pass one from 0 to 2");
  EXPECT_EQ(source.stack()->index, 2);
  gain.number = 9.0;
  EXPECT_EQ(lab::loop::apply_command(app, gain),
            "slider 'gain': value 9 is outside 0..4: pass one within the range");
  gain.name = "exposure";
  EXPECT_EQ(lab::loop::apply_command(app, gain),
            "control 'exposure': no such control; the array source has gain, map");
  pick.text = "turbo";
  EXPECT_EQ(lab::loop::apply_command(app, pick), "choice 'map': pass one of its options: gray, viridis");
  EXPECT_EQ(source.caller_controls()->at(gain_id).value, 2.5);
  EXPECT_EQ(source.caller_controls()->at(map_id).value, 1.0);
}

TEST(NullLoop, AnArraySourceShowsHostAndDevicePicturesThroughCudaAsTheCpuModeDoes) {
  NullApp app(null_options(SceneId::Pattern));
  if (app.cuda_device() < 0) {
    LABTEST_NEEDS_GPUS(1, "the array source's CUDA blit needs a CUDA device");
    return;
  }
  lab::ArraySource& source = use_array_source(app);
  std::vector<uint16_t> values(48 * 32);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint16_t>(300 + i * 37 % 5000);
  const size_t bytes = values.size() * sizeof values[0];
  void* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device, values.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  const auto picture = [&](const void* pixels, bool on_device) {
    return lab::PictureDesc::packed(pixels, on_device, 48, 32, 1, ElementType::U16, 2, 48 * 2);
  };
  source.show(picture(values.data(), false));
  ASSERT_TRUE(app.render_frame(0));
  const lab::Image cpu_frame = app.read_frame();
  EXPECT_EQ(pixel(cpu_frame, 0, 0), gray(0)) << "300, the smallest value";

  ASSERT_TRUE(app.request_mode(ModeId::Staging).available);
  ASSERT_TRUE(app.render_frame(1));
  ASSERT_EQ(app.mode_id(), ModeId::Staging);
  EXPECT_EQ(app.read_frame().rgba, cpu_frame.rgba) << "a host picture through CUDA";
  source.show(picture(device, true));
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_EQ(app.read_frame().rgba, cpu_frame.rgba) << "a device picture read where it is";

  // A fresh source (the one before goes with the next frame) finds the range with the bounds kernel on the
  // device picture.
  const std::string status = source.status();
  EXPECT_NE(status.find("range 300..5297 (auto: the first frame's), picture 2"), std::string::npos) << status;
  lab::ArraySource& fresh = use_array_source(app);
  fresh.show(picture(device, true));
  ASSERT_TRUE(app.render_frame(3));
  EXPECT_EQ(app.read_frame().rgba, cpu_frame.rgba) << "the range found on the device";
  EXPECT_EQ(fresh.status(), status.substr(0, status.size() - 1) + "1") << "the same range, its first picture";

  // The caller's range and colormap, on the device as in the CPU reference.
  const std::array<uint8_t, 256 * 4> table = ramp_colormap();
  lab::PictureDesc mapped = picture(device, true);
  mapped.mapping = lab::ValueMapping{1000.0, 3000.0, false, table.data()};
  fresh.show(mapped);
  ASSERT_TRUE(app.render_frame(4));
  const lab::Image mapped_on_device = app.read_frame();
  mapped.pixels = values.data();
  mapped.on_device = false;
  fresh.show(mapped);
  ASSERT_TRUE(app.request_mode(ModeId::Cpu).available);
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(app.read_frame().rgba, mapped_on_device.rgba) << "the caller's mapping through CUDA and the CPU";
  EXPECT_NE(mapped_on_device.rgba, cpu_frame.rgba);
  fresh.show(picture(device, true));
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(app.read_frame().rgba, cpu_frame.rgba) << "a device picture in cpu mode, copied to the host";
  app.request_scene(SceneId::Pattern);  // the source goes before the memory it reads
  ASSERT_TRUE(app.render_frame(5));
  EXPECT_EQ(cudaFree(device), cudaSuccess);
}

TEST(NullLoop, APicturesViewIsDrawnThroughCudaAsTheCpuModeDrawsIt) {
  NullApp app(null_options(SceneId::Pattern));
  if (app.cuda_device() < 0) {
    LABTEST_NEEDS_GPUS(1, "the array source's CUDA blit needs a CUDA device");
    return;
  }
  lab::ArraySource& source = use_array_source(app);
  const std::vector<uint8_t> values = ramp_picture();
  source.show(lab::PictureDesc::packed(values.data(), false, 24, 8, 1, ElementType::U8, 1, 24));
  source.picture_view()->fit = lab::view::Fit::Contain;
  long long index = 0;
  ASSERT_TRUE(app.render_frame(index++));  // the source takes over at the start of a frame
  const std::vector<lab::Command> moves = {view_command(lab::Command::Kind::Zoom, 7.0, 11.0, 2.5),
                                           view_command(lab::Command::Kind::Pan, -9.0, 3.0),
                                           view_command(lab::Command::Kind::Zoom, 30.0, 20.0, 0.3),
                                           view_command(lab::Command::Kind::ActualSize, 24.0, 16.0),
                                           command(lab::Command::Kind::Fit)};
  for (const lab::Command& move : moves) {
    ASSERT_EQ(lab::loop::apply_command(app, move), "");
    ASSERT_TRUE(app.request_mode(ModeId::Cpu).available);
    ASSERT_TRUE(app.render_frame(index++));
    const lab::Image cpu_frame = app.read_frame();
    ASSERT_TRUE(app.request_mode(ModeId::Staging).available);
    ASSERT_TRUE(app.render_frame(index++));
    ASSERT_EQ(app.mode_id(), ModeId::Staging);
    EXPECT_EQ(app.read_frame().rgba, cpu_frame.rgba) << control_of(move.kind).key;
  }
}

// Points of one colour each at `xyz` (x, y, z a point), their bounds as the caller computes them.
struct TestPoints {
  std::vector<float> xyz;
  std::vector<uint8_t> rgba;
  lab::PointsPicture picture(float size) const {
    lab::PointsPicture points;
    points.xyz = xyz.data();
    points.rgba = rgba.data();
    points.count = static_cast<long long>(rgba.size() / 4);
    points.size = size;
    points.bounds.empty = false;
    points.bounds.low = points.bounds.high = glm::vec3(xyz[0], xyz[1], xyz[2]);
    for (size_t i = 0; i < xyz.size(); i += 3) {
      points.bounds.low = glm::min(points.bounds.low, glm::vec3(xyz[i], xyz[i + 1], xyz[i + 2]));
      points.bounds.high = glm::max(points.bounds.high, glm::vec3(xyz[i], xyz[i + 1], xyz[i + 2]));
    }
    return points;
  }
};

TestPoints three_points() {
  return {{0.0f, 0.0f, 0.0f, 0.5f, 0.2f, -0.3f, -0.4f, 0.1f, 0.6f},
          {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255}};
}

// Where the camera's matrix puts (x, y, z) in a width x height frame: the pixel (rows top first) whose
// centre is nearest, projected in double precision apart from the kernels.
std::pair<int, int> projected(const glm::mat4& matrix, float x, float y, float z, int width, int height) {
  const glm::dvec4 clip = glm::dmat4(matrix) * glm::dvec4(x, y, z, 1.0);
  const double window_x = (clip.x / clip.w + 1.0) / 2.0 * width;
  const double window_y = (clip.y / clip.w + 1.0) / 2.0 * height;
  return {static_cast<int>(std::floor(window_x)), height - 1 - static_cast<int>(std::floor(window_y))};
}

TEST(NullLoop, AnArraySourcesPointsAreDrawnThroughTheCameraAndThePicturesCommandsMoveIt) {
  NullApp app(null_options(SceneId::Pattern));
  lab::ArraySource& source = use_array_source(app);
  const TestPoints cloud = three_points();
  source.show_points(cloud.picture(3.0f));
  ASSERT_TRUE(app.render_frame(0));
  EXPECT_TRUE(source.showing_points());
  const std::string framed = source.status();
  EXPECT_EQ(framed.rfind("3 points, yaw 34, pitch 20, distance ", 0), 0u) << framed;

  // The camera framed the bounds at the first frame: each point lies where its matrix puts it, an edge of 3
  // about it, on black.
  const auto shows_points = [&](const lab::Image& frame) {
    const glm::mat4 matrix = source.view_projection(app.extent());
    for (size_t i = 0; i < 3; ++i) {
      const auto [x, y] = projected(matrix, cloud.xyz[i * 3], cloud.xyz[i * 3 + 1], cloud.xyz[i * 3 + 2],
                                    frame.width, frame.height);
      const std::array<uint8_t, 4> colour{cloud.rgba[i * 4], cloud.rgba[i * 4 + 1], cloud.rgba[i * 4 + 2],
                                          255};
      if (pixel(frame, x, y) != colour) return false;
    }
    return true;
  };
  lab::Image frame = app.read_frame();
  const lab::Image first = frame;
  EXPECT_TRUE(shows_points(frame));
  const auto lit = [](const lab::Image& image) {
    long long count = 0;
    for (size_t i = 0; i < image.rgba.size(); i += 4)
      count += image.rgba[i] != 0 || image.rgba[i + 1] != 0 || image.rgba[i + 2] != 0 ? 1 : 0;
    return count;
  };
  EXPECT_GE(lit(frame), 3 * 4) << "edge 3: at least 2x2 pixels a point";
  EXPECT_LE(lit(frame), 3 * 9) << "at most 3x3";
  EXPECT_EQ(pixel(frame, 0, 0), gray(0));
  EXPECT_FALSE(app.picture_tools()) << "points have no picture to read";

  // The view's commands move the camera: a drag turns it (0.01 radian a pixel), a zoom moves it nearer (or
  // farther), a fit frames the points again, 1:1 leaves it.
  const lab::orbit::Orbit before = source.camera();
  EXPECT_EQ(lab::loop::apply_command(app, view_command(lab::Command::Kind::Pan, 30.0, -10.0)), "");
  EXPECT_NEAR(source.camera().yaw, before.yaw - 0.3, 1e-9);
  EXPECT_NEAR(source.camera().pitch, before.pitch - 0.1, 1e-9);
  EXPECT_EQ(lab::loop::apply_command(app, view_command(lab::Command::Kind::Zoom, 5.0, 5.0, 0.8)), "");
  EXPECT_NEAR(source.camera().distance, before.distance / 0.8, 1e-9) << "farther";
  EXPECT_EQ(lab::loop::apply_command(app, view_command(lab::Command::Kind::ActualSize, 5.0, 5.0)), "");
  ASSERT_TRUE(app.render_frame(1));
  frame = app.read_frame();
  EXPECT_TRUE(shows_points(frame)) << "drawn through the moved camera";
  EXPECT_NE(frame.rgba, first.rgba) << "elsewhere than before";
  EXPECT_EQ(lab::loop::apply_command(app, command(lab::Command::Kind::Fit)), "");
  EXPECT_EQ(source.camera().distance, before.distance) << "framed again";
  ASSERT_TRUE(app.render_frame(2));
  EXPECT_EQ(source.status(), "3 points, yaw 17, pitch 14, distance " + framed.substr(framed.rfind(' ') + 1))
      << "the fit keeps the turn";

  // New points keep the camera where it is; a picture takes the frame back, and the moves are the
  // picture's again.
  source.show_points(cloud.picture(5.0f));
  ASSERT_TRUE(app.render_frame(3));
  EXPECT_NEAR(source.camera().yaw, before.yaw - 0.3, 1e-9);
  EXPECT_GT(lit(app.read_frame()), lit(frame)) << "an edge of 5 covers more";
  const std::vector<uint8_t> values = ramp_picture();
  source.show(lab::PictureDesc::packed(values.data(), false, 24, 8, 1, ElementType::U8, 1, 24));
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_FALSE(source.showing_points());
  EXPECT_EQ(pixel(app.read_frame(), 47, 31), ramp(23, 7));
  EXPECT_TRUE(app.picture_tools());
  EXPECT_EQ(lab::loop::apply_command(app, view_command(lab::Command::Kind::Pan, 30.0, -10.0)), "");
  EXPECT_NEAR(source.camera().yaw, before.yaw - 0.3, 1e-9) << "the pan moved the picture, not the camera";

  // Points it cannot draw are refused, changing nothing.
  lab::PointsPicture bad = cloud.picture(3.0f);
  bad.count = 0;
  EXPECT_THROW(source.show_points(bad), std::invalid_argument);
  bad = cloud.picture(65.0f);
  EXPECT_THROW(source.show_points(bad), std::invalid_argument);
  bad = cloud.picture(3.0f);
  bad.rgba = nullptr;
  EXPECT_THROW(source.show_points(bad), std::invalid_argument);
  EXPECT_FALSE(source.showing_points());
}

TEST(NullLoop, AnArraySourcesPointsAreDrawnThroughCudaAsTheCpuModeDrawsThem) {
  NullApp app(null_options(SceneId::Pattern));
  if (app.cuda_device() < 0) {
    LABTEST_NEEDS_GPUS(1, "the points' CUDA kernels need a CUDA device");
    return;
  }
  lab::ArraySource& source = use_array_source(app);
  std::vector<float> xyz;
  std::vector<uint8_t> rgba;
  for (int i = 0; i < 500; ++i) {  // a spiral of 500 points, nearer ones over farther ones
    xyz.insert(xyz.end(),
               {std::cos(i * 0.1f) * i / 500.0f, std::sin(i * 0.1f) * i / 500.0f, i / 250.0f - 1.0f});
    rgba.insert(rgba.end(), {static_cast<uint8_t>(i), static_cast<uint8_t>(255 - i / 2), 40, 255});
  }
  const TestPoints cloud{xyz, rgba};
  source.show_points(cloud.picture(3.0f));
  long long index = 0;
  ASSERT_TRUE(app.request_mode(ModeId::Cpu).available);
  ASSERT_TRUE(app.render_frame(index++));
  const lab::Image cpu_frame = app.read_frame();
  ASSERT_TRUE(app.request_mode(ModeId::Staging).available);
  ASSERT_TRUE(app.render_frame(index++));
  ASSERT_EQ(app.mode_id(), ModeId::Staging);
  EXPECT_EQ(app.read_frame().rgba, cpu_frame.rgba) << "host points through CUDA";

  void* device_xyz = nullptr;
  void* device_rgba = nullptr;
  ASSERT_EQ(cudaMalloc(&device_xyz, xyz.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&device_rgba, rgba.size()), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device_xyz, xyz.data(), xyz.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device_rgba, rgba.data(), rgba.size(), cudaMemcpyHostToDevice), cudaSuccess);
  lab::PointsPicture on_device = cloud.picture(3.0f);
  on_device.xyz = device_xyz;
  on_device.rgba = device_rgba;
  on_device.on_device = true;
  source.show_points(on_device);
  ASSERT_TRUE(app.render_frame(index++));
  EXPECT_EQ(app.read_frame().rgba, cpu_frame.rgba) << "device points read where they are";
  ASSERT_TRUE(app.request_mode(ModeId::Cpu).available);
  ASSERT_TRUE(app.render_frame(index++));
  EXPECT_EQ(app.read_frame().rgba, cpu_frame.rgba) << "device points in cpu mode, copied to the host";
  app.request_scene(SceneId::Pattern);  // the source goes before the memory it reads
  ASSERT_TRUE(app.render_frame(index++));
  EXPECT_EQ(cudaFree(device_xyz), cudaSuccess);
  EXPECT_EQ(cudaFree(device_rgba), cudaSuccess);
}

}  // namespace
