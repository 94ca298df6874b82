// python/own_gl.cpp — the C ABI of interop_lab.GLBuffer / GLTexture / map_gl (python/interop_lab/gl.py):
// the caller's own GL buffers and textures, registered with CUDA from the caller's current context and
// mapped several at once on a stream (one cudaGraphicsMapResources call), yielding device pointers for
// buffers and cudaArrays (and surface objects) for textures.
//
// A registration remembers the context, thread and CUDA device it was made with: it is unregistered with
// that context current (ilab_gl_unregister), as the driver requires, and the caller's context is given back.
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "interop/mapping.hpp"
#include "python/errors.hpp"
#include "python/gl_context.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ilab::guarded;

constexpr const char* kRegistration = "this GL registration";

struct Registration {
  ilab::GlContext context;  // current when registering: the one that owns the GL object
  ilab::OwnerThread owner;
  int cuda_device = -1;
  std::optional<interop::GlBufferRegistration> buffer;
  std::optional<interop::GlTextureRegistration> texture;
  int mapped = 0;  // how many live maps hold it

  cudaGraphicsResource_t resource() const { return buffer ? buffer->resource() : texture->resource(); }
};

struct Mapping {
  std::vector<Registration*> registrations;
  std::optional<interop::ScopedMap> map;
  std::vector<cudaSurfaceObject_t> surfaces;
  cudaStream_t stream = nullptr;
  int cuda_device = -1;
};

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument(message);
}

interop::Access access_of(int access) {
  require(access >= 0 && access <= 2, "access: read_write, read_only or write_discard");
  return access == 0 ? interop::Access::ReadWrite
                     : (access == 1 ? interop::Access::ReadOnly : interop::Access::WriteDiscard);
}

Mapping& mapping_of(void* handle) {
  require(handle != nullptr, "the map block has ended: use its views inside `with interop_lab.map_gl(...)`");
  return *static_cast<Mapping*>(handle);
}

void check_index(const Mapping& mapping, int index) {
  require(index >= 0 && index < static_cast<int>(mapping.registrations.size()),
          "object " + std::to_string(index) + " is not in this map (it holds " +
              std::to_string(mapping.registrations.size()) + ")");
}

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

// kind 0: a buffer (target ignored); 1: a texture or renderbuffer of `target` (GL_TEXTURE_2D, ...).
// access 0 read_write, 1 read_only (CUDA only reads), 2 write_discard. Needs the caller's context current.
int ilab_gl_register(int kind, unsigned int name, unsigned int target, int access, int surface_load_store,
                     void** out) {
  return guarded([&] {
    *out = nullptr;
    const ilab::GlContext current = ilab::GlContext::current();
    require(!current.empty(),
            "no GL context is current on this thread: make the one that owns the object current first "
            "(eglMakeCurrent, glfw.make_context_current, glXMakeCurrent)");
    ilab::load_gl_functions(current);
    require(kind == 0 || kind == 1, "kind: a buffer or a texture");
    interop::CudaDevices devices = interop::enumerate_cuda_devices();
    require(!devices.devices.empty(),
            "registering GL objects with CUDA needs a CUDA device: " + devices.error);
    auto registration = std::make_unique<Registration>();
    registration->context = current;
    INTEROP_CUDA_CHECK(cudaGetDevice(&registration->cuda_device));
    const interop::InteropSupport support = interop::probe_gl_interop(registration->cuda_device);
    require(support.usable, "CUDA device " + std::to_string(registration->cuda_device) +
                                " cannot share this GL context's objects: " + support.reason);
    if (kind == 0) {
      interop::BufferRegistrationDesc desc;
      desc.buffer = name;
      desc.access = access_of(access);
      registration->buffer.emplace(desc);
    } else {
      interop::TextureRegistrationDesc desc;
      desc.texture = name;
      desc.target = target;
      desc.access = access_of(access);
      desc.surface_load_store = surface_load_store != 0;
      registration->texture.emplace(desc);
    }
    *out = registration.release();
  });
}

// The texture's internal format as registered (GL_RGBA8 ...): what its cudaArray holds.
int ilab_gl_registered_format(void* handle, unsigned int* internal_format) {
  return guarded([&] {
    const Registration& registration = *static_cast<Registration*>(handle);
    *internal_format = registration.texture ? registration.texture->desc().internal_format : 0;
  });
}

// Unregisters with the registering context current (then gives the caller's back); refused while mapped
// or from another thread, keeping the registration.
int ilab_gl_unregister(void* handle) {
  auto* registration = static_cast<Registration*>(handle);
  if (registration == nullptr) return 0;
  return guarded([&] {
    require(registration->mapped == 0, "the object is still mapped: leave its map_gl block first");
    {
      const ilab::ScopedContext current(registration->context, registration->owner, kRegistration);
      const interop::ScopedDevice on_device(registration->cuda_device);
      registration->buffer.reset();
      registration->texture.reset();
    }
    delete registration;
  });
}

// Maps `count` registrations in one call on `stream`. They must share a CUDA device.
int ilab_gl_map(void** handles, int count, uintptr_t stream, void** out) {
  return guarded([&] {
    *out = nullptr;
    require(count >= 1, "map_gl: pass at least one GLBuffer or GLTexture");
    auto mapping = std::make_unique<Mapping>();
    std::vector<cudaGraphicsResource_t> resources;
    for (int i = 0; i < count; ++i) {
      auto* registration = static_cast<Registration*>(handles[i]);
      require(registration != nullptr, "object " + std::to_string(i) + " was unregistered (closed)");
      registration->owner.check(kRegistration);
      require(registration->mapped == 0,
              "object " + std::to_string(i) + " is mapped already (in another map_gl)");
      if (i == 0) mapping->cuda_device = registration->cuda_device;
      require(registration->cuda_device == mapping->cuda_device,
              "the objects were registered on CUDA devices " + std::to_string(mapping->cuda_device) +
                  " and " + std::to_string(registration->cuda_device) +
                  ": map each device's in its own map_gl");
      mapping->registrations.push_back(registration);
      resources.push_back(registration->resource());
    }
    const interop::ScopedDevice on_device(mapping->cuda_device);
    mapping->stream = reinterpret_cast<cudaStream_t>(stream);
    if (mapping->stream != nullptr) {
      int stream_device = -1;
      INTEROP_CUDA_CHECK(cudaStreamGetDevice(mapping->stream, &stream_device));
      require(stream_device == mapping->cuda_device,
              "the stream is on CUDA device " + std::to_string(stream_device) + ", the objects on device " +
                  std::to_string(mapping->cuda_device) + ": create the stream there");
    }
    mapping->map.emplace(std::move(resources), mapping->stream);
    mapping->surfaces.assign(mapping->registrations.size(), 0);
    for (Registration* registration : mapping->registrations) ++registration->mapped;
    *out = mapping.release();
  });
}

int ilab_gl_mapped_pointer(void* handle, int index, uintptr_t* pointer, uint64_t* bytes) {
  return guarded([&] {
    const Mapping& mapping = mapping_of(handle);
    check_index(mapping, index);
    require(mapping.registrations[static_cast<size_t>(index)]->buffer.has_value(),
            "object " + std::to_string(index) + " is a texture: use its .array or .surface");
    const interop::MappedPointer mapped = mapping.map->pointer(static_cast<size_t>(index));
    *pointer = reinterpret_cast<uintptr_t>(mapped.data);
    *bytes = mapped.size;
  });
}

int ilab_gl_mapped_array(void* handle, int index, unsigned int layer, unsigned int level, uintptr_t* array) {
  return guarded([&] {
    const Mapping& mapping = mapping_of(handle);
    check_index(mapping, index);
    require(mapping.registrations[static_cast<size_t>(index)]->texture.has_value(),
            "object " + std::to_string(index) + " is a buffer: use its pointer");
    const interop::ScopedDevice on_device(mapping.cuda_device);
    *array = reinterpret_cast<uintptr_t>(mapping.map->array(static_cast<size_t>(index), layer, level));
  });
}

// A surface object over level 0 of a texture registered with surface=True, valid until the unmap.
int ilab_gl_mapped_surface(void* handle, int index, unsigned long long* surface) {
  return guarded([&] {
    Mapping& mapping = mapping_of(handle);
    check_index(mapping, index);
    const Registration& registration = *mapping.registrations[static_cast<size_t>(index)];
    require(
        registration.texture && registration.texture->desc().surface_load_store,
        "object " + std::to_string(index) + " was not registered for surfaces: GLTexture(..., surface=True)");
    cudaSurfaceObject_t& kept = mapping.surfaces[static_cast<size_t>(index)];
    if (kept == 0) {
      const interop::ScopedDevice on_device(mapping.cuda_device);
      cudaResourceDesc resource{};
      resource.resType = cudaResourceTypeArray;
      resource.res.array.array = mapping.map->array(static_cast<size_t>(index));
      INTEROP_CUDA_CHECK(cudaCreateSurfaceObject(&kept, &resource));
    }
    *surface = kept;
  });
}

// Unmaps on the map's stream, after what was queued there. Surface objects, if any were made, are
// destroyed once the stream has run (the host waits only then).
int ilab_gl_unmap(void* handle) {
  return guarded([&] {
    Mapping& mapping = mapping_of(handle);
    const interop::ScopedDevice on_device(mapping.cuda_device);
    for (Registration* registration : mapping.registrations) --registration->mapped;
    std::string failure;
    try {
      mapping.map->unmap();
    } catch (const std::exception& error) {
      failure = error.what();  // reported after the surfaces and the mapping are released
    }
    bool any_surface = false;
    for (const cudaSurfaceObject_t surface : mapping.surfaces) any_surface = any_surface || surface != 0;
    if (any_surface) cudaStreamSynchronize(mapping.stream);
    for (const cudaSurfaceObject_t surface : mapping.surfaces)
      if (surface != 0) cudaDestroySurfaceObject(surface);
    delete &mapping;
    if (!failure.empty()) throw std::runtime_error(failure);
  });
}

}  // extern "C"
#pragma GCC visibility pop
