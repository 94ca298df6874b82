// app/d3d11/app_core.hpp — interop-lab on Direct3D (--api d3d11, --api d3d12), the part both backends
// share: the CUDA device where there is one (its adapter LUID picks the Direct3D adapter, so interop can
// work), the Direct3D device and renderer, a scene's SceneCompute and a mode, the frame loop with the GL
// and Vulkan apps' frame times, and the screenshot. `Backend` names one API's types and calls
// (app/d3d11/app.hpp's Direct3D11, app/d3d12/app.hpp's Direct3D12), so neither app repeats the other.
// Headless: a window (DXGI swap chain and panel) is not built yet, and the app says so.
// Needs the CUDA runtime's API (the build without CUDA links a runtime that finds no device) and Windows.
#pragma once

#include "app/cli.hpp"
#include "app/image_io.hpp"
#include "app/remedy.hpp"
#include "app/scene_compute.hpp"
#include "app/signals.hpp"
#include "app/text.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/stream.hpp"
#include "kernels/common.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace lab::d3d {

template <class Backend>
class App {
 public:
  using Device = typename Backend::Device;
  using Renderer = typename Backend::Renderer;
  using Mode = typename Backend::Mode;
  using CudaContext = typename Backend::CudaContext;

  // Checks the options (--device, the mode) before any Direct3D work, then creates the device on the CUDA
  // device's adapter (else the default one), the renderer, the scene and the mode. Throws UsageError for a
  // bad --device, std::runtime_error with the missing piece (no Direct3D device, a mode unavailable here,
  // no window yet).
  explicit App(const Options& options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Renders frame `index`: time = index / 60, as the GL and Vulkan apps headless, so screenshots repeat.
  void render_frame(long long index);
  // The frame rendered last, top row first (a ShowImage scene's image is the frame).
  Image read_frame() { return m_renderer->read_frame(m_plan); }
  // --frames frames (default kDefaultHeadlessFrames), then --screenshot. Returns 0; failures throw.
  int run();

  ModeId mode_id() const { return m_mode->id(); }
  SceneId scene_id() const { return m_scene->id(); }
  const std::string& adapter() const { return m_device.adapter; }

 private:
  Options m_options;
  Extent m_extent;
  interop::CudaDevices m_cuda_devices;
  CudaContext m_cuda;
  // Declaration order is teardown order in reverse (and ~App() detaches the mode first): the mode's
  // copies, registrations or imports, the scene's scratch memory, the renderer's resources, the device,
  // the stream.
  std::optional<interop::Stream> m_stream;
  Device m_device;
  std::unique_ptr<Renderer> m_renderer;
  std::unique_ptr<SceneCompute> m_scene;
  DrawPlan m_plan;
  std::unique_ptr<Mode> m_mode;
};

namespace detail {

inline void log(const std::string& message) {
  std::fprintf(stderr, "interop-lab: %s\n", message.c_str());
}

// The adapter of CUDA device `device` (cudaDeviceProp::luid): Direct3D resources CUDA registers or imports
// must live on the CUDA device's own GPU.
inline std::array<unsigned char, 8> luid_of_cuda_device(int device) {
  cudaDeviceProp properties{};
  INTEROP_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  std::array<unsigned char, 8> luid{};
  static_assert(sizeof(properties.luid) == luid.size(), "CUDA's LUID is not a DXGI LUID");
  std::memcpy(luid.data(), properties.luid, luid.size());
  return luid;
}

}  // namespace detail

template <class Backend>
App<Backend>::App(const Options& options) : m_options(options), m_extent{options.width, options.height} {
  const char* api_name = display_name(Backend::kApi);
  if (!options.headless)
    throw std::runtime_error(std::string(api_name) +
                             " has no window in this build yet; add --headless (the frames and --screenshot "
                             "are the same)");
  m_cuda_devices = probe_cuda_devices();
  if (options.device)
    if (const std::string refusal = device_refusal(*options.device, m_cuda_devices); !refusal.empty())
      throw UsageError("--device " + std::to_string(*options.device) + ": " + refusal);
  if (!m_cuda_devices.devices.empty()) {
    m_cuda.device = options.device.value_or(0);
    INTEROP_CUDA_CHECK(cudaSetDevice(m_cuda.device));
  }
  // Judged before any Direct3D work, so a refused mode is the only line of the run.
  const ModeId mode = options.mode.value_or(m_cuda.device >= 0 ? ModeId::Staging : ModeId::Cpu);
  if (const ModeAvailability availability = Backend::mode_availability(mode, m_cuda, m_cuda_devices.error);
      !availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(mode) + " is unavailable: " + availability.reason);

  typename Backend::DeviceDesc desc;
  if (m_cuda.device >= 0) {
    desc.adapter_luid = detail::luid_of_cuda_device(m_cuda.device);
    m_stream.emplace();
    m_cuda.stream = m_stream->get();
  }
  m_device = Backend::create_device(desc);
  m_renderer = std::make_unique<Renderer>(m_device, m_extent);
  m_scene = create_scene_compute(options.scene, options.filter);
  m_plan = m_scene->draw_plan();
  m_mode = Backend::create_mode(mode, m_cuda);
  Backend::create_resources(*m_renderer, m_scene->resources(m_extent), m_mode->needs_shared_resources());
  m_mode->attach(*m_renderer);
}

template <class Backend>
App<Backend>::~App() {
  if (m_mode) m_mode->detach();
  m_mode.reset();
  m_scene.reset();
  if (m_renderer) m_renderer->destroy_resources();
  m_renderer.reset();
}

template <class Backend>
void App<Backend>::render_frame(long long index) {
  const FrameInfo frame{index, kernels::time_of_frame(index), m_extent};
  if (m_plan.cubes_target >= 0) m_renderer->draw_cubes(m_plan.cubes_target, cubes_view(m_extent, frame.time));
  m_mode->produce(*m_renderer, *m_scene, frame);
  m_renderer->draw_frame(m_plan, wave_view_projection(m_extent));
}

template <class Backend>
int App<Backend>::run() {
  const long long frames = m_options.frames.value_or(kDefaultHeadlessFrames);
  for (long long index = 0; index < frames; ++index) {
    stop_if_requested();  // Ctrl+C, a console close: out through main(), tearing down in order
    render_frame(index);
  }
  if (m_options.screenshot.empty()) return 0;
  const Image frame = read_frame();
  write_png(m_options.screenshot, frame);
  detail::log("wrote " + m_options.screenshot + " (" + size_text(frame.width, frame.height) + ", frame " +
              std::to_string(frames - 1) + ", " + display_name(Backend::kApi) + " on " + m_device.adapter +
              ", mode " + to_string(m_mode->id()) + ")");
  return 0;
}

}  // namespace lab::d3d
