// app/gl/mode_external.cpp — the GL `external` mode: no registration, no map/unmap. Vulkan allocates the
// scene's resources as exportable memory (a headless Vulkan device, the one whose UUID is the CUDA
// device's and GL's, and vulkan::ExportMemory: no Vulkan drawing), GL imports that memory and places the
// scene's textures and buffers in it (GL_EXT_memory_object_fd), and CUDA imports the same memory
// (cudaImportExternalMemory). Semaphores that Vulkan exported, imported by both GL (GL_EXT_semaphore_fd;
// timelines with GL_NV_timeline_semaphore) and CUDA, order each frame:
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
#include "app/vulkan/cuda_import.hpp"
#include "app/vulkan/export_memory.hpp"
#include "interop/error.hpp"
#include "interop/vmm.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::gl {
namespace {

// `id` External: Vulkan allocates the memory (exportable: vulkan::ExportMemory) and CUDA imports it
// (vulkan::CudaImports);
// Exported: CUDA allocates it (interop::ExportableAllocation) and the kernels write it through its own
// pointers, images in linear memory (GL shows them from buffers, as it cannot tile this memory as a
// texture). Either way GL imports each allocation's FD, the renderer places the resources in it, and
// semaphores that Vulkan exports order each frame for GL and CUDA alike.
class GlExternalMode final : public gl::Mode {
 public:
  GlExternalMode(ModeId id, const CudaContext& cuda, interop::SemaphoreKind kind)
      : m_id(id), m_cuda(cuda), m_kind(kind) {
    if (cuda.graph) m_graph.emplace();
  }
  ~GlExternalMode() override { detach(); }
  GlExternalMode(const GlExternalMode&) = delete;
  GlExternalMode& operator=(const GlExternalMode&) = delete;

  ModeId id() const override { return m_id; }

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
    if (m_placed != nullptr) m_placed->clear_cuda_sources();  // they name the memory going now
    if (m_placed != nullptr) m_placed->place_resources({});   // GL objects in the memory go first
    m_placed = nullptr;
    m_gl_semaphores.clear();
    m_gl_memory.clear();
    if (m_imports) {
      // CUDA's imports of Vulkan's memory, once every CUDA stream of the device is idle (errors are
      // ignored: the teardown goes on regardless).
      cudaDeviceSynchronize();
      m_imports.reset();
    }
    m_semaphores.reset();  // CUDA's imports of the semaphores, then Vulkan's semaphores
    m_views.clear();
    m_allocations.clear();  // CUDA's own memory, once GL's import of it is gone
    // The Vulkan memory, then the device and instance, off GL's thread (vulkan::on_own_thread says why).
    vulkan::on_own_thread([this] {
      m_memory.reset();
      m_context.reset();
      return 0;
    });
    m_buffers.clear();
    m_textures.clear();
  }

  void produce(gl::Renderer& renderer, FrameSource& scene, const FrameInfo& frame,
               FrameTimers& timers) override {
    expose_images(renderer);
    signal_gl(cubes_pass());
    if (m_graph) {
      // One launch: the semaphore wait, the kernels and the signal, timed together as the kernel phase.
      CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
      m_graph->launch(m_cuda.stream, [&] {
        cuda_acquire();
        scene.compute_cuda(frame, views(), m_cuda.stream);
        INTEROP_CUDA_CHECK(cudaGetLastError());
        cuda_release();
      });
    } else {
      {
        CpuPhase phase(timers,
                       Phase::Wait);  // host time: an event before the wait would cost a context switch
        cuda_acquire();
      }
      {
        CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
        scene.compute_cuda(frame, views(), m_cuda.stream);
        INTEROP_CUDA_CHECK(cudaGetLastError());
      }
      CpuPhase phase(timers, Phase::Signal);
      cuda_release();
    }
    wait_gl(frame_pass(/*prepared=*/true));
  }

  std::string transfer() const override {
    return std::string(m_kind == interop::SemaphoreKind::Timeline ? "timeline" : "binary") +
           (m_id == ModeId::Exported
                ? " semaphores from Vulkan; memory allocated by CUDA (cuMemCreate), images in buffers"
                : " semaphores; memory allocated by Vulkan on " +
                      (m_context ? m_context->info().name : std::string("?")));
  }

 private:
  void import_resources(gl::Renderer& renderer) {
    const GlExternalSupport support = query_gl_external_support();
    if (const std::string missing = support.memory_missing(); !missing.empty())
      throw std::runtime_error("GL lacks " + missing);
    if (const std::string missing = support.semaphore_missing(m_kind == interop::SemaphoreKind::Timeline);
        !missing.empty())
      throw std::runtime_error("GL lacks " + missing);
    if (m_id == ModeId::Exported)
      if (const interop::VmmExportSupport vmm = interop::probe_vmm_export(m_cuda.device); !vmm.supported)
        throw std::runtime_error(vmm.reason);

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

    // A headless Vulkan device on the same GPU: the semaphores, and for external the memory.
    m_context = vulkan::on_own_thread([&uuid] { return std::make_unique<vulkan::Context>(&uuid); });
    const std::vector<ResourceDesc> descs = gl::descs_of(renderer.resources());
    std::vector<GLuint> memory;
    if (m_id == ModeId::External) {
      m_memory = std::make_unique<vulkan::ExportMemory>(*m_context, descs);
      m_semaphores.emplace(*m_context, m_kind);
      m_imports.emplace(vulkan::memory_to_import(*m_memory));
      // GL imports each allocation (an FD of its own; GL owns it after the import) ...
      for (size_t i = 0; i < descs.size(); ++i) {
        const vulkan::ExportedResource& resource = m_memory->resources()[i];
        m_gl_memory.push_back(
            import_memory_fd(m_memory->export_fd(i), resource.allocation_size, resource.dedicated));
        memory.push_back(m_gl_memory.back().get());
      }
    } else {
      m_semaphores.emplace(*m_context, m_kind);
      for (const ResourceDesc& desc : descs) {
        interop::ExportableAllocationDesc allocation;
        allocation.size = desc.bytes;
        allocation.device = m_cuda.device;
        m_allocations.emplace_back(allocation);
        // Zeroed once, so that what GL renders into an input before CUDA reads it is the only writer.
        INTEROP_CUDA_CHECK(cudaMemsetAsync(m_allocations.back().data(), 0, desc.bytes, m_cuda.stream));
        m_views.push_back(linear_view(m_allocations.back().data(), desc));
        interop::FileDescriptor fd = m_allocations.back().export_fd();
        m_gl_memory.push_back(import_memory_fd(fd.get(), m_allocations.back().allocation_size(), false));
        fd.release();  // GL owns it now
        memory.push_back(m_gl_memory.back().get());
      }
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_cuda.stream));
    }
    // ... and GL's renderer re-creates the resources in it (CUDA's own memory: images in buffers).
    m_placed = &renderer;
    renderer.place_resources({&memory, /*linear_images=*/m_id == ModeId::Exported});
    for (const gl::Resource& resource : renderer.resources())
      (resource.desc.kind == ResourceKind::Buffer ? m_buffers : m_textures).push_back(resource.gl_name);

    const bool timeline = m_kind == interop::SemaphoreKind::Timeline;
    m_gl_semaphores.emplace_back(graphics_done().get(),
                                 import_semaphore_fd(graphics_done().export_fd(), timeline));
    if (cuda_done() != nullptr)
      m_gl_semaphores.emplace_back(cuda_done()->get(),
                                   import_semaphore_fd(cuda_done()->export_fd(), timeline));
  }

  // Tells `renderer` how CUDA reaches each image, for the desk's read-back (gl::Renderer::set_cuda_source):
  // the memory is CUDA's without any registration, read in stream order after the kernels. External: the
  // imported image's array (behind its surface or texture object); exported: the linear image's pointer.
  void expose_images(gl::Renderer& renderer) const {
    renderer.set_cuda_frame_stream(m_cuda.stream, m_cuda.device);
    const std::vector<gl::Resource>& resources = renderer.resources();
    for (size_t i = 0; i < resources.size() && i < views().size(); ++i) {
      if (resources[i].desc.kind != ResourceKind::Texture2D) continue;
      const CudaResourceView& view = views()[i];
      gl::CudaFrameSource source;
      if (view.pointer != nullptr) {
        source.pointer = view.pointer;
        source.linear = true;
        source.pitch = view.pitch;
      } else {
        cudaResourceDesc desc{};
        if (view.surface != 0)
          INTEROP_CUDA_CHECK(cudaGetSurfaceObjectResourceDesc(&desc, view.surface));
        else if (view.texture != 0)
          INTEROP_CUDA_CHECK(cudaGetTextureObjectResourceDesc(&desc, view.texture));
        if (desc.resType != cudaResourceTypeArray) continue;
        source.array = desc.res.array.array;
      }
      source.stream = m_cuda.stream;
      source.device = m_cuda.device;
      renderer.set_cuda_source(static_cast<int>(i), source);
    }
  }

  // The frame's steps: the semaphores', in both forms.
  vulkan::PassSync cubes_pass() { return m_semaphores->cubes_pass(); }
  void cuda_acquire() { m_semaphores->cuda_acquire(m_cuda.stream); }
  void cuda_release() { m_semaphores->cuda_release(m_cuda.stream); }
  vulkan::PassSync frame_pass(bool prepared) { return m_semaphores->frame_pass(prepared); }
  // External: CUDA's imports of Vulkan's memory; exported: CUDA's own allocations.
  const std::vector<CudaResourceView>& views() const { return m_imports ? m_imports->views() : m_views; }
  const vulkan::ExportableSemaphore& graphics_done() const { return m_semaphores->graphics_done(); }
  const vulkan::ExportableSemaphore* cuda_done() const { return m_semaphores->cuda_done(); }

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

  ModeId m_id;
  CudaContext m_cuda;
  interop::SemaphoreKind m_kind;
  gl::Renderer* m_placed = nullptr;  // its resources are in the imported memory while attached
  // Declaration order is the reverse of teardown, which detach also does explicitly.
  std::unique_ptr<vulkan::Context> m_context;
  std::unique_ptr<vulkan::ExportMemory> m_memory;            // external: Vulkan's memory, one per resource
  std::optional<vulkan::CudaSemaphores> m_semaphores;        // both: Vulkan's, imported into CUDA
  std::optional<vulkan::CudaImports> m_imports;              // external: m_memory imported into CUDA
  std::vector<interop::ExportableAllocation> m_allocations;  // exported: CUDA's memory, one per resource
  std::vector<CudaResourceView> m_views;                     // exported: m_allocations for the kernels
  std::vector<GlMemoryObject> m_gl_memory;
  std::vector<std::pair<VkSemaphore, GlSemaphore>> m_gl_semaphores;
  std::vector<GLuint> m_buffers;  // the resources, as GL's semaphore calls list them
  std::vector<GLuint> m_textures;
  std::optional<FrameGraph> m_graph;  // --graph
};

}  // namespace

std::unique_ptr<gl::Mode> create_external_mode(const CudaContext& cuda, interop::SemaphoreKind kind) {
  return std::make_unique<GlExternalMode>(ModeId::External, cuda, kind);
}

std::unique_ptr<gl::Mode> create_exported_mode(const CudaContext& cuda, interop::SemaphoreKind kind) {
  return std::make_unique<GlExternalMode>(ModeId::Exported, cuda, kind);
}

}  // namespace lab::gl
