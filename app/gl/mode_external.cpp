// app/gl/mode_external.cpp — the GL `external` mode: no registration, no map/unmap. Vulkan allocates the
// scene's resources as exportable memory (a headless Vulkan device, the one whose UUID is the CUDA
// device's and GL's), GL imports that memory and places the scene's textures and buffers in it
// (GL_EXT_memory_object_fd), and CUDA imports the same memory (cudaImportExternalMemory). Semaphores
// that Vulkan exported, imported by both GL (GL_EXT_semaphore_fd; timelines with GL_NV_timeline_semaphore)
// and CUDA, order each frame:
//
//   GL signals "graphics done" (its commands so far: the previous frame's draw, the cubes pass)
//   CUDA waits for it, runs the kernels on the imported memory, signals "CUDA done"
//   GL waits for "CUDA done" before it draws the frame
//
// Nothing waits on the host. Teardown: GL and CUDA finish, the scene moves back to GL's own storage
// (deleting the textures and buffers in the imported memory first), then GL's memory objects and
// semaphores, CUDA's imports, and last the Vulkan memory and semaphores.
#include "app/gl/gl_external.hpp"
#include "app/gl/mode_detail.hpp"
#include "app/vulkan/cuda_link.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/error.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {
namespace {

class GlExternalMode final : public gl::Mode {
 public:
  GlExternalMode(const CudaContext& cuda, interop::SemaphoreKind kind) : m_cuda(cuda), m_kind(kind) {
    if (cuda.graph) m_graph.emplace();
  }
  ~GlExternalMode() override { detach(); }
  GlExternalMode(const GlExternalMode&) = delete;
  GlExternalMode& operator=(const GlExternalMode&) = delete;

  ModeId id() const override { return ModeId::External; }

  void attach(gl::Renderer& renderer) override {
    try {
      import_resources(renderer);
    } catch (...) {
      detach();  // a failure halfway leaves the resources in GL's own storage and nothing imported
      throw;
    }
  }

  void detach() override {
    if (m_placed == nullptr && !m_context) return;
    glFinish();
    INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_cuda.stream));
    if (m_placed != nullptr) m_placed->place_resources({});  // GL objects in the memory go first
    m_placed = nullptr;
    m_gl_semaphores.clear();
    m_gl_memory.clear();
    m_link.reset();  // CUDA's imports (it waits for both sides)
    // The Vulkan memory, then the device and instance, off GL's thread (vulkan::on_own_thread says why).
    vulkan::on_own_thread([this] {
      m_renderer.reset();
      m_context.reset();
      return 0;
    });
    m_buffers.clear();
    m_textures.clear();
  }

  void produce(gl::Renderer&, SceneCompute& scene, const FrameInfo& frame, FrameTimers& timers) override {
    signal_gl(m_link->cubes_pass());
    if (m_graph) {
      // One launch: the semaphore wait, the kernels and the signal, timed together as the kernel phase.
      CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
      m_graph->launch(m_cuda.stream, [&] {
        m_link->cuda_acquire(m_cuda.stream);
        scene.compute_cuda(frame, m_link->views(), m_cuda.stream);
        INTEROP_CUDA_CHECK(cudaGetLastError());
        m_link->cuda_release(m_cuda.stream);
      });
    } else {
      {
        CpuPhase phase(timers,
                       Phase::Wait);  // host time: an event before the wait would cost a context switch
        m_link->cuda_acquire(m_cuda.stream);
      }
      {
        CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
        scene.compute_cuda(frame, m_link->views(), m_cuda.stream);
        INTEROP_CUDA_CHECK(cudaGetLastError());
      }
      CpuPhase phase(timers, Phase::Signal);
      m_link->cuda_release(m_cuda.stream);
    }
    wait_gl(m_link->frame_pass(/*prepared=*/true));
  }

  std::string transfer() const override {
    return std::string(m_kind == interop::SemaphoreKind::Timeline ? "timeline" : "binary") +
           " semaphores; memory allocated by Vulkan on " +
           (m_context ? m_context->info().name : std::string("?"));
  }

 private:
  void import_resources(gl::Renderer& renderer) {
    const GlExternalSupport support = query_gl_external_support();
    if (const std::string missing = support.memory_missing(); !missing.empty())
      throw std::runtime_error("GL lacks " + missing);
    if (const std::string missing = support.semaphore_missing(m_kind == interop::SemaphoreKind::Timeline);
        !missing.empty())
      throw std::runtime_error("GL lacks " + missing);

    cudaDeviceProp properties{};
    INTEROP_CUDA_CHECK(cudaGetDeviceProperties(&properties, m_cuda.device));
    vulkan::Uuid uuid;
    std::memcpy(uuid.data(), properties.uuid.bytes, uuid.size());
    bool same_device = false;
    for (const GlUuid& gl : support.device_uuids)
      same_device |= std::memcmp(gl.data(), uuid.data(), uuid.size()) == 0;
    if (!same_device)
      throw std::runtime_error("GL does not run on CUDA device " + std::to_string(m_cuda.device) + " (UUID " +
                               vulkan::to_string(uuid) + "): memory is shared only on one device");

    // Vulkan only allocates: a headless device on the same GPU, and a 1x1 frame target it never draws.
    m_context = vulkan::on_own_thread([&uuid] { return std::make_unique<vulkan::Context>(&uuid); });
    m_renderer = std::make_unique<vulkan::Renderer>(*m_context, Extent{1, 1});
    const std::vector<ResourceDesc> descs = gl::descs_of(renderer.resources());
    m_renderer->create_resources(descs, /*exportable=*/true);
    m_link.emplace(*m_renderer, m_kind);

    // GL imports each allocation (an FD of its own; GL owns it after the import) ...
    std::vector<GLuint> memory;
    for (size_t i = 0; i < descs.size(); ++i) {
      const vulkan::Resource& resource = m_renderer->resources()[i];
      m_gl_memory.push_back(import_memory_fd(m_renderer->export_fd(static_cast<int>(i)),
                                             resource.allocation_size, resource.dedicated));
      memory.push_back(m_gl_memory.back().get());
    }
    // ... and GL's renderer re-creates the resources in it.
    m_placed = &renderer;
    renderer.place_resources({&memory, /*linear_images=*/false});
    for (const gl::Resource& resource : renderer.resources())
      (resource.desc.kind == ResourceKind::Buffer ? m_buffers : m_textures).push_back(resource.gl_name);

    const bool timeline = m_kind == interop::SemaphoreKind::Timeline;
    m_gl_semaphores.emplace_back(m_link->graphics_done().get(),
                                 import_semaphore_fd(m_link->graphics_done().export_fd(), timeline));
    if (m_link->cuda_done() != nullptr)
      m_gl_semaphores.emplace_back(m_link->cuda_done()->get(),
                                   import_semaphore_fd(m_link->cuda_done()->export_fd(), timeline));
  }

  const GlSemaphore& gl_semaphore(VkSemaphore semaphore) const {
    for (const auto& [vulkan_semaphore, gl] : m_gl_semaphores)
      if (vulkan_semaphore == semaphore) return gl;
    throw std::logic_error("GlExternalMode: a semaphore GL never imported");
  }
  void signal_gl(const vulkan::PassSync& sync) {
    for (const vulkan::SemaphoreSignal& signal : sync.signal)
      signal_semaphore(gl_semaphore(signal.semaphore), signal.value, m_buffers, m_textures,
                       GL_LAYOUT_GENERAL_EXT);
  }
  void wait_gl(const vulkan::PassSync& sync) {
    for (const vulkan::SemaphoreSignal& wait : sync.wait)
      wait_semaphore(gl_semaphore(wait.semaphore), wait.value, m_buffers, m_textures, GL_LAYOUT_GENERAL_EXT);
  }

  CudaContext m_cuda;
  interop::SemaphoreKind m_kind;
  gl::Renderer* m_placed = nullptr;  // its resources are in the imported memory while attached
  // Declaration order is the reverse of teardown, which detach also does explicitly.
  std::unique_ptr<vulkan::Context> m_context;
  std::unique_ptr<vulkan::Renderer> m_renderer;
  std::optional<vulkan::CudaLink> m_link;
  std::vector<GlMemoryObject> m_gl_memory;
  std::vector<std::pair<VkSemaphore, GlSemaphore>> m_gl_semaphores;
  std::vector<GLuint> m_buffers;  // the resources, as GL's semaphore calls list them
  std::vector<GLuint> m_textures;
  std::optional<FrameGraph> m_graph;  // --graph
};

}  // namespace

std::unique_ptr<gl::Mode> create_external_mode(const CudaContext& cuda, interop::SemaphoreKind kind) {
  return std::make_unique<GlExternalMode>(cuda, kind);
}

}  // namespace lab
