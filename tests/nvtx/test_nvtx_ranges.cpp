// tests/nvtx/test_nvtx_ranges.cpp — what Nsight Systems would see of the app, recorded without a GPU
// or a profiler: main() points NVTX_INJECTION64_PATH at tests/nvtx/nvtx_recorder.cpp's library before
// the first NVTX call, so every range the app opens lands in a file. Headless cpu-mode frames (Mesa in
// CI) must show "frame N" around each frame's named phases, and a switch must show as one: in GL's loop
// (lab::gl::App) and in the core loop on GL's backend (loop::App<gl::Backend>, app/gl/backend.hpp) alike.
#include "tests/support/app_fixture.hpp"
#include "tests/support/scratch_dir.hpp"

#include "app/gl/backend.hpp"
#include "app/loop/app.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#ifndef NVTX_RECORDER_LIBRARY
#error "tests/CMakeLists.txt defines NVTX_RECORDER_LIBRARY (the recorder's path)"
#endif

namespace {

struct Range {
  std::string name;
  std::vector<Range> children;
};

// The file's push/pop lines as a forest; a pop without its push, or a push never popped, fails.
std::vector<Range> read_ranges(const std::string& path) {
  std::ifstream file(path);
  std::vector<Range> roots;
  std::vector<Range> open;
  for (std::string line; std::getline(file, line);) {
    if (line.rfind("push ", 0) == 0) {
      open.push_back({line.substr(5), {}});
    } else if (line == "pop") {
      if (open.empty()) {
        ADD_FAILURE() << "a pop without its push in " << path;
        return roots;
      }
      Range closed = std::move(open.back());
      open.pop_back();
      (open.empty() ? roots : open.back().children).push_back(std::move(closed));
    }
  }
  EXPECT_TRUE(open.empty()) << open.size() << " range(s) never closed, the first: " << open.front().name;
  return roots;
}

bool contains(const Range& range, const std::string& name) {
  if (range.name == name) return true;
  for (const Range& child : range.children)
    if (contains(child, name)) return true;
  return false;
}

class NvtxRangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_file = (m_dir.path() / "ranges.txt").string();
    setenv("NVTX_RECORDER_FILE", m_file.c_str(), 1);
  }
  void TearDown() override { unsetenv("NVTX_RECORDER_FILE"); }

  labtest::ScratchDir m_dir{"nvtx"};
  std::string m_file;
};

using GlCoreApp = lab::loop::App<lab::gl::Backend>;

// Cpu-mode frames at 64x48; the core loop on GL's backend runs headless (app/gl/backend.hpp).
template <class App>
lab::Options options_for(lab::SceneId scene) {
  lab::Options options = labtest::app_options(scene, lab::ModeId::Cpu, 64, 48);
  if (std::is_same_v<App, GlCoreApp>) options.headless = true;
  return options;
}

template <class App>
void each_cpu_frame_is_a_range_holding_its_phases(const std::string& file) {
  {
    App app(options_for<App>(lab::SceneId::Postprocess));
    for (long long index = 0; index < 3; ++index) {
      app.set_frame_index(index);
      ASSERT_TRUE(app.render_frame());
    }
  }
  const std::vector<Range> roots = read_ranges(file);
  ASSERT_FALSE(roots.empty()) << "no NVTX range reached the recorder: is " << NVTX_RECORDER_LIBRARY
                              << " loaded?";
  std::vector<const Range*> frames;
  for (const Range& root : roots)
    if (root.name.rfind("frame ", 0) == 0) frames.push_back(&root);
  ASSERT_EQ(frames.size(), 3u);
  for (size_t i = 0; i < frames.size(); ++i) {
    SCOPED_TRACE(frames[i]->name);
    EXPECT_EQ(frames[i]->name, "frame " + std::to_string(i));
    // The postprocess scene in cpu mode: GL renders the cubes (draw), reads them back (gl copy), the CPU
    // filters (kernel), uploads (gl copy), and the frame is shown (draw headless: nothing for an image).
    for (const char* phase : {"draw", "gl copy", "kernel"})
      EXPECT_TRUE(contains(*frames[i], phase)) << "no \"" << phase << "\" range inside the frame";
  }
  // The mode attached before the first frame is a range of its own.
  bool attached = false;
  for (const Range& root : roots) attached = attached || root.name == "attach cpu";
  EXPECT_TRUE(attached) << "no \"attach cpu\" range";
}

template <class App>
void a_switch_is_a_range_inside_its_frame(const std::string& file) {
  App app(options_for<App>(lab::SceneId::Pattern));
  ASSERT_TRUE(app.render_frame());
  app.request_scene(lab::SceneId::Wave);
  ASSERT_TRUE(app.render_frame());
  const std::vector<Range> roots = read_ranges(file);
  ASSERT_GE(roots.size(), 2u);
  const Range& second = roots.back();
  EXPECT_EQ(second.name, "frame 1");
  EXPECT_TRUE(contains(second, "switch"));
  EXPECT_TRUE(contains(second, "scene wave"));
}

TEST_F(NvtxRangesTest, EachCpuFrameIsARangeHoldingItsPhases) {
  each_cpu_frame_is_a_range_holding_its_phases<lab::gl::App>(m_file);
}

TEST_F(NvtxRangesTest, ASwitchIsARangeInsideItsFrame) {
  a_switch_is_a_range_inside_its_frame<lab::gl::App>(m_file);
}

TEST_F(NvtxRangesTest, OnTheCoreLoopEachCpuFrameIsARangeHoldingItsPhases) {
  each_cpu_frame_is_a_range_holding_its_phases<GlCoreApp>(m_file);
}

TEST_F(NvtxRangesTest, OnTheCoreLoopASwitchIsARangeInsideItsFrame) {
  a_switch_is_a_range_inside_its_frame<GlCoreApp>(m_file);
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything makes an NVTX call: NVTX reads the variable once, at the first call.
  if (std::getenv("NVTX_INJECTION64_PATH") == nullptr)
    setenv("NVTX_INJECTION64_PATH", NVTX_RECORDER_LIBRARY, 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
