// app/gl/mode_split.cpp — the `split` mode: compute on one GPU, show on another.
//
// The GL objects are registered and mapped on the device that drives GL (the only one that can map
// them). The kernels run on the compute device, on its own stream, into plain device memory there.
// Every frame:
//
//   GL stream       map -> [inputs: GL object -> compute device] -> event A ...... wait B -> [outputs:
//                                                                                  compute device -> GL
//                                                                                  object] -> unmap
//   compute stream  ........................................ wait A -> kernels -> event B
//
// Copies between the devices are cudaMemcpyPeerAsync / cudaMemcpy3DPeerAsync where the devices can
// reach each other (peer access enabled at attach), else they go through pinned host memory: a
// device-to-host copy on one device's stream and a host-to-device copy on the other's, ordered by the
// same events. Nothing waits on the CPU. With one GPU (compute device == GL device) the same code runs
// on the GL stream alone (the events are then trivially met): kernels on a second stream of the same
// device made the postprocess frame 2.6 ms slower than interop on an H200 (README, Performance), and a
// second stream buys nothing on one device.
#include "app/gl/mode_detail.hpp"

#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "interop/stream.hpp"

#include <cuda_runtime.h>  // make_cudaPitchedPtr, make_cudaExtent

#include <optional>
#include <vector>

namespace lab::gl {
namespace {

class SplitMode final : public gl::Mode {
 public:
  SplitMode(const CudaContext& cuda, const AccessSettings& access)
      : m_cuda(cuda),
        m_access(access),
        m_path(choose_split_path(cuda.compute_device, cuda.device, cuda.split_copy)) {
    if (m_cuda.compute_device == m_cuda.device) m_cuda.compute_stream = m_cuda.stream;
  }
  ~SplitMode() override { detach(); }
  SplitMode(const SplitMode&) = delete;
  SplitMode& operator=(const SplitMode&) = delete;

  ModeId id() const override { return ModeId::Split; }
  std::string transfer() const override { return m_path.description; }

  void attach(gl::Renderer& renderer) override {
    m_renderer = &renderer;
    m_resources.take(renderer);
    try {
      if (m_path.peer) {
        interop::enable_peer_access(m_cuda.compute_device, m_cuda.device);
        interop::enable_peer_access(m_cuda.device, m_cuda.compute_device);
      }
      m_registrations.register_all(m_resources.objects, m_access,
                                   false);  // copied into, not written through surfaces
      m_gl_ready.emplace();                 // on the GL device, current outside compute scopes
      interop::ScopedDevice on(m_cuda.compute_device);
      m_computed.emplace();
      for (const ResourceDesc& spec : m_resources.descs) {
        m_compute.emplace_back(spec.bytes);
        if (!m_path.peer) m_host.emplace_back(spec.bytes);
        m_views.push_back(linear_view(m_compute.back().data(), spec));
      }
    } catch (...) {
      detach();
      throw;
    }
  }

  void detach() override {
    // Copies and kernels in flight use the memory below. Synchronising a stream needs no particular
    // current device.
    if (!m_compute.empty()) {
      INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_cuda.compute_stream));
      INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_cuda.stream));
    }
    if (m_renderer != nullptr) m_renderer->clear_cuda_sources();  // they name the registrations going now
    m_renderer = nullptr;
    m_registrations.clear();
    m_views.clear();
    m_host.clear();
    m_compute.clear();
    m_computed.reset();
    m_gl_ready.reset();
    m_resources.clear();
  }

  void produce(gl::Renderer& renderer, FrameSource& scene, const FrameInfo& frame,
               FrameTimers& timers) override {
    std::optional<interop::ScopedMap> mapped;
    detail::timed_map(mapped, m_registrations.resources(), m_cuda.stream, timers);
    if (has_role(m_resources.descs, ResourceRole::Input)) {
      CudaPhase phase(timers, Phase::CudaCopy, m_cuda.stream);
      for (size_t i = 0; i < m_resources.descs.size(); ++i)
        if (m_resources.descs[i].role == ResourceRole::Input) copy_from_gl(i, *mapped);
    }
    m_gl_ready->order(m_cuda.stream, m_cuda.compute_stream);
    {
      interop::ScopedDevice on(m_cuda.compute_device);
      if (!m_path.peer && has_role(m_resources.descs, ResourceRole::Input)) {
        CudaPhase phase(timers, Phase::CudaCopy, m_cuda.compute_stream);
        for (size_t i = 0; i < m_resources.descs.size(); ++i)
          if (m_resources.descs[i].role == ResourceRole::Input) {
            INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_compute[i].data(), m_host[i].data(),
                                               m_resources.descs[i].bytes, cudaMemcpyHostToDevice,
                                               m_cuda.compute_stream));
            interop::declare_initialised(m_compute[i].data(), m_resources.descs[i].bytes,
                                         m_cuda.compute_stream);
          }
      }
      {
        CudaPhase phase(timers, Phase::Kernel, m_cuda.compute_stream);
        scene.compute_cuda(frame, m_views, m_cuda.compute_stream);
        INTEROP_CUDA_CHECK(cudaGetLastError());
      }
      if (!m_path.peer) {
        CudaPhase phase(timers, Phase::CudaCopy, m_cuda.compute_stream);
        for (size_t i = 0; i < m_resources.descs.size(); ++i)
          if (m_resources.descs[i].role == ResourceRole::Output)
            INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_host[i].data(), m_compute[i].data(),
                                               m_resources.descs[i].bytes, cudaMemcpyDeviceToHost,
                                               m_cuda.compute_stream));
      }
      m_computed->order(m_cuda.compute_stream, m_cuda.stream);
    }
    {
      CudaPhase phase(timers, Phase::CudaCopy, m_cuda.stream);
      for (size_t i = 0; i < m_resources.descs.size(); ++i)
        if (m_resources.descs[i].role == ResourceRole::Output) copy_to_gl(i, *mapped);
    }
    {
      CpuPhase phase(timers, Phase::Unmap);  // on the host, as in the other modes (mode_detail.hpp says why)
      mapped->unmap();
    }
    // The GL device's registrations hold the frame: the desk reads it there, on the GL device's stream.
    m_registrations.expose_images(renderer, m_resources.descs, false, m_cuda.stream, m_cuda.device);
  }

  void apply_access(const AccessSettings& access) override {
    detail::apply_access(m_registrations, m_resources.objects, false, m_access, access, [this] {
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_cuda.stream));  // copies into the arrays in flight
    });
  }

  std::vector<RegisteredFlags> registered_flags() const override {
    return lab::registered_flags(m_resources.descs, m_access);
  }

 private:
  // A texture's linear copy on the compute device (or in host memory), as cudaMemcpy3D sees it.
  cudaPitchedPtr linear(void* data, const ResourceDesc& spec) const {
    return make_cudaPitchedPtr(data, linear_pitch(spec), static_cast<size_t>(spec.width),
                               static_cast<size_t>(spec.height));
  }

  // Mapped GL object `i` -> the compute device (peer) or its host buffer (on the GL stream).
  void copy_from_gl(size_t i, const interop::ScopedMap& mapped) {
    const ResourceDesc& spec = m_resources.descs[i];
    if (spec.kind == ResourceKind::Buffer) {
      const interop::MappedPointer source = mapped.pointer(i);
      if (m_path.peer) {
        INTEROP_CUDA_CHECK(cudaMemcpyPeerAsync(m_compute[i].data(), m_cuda.compute_device, source.data,
                                               m_cuda.device, spec.bytes, m_cuda.stream));
        interop::declare_initialised(m_compute[i].data(), spec.bytes, m_cuda.stream);
      } else {
        INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_host[i].data(), source.data, spec.bytes, cudaMemcpyDeviceToHost,
                                           m_cuda.stream));
      }
      return;
    }
    if (m_path.peer) {
      cudaMemcpy3DPeerParms copy{};
      copy.srcArray = mapped.array(i);
      copy.srcDevice = m_cuda.device;
      copy.dstPtr = linear(m_compute[i].data(), spec);
      copy.dstDevice = m_cuda.compute_device;
      copy.extent = make_cudaExtent(static_cast<size_t>(spec.width), static_cast<size_t>(spec.height), 1);
      INTEROP_CUDA_CHECK(cudaMemcpy3DPeerAsync(&copy, m_cuda.stream));
      // What GL rendered into the array, as initcheck cannot follow it through the copy.
      interop::declare_initialised(m_compute[i].data(), spec.bytes, m_cuda.stream);
    } else {
      INTEROP_CUDA_CHECK(cudaMemcpy2DFromArrayAsync(m_host[i].data(), linear_pitch(spec), mapped.array(i), 0,
                                                    0, linear_pitch(spec), static_cast<size_t>(spec.height),
                                                    cudaMemcpyDeviceToHost, m_cuda.stream));
    }
  }

  // The compute device (peer) or the host buffer -> mapped GL object `i` (on the GL stream).
  void copy_to_gl(size_t i, const interop::ScopedMap& mapped) {
    const ResourceDesc& spec = m_resources.descs[i];
    if (spec.kind == ResourceKind::Buffer) {
      const interop::MappedPointer target = mapped.pointer(i);
      if (m_path.peer) {
        INTEROP_CUDA_CHECK(cudaMemcpyPeerAsync(target.data, m_cuda.device, m_compute[i].data(),
                                               m_cuda.compute_device, spec.bytes, m_cuda.stream));
      } else {
        INTEROP_CUDA_CHECK(cudaMemcpyAsync(target.data, m_host[i].data(), spec.bytes, cudaMemcpyHostToDevice,
                                           m_cuda.stream));
      }
      return;
    }
    if (m_path.peer) {
      cudaMemcpy3DPeerParms copy{};
      copy.srcPtr = linear(m_compute[i].data(), spec);
      copy.srcDevice = m_cuda.compute_device;
      copy.dstArray = mapped.array(i);
      copy.dstDevice = m_cuda.device;
      copy.extent = make_cudaExtent(static_cast<size_t>(spec.width), static_cast<size_t>(spec.height), 1);
      INTEROP_CUDA_CHECK(cudaMemcpy3DPeerAsync(&copy, m_cuda.stream));
    } else {
      INTEROP_CUDA_CHECK(cudaMemcpy2DToArrayAsync(mapped.array(i), 0, 0, m_host[i].data(), linear_pitch(spec),
                                                  linear_pitch(spec), static_cast<size_t>(spec.height),
                                                  cudaMemcpyHostToDevice, m_cuda.stream));
    }
  }

  CudaContext m_cuda;
  AccessSettings m_access;
  SplitPath m_path;
  gl::SceneResources m_resources;  // the renderer's, from attach to detach
  gl::SceneRegistrations m_registrations;
  std::optional<interop::Event> m_gl_ready;      // recorded on the GL stream; the compute stream waits for it
  std::optional<interop::Event> m_computed;      // recorded on the compute stream; the GL stream waits for it
  std::vector<interop::DeviceBuffer> m_compute;  // on the compute device, one per resource
  std::vector<interop::PinnedHostBuffer> m_host;  // the host path's relay
  std::vector<CudaResourceView> m_views;          // m_compute as the kernels see it
  gl::Renderer* m_renderer = nullptr;  // attached to: told the frame's CUDA sources, cleared at detach
};

}  // namespace

std::unique_ptr<gl::Mode> create_split_mode(const CudaContext& cuda, const AccessSettings& access) {
  return std::make_unique<SplitMode>(cuda, access);
}

}  // namespace lab::gl
