// app/gl/mode_detail.hpp — what the modes that map GL objects (interop, reregister, pbo, split) share:
// registering a scene's GL objects, one timed map -> kernels -> unmap sequence, and the flags they
// report to the panel.
#pragma once

#include "app/gl/mode.hpp"
#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "interop/mapping.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lab::detail {

// A scene's GL objects registered with CUDA, with their resources in the same order for one map call.
class SceneRegistrations {
 public:
  // Registers every spec's GL object with the register flags `access` resolves to for its role, then
  // sets the map flags. Textures the kernels write ask for surface load/store when `surfaces` (the
  // interop modes); a mode that only copies into or out of them asks for nothing more.
  void register_all(const std::vector<ResourceSpec>& specs, const AccessSettings& access, bool surfaces) {
    for (const ResourceSpec& spec : specs) {
      m_registrations.push_back(register_resource(spec, resolve_access(access.register_access, spec.role),
                                                  surfaces && spec.role == ResourceRole::Output));
      m_resources.push_back(m_registrations.back().resource());
    }
    apply_map_access(specs, access);
  }

  // Sets each registration's map flags to what `access` resolves to for its resource's role.
  void apply_map_access(const std::vector<ResourceSpec>& specs, const AccessSettings& access) {
    for (size_t i = 0; i < m_registrations.size(); ++i) {
      const interop::Access wanted = resolve_access(access.map_access, specs[i].role);
      if (m_registrations[i].map_access() != wanted) m_registrations[i].set_map_access(wanted);
    }
  }

  void clear() {
    m_resources.clear();
    m_registrations.clear();  // unregisters: before the scene deletes the GL objects
  }
  bool empty() const { return m_registrations.empty(); }
  const std::vector<cudaGraphicsResource_t>& resources() const { return m_resources; }

 private:
  // Kept as their common base: past registration, buffers and textures are mapped alike.
  static interop::GlRegistrationBase register_resource(const ResourceSpec& spec, interop::Access access,
                                                       bool surface_load_store) {
    if (spec.kind == ResourceKind::Buffer) return interop::GlBufferRegistration({spec.gl_name, access});
    interop::TextureRegistrationDesc desc;
    desc.texture = spec.gl_name;
    desc.internal_format = spec.internal_format;
    desc.access = access;
    desc.surface_load_store = surface_load_store;
    return interop::GlTextureRegistration(desc);
  }

  std::vector<interop::GlRegistrationBase> m_registrations;
  std::vector<cudaGraphicsResource_t> m_resources;
};

// Applies new access settings to a mode's registrations: re-registers when the register flags change
// (calling `before_unregister` first, so the mode can let work that uses the registered objects
// finish), else sets the map flags. While nothing is registered it only records them: the next
// registration applies them.
template <class BeforeUnregister>
void apply_access(SceneRegistrations& registrations, const std::vector<ResourceSpec>& specs, bool surfaces,
                  AccessSettings& current, const AccessSettings& wanted,
                  const BeforeUnregister& before_unregister) {
  const bool reregister = wanted.register_access != current.register_access;
  current = wanted;
  if (registrations.empty()) return;
  if (reregister) {
    before_unregister();
    registrations.clear();
    registrations.register_all(specs, current, surfaces);
  } else {
    registrations.apply_map_access(specs, current);
  }
}

// Maps `resources` in one call on `stream` into `mapped`, timed as TimingClocks says: by CUDA events
// around the call, or on the host (an event before the map costs a context switch on some GPUs).
inline void timed_map(std::optional<interop::ScopedMap>& mapped,
                      const std::vector<cudaGraphicsResource_t>& resources, cudaStream_t stream,
                      FrameTimers& timers) {
  if (timers.clocks().map_on_gpu) {
    CudaPhase phase(timers, Phase::Map, stream);
    mapped.emplace(resources, stream);
  } else {
    CpuPhase phase(timers, Phase::Map);
    mapped.emplace(resources, stream);
  }
}

// Maps `resources` in one call on the stream, lets `bind(mapped)` fill the views, runs the scene's
// kernels on them and unmaps; the kernels are timed on the GPU, unmap on the host (see below), the map
// as TimingClocks says.
template <class Bind>
void map_compute_unmap(const std::vector<cudaGraphicsResource_t>& resources, cudaStream_t stream,
                       Scene& scene, const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                       FrameTimers& timers, const Bind& bind) {
  std::optional<interop::ScopedMap> mapped;
  timed_map(mapped, resources, stream, timers);
  bind(*mapped);
  {
    CudaPhase phase(timers, Phase::Kernel, stream);
    scene.compute_cuda(frame, views, stream);
    INTEROP_CUDA_CHECK(cudaGetLastError());  // a failed launch, reported at its frame
  }
  // Unmap is timed on the host: a CUDA event recorded after it makes the GPU switch back to the CUDA
  // context while GL draws, one more cross-context hand-off (+0.34 ms a frame on an H200).
  CpuPhase phase(timers, Phase::Unmap);
  mapped->unmap();
}

inline std::vector<RegisteredFlags> registered_flags(const std::vector<ResourceSpec>& specs,
                                                     const AccessSettings& access, const char* suffix) {
  std::vector<RegisteredFlags> flags;
  for (const ResourceSpec& spec : specs)
    flags.push_back({spec.label + std::string(suffix), spec.role,
                     resolve_access(access.register_access, spec.role),
                     resolve_access(access.map_access, spec.role)});
  return flags;
}

}  // namespace lab::detail
