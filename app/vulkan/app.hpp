// app/vulkan/app.hpp — interop-lab on Vulkan (--api vulkan): a headless Vulkan device (the CUDA
// device's own, matched by UUID, where there is one), the Vulkan renderer, a scene's SceneCompute and a
// Vulkan mode; renders --frames frames with the same frame times as the GL app and writes --screenshot
// the same way. No window yet, no panel, no benchmark. Tests drive it frame by frame.
#pragma once

#include "app/cli.hpp"
#include "app/image_io.hpp"
#include "app/scene_compute.hpp"
#include "app/vulkan/export.hpp"
#include "app/vulkan/modes.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/device.hpp"
#include "interop/stream.hpp"

#include <memory>
#include <optional>

namespace lab::vulkan {

class App {
 public:
  // Checks the options (--headless, --device, the mode), opens the Vulkan device and attaches the scene
  // and the mode. Throws UsageError for a bad --device, std::runtime_error with the missing piece
  // (no Vulkan loader, no device, a mode unavailable here).
  explicit App(const Options& options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Renders frame `index`: time = index / 60, as the GL app with --frames or headless.
  void render_frame(long long index);
  // The frame rendered last, top row first (as lab::App::read_frame).
  Image read_frame();
  // --frames frames (default kDefaultHeadlessFrames), then --screenshot. Returns 0; failures throw.
  int run();

  ModeId mode_id() const { return m_mode->id(); }
  int cuda_device() const { return m_cuda.device; }

 private:
  Options m_options;
  Extent m_extent;
  interop::CudaDevices m_cuda_devices;
  CudaContext m_cuda;
  // Declaration order is teardown order in reverse (and ~App() detaches the mode first): the mode's
  // copies and imports, the scene's scratch memory, the renderer's resources, the stream, the device.
  std::unique_ptr<Context> m_context;
  std::optional<interop::Stream> m_stream;
  std::unique_ptr<Renderer> m_renderer;
  std::unique_ptr<SceneCompute> m_scene;
  DrawPlan m_plan;
  std::unique_ptr<Mode> m_mode;
};

// main()'s entry for --api vulkan: App(options).run().
int run_app(const Options& options);

}  // namespace lab::vulkan
