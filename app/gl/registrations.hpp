// app/gl/registrations.hpp — a scene's GL objects registered with CUDA once (cudaGraphicsGLRegister*
// through interop::GlRegistration), with the register and map flags that AccessSettings resolve to for each
// object's role, and their resources in the scene's order for one cudaGraphicsMapResources call. The GL
// modes that map (interop, reregister, pbo, split) and the Python package's bridge hold their
// registrations in one.
#pragma once

#include "app/gl/mode.hpp"
#include "interop/gl.hpp"

#include <cuda_runtime_api.h>

#include <vector>

namespace lab::gl {

// The renderer's resources as a mode that registers them holds them, from attach to detach: the GL objects
// and their descs, in the renderer's (the scene's) order.
struct SceneResources {
  std::vector<Resource> objects;
  std::vector<ResourceDesc> descs;  // objects' descs

  // Takes `renderer`'s resources as they are now.
  void take(const Renderer& renderer) {
    objects = renderer.resources();
    descs = descs_of(objects);
  }
  void clear() {
    objects.clear();
    descs.clear();
  }
  size_t size() const { return objects.size(); }
};

// A scene's GL objects registered with CUDA, with their resources in the same order for one map call.
class SceneRegistrations {
 public:
  // Registers every spec's GL object with the register flags `access` resolves to for its role, then
  // sets the map flags. Textures the kernels write ask for surface load/store when `surfaces` (the
  // interop modes); a mode that only copies into or out of them asks for nothing more.
  void register_all(const std::vector<Resource>& specs, const AccessSettings& access, bool surfaces) {
    for (const Resource& spec : specs) {
      m_registrations.push_back(register_resource(spec,
                                                  resolve_access(access.register_access, spec.desc.role),
                                                  surfaces && spec.desc.role == ResourceRole::Output));
      m_resources.push_back(m_registrations.back().resource());
    }
    apply_map_access(specs, access);
  }

  // Sets each registration's map flags to what `access` resolves to for its resource's role.
  void apply_map_access(const std::vector<Resource>& specs, const AccessSettings& access) {
    for (size_t i = 0; i < m_registrations.size(); ++i) {
      const interop::Access wanted = resolve_access(access.map_access, specs[i].desc.role);
      if (m_registrations[i].map_access() != wanted) m_registrations[i].set_map_access(wanted);
    }
  }

  // Tells `renderer` the frame's CUDA stream and how CUDA reaches each image of `descs` (the scene's, in
  // these registrations' order) through them, for the desk's read-back (gl::Renderer::set_cuda_source): as
  // arrays, or `in_buffers`
  // (the pbo and buffer modes' registrations) as linear rows. `stream` on `device` is the one the
  // registrations are mapped on.
  void expose_images(Renderer& renderer, const std::vector<ResourceDesc>& descs, bool in_buffers,
                     cudaStream_t stream, int device) const {
    renderer.set_cuda_frame_stream(stream, device);
    for (size_t i = 0; i < m_resources.size() && i < descs.size(); ++i) {
      if (descs[i].kind != ResourceKind::Texture2D) continue;
      CudaFrameSource source;
      source.registered = m_resources[i];
      source.map_flags = interop::map_flags(m_registrations[i].map_access());
      source.linear = in_buffers;
      source.pitch = linear_pitch(descs[i]);
      source.stream = stream;
      source.device = device;
      renderer.set_cuda_source(static_cast<int>(i), source);
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
  static interop::GlRegistrationBase register_resource(const Resource& spec, interop::Access access,
                                                       bool surface_load_store) {
    if (spec.desc.kind == ResourceKind::Buffer || spec.linear)
      return interop::GlBufferRegistration({spec.gl_name, access});
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

}  // namespace lab::gl
