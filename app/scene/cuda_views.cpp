// app/scene/cuda_views.cpp — graphics resources as the kernels' views (cuda_views.hpp).
#include "app/scene/cuda_views.hpp"

#include "interop/error.hpp"

namespace lab {

void bind_array_objects(cudaArray_t array, ResourceRole role, interop::SurfaceObject& surface,
                        interop::TextureObject& texture, CudaResourceView& view) {
  surface = interop::SurfaceObject();
  texture = interop::TextureObject();
  if (role == ResourceRole::Output) {
    surface = interop::SurfaceObject(array);
  } else {
    interop::TextureObjectDesc desc;
    desc.read_mode = cudaReadModeNormalizedFloat;  // RGBA8 texels arrive as float4 in [0, 1]
    texture = interop::TextureObject(array, desc);
  }
  view.surface = surface.get();
  view.texture = texture.get();
  view.array = array;
}

void ArrayBinding::bind(cudaArray_t array, ResourceRole role, cudaStream_t stream, CudaResourceView& view) {
  if (m_array != array) {
    if (m_array != nullptr) INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
    m_array = nullptr;
    bind_array_objects(array, role, m_surface, m_texture, view);
    m_array = array;
  }
  view.surface = m_surface.get();
  view.texture = m_texture.get();
  view.array = m_array;
}

void MappedViews::resize(size_t count) {
  m_bindings.resize(count);
  m_views.assign(count, CudaResourceView{});
}

void MappedViews::forget_arrays() {
  for (ArrayBinding& binding : m_bindings) binding = ArrayBinding{};
}

void MappedViews::clear(cudaStream_t stream) {
  if (!m_bindings.empty()) INTEROP_CUDA_REPORT(cudaStreamSynchronize(stream));
  m_bindings.clear();
  m_views.clear();
}

void map_imported(ImportedResource& imported, const ResourceDesc& desc, CudaResourceView& view) {
  view = CudaResourceView{};
  view.bytes = desc.bytes;
  if (desc.kind == ResourceKind::Buffer) {
    imported.buffer = imported.memory.map_buffer(0, desc.bytes);
    view.pointer = imported.buffer.data();
    return;
  }
  imported.image = imported.memory.map_mipmapped_array(rgba8_image(desc.width, desc.height));
  bind_array_objects(imported.image.level(0), desc.role, imported.surface, imported.texture, view);
}

}  // namespace lab
