// app/gl/app/bench_external.cpp — GL's external and exported modes' own loops (bench_loops.hpp), written with
// raw calls as app/gl/mode_external.cpp does its frame but with none of its objects: no vulkan::Renderer, no
// CudaLink or CudaSemaphores, no interop:: allocation. A headless Vulkan device on the CUDA device's GPU
// (vulkan::Context: the device alone) exports the semaphores (vkCreateSemaphore, vkGetSemaphoreFdKHR: one
// timeline, or with binary semaphores "graphics done" and "CUDA done") and, for external, the memory
// (vkCreateImage / vkCreateBuffer as the mode's renderer makes them, from app/vulkan/builders.hpp's
// create-infos, a dedicated exportable vkAllocateMemory each, vkGetMemoryFdKHR); for exported, CUDA allocates
// it (cuMemCreate, mapped, exported as a POSIX FD). GL imports the memory (glImportMemoryFdEXT through
// gl_external's raw helpers) and the scene's textures and buffers are placed in it, as the mode places them;
// CUDA imports Vulkan's memory (cudaImportExternalMemory) or writes its own. Each frame: GL signals "graphics
// done" (the cubes, the last show) -> cudaWaitExternalSemaphoresAsync -> the kernels ->
// cudaSignalExternalSemaphoresAsync -> GL waits on "CUDA done" -> the show pass, all finished. Teardown by
// hand, in the mode's order: GL's objects in the memory, GL's imports, CUDA's, then Vulkan's (off GL's
// thread, as vulkan::on_own_thread says why).
#include "app/gl/app/bench_loops.hpp"

#include "app/bench/raw_imports.hpp"
#include "app/bench/raw_vmm.hpp"
#include "app/gl/app/app.hpp"
#include "app/gl/gl_external.hpp"
#include "app/os/os.hpp"
#include "app/timing/bench_timing.hpp"
#include "app/vulkan/builders.hpp"
#include "app/vulkan/cuda_import.hpp"
#include "app/vulkan/device.hpp"
#include "interop/error.hpp"
#include "kernels/common.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::gl {
namespace {

// As the mode's Vulkan renderer creates the scene's resources (app/vulkan/renderer.cpp).
constexpr VkBufferUsageFlags kBufferUsage =
    VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr VkImageUsageFlags kImageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                          VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                          VK_IMAGE_USAGE_TRANSFER_DST_BIT;

// Everything the loop made, released by hand in reverse order once GL and CUDA are idle.
struct RawExternal {
  App* app = nullptr;
  bool placed = false;  // the scene's GL objects are in the imported memory
  cudaStream_t stream = nullptr;
  // Vulkan's side.
  std::unique_ptr<vulkan::Context> context;
  std::vector<VkImage> images;
  std::vector<VkBuffer> buffers;
  std::vector<VkDeviceMemory> memory;
  std::vector<VkSemaphore> semaphores;  // [graphics done, CUDA done]; a timeline is both
  // CUDA's own memory (exported).
  std::optional<vulkan::RawVmmCalls> vmm;
  struct Allocation {
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr address = 0;
    size_t size = 0;
    bool reserved = false, mapped = false;
  };
  std::vector<Allocation> allocations;
  // CUDA's imports.
  bench::RawImports cuda;
  std::vector<cudaExternalSemaphore_t> cuda_semaphores;  // as `semaphores`
  // GL's imports.
  std::vector<GlMemoryObject> gl_memory;
  std::vector<GlSemaphore> gl_semaphores;  // as `semaphores`

  RawExternal() = default;
  RawExternal(const RawExternal&) = delete;
  RawExternal& operator=(const RawExternal&) = delete;
  ~RawExternal() {
    glFinish();
    if (stream) cudaStreamSynchronize(stream);
    try {
      if (placed) app->renderer().place_resources({});  // GL's objects in the memory go first
    } catch (const std::exception& error) {
      std::fprintf(stderr, "bench: external ref teardown: %s\n", error.what());
    }
    gl_semaphores.clear();
    gl_memory.clear();
    for (cudaExternalSemaphore_t semaphore : cuda_semaphores) cudaDestroyExternalSemaphore(semaphore);
    cuda.release();  // before the memory it imports
    for (auto it = allocations.rbegin(); it != allocations.rend(); ++it) {
      if (it->mapped) vmm->unmap(it->address, it->size);
      if (it->reserved) vmm->address_free(it->address, it->size);
      vmm->release(it->handle);
    }
    if (!context) return;
    vulkan::on_own_thread([this] {
      const VkDevice device = context->device();
      for (VkSemaphore semaphore : semaphores) vkDestroySemaphore(device, semaphore, nullptr);
      for (VkImage image : images) vkDestroyImage(device, image, nullptr);
      for (VkBuffer buffer : buffers) vkDestroyBuffer(device, buffer, nullptr);
      for (VkDeviceMemory allocation : memory) vkFreeMemory(device, allocation, nullptr);
      context.reset();
      return 0;
    });
  }
};

int export_memory(const vulkan::Context& context, VkDeviceMemory memory) {
  const auto get_fd =
      reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(context.device(), "vkGetMemoryFdKHR"));
  if (get_fd == nullptr) throw std::runtime_error("Vulkan: vkGetMemoryFdKHR is missing");
  auto info = vulkan::make<VkMemoryGetFdInfoKHR>(VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR);
  info.memory = memory;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  vulkan::check(get_fd(context.device(), &info, &fd), "vkGetMemoryFdKHR");
  return fd;
}

int export_semaphore(const vulkan::Context& context, VkSemaphore semaphore) {
  const auto get_fd =
      reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(context.device(), "vkGetSemaphoreFdKHR"));
  if (get_fd == nullptr) throw std::runtime_error("Vulkan: vkGetSemaphoreFdKHR is missing");
  auto info = vulkan::make<VkSemaphoreGetFdInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR);
  info.semaphore = semaphore;
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  vulkan::check(get_fd(context.device(), &info, &fd), "vkGetSemaphoreFdKHR");
  return fd;
}

// One exportable semaphore of `timeline` kind, imported by GL and by CUDA.
void make_semaphore(RawExternal& raw, bool timeline) {
  const VkSemaphore semaphore = vulkan::create_semaphore(
      raw.context->device(), timeline ? VK_SEMAPHORE_TYPE_TIMELINE : VK_SEMAPHORE_TYPE_BINARY,
      /*exportable=*/true, "vkCreateSemaphore (exportable)");
  raw.semaphores.push_back(semaphore);
  raw.gl_semaphores.push_back(import_semaphore_fd(export_semaphore(*raw.context, semaphore), timeline));
  cudaExternalSemaphoreHandleDesc desc{};
  desc.type =
      timeline ? cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd : cudaExternalSemaphoreHandleTypeOpaqueFd;
  desc.handle.fd = export_semaphore(*raw.context, semaphore);
  cudaExternalSemaphore_t imported = nullptr;
  if (const cudaError_t error = cudaImportExternalSemaphore(&imported, &desc); error != cudaSuccess) {
    os::close_file(desc.handle.fd);
    INTEROP_CUDA_CHECK(error);
  }
  raw.cuda_semaphores.push_back(imported);
}

// Vulkan's memory for `spec` (a dedicated exportable allocation of the image or buffer the mode's renderer
// would make), imported by GL (`gl_names` gets its memory object) and by CUDA (`view`).
void make_vulkan_memory(RawExternal& raw, const gl::Resource& spec, std::vector<GLuint>& gl_names,
                        CudaResourceView& view) {
  const VkDevice device = raw.context->device();
  const bool image = spec.desc.kind == ResourceKind::Texture2D;
  VkMemoryRequirements requirements{};
  auto dedicated =
      vulkan::make<VkMemoryDedicatedAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
  if (image) {
    auto external =
        vulkan::make<VkExternalMemoryImageCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO);
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkImageCreateInfo create =
        vulkan::image_create_info({spec.desc.width, spec.desc.height}, VK_FORMAT_R8G8B8A8_UNORM, kImageUsage);
    create.pNext = &external;
    VkImage handle = VK_NULL_HANDLE;
    vulkan::check(vkCreateImage(device, &create, nullptr, &handle), "vkCreateImage (exportable)");
    raw.images.push_back(handle);
    vkGetImageMemoryRequirements(device, handle, &requirements);
    dedicated.image = handle;
  } else {
    auto external =
        vulkan::make<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo create = vulkan::buffer_create_info(spec.desc.bytes, kBufferUsage);
    create.pNext = &external;
    VkBuffer handle = VK_NULL_HANDLE;
    vulkan::check(vkCreateBuffer(device, &create, nullptr, &handle), "vkCreateBuffer (exportable)");
    raw.buffers.push_back(handle);
    vkGetBufferMemoryRequirements(device, handle, &requirements);
    dedicated.buffer = handle;
  }
  auto export_info = vulkan::make<VkExportMemoryAllocateInfo>(VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO);
  export_info.pNext = &dedicated;
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto allocate = vulkan::make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  allocate.pNext = &export_info;
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex =
      raw.context->memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  vulkan::check(vkAllocateMemory(device, &allocate, nullptr, &memory), "vkAllocateMemory (exportable)");
  raw.memory.push_back(memory);
  if (image)
    vulkan::check(vkBindImageMemory(device, dedicated.image, memory, 0), "vkBindImageMemory");
  else
    vulkan::check(vkBindBufferMemory(device, dedicated.buffer, memory, 0), "vkBindBufferMemory");

  raw.gl_memory.push_back(import_memory_fd(export_memory(*raw.context, memory), requirements.size, true));
  gl_names.push_back(raw.gl_memory.back().get());

  cudaExternalMemoryHandleDesc memory_desc{};
  memory_desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
  memory_desc.handle.fd = export_memory(*raw.context, memory);
  memory_desc.size = requirements.size;
  memory_desc.flags = cudaExternalMemoryDedicated;
  cudaExternalMemory_t imported = nullptr;
  if (const cudaError_t error = cudaImportExternalMemory(&imported, &memory_desc); error != cudaSuccess) {
    os::close_file(memory_desc.handle.fd);
    INTEROP_CUDA_CHECK(error);
  }
  raw.cuda.memories.push_back(imported);
  view = CudaResourceView{};
  view.bytes = spec.desc.bytes;
  if (!image) {
    cudaExternalMemoryBufferDesc buffer{};
    buffer.size = spec.desc.bytes;
    INTEROP_CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&view.pointer, imported, &buffer));
    raw.cuda.pointers.push_back(view.pointer);
    return;
  }
  raw.cuda.view_as_array(imported, spec.desc, view);
}

// CUDA's memory for `spec` (cuMemCreate, mapped, zeroed once as the mode zeroes it), exported to GL.
void make_cuda_memory(RawExternal& raw, const gl::Resource& spec, int device, std::vector<GLuint>& gl_names,
                      CudaResourceView& view) {
  if (!raw.vmm) raw.vmm.emplace();
  const CUmemAllocationProp properties = vulkan::exportable_allocation(device);
  const size_t granularity = vulkan::minimum_granularity(*raw.vmm, properties);
  RawExternal::Allocation& allocation = raw.allocations.emplace_back();
  allocation.size = (spec.desc.bytes + granularity - 1) / granularity * granularity;
  vulkan::check_cu(raw.vmm->create(&allocation.handle, allocation.size, &properties, 0), "cuMemCreate");
  vulkan::check_cu(raw.vmm->reserve(&allocation.address, allocation.size, granularity, 0, 0),
                   "cuMemAddressReserve");
  allocation.reserved = true;
  vulkan::check_cu(raw.vmm->map(allocation.address, allocation.size, 0, allocation.handle, 0), "cuMemMap");
  allocation.mapped = true;
  const CUmemAccessDesc access = vulkan::read_write_access(properties);
  vulkan::check_cu(raw.vmm->set_access(allocation.address, allocation.size, &access, 1), "cuMemSetAccess");
  void* data = reinterpret_cast<void*>(static_cast<uintptr_t>(allocation.address));
  INTEROP_CUDA_CHECK(cudaMemsetAsync(data, 0, spec.desc.bytes, raw.stream));
  int fd = -1;
  vulkan::check_cu(
      raw.vmm->export_handle(&fd, allocation.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
      "cuMemExportToShareableHandle");
  raw.gl_memory.push_back(import_memory_fd(fd, allocation.size, false));
  gl_names.push_back(raw.gl_memory.back().get());
  view = linear_view(data, spec.desc);
}

// The loop itself, for `exported` (CUDA's memory, images in buffers) or not (Vulkan's memory).
Measurement semaphore_ordered_loop(App& app, std::optional<long long> frames, bool exported,
                                   LoopFrame* last) {
  park(app);
  FrameSource& scene = app.scene();
  const bool timeline = app.semaphores() == interop::SemaphoreKind::Timeline;
  RawExternal raw;
  raw.app = &app;
  raw.stream = app.cuda_stream();
  const vulkan::Uuid uuid = vulkan::cuda_device_uuid(app.cuda_device());
  raw.context = vulkan::on_own_thread([&uuid] { return std::make_unique<vulkan::Context>(&uuid); });
  make_semaphore(raw, timeline);
  if (!timeline) make_semaphore(raw, false);  // "CUDA done", apart from "graphics done"

  const std::vector<gl::Resource> specs = app.renderer().resources();
  std::vector<GLuint> gl_names;
  std::vector<CudaResourceView> views(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    if (exported)
      make_cuda_memory(raw, specs[i], app.cuda_device(), gl_names, views[i]);
    else
      make_vulkan_memory(raw, specs[i], gl_names, views[i]);
  }
  INTEROP_CUDA_CHECK(cudaStreamSynchronize(raw.stream));
  app.renderer().place_resources({&gl_names, /*linear_images=*/exported});
  raw.placed = true;
  std::vector<GLuint> gl_buffers, gl_textures;  // as the semaphore calls list them
  for (const gl::Resource& resource : app.renderer().resources())
    (resource.desc.kind == ResourceKind::Buffer || resource.linear ? gl_buffers : gl_textures)
        .push_back(resource.gl_name);

  const GlSemaphore& gl_graphics_done = raw.gl_semaphores.front();
  const GlSemaphore& gl_cuda_done = raw.gl_semaphores.back();
  const cudaExternalSemaphore_t cuda_graphics_done = raw.cuda_semaphores.front();
  cudaExternalSemaphore_t cuda_done = raw.cuda_semaphores.back();
  uint64_t value = 0;
  const Extent extent = app.platform().framebuffer_extent();
  const std::vector<double> wall = time_frames(frames, [&](long long index) {
    const FrameInfo frame{index, kernels::time_of_frame(index), extent};
    if (last) last->index = index;
    draw_input(app, frame);
    // GL's commands so far (the cubes, the last frame's show) before CUDA touches the memory.
    const uint64_t graphics_done = timeline ? ++value : 0;
    signal_semaphore(gl_graphics_done, graphics_done, gl_buffers, gl_textures, GL_LAYOUT_GENERAL_EXT);
    cudaExternalSemaphoreWaitParams wait{};
    wait.params.fence.value = graphics_done;
    INTEROP_CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&cuda_graphics_done, &wait, 1, raw.stream));
    scene.compute_cuda(frame, views, raw.stream);
    cudaExternalSemaphoreSignalParams signal{};
    signal.params.fence.value = timeline ? ++value : 0;
    INTEROP_CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&cuda_done, &signal, 1, raw.stream));
    wait_semaphore(gl_cuda_done, signal.params.fence.value, gl_buffers, gl_textures, GL_LAYOUT_GENERAL_EXT);
    app.show(frame);
    finish_frame(app);
  });
  if (last) last->image = app.read_frame();  // while the scene's objects are still in the memory
  return summarize(exported ? "exported ref" : "external ref", bench::Role::Own, wall);
}

}  // namespace

std::optional<Measurement> external_loop(App& app, std::optional<long long> frames, LoopFrame* last) {
  return semaphore_ordered_loop(app, frames, false, last);
}

std::optional<Measurement> exported_loop(App& app, std::optional<long long> frames, LoopFrame* last) {
  return semaphore_ordered_loop(app, frames, true, last);
}

}  // namespace lab::gl
