// app/d3d11/mode_interop.cpp — the Direct3D 11 modes that hand CUDA the renderer's resources themselves
// through CUDA's graphics interop (interop/d3d11.hpp), as the GL modes of the same names do:
//   interop     registers each resource once (attach); every frame maps all of them in one
//               cudaGraphicsMapResources call on the frame's stream, runs the kernels on the mapped
//               pointers (buffers) and arrays (textures, through surface and texture objects), and
//               unmaps. Map and unmap order the CUDA work after Direct3D's earlier work and before its
//               later work; nothing waits on the CPU.
//   reregister  the same, but registers before and unregisters after every frame: the anti-pattern,
//               kept to measure what it costs.
// Map flags: read-only for what the kernels read, write-discard for what they overwrite (the registration
// applies them with cudaGraphicsResourceSetMapFlags: cudaGraphicsD3D11RegisterResource takes no read-only
// or write-discard flag, only the surface load/store hint that written textures need).
// Needs the D3D11 device on the CUDA device's adapter (checked in attach).
#include "app/d3d/d3d_handoff.hpp"
#include "app/d3d11/cuda_modes.hpp"
#include "app/scene/cuda_views.hpp"
#include "app/timing/timing.hpp"
#include "interop/d3d11.hpp"
#include "interop/error.hpp"
#include "interop/mapping.hpp"

#include <optional>
#include <vector>

namespace lab::d3d11 {
namespace {

// One resource's registration: a buffer or a texture, mapped alike past registration.
struct Registration {
  interop::D3d11BufferRegistration buffer;
  interop::D3d11TextureRegistration texture;
  cudaGraphicsResource_t resource() const { return buffer ? buffer.resource() : texture.resource(); }
};

interop::Access map_access(ResourceRole role) {
  return role == ResourceRole::Input ? interop::Access::ReadOnly : interop::Access::WriteDiscard;
}

Registration register_resource(const Resource& resource) {
  Registration registration;
  const interop::Access access = map_access(resource.desc.role);
  if (resource.buffer) {
    registration.buffer = interop::D3d11BufferRegistration({resource.buffer.Get(), access});
  } else {
    interop::D3d11TextureRegistrationDesc desc;
    desc.texture = resource.texture.Get();
    desc.use.access = access;
    desc.use.surface_load_store = resource.desc.role == ResourceRole::Output;
    registration.texture = interop::D3d11TextureRegistration(desc);
  }
  return registration;
}

class GraphicsMode final : public Mode {
 public:
  GraphicsMode(ModeId id, const CudaContext& cuda) : m_id(id), m_cuda(cuda) {}
  ~GraphicsMode() override { detach(); }
  GraphicsMode(const GraphicsMode&) = delete;
  GraphicsMode& operator=(const GraphicsMode&) = delete;

  ModeId id() const override { return m_id; }
  bool reregisters() const { return m_id == ModeId::Reregister; }

  void attach(Renderer& renderer) override {
    detach();
    throw_if_unavailable(m_id, d3d::cuda_mode_availability<Renderer>(m_id, m_cuda, "", &renderer.device()));
    try {
      for (const Resource& resource : renderer.resources()) m_descs.push_back(resource.desc);
      m_mapped.resize(m_descs.size());
      if (!reregisters()) register_all(renderer);  // reregister registers in produce()
    } catch (...) {
      detach();  // a failure halfway leaves nothing registered
      throw;
    }
  }

  void detach() override {
    m_mapped.clear(m_cuda.stream);  // waits for the kernels that may still use its objects
    m_resources.clear();
    m_registrations.clear();  // unregisters: before the renderer releases the resources
    m_descs.clear();
  }

  // Timed as GL's interop modes are: the registration calls, the map and the unmap on the host, the
  // kernels on CUDA events.
  void produce(Renderer& renderer, FrameSource& scene, const FrameInfo& frame, FrameTimers& timers) override {
    if (reregisters()) {
      const CpuPhase phase(timers, Phase::Register);
      register_all(renderer);
    }
    {
      std::optional<interop::ScopedMap> mapped;
      {
        const CpuPhase phase(timers, Phase::Map);
        mapped.emplace(m_resources, m_cuda.stream);
      }
      m_mapped.bind(*mapped, m_descs, m_cuda.stream);
      {
        const CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
        scene.compute_cuda(frame, m_mapped.views(), m_cuda.stream);
        INTEROP_CUDA_CHECK(cudaGetLastError());  // a failed launch, reported at its frame
      }
      const CpuPhase phase(timers, Phase::Unmap);
      mapped->unmap();
    }
    if (reregisters()) unregister_all(&timers);
  }

 private:
  void register_all(const Renderer& renderer) {
    unregister_all();  // what a frame that failed halfway left
    for (const Resource& resource : renderer.resources()) {
      m_registrations.push_back(register_resource(resource));
      m_resources.push_back(m_registrations.back().resource());
    }
  }

  // `timers`: the unregister calls are timed (a frame of reregister), after the wait.
  void unregister_all(FrameTimers* timers = nullptr) {
    if (m_registrations.empty()) return;
    // The arrays die with their registrations, and their surface/texture objects must outlive the
    // kernels that use them: wait first (outside the timed phase, so it times the calls alone).
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_cuda.stream));
    std::optional<CpuPhase> phase;
    if (timers != nullptr) phase.emplace(*timers, Phase::Unregister);
    m_mapped.forget_arrays();
    m_resources.clear();
    m_registrations.clear();
  }

  ModeId m_id;
  CudaContext m_cuda;
  std::vector<ResourceDesc> m_descs;
  std::vector<Registration> m_registrations;
  std::vector<cudaGraphicsResource_t> m_resources;  // the registrations' resources, for one map call
  MappedViews m_mapped;
};

}  // namespace

std::unique_ptr<Mode> create_interop_mode(ModeId id, const CudaContext& cuda) {
  return std::make_unique<GraphicsMode>(id, cuda);
}

}  // namespace lab::d3d11
