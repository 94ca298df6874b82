// app/vulkan/app.cpp — start-up (CUDA devices, the Vulkan device, mode choice), the headless frame
// loop and the screenshot of the Vulkan backend, and its teardown in a fixed order.
#include "app/vulkan/app.hpp"

#include "app/app.hpp"
#include "app/remedy.hpp"
#include "app/signals.hpp"
#include "app/text.hpp"
#include "interop/error.hpp"
#include "kernels/common.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace lab::vulkan {
namespace {

void log(const std::string& message) { std::fprintf(stderr, "interop-lab: %s\n", message.c_str()); }

// The Vulkan device that is CUDA device `device`: the same GPU, matched by UUID (never by ordinal).
Uuid uuid_of_cuda_device(int device) {
  cudaDeviceProp properties{};
  INTEROP_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  Uuid uuid;
  static_assert(sizeof(properties.uuid.bytes) == std::tuple_size<Uuid>::value, "CUDA and Vulkan UUIDs differ");
  std::memcpy(uuid.data(), properties.uuid.bytes, uuid.size());
  return uuid;
}

}  // namespace

App::App(const Options& options) : m_options(options), m_extent{options.width, options.height} {
  if (!options.headless) throw std::runtime_error("the Vulkan backend has no window yet; add --headless");
  m_cuda_devices = probe_cuda_devices();
  if (options.device)
    if (const std::string refusal = device_refusal(*options.device, m_cuda_devices); !refusal.empty())
      throw UsageError("--device " + std::to_string(*options.device) + ": " + refusal);
  if (!m_cuda_devices.devices.empty()) {
    m_cuda.device = options.device.value_or(0);
    INTEROP_CUDA_CHECK(cudaSetDevice(m_cuda.device));
  }
  // Judged before any Vulkan work, so a refused mode is the only line of the run.
  const ModeId mode = options.mode.value_or(m_cuda.device >= 0 ? ModeId::Staging : ModeId::Cpu);
  if (const ModeAvailability availability = mode_availability(mode, m_cuda, m_cuda_devices.error);
      !availability.available)
    throw std::runtime_error(std::string("--mode ") + to_string(mode) + " is unavailable: " + availability.reason);

  // The CUDA device's own GPU, so CUDA can import what Vulkan exports; without CUDA, the first device.
  if (m_cuda.device >= 0) {
    const Uuid uuid = uuid_of_cuda_device(m_cuda.device);
    m_context = std::make_unique<Context>(&uuid);
    m_stream.emplace();
    m_cuda.stream = m_stream->get();
  } else {
    m_context = std::make_unique<Context>(nullptr);
  }
  m_renderer = std::make_unique<Renderer>(*m_context, m_extent);
  m_scene = create_scene_compute(options.scene, options.filter);
  m_plan = m_scene->draw_plan();
  m_mode = create_mode(mode, m_cuda);
  m_renderer->create_resources(m_scene->resources(m_extent), m_mode->needs_exportable_resources());
  m_mode->attach(*m_renderer);
}

App::~App() {
  if (m_mode) m_mode->detach();
  m_mode.reset();
  m_scene.reset();
  if (m_renderer) m_renderer->destroy_resources();
  m_renderer.reset();
  m_stream.reset();
  m_context.reset();
}

void App::render_frame(long long index) {
  const FrameInfo frame{index, kernels::time_of_frame(index), m_extent};
  if (m_plan.cubes_target >= 0)
    m_renderer->draw_cubes(m_plan.cubes_target, cubes_view(m_extent, frame.time), m_mode->cubes_sync(frame));
  m_mode->produce(*m_renderer, *m_scene, frame);
  m_renderer->draw_frame(m_plan, wave_view_projection(m_extent), m_mode->frame_sync(frame));
}

Image App::read_frame() { return m_renderer->read_frame(m_plan); }

int App::run() {
  const long long frames = m_options.frames.value_or(kDefaultHeadlessFrames);
  for (long long index = 0; index < frames; ++index) {
    stop_if_requested();  // SIGINT/SIGTERM/SIGHUP: out through main(), tearing down in order
    render_frame(index);
  }
  if (!m_options.screenshot.empty()) {
    const Image frame = read_frame();
    write_png(m_options.screenshot, frame);
    log("wrote " + m_options.screenshot + " (" + size_text(frame.width, frame.height) + ", frame " +
        std::to_string(frames - 1) + ")");
  }
  return 0;
}

int run_app(const Options& options) {
  App app(options);
  return app.run();
}

}  // namespace lab::vulkan
