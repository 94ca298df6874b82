// app/vulkan/cuda_link.cpp — the Vulkan renderer's exported memory and semaphores imported into CUDA
// (cuda_import.cpp imports them; see cuda_link.hpp for the order and the ownership rules).
#include "app/vulkan/cuda_link.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace lab::vulkan {

std::vector<MemoryToImport> memory_to_import(Renderer& renderer) {
  const std::vector<Resource>& resources = renderer.resources();
  std::vector<MemoryToImport> imports;
  for (size_t index = 0; index < resources.size(); ++index) {
    const Resource& resource = resources[index];
    // The buffer mode: an image whose texels live in its linear buffer is imported as that buffer.
    const bool linear = resource.shown_from_linear && resource.linear_exportable;
    if (!resource.exportable && !linear)
      throw std::logic_error(std::string("CudaImports: resource \"") + resource.desc.label +
                             "\" was not created exportable; call Renderer::create_resources(descs, true)");
    MemoryToImport import;
    import.desc = resource.desc;
    import.linear = linear;
    import.allocation_size = linear ? resource.linear_allocation_size : resource.allocation_size;
    import.dedicated = linear || resource.dedicated;  // the linear buffer has an allocation of its own
    const int at = static_cast<int>(index);
    import.export_fd = [&renderer, at, linear ] {
      return linear ? renderer.export_linear_fd(at) : renderer.export_fd(at);
  };
  imports.push_back(std::move(import));
}
return imports;
}  // namespace lab::vulkan

CudaImports::CudaImports(Renderer& renderer) : CudaImports(memory_to_import(renderer)) {}

CudaLink::CudaLink(Renderer& renderer, interop::SemaphoreKind kind)
    : m_renderer(renderer), m_semaphores(renderer.context(), kind), m_imports(renderer) {}

CudaLink::~CudaLink() {
  // Neither side may still use what is released below: Vulkan's queue and every CUDA stream of the
  // device go idle first. Errors are ignored here: a destructor has no one to tell.
  m_renderer.wait_idle();
  cudaDeviceSynchronize();
}

}  // namespace lab::vulkan
