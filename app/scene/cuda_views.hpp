// app/scene/cuda_views.hpp — how a graphics API's own resources become the kernels' CudaResourceViews, for
// the modes of every backend that hand CUDA the resources themselves rather than copies:
//   ArrayBinding      a mapped texture's cudaArray (GL and D3D11 registrations) as a surface object
//                     (Output) or a texture object (Input), kept while the map yields the same array
//   MappedViews       the views of a scene's resources mapped in one ScopedMap: buffers as the mapped
//                     pointer, textures through an ArrayBinding each
//   ImportedResource  a resource in imported external memory (the Direct3D external modes): a buffer's
//                     device pointer, or a texture's mipmapped array with its surface or texture object
// Textures are RGBA8 (app/scene/scene_compute.hpp): kernels write Outputs through surfaces and read Inputs as
// normalised float4 through texture objects. Needs the CUDA runtime; no graphics API.
#pragma once

#include "app/scene/scene_compute.hpp"
#include "interop/external.hpp"
#include "interop/mapping.hpp"
#include "interop/surface.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace lab {

// A texture resource as CUDA maps it out of imported memory: exactly the graphics API's texture (RGBA8
// UNORM as four unsigned bytes, width x height, one level), written through surfaces and a colour target
// on the graphics side (cudaArraySurfaceLoadStore | cudaArrayColorAttachment).
inline interop::MipmappedArrayDesc rgba8_image(int width, int height) {
  interop::MipmappedArrayDesc image;
  image.format = {8, 8, 8, 8, cudaChannelFormatKindUnsigned};  // what cudaCreateChannelDesc<uchar4>() gives
  image.extent = {static_cast<size_t>(width), static_cast<size_t>(height), 0};
  image.levels = 1;
  image.flags = cudaArraySurfaceLoadStore | cudaArrayColorAttachment;
  return image;
}

// `array` as the kernels take a texture of `role`, in `surface` or `texture` (the other one emptied), and
// `view` naming it.
void bind_array_objects(cudaArray_t array, ResourceRole role, interop::SurfaceObject& surface,
                        interop::TextureObject& texture, CudaResourceView& view);

// A mapped texture's array with its surface or texture object. A mapped texture's array is usually the
// same every frame, so the objects are re-created only when it changes. Move-only (its objects are).
class ArrayBinding {
 public:
  // Makes `view` name `array`. A different array than last time replaces the objects; kernels queued on
  // `stream` may still use the old ones, so the stream is waited for first.
  void bind(cudaArray_t array, ResourceRole role, cudaStream_t stream, CudaResourceView& view);

 private:
  cudaArray_t m_array = nullptr;
  interop::SurfaceObject m_surface;
  interop::TextureObject m_texture;
};

// The views of a scene's registered resources, filled from each frame's ScopedMap (resource i of the map
// is resource i of the scene).
class MappedViews {
 public:
  void resize(size_t count);
  // Fills the views from `mapped`, one per resource of `specs`.
  void bind(const interop::ScopedMap& mapped, const std::vector<ResourceDesc>& specs, cudaStream_t stream) {
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].kind == ResourceKind::Buffer) {
        const interop::MappedPointer pointer = mapped.pointer(i);
        m_views[i].pointer = pointer.data;
        m_views[i].bytes = pointer.size;
      } else {
        m_bindings[i].bind(mapped.array(i), specs[i].role, stream, m_views[i]);
      }
    }
  }
  // Drops the surface/texture objects, whose arrays are about to go with their registrations; the caller
  // has waited for the kernels that use them.
  void forget_arrays();
  // Drops everything, after the kernels queued on `stream` that may still use the objects.
  void clear(cudaStream_t stream);
  const std::vector<CudaResourceView>& views() const { return m_views; }

 private:
  std::vector<ArrayBinding> m_bindings;
  std::vector<CudaResourceView> m_views;
};

// One resource in memory another API exported. Members are declared in the order they are made, so they
// are destroyed the other way round: the objects and mappings before the memory they name.
struct ImportedResource {
  interop::ExternalMemory memory;
  interop::ExternalBuffer buffer;
  interop::ExternalMipmappedArray image;
  interop::SurfaceObject surface;
  interop::TextureObject texture;
};
// Maps `imported.memory` as `desc` needs it and makes `view` name it: a buffer's first desc.bytes as a
// pointer, a texture as rgba8_image (above) with a surface (Output) or texture (Input) object.
void map_imported(ImportedResource& imported, const ResourceDesc& desc, CudaResourceView& view);

}  // namespace lab
