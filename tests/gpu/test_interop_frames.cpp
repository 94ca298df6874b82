// tests/gpu/test_interop_frames.cpp — the core promise: for a given scene, size and frame index, every
// CUDA mode (interop, reregister, pbo, split by both copy paths, staging) produces the frame the CPU
// reference produces. Needs a CUDA device that drives the GL context (headless EGL device platform, or
// a window with INTEROP_LAB_TEST_PLATFORM=window); elsewhere each test skips with the reason. The
// split mode's tests with its kernels on a second GPU need two CUDA devices and skip with one.
#include "tests/support/app_fixture.hpp"

#include "interop/gl.hpp"

#include <cmath>

namespace {

using lab::ModeId;
using lab::SceneId;

// Images written by kernels: CUDA's sinf/sqrtf and the host's differ in the last bits, which can move
// a rounded 8-bit value by one.
constexpr int kImageTolerance = 1;
// Vertex positions and normals: a few float ulps apart.
constexpr float kVertexTolerance = 1e-4f;
// Rasterised mesh: a vertex a few ulps away can move an edge across a pixel centre.
constexpr int kMeshPixelThreshold = 8;
constexpr double kMeshMaxFraction = 0.001;

// Every CUDA path: each mode, the split mode by both of its copies, and the external mode with both kinds
// of semaphore.
struct CudaPath {
  ModeId mode;
  lab::SplitCopy copy = lab::SplitCopy::Peer;
  interop::SemaphoreKind semaphores = interop::SemaphoreKind::Timeline;
  bool graph = false;  // --graph: the frame's CUDA work as one CUDA graph
};
constexpr CudaPath kCudaPaths[] = {
    {ModeId::Interop},
    {ModeId::Reregister},
    {ModeId::Pbo},
    {ModeId::Split, lab::SplitCopy::Peer},
    {ModeId::Split, lab::SplitCopy::Host},
    {ModeId::Buffer},
    {ModeId::Staging},
    {ModeId::External, lab::SplitCopy::Peer, interop::SemaphoreKind::Timeline},
    {ModeId::External, lab::SplitCopy::Peer, interop::SemaphoreKind::Binary},
    {ModeId::Interop, lab::SplitCopy::Peer, interop::SemaphoreKind::Timeline, true},
    {ModeId::Reregister, lab::SplitCopy::Peer, interop::SemaphoreKind::Timeline, true},
    {ModeId::Pbo, lab::SplitCopy::Peer, interop::SemaphoreKind::Timeline, true},
    {ModeId::Buffer, lab::SplitCopy::Peer, interop::SemaphoreKind::Timeline, true},
    {ModeId::Exported, lab::SplitCopy::Peer, interop::SemaphoreKind::Timeline},
    {ModeId::Exported, lab::SplitCopy::Peer, interop::SemaphoreKind::Binary},
    {ModeId::Exported, lab::SplitCopy::Peer, interop::SemaphoreKind::Timeline, true},
    {ModeId::External, lab::SplitCopy::Peer, interop::SemaphoreKind::Timeline, true},
    {ModeId::External, lab::SplitCopy::Peer, interop::SemaphoreKind::Binary, true}};

std::string path_name(const CudaPath& path) {
  if (path.graph) {
    CudaPath plain = path;
    plain.graph = false;
    return path_name(plain) + " as a CUDA graph";
  }
  if (path.mode == ModeId::Split) return std::string("split (") + lab::to_string(path.copy) + ")";
  if (path.mode == ModeId::External || path.mode == ModeId::Exported)
    return std::string(lab::to_string(path.mode)) +
           (path.semaphores == interop::SemaphoreKind::Timeline ? " (timeline)" : " (binary)");
  return lab::to_string(path.mode);
}

// Switches `app` to `path` (taking effect at its next frame).
void use_path(lab::gl::App& app, const CudaPath& path) {
  app.request_split_copy(path.copy);
  app.request_semaphores(path.semaphores);
  app.request_graph(path.graph);
  ASSERT_TRUE(app.request_mode(path.mode).available)
      << path_name(path) << ": " << app.availability(path.mode).reason;
}

struct Case {
  SceneId scene;
  int width, height;
};

float largest_vertex_difference(const std::vector<kernels::WaveVertex>& a,
                                const std::vector<kernels::WaveVertex>& b) {
  float worst = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) {
    const float* x = &a[i].position.x;
    const float* y = &b[i].position.x;
    for (int k = 0; k < 6; ++k) worst = std::fmax(worst, std::fabs(x[k] - y[k]));
  }
  return worst;
}

class EveryMode : public ::testing::TestWithParam<Case> {};

TEST_P(EveryMode, ProducesTheCpuFrame) {
  const Case c = GetParam();
  lab::gl::App app(labtest::app_options(c.scene, ModeId::Cpu, c.width, c.height));
  if (!app.interop_support().usable)
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << app.interop_support().reason);
  const long long index = 97;
  const lab::Image cpu_frame = labtest::render(app, index);
  std::vector<kernels::WaveVertex> cpu_vertices;
  if (c.scene == SceneId::Wave) {
    cpu_vertices = labtest::read_vertex_buffer(app);
  } else {
    // The cpu frame is itself the kernels' output, checked against their functions.
    const lab::ImageDifference d =
        lab::compare_images(cpu_frame, labtest::expected_frame(app, c.scene, index), 0);
    ASSERT_EQ(d.pixels_over, 0u) << "cpu frame: " << lab::to_string(d, 0);
  }

  for (const CudaPath& path : kCudaPaths) {
    SCOPED_TRACE(path_name(path));
    if (path.mode == ModeId::Exported && c.scene == SceneId::Postprocess) {
      // Refused with its reason, not run (App::availability says why).
      const lab::ModeAvailability refused = app.availability(path.mode);
      EXPECT_FALSE(refused.available);
      EXPECT_NE(refused.reason.find("postprocess"), std::string::npos) << refused.reason;
      continue;
    }
    use_path(app, path);
    const lab::Image frame = labtest::render(app, index);
    ASSERT_EQ(app.mode_id(), path.mode);
    if (c.scene == SceneId::Wave) {
      const std::vector<kernels::WaveVertex> vertices = labtest::read_vertex_buffer(app);
      ASSERT_EQ(vertices.size(), cpu_vertices.size());
      EXPECT_LE(largest_vertex_difference(vertices, cpu_vertices), kVertexTolerance);
      const lab::ImageDifference d = lab::compare_images(frame, cpu_frame, kMeshPixelThreshold);
      EXPECT_LE(d.fraction_over, kMeshMaxFraction) << lab::to_string(d, kMeshPixelThreshold);
    } else {
      // Names the first pixel off and keeps a heat map of every one (labtest::check_against).
      const std::string difference = labtest::check_against(
          frame, cpu_frame, {kImageTolerance, 0.0},
          std::string(lab::to_string(c.scene)) + "-" + path_name(path), "the cpu frame");
      EXPECT_TRUE(difference.empty()) << difference;
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(lab::to_string(info.param.scene)) + "_" + std::to_string(info.param.width) + "x" +
         std::to_string(info.param.height);
}

INSTANTIATE_TEST_SUITE_P(ScenesAndSizes, EveryMode,
                         ::testing::Values(Case{SceneId::Wave, 1277, 719}, Case{SceneId::Wave, 3840, 2160},
                                           Case{SceneId::Wave, 64, 48}, Case{SceneId::Pattern, 1277, 719},
                                           Case{SceneId::Pattern, 3840, 2160}, Case{SceneId::Pattern, 64, 48},
                                           Case{SceneId::Pattern, 4097, 3},
                                           Case{SceneId::Postprocess, 1277, 719},
                                           Case{SceneId::Postprocess, 3840, 2160},
                                           Case{SceneId::Postprocess, 64, 48},
                                           Case{SceneId::Postprocess, 4097, 3}),
                         case_name);

TEST(InteropResize, ReRegistersTheTextureAndKeepsMatching) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 640, 360));
  if (!app.interop_support().usable)
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << app.interop_support().reason);
  ASSERT_TRUE(app.request_mode(ModeId::Interop).available);
  labtest::render(app, 1);
  for (const lab::Extent extent : {lab::Extent{1277, 719}, lab::Extent{0, 0}, lab::Extent{301, 157}}) {
    if (extent.empty()) {
      // Headless only: a window is minimised by its window manager, which Xvfb does not have.
      if (app.platform().is_window()) continue;
      app.resize(extent);
      EXPECT_FALSE(app.render_frame());
      continue;
    }
    app.resize(extent);
    if (app.platform().is_window())
      for (int i = 0; i < 200 && app.platform().framebuffer_extent() != extent; ++i)
        app.platform().poll_events();
    const lab::Image frame = labtest::render(app, 7);
    const lab::ImageDifference d = lab::compare_images(
        frame, labtest::expected_pattern_frame(extent.width, extent.height, 7), kImageTolerance);
    EXPECT_EQ(d.pixels_over, 0u) << extent.width << "x" << extent.height << ": "
                                 << lab::to_string(d, kImageTolerance);
    EXPECT_EQ(interop::live_registrations(), 1);
  }
}

// Flags switch live: map flags through cudaGraphicsResourceSetMapFlags, register flags through a
// re-registration; the frame stays right with every combination the resources allow.
TEST(InteropFlags, EveryAllowedCombinationKeepsTheFrame) {
  lab::gl::App app(labtest::app_options(SceneId::Postprocess, ModeId::Cpu, 480, 270));
  if (!app.interop_support().usable)
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << app.interop_support().reason);
  const lab::Image cpu_frame = labtest::render(app, 3);
  for (const ModeId mode : {ModeId::Interop, ModeId::Reregister, ModeId::Pbo, ModeId::Split}) {
    ASSERT_TRUE(app.request_mode(mode).available);
    for (const std::optional<interop::Access> flags :
         {std::optional<interop::Access>{}, std::optional{interop::Access::ReadWrite}}) {
      SCOPED_TRACE(std::string(lab::to_string(mode)) + ", flags " +
                   (flags ? interop::to_string(*flags) : "best"));
      labtest::render(app, 2);  // the mode is attached from here on
      ASSERT_EQ(app.request_map_access(flags), "");
      ASSERT_EQ(app.request_register_access(flags), "");
      for (const lab::RegisteredFlags& registered : app.mode().registered_flags()) {
        EXPECT_EQ(registered.map_access, lab::resolve_access(flags, registered.role)) << registered.label;
        EXPECT_EQ(registered.register_access, lab::resolve_access(flags, registered.role))
            << registered.label;
      }
      const lab::ImageDifference d = lab::compare_images(labtest::render(app, 3), cpu_frame, kImageTolerance);
      EXPECT_EQ(d.pixels_over, 0u) << lab::to_string(d, kImageTolerance);
    }
  }
  EXPECT_NE(app.request_map_access(interop::Access::ReadOnly), "") << "read-only on the filtered image";
}

TEST(InteropTimings, MapKernelAndUnmapAreMeasuredOnTheGpu) {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 1920, 1080));
  if (!app.interop_support().usable)
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << app.interop_support().reason);
  for (const ModeId mode :
       {ModeId::Interop, ModeId::Reregister, ModeId::Pbo, ModeId::Split, ModeId::Staging, ModeId::External}) {
    ASSERT_TRUE(app.request_mode(mode).available)
        << lab::to_string(mode) << ": " << app.availability(mode).reason;
    for (long long i = 0; i < 20; ++i) labtest::render(app, i);
  }
  app.timers().flush();
  auto samples = [&](ModeId mode, lab::Phase phase) {
    return app.timers().has(static_cast<int>(mode), phase)
               ? app.timers().stats(static_cast<int>(mode), phase).samples
               : 0;
  };
  for (const lab::Phase phase : {lab::Phase::Map, lab::Phase::Kernel, lab::Phase::Unmap}) {
    EXPECT_GE(samples(ModeId::Interop, phase), 19) << lab::to_string(phase);
    EXPECT_GE(samples(ModeId::Pbo, phase), 19) << lab::to_string(phase);
  }
  EXPECT_GE(samples(ModeId::Reregister, lab::Phase::Register), 19);
  EXPECT_GE(samples(ModeId::Reregister, lab::Phase::Unregister), 19);
  EXPECT_GE(samples(ModeId::Pbo, lab::Phase::GlCopy), 19);
  EXPECT_GE(samples(ModeId::Staging, lab::Phase::CudaCopy), 19);
  for (const lab::Phase phase :
       {lab::Phase::Map, lab::Phase::Kernel, lab::Phase::CudaCopy, lab::Phase::Unmap})
    EXPECT_GE(samples(ModeId::Split, phase), 19) << "split: " << lab::to_string(phase);
  EXPECT_EQ(samples(ModeId::Staging, lab::Phase::Map), 0) << "staging maps nothing";
  // The external mode's hand-off is a semaphore wait and signal, not a map and unmap.
  for (const lab::Phase phase : {lab::Phase::Wait, lab::Phase::Kernel, lab::Phase::Signal})
    EXPECT_GE(samples(ModeId::External, phase), 19) << "external: " << lab::to_string(phase);
  EXPECT_EQ(samples(ModeId::External, lab::Phase::Map), 0) << "external maps nothing";
  EXPECT_GT(app.timers().stats(static_cast<int>(ModeId::Interop), lab::Phase::Kernel).average_ms, 0.0f);
}

// What an App finds on this machine: CUDA devices, the one that drives GL, and whether interop works
// (its reason when not). The App is gone on return, so a test's own App is the only GL context.
struct Machine {
  size_t devices = 0;
  int gl_device = -1;
  std::string interop_unusable;
};

Machine probe_machine() {
  lab::gl::App app(labtest::app_options(SceneId::Pattern, ModeId::Cpu, 64, 64));
  return {app.cuda_devices().devices.size(), app.cuda_device(),
          app.interop_support().usable ? "" : app.interop_support().reason};
}

// --compute-device naming the GL device changes nothing for the other modes: interop is still the
// default and still right; only the split mode uses it, as a copy within one device.
TEST(SplitOneDevice, ComputeDeviceEqualToTheGlDeviceKeepsTheOrdinaryPath) {
  const Machine machine = probe_machine();
  if (!machine.interop_unusable.empty())
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << machine.interop_unusable);
  lab::Options options = labtest::app_options(SceneId::Pattern, ModeId::Cpu, 640, 360);
  options.mode.reset();  // the default: interop where it works
  options.compute_device = machine.gl_device;
  lab::gl::App app(options);
  EXPECT_EQ(app.mode_id(), ModeId::Interop);
  EXPECT_EQ(app.compute_device(), app.cuda_device());
  const lab::Image frame = labtest::render(app, 5);
  EXPECT_EQ(
      lab::compare_images(frame, labtest::expected_pattern_frame(640, 360, 5), kImageTolerance).pixels_over,
      0u);
  ASSERT_TRUE(app.request_mode(ModeId::Split).available);
  labtest::render(app, 5);
  EXPECT_NE(app.mode().transfer().find("within one device"), std::string::npos) << app.mode().transfer();
}

// The case the split mode is for: GL on one GPU, the kernels on another. Every scene, both copies.
TEST(SplitTwoDevices, KernelsOnTheOtherGpuProduceTheCpuFrame) {
  const Machine machine = probe_machine();
  if (machine.devices < 2)
    LABTEST_NEEDS_GPUS(2, "needs two CUDA devices (GL on one, the kernels on the other); this machine has "
                              << machine.devices);
  if (!machine.interop_unusable.empty())
    LABTEST_NEEDS_GPUS(1, "needs a CUDA device whose GL interop works: " << machine.interop_unusable);
  const int gl_device = machine.gl_device;
  const int compute_device = (gl_device + 1) % static_cast<int>(machine.devices);
  for (const SceneId scene : lab::all_scenes()) {
    SCOPED_TRACE(lab::to_string(scene));
    lab::Options options = labtest::app_options(scene, ModeId::Cpu, 1277, 719);
    options.device = gl_device;
    options.compute_device = compute_device;
    lab::gl::App app(options);
    const lab::Image cpu_frame = labtest::render(app, 41);
    for (const lab::SplitCopy copy : {lab::SplitCopy::Peer, lab::SplitCopy::Host}) {
      SCOPED_TRACE(lab::to_string(copy));
      use_path(app, {ModeId::Split, copy});
      const lab::Image frame = labtest::render(app, 41);
      ASSERT_EQ(app.mode_id(), ModeId::Split);
      const std::string transfer = app.mode().transfer();
      EXPECT_NE(transfer.find("device " + std::to_string(compute_device) + " -> device " +
                              std::to_string(gl_device)),
                std::string::npos)
          << transfer;
      const int threshold = scene == SceneId::Wave ? kMeshPixelThreshold : kImageTolerance;
      const lab::ImageDifference d = lab::compare_images(frame, cpu_frame, threshold);
      EXPECT_LE(d.fraction_over, scene == SceneId::Wave ? kMeshMaxFraction : 0.0)
          << lab::to_string(d, threshold);
    }
    // The kernel phase is timed by events on the compute device, the copies on both.
    for (long long i = 0; i < 10; ++i) labtest::render(app, i);
    app.timers().flush();
    for (const lab::Phase phase : {lab::Phase::Kernel, lab::Phase::CudaCopy})
      EXPECT_GE(app.timers().stats(static_cast<int>(ModeId::Split), phase).samples, 9)
          << lab::to_string(phase);
    EXPECT_EQ(app.timers().cuda_timing_off_reason(), "");
  }
}

}  // namespace
