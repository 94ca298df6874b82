// tests/vulkan/test_vulkan_frames.cpp — the Vulkan backend (--api vulkan) shows the frames the GL one
// shows: every scene in cpu mode against its golden (tests/golden, at the tolerance for another
// renderer: a different API rasterises the wave and the cubes) and against the GL app's cpu frame of
// the same options; the pattern, which no rasteriser touches, byte for byte against the kernel's CPU
// reference (so the row order is GL's), after a resize too, headless and in a window (Xvfb in CI). The
// staging mode against the cpu mode where a GPU is. The frame's timeline has its passes placed on the
// host clock in the order issued (on a GPU, the external mode's CUDA steps in stream order too, and the
// buffer mode's CUDA form sharing its linear buffers alone, its show pass timed at 4K). Without
// a Vulkan driver the tests skip with the reason; the staging test needs a CUDA device whose GPU Vulkan
// also drives (and fails where INTEROP_LAB_REQUIRE_GPUS says one must be there).
#include "tests/support/app_fixture.hpp"
#include "tests/support/frame_timeline.hpp"
#include "tests/support/layout_file.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/timeline_spans.hpp"
#include "tests/support/vulkan_device.hpp"
#include "tests/support/vulkan_presentation.hpp"

#include "app/core/hotkeys.hpp"
#include "app/glfw/panel_layout.hpp"
#include "app/image/image_io.hpp"
#include "app/vulkan/app/app.hpp"
#include "app/vulkan/app/bench.hpp"
#include "app/vulkan/app/bench_bare.hpp"
#include "app/vulkan/app/bench_rows.hpp"
#include "app/vulkan/device.hpp"
#include "interop/vmm.hpp"

#include <filesystem>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#ifndef INTEROP_LAB_GOLDEN_DIR
#error "the vulkan_tests target defines INTEROP_LAB_GOLDEN_DIR (the source tree's tests/golden)"
#endif

namespace {

using lab::ModeId;
using lab::SceneId;
using labtest::vulkan_missing;

#define NEEDS_VULKAN()                                                  \
  do {                                                                  \
    if (const std::string missing = vulkan_missing(); !missing.empty()) \
      GTEST_SKIP() << "needs a Vulkan driver: " << missing;             \
  } while (0)

lab::Options vulkan_options(SceneId scene, std::optional<ModeId> mode, int width, int height) {
  lab::Options options = labtest::app_options(scene, ModeId::Cpu, width, height);
  options.api = lab::GraphicsApi::Vulkan;
  options.mode = mode;
  options.headless = true;
  return options;
}

// A Vulkan app in a window, or null with `why` set where the device cannot present to this display.
std::unique_ptr<lab::vulkan::App> window_app(const lab::Options& options, std::string& why) {
  try {
    return std::make_unique<lab::vulkan::App>(options);
  } catch (const std::runtime_error& error) {
    if (!labtest::cannot_present_here(error.what())) throw;
    why = error.what();
    return nullptr;
  }
}

class VulkanGolden : public ::testing::TestWithParam<SceneId> {};

TEST_P(VulkanGolden, CpuModeRendersTheGoldenAndTheGlFrame) {
  NEEDS_VULKAN();
  const SceneId scene = GetParam();
  std::string problem;
  const std::optional<labtest::Golden> golden =
      labtest::load_golden(labtest::golden_dir(INTEROP_LAB_GOLDEN_DIR), scene, problem);
  ASSERT_TRUE(golden) << problem;

  lab::Options options = vulkan_options(scene, ModeId::Cpu, golden->width, golden->height);
  options.filter = golden->filter;
  lab::Image vulkan_frame;
  {
    lab::vulkan::App app(options);
    ASSERT_EQ(app.mode_id(), ModeId::Cpu);
    app.render_frame(golden->frame);
    vulkan_frame = app.read_frame();
  }
  ASSERT_EQ(vulkan_frame.width, golden->width);
  ASSERT_EQ(vulkan_frame.height, golden->height);
  const std::string name = std::string("vulkan-") + lab::to_string(scene) + "-cpu";
  const std::string against_golden =
      labtest::check_against(vulkan_frame, golden->image, golden->other_renderer, name,
                             "the golden " + golden->png_path + " (rendered by " + golden->renderer +
                                 " through GL; this run through Vulkan, so at the other-renderer tolerance)");
  EXPECT_TRUE(against_golden.empty()) << against_golden;

  lab::Options gl_options = labtest::app_options(scene, ModeId::Cpu, golden->width, golden->height);
  gl_options.filter = golden->filter;
  lab::gl::App gl_app(gl_options);
  const lab::Image gl_frame = labtest::render(gl_app, golden->frame);
  const std::string against_gl = labtest::check_against(vulkan_frame, gl_frame, golden->other_renderer,
                                                        name + "-vs-gl", "the GL app's cpu frame");
  EXPECT_TRUE(against_gl.empty()) << against_gl;
}

INSTANTIATE_TEST_SUITE_P(Scenes, VulkanGolden,
                         ::testing::Values(SceneId::Wave, SceneId::Pattern, SceneId::Postprocess),
                         [](const ::testing::TestParamInfo<SceneId>& scene) {
                           return std::string(lab::to_string(scene.param));
                         });

// The benchmark's graphics row times the passes alone (render_graphics_only) in graphics_app: what they draw
// is a real frame, the cpu frame that app rendered first, in every scene (the wave's mesh too, not a mesh
// whose vertices were never written, which shades no pixel and so costs less than the frames it is a part
// of).
TEST(VulkanFrames, TheBenchmarksGraphicsRowDrawsARealFrame) {
  NEEDS_VULKAN();
  for (const SceneId scene : lab::all_scenes()) {
    SCOPED_TRACE(lab::to_string(scene));
    const lab::Options options = vulkan_options(scene, ModeId::Cpu, 97, 61);
    lab::vulkan::App reference(options);
    reference.render_frame(0);
    const std::unique_ptr<lab::vulkan::App> app = lab::vulkan::graphics_app(options, scene, {97, 61});
    app->render_graphics_only(0);
    app->finish();
    const std::string difference =
        labtest::check_against(app->read_frame(), reference.read_frame(), {1, 0.0},
                               std::string("vulkan-graphics-row-") + lab::to_string(scene), "the cpu frame");
    EXPECT_TRUE(difference.empty()) << difference;
  }
}

// No rasteriser between the kernel and the frame: Vulkan must show the CPU reference's bytes exactly,
// top row first, at a size whose rows are no multiple of anything convenient.
TEST(VulkanFrames, ThePatternIsTheKernelsOwnBytes) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 67, 43));
  for (const long long index : {0LL, 31LL}) {
    app.render_frame(index);
    const lab::Image frame = app.read_frame();
    const lab::Image expected = labtest::expected_pattern_frame(67, 43, index);
    ASSERT_EQ(frame.width, expected.width);
    ASSERT_EQ(frame.height, expected.height);
    EXPECT_TRUE(frame.rgba == expected.rgba) << "frame " << index << " differs from pattern_cpu's";
  }
}

// Vulkan's timestamps, calibrated by a submitted timestamp waited on, place a frame's passes on the host
// clock (tests/support/frame_timeline.hpp says what must hold).
TEST(VulkanFrames, TheTimelinesGraphicsLaneIsPlacedInsideTheFrameInIssueOrder) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Postprocess, ModeId::Cpu, 320, 180));
  labtest::expect_graphics_lane_in_issue_order(app, static_cast<int>(ModeId::Cpu), 4);
}

TEST(VulkanFrames, DefaultModeIsStagingWithACudaDeviceElseCpu) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, std::nullopt, 32, 32));
  EXPECT_EQ(app.mode_id(), app.cuda_device() >= 0 ? ModeId::Staging : ModeId::Cpu);
}

// Every CUDA mode of --api vulkan gives the cpu frame: staging, external (the renderer's memory, CUDA
// imports it) and exported (CUDA's memory, the renderer imports it), each ordered by timeline and by binary
// semaphores, every scene, over several frames (the semaphores' values advance every step), at sizes that
// are no multiple of anything (1277x719), small (64x48), one past a power of two wide and three rows high
// (4097x3: a row pitch of 16388 bytes, no multiple of 256) and 4K (3840x2160: 16 granules of CUDA's).
struct CudaCase {
  ModeId mode;
  interop::SemaphoreKind semaphores;
  const char* name;
  lab::Extent size;
};
// GoogleTest names each case by it (CTest lists them so), not by its bytes.
void PrintTo(const CudaCase& c, std::ostream* out) {
  *out << c.name << " " << c.size.width << "x" << c.size.height;
}
std::vector<CudaCase> cuda_cases() {
  const CudaCase variants[] = {{ModeId::Staging, interop::SemaphoreKind::Timeline, "staging", {}},
                               {ModeId::External, interop::SemaphoreKind::Timeline, "external_timeline", {}},
                               {ModeId::External, interop::SemaphoreKind::Binary, "external_binary", {}},
                               {ModeId::Exported, interop::SemaphoreKind::Timeline, "exported_timeline", {}},
                               {ModeId::Exported, interop::SemaphoreKind::Binary, "exported_binary", {}},
                               {ModeId::Buffer, interop::SemaphoreKind::Timeline, "buffer_timeline", {}},
                               {ModeId::Buffer, interop::SemaphoreKind::Binary, "buffer_binary", {}}};
  const lab::Extent sizes[] = {{96, 64}, {1277, 719}, {64, 48}, {4097, 3}, {3840, 2160}};
  std::vector<CudaCase> cases;
  for (const CudaCase& variant : variants) {
    for (const lab::Extent size : sizes) {
      cases.push_back(variant);
      cases.back().size = size;
    }
  }
  return cases;
}

class VulkanCudaFrames : public ::testing::TestWithParam<CudaCase> {};

TEST_P(VulkanCudaFrames, MatchCpu) {
  NEEDS_VULKAN();
  const CudaCase& c = GetParam();
  lab::Options probe = vulkan_options(SceneId::Postprocess, ModeId::Cpu, 32, 32);
  if (lab::vulkan::App(probe).cuda_device() < 0)
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device for the staging, external and exported modes");
  for (const SceneId scene : lab::all_scenes()) {
    SCOPED_TRACE(std::string(lab::to_string(scene)) + " " + c.name);
    lab::vulkan::App reference(vulkan_options(scene, ModeId::Cpu, c.size.width, c.size.height));
    reference.render_frame(12);
    const lab::Image expected = reference.read_frame();
    lab::Options options = vulkan_options(scene, c.mode, c.size.width, c.size.height);
    options.semaphores = c.semaphores;
    lab::vulkan::App app(options);
    ASSERT_EQ(app.mode_id(), c.mode);
    for (long long index = 10; index <= 12; ++index) app.render_frame(index);
    // The same rasteriser draws both; the kernels' GPU and CPU rounding may differ by one step, as in
    // tests/gpu's interop frames against cpu frames.
    const std::string difference =
        labtest::check_against(app.read_frame(), expected, {1, 0.0},
                               std::string("vulkan-") + c.name + "-" + lab::to_string(scene) + "-" +
                                   std::to_string(c.size.width) + "x" + std::to_string(c.size.height),
                               "the Vulkan cpu frame");
    EXPECT_TRUE(difference.empty()) << difference;
    EXPECT_EQ(app.device().validation_messages(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, VulkanCudaFrames, ::testing::ValuesIn(cuda_cases()),
                         [](const ::testing::TestParamInfo<CudaCase>& param_info) {
                           return std::string(param_info.param.name) + "_" +
                                  std::to_string(param_info.param.size.width) + "x" +
                                  std::to_string(param_info.param.size.height);
                         });

// The modes of --api vulkan and nothing else; staging and external only with a CUDA device.
TEST(VulkanModes, AvailabilityFollowsTheApisModes) {
  const lab::CudaContext no_cuda{-1, nullptr};
  const lab::CudaContext cuda{0, nullptr};
  const std::string no_driver = "cudaGetDeviceCount: cudaErrorInsufficientDriver: install the NVIDIA driver";
  for (const ModeId mode : lab::all_modes()) {
    SCOPED_TRACE(lab::to_string(mode));
    const lab::ModeAvailability without = lab::vulkan::mode_availability(mode, no_cuda, no_driver);
    const lab::ModeAvailability with = lab::vulkan::mode_availability(mode, cuda, "");
    if (!lab::has_mode(lab::GraphicsApi::Vulkan, mode)) {
      EXPECT_FALSE(without.available);
      EXPECT_FALSE(with.available);
      EXPECT_NE(with.reason.find("is not a mode of --api vulkan"), std::string::npos) << with.reason;
    } else if (mode == ModeId::Cpu || mode == ModeId::Buffer) {  // buffer: its cpu form without CUDA
      EXPECT_TRUE(without.available);
      EXPECT_TRUE(with.available);
    } else if (mode == ModeId::Exported) {
      // A CUDA device, and one whose VMM allocations export as POSIX FDs: the probe's answer, with its
      // reason.
      EXPECT_FALSE(without.available);
      EXPECT_NE(without.reason.find(no_driver), std::string::npos) << without.reason;
      const interop::VmmExportSupport vmm = interop::probe_vmm_export(0);
      EXPECT_EQ(with.available, vmm.supported) << with.reason;
      if (!vmm.supported) {
        EXPECT_NE(with.reason.find(vmm.reason), std::string::npos) << with.reason;
        EXPECT_NE(with.reason.find("use --mode external"), std::string::npos) << with.reason;
      }
    } else {  // staging, external
      EXPECT_FALSE(without.available);
      EXPECT_NE(without.reason.find(no_driver), std::string::npos) << without.reason;
      EXPECT_TRUE(with.available);
    }
  }
  // The table behind both has a row per mode of --api vulkan, in --list's order.
  EXPECT_EQ(lab::vulkan::mode_table_order(), lab::modes_of(lab::GraphicsApi::Vulkan));
}

// A new size re-creates the frame and the resources sized by it; the kernels then fill the new ones.
TEST(VulkanFrames, AResizeHeadlessRecreatesTheResources) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 64, 48));
  app.render_frame(0);
  app.resize({81, 50});
  ASSERT_TRUE(app.render_frame(1));
  EXPECT_EQ(app.extent(), (lab::Extent{81, 50}));
  const lab::Image frame = app.read_frame();
  EXPECT_TRUE(frame.rgba == labtest::expected_pattern_frame(81, 50, 1).rgba) << "the frame after the resize";
}

// Without --headless: a window (Xvfb in CI) that shows the frames; the frame read back is the same, and
// it follows the window's size.
TEST(VulkanFrames, InAWindowTheFramesAreTheSameAndFollowItsSize) {
  NEEDS_VULKAN();
  if (std::getenv("DISPLAY") == nullptr)
    GTEST_SKIP() << "needs a display (DISPLAY is unset; CI runs under Xvfb)";
  lab::Options options = vulkan_options(SceneId::Pattern, ModeId::Cpu, 64, 48);
  options.headless = false;
  options.no_ui = false;  // the panel draws over the window; read_frame is the frame without it
  std::string why;
  const std::unique_ptr<lab::vulkan::App> app_owner = window_app(options, why);
  if (!app_owner) GTEST_SKIP() << "needs a Vulkan device that presents to this display: " << why;
  lab::vulkan::App& app = *app_owner;
  ASSERT_TRUE(app.windowed());
  ASSERT_TRUE(app.render_frame(3));
  const lab::Extent first = app.extent();
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(first.width, first.height, 3).rgba);
  app.resize({96, 72});
  lab::Extent resized;
  for (int attempt = 0; attempt < 50 && resized != lab::Extent{96, 72}; ++attempt) {  // the X server's pace
    ASSERT_TRUE(app.render_frame(4));
    resized = app.extent();
  }
  ASSERT_EQ(resized, (lab::Extent{96, 72})) << "the window's new size never reached the frame";
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(96, 72, 4).rgba);
  // The panel, its timings (timestamps around the show pass too) and vsync off: still no validation message.
  app.handle_hotkey(lab::Hotkey::ToggleVsync);
  for (int frame = 5; frame < 9; ++frame) ASSERT_TRUE(app.render_frame(frame));
  app.timers().flush();
  EXPECT_EQ(app.timers().stats(static_cast<int>(ModeId::Cpu), lab::Phase::Draw).clock, lab::Clock::Vulkan);
  EXPECT_EQ(app.device().validation_messages(), 0);
}

// As the GL window's test (tests/window): a layout saved with the panel outside the window does not hide it,
// 200 resizes down to 1x1 leave it inside, and the layout saved on exit is inside the last window.
TEST(VulkanFrames, ASavedLayoutNeverHidesThePanel) {
  NEEDS_VULKAN();
  if (std::getenv("DISPLAY") == nullptr)
    GTEST_SKIP() << "needs a display (DISPLAY is unset; CI runs under Xvfb)";
  const labtest::ScratchDir dir("vulkan-layout");
  const std::string layout = (dir.path() / "imgui.ini").string();
  labtest::write_layout(layout, {-18.0f, -13.0f, 300.0f, 200.0f});
  lab::Options options = vulkan_options(SceneId::Pattern, ModeId::Cpu, 640, 480);
  options.headless = false;
  options.no_ui = false;
  options.layout_file = layout;
  const lab::Extent last{1200, 900};  // larger than the panel
  {
    std::string why;
    const std::unique_ptr<lab::vulkan::App> app_owner = window_app(options, why);
    if (!app_owner) GTEST_SKIP() << "needs a Vulkan device that presents to this display: " << why;
    lab::vulkan::App& app = *app_owner;
    ASSERT_TRUE(app.render_frame(0));
    const std::optional<lab::PanelRect> start = lab::glfw::window_rect("interop-lab");
    ASSERT_TRUE(start.has_value());
    EXPECT_EQ(start->x, 0.0f) << "the saved Pos=-18,-13 came back cut off";
    EXPECT_EQ(start->y, 0.0f);
    const std::vector<lab::Extent> sizes = labtest::resize_sequence(200, last);
    for (int i = 0; i < static_cast<int>(sizes.size()); ++i) {
      app.resize(sizes[static_cast<size_t>(i)]);
      app.render_frame(i + 1);
      const std::optional<lab::PanelRect> now = lab::glfw::window_rect("interop-lab");
      ASSERT_TRUE(now.has_value());
      EXPECT_GE(now->x, 0.0f) << "after resize " << i;
      EXPECT_GE(now->y, 0.0f) << "after resize " << i;
    }
    for (int attempt = 0; attempt < 50 && app.extent() != last; ++attempt) app.render_frame(201 + attempt);
    ASSERT_EQ(app.extent(), last) << "the window's last size never reached the frame";
    app.render_frame(300);
    const std::optional<lab::PanelRect> end = lab::glfw::window_rect("interop-lab");
    ASSERT_TRUE(end.has_value());
    EXPECT_TRUE(labtest::inside(*end, last.width, last.height))
        << end->x << "," << end->y << " " << end->width << "x" << end->height;
    EXPECT_EQ(app.device().validation_messages(), 0);
  }
  const std::optional<lab::PanelRect> saved = labtest::read_layout(layout);
  ASSERT_TRUE(saved.has_value()) << "no panel in the layout written on exit";
  EXPECT_TRUE(labtest::inside(*saved, last.width, last.height))
      << "saved Pos=" << saved->x << "," << saved->y << " Size=" << saved->width << "," << saved->height;
}

// One rule for --screenshot in a window, whatever the API: the window as it showed the last frame, panel
// included. The GL and the Vulkan window's screenshots (cpu mode, pattern, the same size and frame) both
// differ from the frame where their panel is, and nowhere else: outside the panels they are the frame, and
// each other, byte for byte.
TEST(VulkanFrames, AWindowsScreenshotIncludesThePanelAsTheGlWindowsDoes) {
  NEEDS_VULKAN();
  if (std::getenv("DISPLAY") == nullptr)
    GTEST_SKIP() << "needs a display (DISPLAY is unset; CI runs under Xvfb)";
  const labtest::ScratchDir dir("screenshot-rule");
  const auto screenshot = [&](lab::GraphicsApi api) {
    lab::Options options = vulkan_options(SceneId::Pattern, ModeId::Cpu, 1280, 720);
    options.api = api;
    options.mode = ModeId::Cpu;
    options.headless = false;
    options.no_ui = false;
    options.frames = 4;
    options.screenshot = (dir.path() / (std::string(lab::to_string(api)) + ".png")).string();
    if (api == lab::GraphicsApi::Gl) {
      lab::gl::App(options).run();
    } else {
      lab::vulkan::App(options).run();
    }
    return lab::read_png(options.screenshot);
  };
  const lab::Image gl = screenshot(lab::GraphicsApi::Gl);
  lab::Image vulkan;
  try {
    vulkan = screenshot(lab::GraphicsApi::Vulkan);
  } catch (const std::runtime_error& error) {
    if (!labtest::cannot_present_here(error.what())) throw;
    GTEST_SKIP() << "needs a Vulkan device that presents to this display: " << error.what();
  }
  const lab::Image frame = labtest::expected_pattern_frame(1280, 720, 3);
  ASSERT_EQ(gl.width, frame.width);
  ASSERT_EQ(vulkan.width, frame.width);
  ASSERT_EQ(vulkan.height, frame.height);
  // Where each screenshot is not the frame: its panel. Both have one, at the top left where it starts.
  struct Box {
    int left = 1 << 30, top = 1 << 30, right = -1, bottom = -1;
    int pixels = 0;
    bool holds(int x, int y) const { return x >= left && x <= right && y >= top && y <= bottom; }
  };
  const auto panel_of = [&](const lab::Image& shot) {
    Box box;
    for (int y = 0; y < frame.height; ++y)
      for (int x = 0; x < frame.width; ++x)
        if (std::memcmp(shot.pixel(x, y), frame.pixel(x, y), 3) != 0) {
          box = {std::min(box.left, x), std::min(box.top, y), std::max(box.right, x), std::max(box.bottom, y),
                 box.pixels + 1};
        }
    return box;
  };
  const Box gl_panel = panel_of(gl), vulkan_panel = panel_of(vulkan);
  EXPECT_GT(gl_panel.pixels, 1000) << "the GL window's screenshot has no panel";
  EXPECT_GT(vulkan_panel.pixels, 1000) << "the Vulkan window's screenshot has no panel";
  EXPECT_LE(vulkan_panel.left, 20) << "the Vulkan panel starts at the top left, as the GL one";
  EXPECT_LE(vulkan_panel.top, 20);
  int outside = 0, differ = 0;
  for (int y = 0; y < frame.height; ++y)
    for (int x = 0; x < frame.width; ++x) {
      if (gl_panel.holds(x, y) || vulkan_panel.holds(x, y)) continue;
      ++outside;
      if (std::memcmp(gl.pixel(x, y), vulkan.pixel(x, y), 3) != 0) ++differ;
    }
  EXPECT_GT(outside, 1280 * 720 / 2) << "the panels cover most of the window";
  EXPECT_EQ(differ, 0) << "outside the panels the two screenshots differ";
}

// The panel's switches, as it calls them: a scene switch re-creates the resources, and the next frame is
// the new scene's, exactly as a fresh run of it draws it; a mode of another API is refused with its reason;
// on a GPU the CUDA modes, and the external mode's semaphores, switch live and keep the cpu frame.
TEST(VulkanFrames, ScenesModesAndSemaphoresSwitchLive) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Cpu, 96, 64));
  app.render_frame(3);
  app.request_scene(SceneId::Postprocess);
  app.render_frame(7);
  EXPECT_EQ(app.scene_id(), SceneId::Postprocess);
  const lab::Image switched = app.read_frame();
  lab::vulkan::App fresh(vulkan_options(SceneId::Postprocess, ModeId::Cpu, 96, 64));
  fresh.render_frame(7);
  const lab::Image expected = fresh.read_frame();
  EXPECT_TRUE(switched.rgba == expected.rgba) << "the frame after the switch differs from a fresh run's";

  const lab::ModeAvailability pbo = app.request_mode(ModeId::Pbo);
  EXPECT_FALSE(pbo.available);
  EXPECT_NE(pbo.reason.find("is not a mode of --api vulkan"), std::string::npos) << pbo.reason;
  app.render_frame(7);
  EXPECT_EQ(app.mode_id(), ModeId::Cpu) << "a refused mode changes nothing";

  if (app.cuda_device() < 0) return;  // the CUDA half below needs a GPU
  for (const auto& [mode, semaphores] : {std::pair{ModeId::Staging, interop::SemaphoreKind::Timeline},
                                         std::pair{ModeId::External, interop::SemaphoreKind::Timeline},
                                         std::pair{ModeId::External, interop::SemaphoreKind::Binary},
                                         std::pair{ModeId::Exported, interop::SemaphoreKind::Binary},
                                         std::pair{ModeId::Exported, interop::SemaphoreKind::Timeline},
                                         std::pair{ModeId::Buffer, interop::SemaphoreKind::Binary},
                                         std::pair{ModeId::Buffer, interop::SemaphoreKind::Timeline}}) {
    SCOPED_TRACE(std::string(lab::to_string(mode)) +
                 (semaphores == interop::SemaphoreKind::Timeline ? " timeline" : " binary"));
    ASSERT_TRUE(app.request_mode(mode).available);
    app.request_semaphores(semaphores);
    app.render_frame(7);
    EXPECT_EQ(app.mode_id(), mode);
    EXPECT_EQ(app.semaphores(), semaphores);
    const std::string difference = labtest::check_against(app.read_frame(), expected, {1, 0.0},
                                                          "vulkan-switch-postprocess", "a fresh cpu run");
    EXPECT_TRUE(difference.empty()) << difference;
  }
  EXPECT_EQ(app.device().validation_messages(), 0);
}

// The buffer mode shows every scene from storage buffers: the frame pass's fragment shader reads the image
// out of its buffer (the postprocess scene's cubes are copied into one first). Without a CUDA device (CI's
// lavapipe) that is its cpu form, where the CPU reference writes the buffers: the frames must be the cpu
// mode's byte for byte (one rasteriser, one reference) and the pattern the kernel's own bytes, at sizes no
// multiple of anything and after a live switch from cpu and back. With one, the CUDA form: within a
// step of the cpu frame (tests/gpu's GPU-against-CPU rounding), VulkanCudaFrames at every size.
TEST(VulkanFrames, TheBufferModeShowsTheCpuFrames) {
  NEEDS_VULKAN();
  for (const lab::Extent size : {lab::Extent{67, 43}, lab::Extent{1277, 719}, lab::Extent{4097, 3}}) {
    for (const SceneId scene : lab::all_scenes()) {
      SCOPED_TRACE(std::string(lab::to_string(scene)) + " " + std::to_string(size.width) + "x" +
                   std::to_string(size.height));
      lab::vulkan::App reference(vulkan_options(scene, ModeId::Cpu, size.width, size.height));
      reference.render_frame(12);
      const lab::Image expected = reference.read_frame();
      lab::vulkan::App app(vulkan_options(scene, ModeId::Buffer, size.width, size.height));
      ASSERT_EQ(app.mode_id(), ModeId::Buffer);
      for (long long index = 10; index <= 12; ++index) app.render_frame(index);
      const lab::Image frame = app.read_frame();
      if (app.cuda_device() < 0) {
        EXPECT_TRUE(frame.rgba == expected.rgba) << "the cpu form's frame differs from the cpu mode's";
        if (scene == SceneId::Pattern) {
          EXPECT_TRUE(frame.rgba == labtest::expected_pattern_frame(size.width, size.height, 12).rgba)
              << "the pattern is not pattern_cpu's bytes";
        }
      } else {
        const std::string difference = labtest::check_against(
            frame, expected, {1, 0.0}, std::string("vulkan-buffer-") + lab::to_string(scene),
            "the Vulkan cpu frame");
        EXPECT_TRUE(difference.empty()) << difference;
      }
      EXPECT_EQ(app.device().validation_messages(), 0);
    }
  }
}

TEST(VulkanFrames, TheBufferModeSwitchesLiveBothWays) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Postprocess, ModeId::Cpu, 96, 64));
  app.render_frame(5);
  const lab::Image cpu_frame = app.read_frame();
  ASSERT_TRUE(app.request_mode(ModeId::Buffer).available);
  app.render_frame(5);
  EXPECT_EQ(app.mode_id(), ModeId::Buffer);
  const labtest::Tolerance tolerance =
      app.cuda_device() < 0 ? labtest::Tolerance{0, 0.0} : labtest::Tolerance{1, 0.0};
  std::string difference =
      labtest::check_against(app.read_frame(), cpu_frame, tolerance, "vulkan-to-buffer", "the cpu frame");
  EXPECT_TRUE(difference.empty()) << difference;
  // The CPU form's frames are the reference's bytes; the CUDA form's within a step of them.
  const auto is_the_pattern = [&](int width, int height, long long index) {
    const lab::ImageDifference d = lab::compare_images(
        app.read_frame(), labtest::expected_pattern_frame(width, height, index), tolerance.max_diff);
    return d.pixels_over == 0;
  };
  app.request_scene(SceneId::Pattern);
  app.render_frame(9);
  EXPECT_TRUE(is_the_pattern(96, 64, 9)) << "the pattern after a scene switch in the buffer mode";
  // A resize re-creates the resources, and the mode places new buffers beside them.
  app.resize({81, 50});
  ASSERT_TRUE(app.render_frame(4));
  EXPECT_EQ(app.mode_id(), ModeId::Buffer);
  EXPECT_TRUE(is_the_pattern(81, 50, 4)) << "the pattern after a resize in the buffer mode";
  ASSERT_TRUE(app.request_mode(ModeId::Cpu).available);
  app.render_frame(9);
  EXPECT_EQ(app.mode_id(), ModeId::Cpu);
  EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(81, 50, 9).rgba)
      << "the images are back in their textures after the switch away";
  EXPECT_EQ(app.device().validation_messages(), 0);
}

// Without a CUDA device the external mode is refused before any Vulkan work, saying why; with one but a
// Vulkan driver that cannot export semaphores (lavapipe), attach names the missing extension.
TEST(VulkanFrames, TheExternalModeSaysWhatIsMissing) {
  try {
    lab::vulkan::App app(vulkan_options(SceneId::Wave, ModeId::External, 32, 32));
    if (app.cuda_device() < 0) ADD_FAILURE() << "--mode external was accepted without a CUDA device";
  } catch (const std::runtime_error& error) {
    const std::string why = error.what();
    EXPECT_TRUE(why.find("--mode external is unavailable: no CUDA device") != std::string::npos ||
                why.find("lacks") != std::string::npos)
        << why;
  }
}

// Without a CUDA device the exported mode is refused before any Vulkan work, saying why; with one whose
// allocations cannot be exported, the probe's reason.
TEST(VulkanFrames, TheExportedModeSaysWhatIsMissing) {
  try {
    lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Exported, 32, 32));
    if (app.cuda_device() < 0) ADD_FAILURE() << "--mode exported was accepted without a CUDA device";
    EXPECT_TRUE(interop::probe_vmm_export(app.cuda_device()).supported)
        << "accepted though the probe said no";
  } catch (const std::runtime_error& error) {
    const std::string why = error.what();
    EXPECT_TRUE(why.find("--mode exported is unavailable: no CUDA device") != std::string::npos ||
                why.find("VMM") != std::string::npos || why.find("lacks") != std::string::npos ||
                why.find("cannot") != std::string::npos)
        << why;
  }
}

// The panel's timings: every phase a mode records shows up on its own clock, frame after frame, with
// the Vulkan passes timed by their own timestamps (draw; the cpu and staging modes' read-back of the cubes
// as "vulkan copy"), the mode's work on the host (cpu) or on CUDA events (staging, external), and nothing
// the mode does not do. Zero validation messages with the queries in every pass.
struct ExpectedPhases {
  ModeId mode;
  std::vector<std::pair<lab::Phase, lab::Clock>> recorded;
  std::vector<lab::Phase> absent;
};

void expect_phases(const ExpectedPhases& expected) {
  constexpr int kFrames = 8;
  SCOPED_TRACE(lab::to_string(expected.mode));
  lab::vulkan::App app(vulkan_options(SceneId::Postprocess, expected.mode, 96, 64));
  ASSERT_TRUE(app.timing()) << "timing is on by default, as in the GL app";
  for (int index = 0; index < kFrames; ++index) app.render_frame(index);
  app.timers().flush();
  const int tag = static_cast<int>(expected.mode);
  for (const auto& [phase, clock] : expected.recorded) {
    SCOPED_TRACE(lab::to_string(phase));
    const lab::PhaseStats& stats = app.timers().stats(tag, phase);
    // The frame time is start to start: the first frame has none.
    EXPECT_EQ(stats.samples, phase == lab::Phase::Frame ? kFrames - 1 : kFrames);
    EXPECT_EQ(stats.clock, clock);
    EXPECT_GE(stats.median_ms, 0.0f);
  }
  for (const lab::Phase phase : expected.absent)
    EXPECT_FALSE(app.timers().has(tag, phase)) << lab::to_string(phase);
  EXPECT_EQ(app.device().validation_messages(), 0);
}

TEST(VulkanFrames, TheCpuModesPhasesAreTimedOnTheirClocks) {
  NEEDS_VULKAN();
  using lab::Clock;
  using lab::Phase;
  expect_phases({ModeId::Cpu,
                 {{Phase::Draw, Clock::Vulkan},
                  {Phase::VulkanCopy, Clock::Vulkan},
                  {Phase::Kernel, Clock::Cpu},
                  {Phase::Frame, Clock::Cpu}},
                 {Phase::Wait, Phase::Signal, Phase::CudaCopy}});
}

// The buffer mode without CUDA: the host waits for the passes before the reference writes their buffers
// (wait, on the host), and nothing is copied (the cubes' copy into the buffer is inside the cubes pass).
TEST(VulkanFrames, TheBufferModesCpuFormsPhasesAreTimedOnTheirClocks) {
  NEEDS_VULKAN();
  if (lab::vulkan::App(vulkan_options(SceneId::Postprocess, ModeId::Cpu, 32, 32)).cuda_device() >= 0)
    GTEST_SKIP() << "needs a machine without a CUDA device (there the buffer mode is its CUDA form, timed in "
                    "TheCudaModesPhasesAreTimedOnTheirClocks)";
  using lab::Clock;
  using lab::Phase;
  expect_phases({ModeId::Buffer,
                 {{Phase::Draw, Clock::Vulkan},
                  {Phase::Wait, Clock::Cpu},
                  {Phase::Kernel, Clock::Cpu},
                  {Phase::Frame, Clock::Cpu}},
                 {Phase::VulkanCopy, Phase::Signal, Phase::CudaCopy}});
}

TEST(VulkanFrames, TheCudaModesPhasesAreTimedOnTheirClocks) {
  NEEDS_VULKAN();
  if (lab::vulkan::App(vulkan_options(SceneId::Postprocess, ModeId::Cpu, 32, 32)).cuda_device() < 0)
    LABTEST_NEEDS_GPUS(1, "the staging and external modes need a CUDA device");
  using lab::Clock;
  using lab::Phase;
  expect_phases({ModeId::Staging,
                 {{Phase::Draw, Clock::Vulkan},
                  {Phase::VulkanCopy, Clock::Vulkan},
                  {Phase::Kernel, Clock::Cuda},
                  {Phase::CudaCopy, Clock::Cuda},
                  {Phase::Frame, Clock::Cpu}},
                 {Phase::Wait, Phase::Signal}});
  expect_phases({ModeId::External,
                 {{Phase::Draw, Clock::Vulkan},
                  {Phase::Wait, Clock::Cuda},
                  {Phase::Kernel, Clock::Cuda},
                  {Phase::Signal, Clock::Cuda},
                  {Phase::Frame, Clock::Cpu}},
                 {Phase::VulkanCopy, Phase::CudaCopy, Phase::Map}});
  // The exported mode's copies between its buffers and images are inside the passes (timed as draw).
  expect_phases({ModeId::Exported,
                 {{Phase::Draw, Clock::Vulkan},
                  {Phase::Wait, Clock::Cuda},
                  {Phase::Kernel, Clock::Cuda},
                  {Phase::Signal, Clock::Cuda},
                  {Phase::Frame, Clock::Cpu}},
                 {Phase::VulkanCopy, Phase::CudaCopy, Phase::Map}});
  // The buffer mode's CUDA form: the external mode's steps, the show pass inside the frame pass.
  expect_phases({ModeId::Buffer,
                 {{Phase::Draw, Clock::Vulkan},
                  {Phase::Wait, Clock::Cuda},
                  {Phase::Kernel, Clock::Cuda},
                  {Phase::Signal, Clock::Cuda},
                  {Phase::Frame, Clock::Cpu}},
                 {Phase::VulkanCopy, Phase::CudaCopy, Phase::Map}});
}

// The buffer mode's CUDA form at 4K: CUDA imports each image's linear buffer, never the image, so the image
// is not exportable and no pass hands it to VK_QUEUE_FAMILY_EXTERNAL (Renderer::place_linear_images), and
// the show pass is timed on Vulkan's clock every frame. Its times are printed for the record
// (docs/ARCHITECTURE.md's buffer mode paragraph), not judged: speed is the benchmark's.
TEST(VulkanFrames, TheBufferModesCudaFormSharesTheLinearBuffersAloneAt4k) {
  NEEDS_VULKAN();
  if (lab::vulkan::App(vulkan_options(SceneId::Postprocess, ModeId::Cpu, 32, 32)).cuda_device() < 0)
    LABTEST_NEEDS_GPUS(1, "the buffer mode's CUDA form needs a CUDA device");
  constexpr int kFrames = 120;
  lab::vulkan::App app(vulkan_options(SceneId::Pattern, ModeId::Buffer, 3840, 2160));
  ASSERT_EQ(app.mode_id(), ModeId::Buffer);
  int images = 0;
  for (const lab::vulkan::Resource& resource : app.renderer().resources()) {
    if (resource.image == VK_NULL_HANDLE) continue;
    ++images;
    SCOPED_TRACE(resource.desc.label);
    EXPECT_TRUE(resource.shown_from_linear);
    EXPECT_TRUE(resource.linear_exportable) << "CUDA imports the linear buffer";
    EXPECT_FALSE(resource.exportable) << "the image itself is Vulkan's alone";
  }
  ASSERT_EQ(images, 1) << "the pattern scene has one image";
  for (int index = 0; index < kFrames; ++index) ASSERT_TRUE(app.render_frame(index));
  app.timers().flush();
  const int tag = static_cast<int>(ModeId::Buffer);
  const lab::PhaseStats& draw = app.timers().stats(tag, lab::Phase::Draw);
  EXPECT_EQ(draw.samples, std::min(kFrames, lab::PhaseWindow::kWindow));
  EXPECT_EQ(draw.clock, lab::Clock::Vulkan);
  const lab::PhaseStats& kernel = app.timers().stats(tag, lab::Phase::Kernel);
  const lab::PhaseStats& frame = app.timers().stats(tag, lab::Phase::Frame);
  std::printf(
      "[   NOTE   ] buffer mode, pattern 3840x2160, %d frames: draw (the show pass) median %.3f ms "
      "(p90 %.3f), kernel %.3f, frame %.3f\n",
      kFrames, draw.median_ms, draw.p90_ms, kernel.median_ms, frame.median_ms);
  EXPECT_EQ(app.device().validation_messages(), 0);
}

// The external mode's frame on one axis: CUDA's wait, kernel and signal in stream order (one reference
// event: no calibration between them), and the frame pass, which waits on CUDA's signal, after the signal
// began. That much the APIs guarantee; whether CUDA's work overlaps Vulkan's is the GPU's business.
TEST(VulkanFrames, TheExternalModesCudaStepsLieInStreamOrderBeforeTheFramePass) {
  NEEDS_VULKAN();
  if (lab::vulkan::App(vulkan_options(SceneId::Postprocess, ModeId::Cpu, 32, 32)).cuda_device() < 0)
    LABTEST_NEEDS_GPUS(1, "the external mode needs a CUDA device");
  lab::vulkan::App app(vulkan_options(SceneId::Postprocess, ModeId::External, 640, 360));
  for (int frame = 0; frame < 8; ++frame) ASSERT_TRUE(app.render_frame(frame));
  app.timers().flush();
  const lab::FrameTimeline timeline =
      lab::last_frame_timeline(app.timers(), static_cast<int>(ModeId::External));
  const std::string said = labtest::describe(timeline);
  using lab::Lane;
  const auto cuda = labtest::lane_state(timeline, Lane::Cuda);
  const auto graphics = labtest::lane_state(timeline, Lane::Graphics);
  ASSERT_TRUE(cuda && cuda->placed) << said;
  ASSERT_TRUE(graphics && graphics->placed) << said;
  const std::vector<lab::TimelineSpan> waits = labtest::spans_named(timeline, Lane::Handoff, "wait");
  const std::vector<lab::TimelineSpan> kernels = labtest::spans_named(timeline, Lane::Cuda, "kernel");
  const std::vector<lab::TimelineSpan> signals = labtest::spans_named(timeline, Lane::Handoff, "signal");
  const std::vector<lab::TimelineSpan> draws = labtest::spans_named(timeline, Lane::Graphics, "draw");
  ASSERT_FALSE(waits.empty()) << said;
  ASSERT_FALSE(kernels.empty()) << said;
  ASSERT_FALSE(signals.empty()) << said;
  ASSERT_GE(draws.size(), 2u) << said;
  constexpr double kRounding = 0.001;  // ms
  EXPECT_LE(waits.front().end_ms, kernels.front().start_ms + kRounding) << said;
  EXPECT_LE(kernels.back().end_ms, signals.back().start_ms + kRounding) << said;
  EXPECT_GE(draws.back().start_ms,
            signals.back().start_ms - (cuda->uncertainty_ms + graphics->uncertainty_ms + kRounding))
      << said;
}

// The bench turns timing off: nothing is recorded then, and turning it on again starts afresh.
TEST(VulkanFrames, TimingOffRecordsNothing) {
  NEEDS_VULKAN();
  lab::vulkan::App app(vulkan_options(SceneId::Wave, ModeId::Cpu, 64, 48));
  app.set_timing(false);
  for (int index = 0; index < 3; ++index) app.render_frame(index);
  app.timers().flush();
  EXPECT_FALSE(app.timers().has(static_cast<int>(ModeId::Cpu), lab::Phase::Draw));
  app.set_timing(true);
  app.render_frame(3);
  app.timers().flush();
  EXPECT_EQ(app.timers().stats(static_cast<int>(ModeId::Cpu), lab::Phase::Draw).samples, 1);
}

// The window's keys, as a key press calls them: the next scene and the next mode that runs here, at the
// next frame; F12 writes the frame as --screenshot would, to the next numbered file.
TEST(VulkanFrames, KeysSwitchSceneAndModeAndTakeNumberedScreenshots) {
  NEEDS_VULKAN();
  const labtest::ScratchDir folder("vulkan-keys");
  lab::Options options = vulkan_options(SceneId::Wave, ModeId::Cpu, 64, 48);
  options.screenshot_dir = folder.path().string();
  lab::vulkan::App app(options);
  app.render_frame(0);
  app.handle_hotkey(lab::Hotkey::NextScene);
  app.render_frame(1);
  EXPECT_EQ(app.scene_id(), SceneId::Pattern);
  app.handle_hotkey(lab::Hotkey::Screenshot);
  const std::filesystem::path first = folder.path() / "interop-lab-0001.png";
  ASSERT_TRUE(std::filesystem::exists(first));
  EXPECT_TRUE(lab::read_png(first.string()).rgba == labtest::expected_pattern_frame(64, 48, 1).rgba);
  app.handle_hotkey(lab::Hotkey::Screenshot);
  EXPECT_TRUE(std::filesystem::exists(folder.path() / "interop-lab-0002.png"))
      << "a second press never overwrites";

  app.handle_hotkey(lab::Hotkey::NextMode);
  app.render_frame(2);
  if (app.cuda_device() < 0) {
    // The buffer mode's cpu form is the one other Vulkan mode that runs without CUDA; M wraps past the
    // unavailable ones to it, and from it back to cpu.
    EXPECT_EQ(app.mode_id(), ModeId::Buffer) << "without CUDA only cpu and buffer run";
    EXPECT_TRUE(app.read_frame().rgba == labtest::expected_pattern_frame(64, 48, 2).rgba);
    app.handle_hotkey(lab::Hotkey::NextMode);
    app.render_frame(3);
    EXPECT_EQ(app.mode_id(), ModeId::Cpu);
  } else {
    EXPECT_NE(app.mode_id(), ModeId::Cpu);
    EXPECT_TRUE(lab::vulkan::mode_availability(app.mode_id(), {app.cuda_device(), nullptr}, "").available);
  }
  EXPECT_EQ(app.device().validation_messages(), 0);
}

// The benchmark's bare loops (raw CUDA calls, no app layers) are correct external, exported and buffer
// frames: after their frames they show what the cpu mode shows for the same frame, in every scene.
TEST(VulkanFrames, TheBenchmarksBareLoopsDrawTheCpuFrame) {
  NEEDS_VULKAN();
  if (lab::vulkan::App(vulkan_options(SceneId::Pattern, ModeId::Cpu, 32, 32)).cuda_device() < 0)
    LABTEST_NEEDS_GPUS(1, "the bare loops share memory with CUDA: needs a CUDA device");
  for (const lab::vulkan::BareRow& bare : lab::vulkan::bare_rows()) {
    for (const SceneId scene : lab::all_scenes()) {
      SCOPED_TRACE(std::string(bare.path) + " " + lab::to_string(scene));
      std::string file_name = bare.path;  // "bare exported" -> "bare-exported"
      std::replace(file_name.begin(), file_name.end(), ' ', '-');
      lab::Options options = vulkan_options(scene, ModeId::Cpu, 96, 64);
      options.bench_frames = 3;
      lab::vulkan::BareFrame last;
      EXPECT_EQ(lab::vulkan::time_bare_loop(options, scene, {96, 64}, &last, bare.loop).size(), 3u);
      ASSERT_GE(last.index, 3);  // the warm-up's frames, then the measured ones
      lab::vulkan::App reference(options);
      reference.render_frame(last.index);
      const std::string difference =
          labtest::check_against(last.image, reference.read_frame(), {1, 0.0},
                                 "vulkan-" + file_name + "-" + lab::to_string(scene), "the Vulkan cpu frame");
      EXPECT_TRUE(difference.empty()) << difference;
    }
  }
}

// The bench's rows (bench_rows.hpp): each mode is judged by a bare loop that exists, and --mode of a mode
// measures exactly the bare loops that judge it (external's for a mode that none judges, as before).
TEST(VulkanFrames, EachBenchRowIsJudgedByABareLoopTheRunMeasures) {
  for (const lab::vulkan::BenchRow& row : lab::vulkan::bench_rows()) {
    SCOPED_TRACE(row.path);
    EXPECT_TRUE(lab::has_mode(lab::GraphicsApi::Vulkan, row.mode));
    lab::Options options;
    options.mode = row.mode;
    size_t measured = 0, judging = 0;
    for (const lab::vulkan::BareRow& bare : lab::vulkan::bare_rows()) {
      const bool judges = std::string(bare.path) == row.bare_path;
      judging += judges ? 1 : 0;
      if (!lab::vulkan::asks_for(options, bare)) continue;
      ++measured;
      if (*row.bare_path != '\0') {
        EXPECT_TRUE(judges) << bare.path << " measured, not judging";
      }
    }
    EXPECT_EQ(judging, *row.bare_path == '\0' ? 0u : 1u);
    EXPECT_EQ(measured, 1u);
    EXPECT_EQ(lab::vulkan::asks_for_throughput(options), row.measures_throughput);
  }
  EXPECT_TRUE(lab::vulkan::asks_for_throughput(lab::Options{}));  // no --mode: every row
}

}  // namespace
