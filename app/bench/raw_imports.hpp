// app/bench/raw_imports.hpp — CUDA's raw imports of external memory for the benchmarks' bare loops (GL's
// external and exported own loops, app/gl/app/bench_external.cpp; Vulkan's bare loops,
// app/vulkan/app/bench_bare.cpp): the memories, their mapped buffers and the CUDA arrays of images with their
// surface or texture objects, made with the runtime's calls alone (no interop:: types), released in reverse
// order.
#pragma once

#include "app/scene/scene_compute.hpp"
#include "interop/error.hpp"

#include <cuda_runtime_api.h>

#include <vector>

namespace lab::bench {

struct RawImports {
  std::vector<cudaExternalMemory_t> memories;
  std::vector<void*> pointers;  // mapped buffers (freed with cudaFree)
  std::vector<cudaMipmappedArray_t> arrays;
  std::vector<cudaSurfaceObject_t> surfaces;
  std::vector<cudaTextureObject_t> textures;

  RawImports() = default;
  RawImports(const RawImports&) = delete;
  RawImports& operator=(const RawImports&) = delete;
  ~RawImports() { release(); }

  // Textures, surfaces, arrays, buffers, then the memories; the owner calls it where its teardown order needs
  // the imports gone before what they import (the destructor does it otherwise).
  void release() {
    for (cudaTextureObject_t texture : textures) cudaDestroyTextureObject(texture);
    for (cudaSurfaceObject_t surface : surfaces) cudaDestroySurfaceObject(surface);
    for (cudaMipmappedArray_t array : arrays) cudaFreeMipmappedArray(array);
    for (void* pointer : pointers) cudaFree(pointer);
    for (cudaExternalMemory_t memory : memories) cudaDestroyExternalMemory(memory);
    textures.clear();
    surfaces.clear();
    arrays.clear();
    pointers.clear();
    memories.clear();
  }

  // The RGBA8 image of `desc` in `memory` as a CUDA array, in `view`: a surface object where CUDA writes it
  // (ResourceRole::Output), a texture object (point-sampled, normalised, clamped) where it reads it.
  void view_as_array(cudaExternalMemory_t memory, const ResourceDesc& desc, CudaResourceView& view) {
    cudaExternalMemoryMipmappedArrayDesc array_desc{};
    array_desc.formatDesc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    array_desc.extent = {static_cast<size_t>(desc.width), static_cast<size_t>(desc.height), 0};
    array_desc.flags = cudaArraySurfaceLoadStore | cudaArrayColorAttachment;
    array_desc.numLevels = 1;
    cudaMipmappedArray_t mipmapped = nullptr;
    INTEROP_CUDA_CHECK(cudaExternalMemoryGetMappedMipmappedArray(&mipmapped, memory, &array_desc));
    arrays.push_back(mipmapped);
    cudaArray_t level = nullptr;
    INTEROP_CUDA_CHECK(cudaGetMipmappedArrayLevel(&level, mipmapped, 0));
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = level;
    if (desc.role == ResourceRole::Output) {
      INTEROP_CUDA_CHECK(cudaCreateSurfaceObject(&view.surface, &resource));
      surfaces.push_back(view.surface);
    } else {
      cudaTextureDesc texture{};
      texture.readMode = cudaReadModeNormalizedFloat;
      texture.filterMode = cudaFilterModePoint;
      texture.addressMode[0] = texture.addressMode[1] = cudaAddressModeClamp;
      INTEROP_CUDA_CHECK(cudaCreateTextureObject(&view.texture, &resource, &texture, nullptr));
      textures.push_back(view.texture);
    }
  }
};

}  // namespace lab::bench
