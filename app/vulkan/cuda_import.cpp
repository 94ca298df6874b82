// app/vulkan/cuda_import.cpp — Vulkan's exported semaphores and memory imported into CUDA, and each
// frame's waits and signals (see cuda_import.hpp for the order and the ownership rules).
#include "app/vulkan/cuda_import.hpp"

#include "app/os/os.hpp"
#include "interop/error.hpp"

#include <cstring>
#include <string>
#include <tuple>
#include <utility>

namespace lab::vulkan {

namespace {

// Imports `fd` with `import`; the FD belongs to CUDA once that succeeds, and is closed here if it throws.
template <class Import>
auto import_fd(int fd, Import import) {
  try {
    return import(fd);
  } catch (...) {
    os::close_file(fd);
    throw;
  }
}

}  // namespace

interop::ExternalSemaphore import_semaphore(const ExportableSemaphore& semaphore) {
  return import_fd(semaphore.export_fd(), [&](int fd) {
    interop::ExternalSemaphoreDesc desc;
    desc.type = semaphore.kind() == interop::SemaphoreKind::Timeline ? interop::ExternalHandleType::TimelineFd
                                                                     : interop::ExternalHandleType::OpaqueFd;
    desc.fd = fd;
    return interop::ExternalSemaphore(desc);
  });
}

Uuid cuda_device_uuid(int device) {
  cudaDeviceProp properties{};
  INTEROP_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  Uuid uuid;
  static_assert(sizeof(properties.uuid.bytes) == std::tuple_size<Uuid>::value,
                "CUDA and Vulkan UUIDs differ");
  std::memcpy(uuid.data(), properties.uuid.bytes, uuid.size());
  return uuid;
}

CudaSemaphores::CudaSemaphores(Context& context, interop::SemaphoreKind kind)
    : m_kind(kind), m_graphics_done(context, kind) {
  if (kind == interop::SemaphoreKind::Binary) m_cuda_done.emplace(context, kind);
  m_cuda_graphics_done = import_semaphore(m_graphics_done);
  if (m_cuda_done) m_cuda_cuda_done = import_semaphore(*m_cuda_done);
}

PassSync CudaSemaphores::cubes_pass() {
  PassSync sync;
  if (m_kind == interop::SemaphoreKind::Timeline) {
    m_graphics_value = ++m_value;
    sync.signal.push_back({m_graphics_done.get(), m_graphics_value});
  } else {
    sync.signal.push_back({m_graphics_done.get(), 0});
    m_graphics_signalled = true;
  }
  return sync;
}

void CudaSemaphores::cuda_acquire(cudaStream_t stream) {
  if (m_kind == interop::SemaphoreKind::Timeline) {
    // Value 0 before the first frame's graphics pass: already reached.
    m_cuda_graphics_done.wait(stream, m_graphics_value);
  } else if (m_graphics_signalled) {
    m_cuda_graphics_done.wait(stream);
    m_graphics_signalled = false;
  }
}

void CudaSemaphores::cuda_release(cudaStream_t stream) {
  if (m_kind == interop::SemaphoreKind::Timeline) {
    m_cuda_graphics_done.signal(stream, ++m_value);
  } else {
    m_cuda_cuda_done.signal(stream);
  }
}

PassSync CudaSemaphores::frame_pass(bool prepared) {
  PassSync sync;
  if (m_kind == interop::SemaphoreKind::Timeline) {
    sync.wait.push_back({m_graphics_done.get(), m_value});
    if (!prepared) {
      m_graphics_value = ++m_value;
      sync.signal.push_back({m_graphics_done.get(), m_graphics_value});
    }
  } else {
    sync.wait.push_back({m_cuda_done->get(), 0});
    if (!prepared) {
      sync.signal.push_back({m_graphics_done.get(), 0});
      m_graphics_signalled = true;
    }
  }
  return sync;
}

std::vector<MemoryToImport> memory_to_import(const ExportMemory& memory) {
  std::vector<MemoryToImport> imports;
  for (size_t index = 0; index < memory.resources().size(); ++index) {
    const ExportedResource& resource = memory.resources()[index];
    MemoryToImport import;
    import.desc = resource.desc;
    import.allocation_size = resource.allocation_size;
    import.dedicated = resource.dedicated;
    import.export_fd = [&memory, index ] { return memory.export_fd(index);
  };
  imports.push_back(std::move(import));
}
return imports;
}  // namespace lab::vulkan

CudaImports::CudaImports(const std::vector<MemoryToImport>& memory) {
  m_imported.resize(memory.size());
  m_views.resize(memory.size());
  for (size_t index = 0; index < memory.size(); ++index) {
    const MemoryToImport& resource = memory[index];
    const bool image = resource.desc.kind == ResourceKind::Texture2D;
    Imported& imported = m_imported[index];
    imported.memory = import_fd(resource.export_fd(), [&](int owned_fd) {
      interop::ExternalMemoryDesc desc;
      desc.type = interop::ExternalHandleType::OpaqueFd;
      desc.fd = owned_fd;
      desc.size = resource.allocation_size;
      desc.dedicated = resource.dedicated;
      return interop::ExternalMemory(desc);
    });
    CudaResourceView& view = m_views[index];
    view.bytes = resource.desc.bytes;
    if (resource.linear) {
      imported.buffer = imported.memory.map_buffer(0, resource.desc.bytes);
      view = linear_view(imported.buffer.data(), resource.desc);
      continue;
    }
    if (!image) {
      imported.buffer = imported.memory.map_buffer(0, resource.desc.bytes);
      view.pointer = imported.buffer.data();
      continue;
    }
    // Exactly the VkImage: RGBA8 UNORM, width x height, one level; it is a colour attachment, and the
    // kernels write it through surfaces.
    interop::MipmappedArrayDesc array;
    array.format = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    array.extent = {static_cast<size_t>(resource.desc.width), static_cast<size_t>(resource.desc.height), 0};
    array.levels = 1;
    array.flags = cudaArraySurfaceLoadStore | cudaArrayColorAttachment;
    imported.array = imported.memory.map_mipmapped_array(array);
    if (resource.desc.role == ResourceRole::Output) {
      imported.surface = interop::SurfaceObject(imported.array.level(0));
      view.surface = imported.surface.get();
    } else {
      interop::TextureObjectDesc texture;
      texture.read_mode = cudaReadModeNormalizedFloat;  // RGBA8 texels arrive as float4 in [0, 1]
      imported.texture = interop::TextureObject(imported.array.level(0), texture);
      view.texture = imported.texture.get();
    }
  }
}

}  // namespace lab::vulkan
