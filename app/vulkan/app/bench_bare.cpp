// app/vulkan/app/bench_bare.cpp — the bare external, exported and buffer loops (bench_bare.hpp). Deliberately
// raw: no interop:: types (but the FD the renderer's import takes), no CudaLink, no Mode, no FrameTimers;
// only what a frame cannot do without (the hand-off's submission is builders.hpp's TimelineSubmit, the
// struct Context::submit fills too; the exported loop's allocation properties are raw_vmm.hpp's). Cleanup is
// by hand in reverse order, once the device and the stream are idle; an FD whose import failed is closed
// here, one whose import succeeded belongs to the importer (as the CUDA Runtime API and
// VK_KHR_external_memory_fd state for opaque FDs).
#include "app/vulkan/app/bench_bare.hpp"
#include "app/bench/raw_imports.hpp"
#include "app/bench/raw_vmm.hpp"

#include "app/os/os.hpp"
#include "app/timing/bench_timing.hpp"
#include "app/vulkan/builders.hpp"
#include "app/vulkan/cuda_link.hpp"
#include "app/vulkan/device.hpp"
#include "app/vulkan/renderer.hpp"
#include "interop/error.hpp"
#include "kernels/common.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace lab::vulkan {
namespace {

// What the loop created in CUDA, released in reverse order by its destructor.
struct RawImports : bench::RawImports {
  cudaExternalSemaphore_t semaphore = nullptr;
  cudaStream_t stream = nullptr;

  RawImports() = default;
  RawImports(const RawImports&) = delete;
  RawImports& operator=(const RawImports&) = delete;
  ~RawImports() {
    if (stream) cudaStreamSynchronize(stream);
    release();
    if (semaphore) cudaDestroyExternalSemaphore(semaphore);
    if (stream) cudaStreamDestroy(stream);
  }
};

// What the exported loop allocated with cuMem*, released in reverse order by its destructor: the
// renderer's imports of it first (the importer before the exporter).
struct RawVmm {
  struct Allocation {
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr address = 0;
    size_t size = 0;
    bool reserved = false, mapped = false;
  };
  RawVmmCalls calls;
  Renderer* importer = nullptr;
  std::vector<Allocation> allocations;

  RawVmm() = default;
  RawVmm(const RawVmm&) = delete;
  RawVmm& operator=(const RawVmm&) = delete;
  ~RawVmm() {
    cudaDeviceSynchronize();
    try {
      if (importer) importer->destroy_resources();  // waits for the device to be idle first
    } catch (const std::exception& error) {
      std::fprintf(stderr, "bench: bare exported loop teardown: %s\n", error.what());
    }
    for (auto it = allocations.rbegin(); it != allocations.rend(); ++it) {
      if (it->mapped) calls.unmap(it->address, it->size);
      if (it->reserved) calls.address_free(it->address, it->size);
      calls.release(it->handle);
    }
  }
};

// The CUDA device the benchmark runs on (--device, else 0), made current; throws where there is none.
int select_cuda_device(const Options& options) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw std::runtime_error("no CUDA device");
  }
  const int device = options.device.value_or(0);
  INTEROP_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

// A non-blocking stream and `timeline` imported into CUDA, both `cuda`'s to release. An FD whose import
// failed is closed here; one whose import succeeded is CUDA's.
void import_stream_and_timeline(RawImports& cuda, const ExportableSemaphore& timeline) {
  INTEROP_CUDA_CHECK(cudaStreamCreateWithFlags(&cuda.stream, cudaStreamNonBlocking));
  cudaExternalSemaphoreHandleDesc semaphore_desc{};
  semaphore_desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
  semaphore_desc.handle.fd = timeline.export_fd();
  if (const cudaError_t error = cudaImportExternalSemaphore(&cuda.semaphore, &semaphore_desc);
      error != cudaSuccess) {
    os::close_file(semaphore_desc.handle.fd);
    INTEROP_CUDA_CHECK(error);
  }
}

}  // namespace

std::vector<double> time_bare_loop(const Options& options, SceneId scene_id, Extent extent, BareFrame* last,
                                   BareLoop loop) {
  const int device = select_cuda_device(options);
  const Uuid uuid = cuda_device_uuid(device);
  Context context(&uuid);
  Renderer renderer(context, extent);
  const std::unique_ptr<SceneCompute> scene = create_scene_compute(scene_id, options.filter);
  const DrawPlan plan = scene->draw_plan();
  const bool exported = loop == BareLoop::Exported;
  renderer.create_resources(scene->resources(extent), !exported);
  // The buffer mode's placement: every image in a storage buffer of its own, exported; the frame pass draws
  // the image from it (and the cubes pass copies its target into it).
  if (loop == BareLoop::Buffer) renderer.place_linear_images(/*exportable=*/true);
  ExportableSemaphore timeline(context, interop::SemaphoreKind::Timeline);
  std::vector<CudaResourceView> views;
  {
    RawImports cuda;
    import_stream_and_timeline(cuda, timeline);
    std::optional<RawVmm> vmm;
    if (exported) {
      // CUDA's memory, exported as an FD each, imported by the renderer; the kernels see it linear.
      vmm.emplace();
      vmm->importer = &renderer;
      const CUmemAllocationProp properties = exportable_allocation(device);
      const size_t granularity = minimum_granularity(vmm->calls, properties);
      const CUmemAccessDesc access = read_write_access(properties);
      for (size_t index = 0; index < renderer.resources().size(); ++index) {
        const ResourceDesc desc = renderer.resources()[index].desc;
        const size_t size = (desc.bytes + granularity - 1) / granularity * granularity;
        CUmemGenericAllocationHandle handle = 0;
        check_cu(vmm->calls.create(&handle, size, &properties, 0), "cuMemCreate");
        RawVmm::Allocation& allocation = vmm->allocations.emplace_back();
        allocation.handle = handle;
        allocation.size = size;
        check_cu(vmm->calls.reserve(&allocation.address, allocation.size, granularity, 0, 0),
                 "cuMemAddressReserve");
        allocation.reserved = true;
        check_cu(vmm->calls.map(allocation.address, allocation.size, 0, allocation.handle, 0), "cuMemMap");
        allocation.mapped = true;
        check_cu(vmm->calls.set_access(allocation.address, allocation.size, &access, 1), "cuMemSetAccess");
        int fd = -1;
        check_cu(
            vmm->calls.export_handle(&fd, allocation.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            "cuMemExportToShareableHandle");
        renderer.import_memory(static_cast<int>(index), interop::FileDescriptor(fd), allocation.size);
        views.push_back(
            linear_view(reinterpret_cast<void*>(static_cast<uintptr_t>(allocation.address)), desc));
      }
    }
    for (size_t index = 0; !exported && index < renderer.resources().size(); ++index) {
      const Resource& resource = renderer.resources()[index];
      // The buffer loop's images: their storage buffer's memory, a dedicated allocation of its own.
      const bool linear = resource.shown_from_linear && resource.linear_exportable;
      cudaExternalMemoryHandleDesc memory_desc{};
      memory_desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
      memory_desc.handle.fd = linear ? renderer.export_linear_fd(static_cast<int>(index))
                                     : renderer.export_fd(static_cast<int>(index));
      memory_desc.size = linear ? resource.linear_allocation_size : resource.allocation_size;
      memory_desc.flags = linear || resource.dedicated ? cudaExternalMemoryDedicated : 0;
      cudaExternalMemory_t memory = nullptr;
      if (const cudaError_t error = cudaImportExternalMemory(&memory, &memory_desc); error != cudaSuccess) {
        os::close_file(memory_desc.handle.fd);
        INTEROP_CUDA_CHECK(error);
      }
      cuda.memories.push_back(memory);
      CudaResourceView view;
      view.bytes = resource.desc.bytes;
      if (resource.desc.kind == ResourceKind::Buffer || linear) {
        cudaExternalMemoryBufferDesc buffer{};
        buffer.size = resource.desc.bytes;
        INTEROP_CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&view.pointer, memory, &buffer));
        cuda.pointers.push_back(view.pointer);
        if (linear) view = linear_view(view.pointer, resource.desc);  // rows tightly packed
      } else {
        cuda.view_as_array(memory, resource.desc, view);
      }
      views.push_back(view);
    }

    uint64_t value = 0;
    const glm::mat4 view_projection = wave_view_projection(extent);
    std::vector<double> wall = time_frames(options.bench_frames, [&](long long index) {
      const FrameInfo frame{index, kernels::time_of_frame(index), extent};
      if (last) last->index = index;
      uint64_t graphics_done = value;  // the previous frame pass's signal, or 0
      if (plan.cubes_target >= 0) {
        graphics_done = ++value;
        renderer.draw_cubes(plan.cubes_target, cubes_view(extent, frame.time),
                            {{}, {{timeline.get(), graphics_done}}});
      }
      cudaExternalSemaphoreWaitParams wait{};
      wait.params.fence.value = graphics_done;
      INTEROP_CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&cuda.semaphore, &wait, 1, cuda.stream));
      scene->compute_cuda(frame, views, cuda.stream);
      cudaExternalSemaphoreSignalParams signal{};
      signal.params.fence.value = ++value;
      INTEROP_CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&cuda.semaphore, &signal, 1, cuda.stream));
      PassSync frame_sync{{{timeline.get(), value}}, {}};
      if (plan.cubes_target < 0)
        frame_sync.signal.push_back({timeline.get(), ++value});  // its draw reads what CUDA writes next
      renderer.draw_frame(plan, view_projection, frame_sync);
      renderer.wait_idle();
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(cuda.stream));
    });
    renderer.wait_idle();
    if (last) last->image = renderer.read_frame(plan);
    return wall;  // ~RawImports releases CUDA's side before the semaphore and the renderer's memory go
  }
}

std::vector<double> time_handoff(const Options& options) {
  const Uuid uuid = cuda_device_uuid(select_cuda_device(options));
  Context context(&uuid);
  ExportableSemaphore timeline(context, interop::SemaphoreKind::Timeline);
  RawImports cuda;
  import_stream_and_timeline(cuda, timeline);
  // A submission of no command buffers that waits on and/or signals the timeline (0: neither).
  const auto submit = [&](uint64_t wait_value, uint64_t signal_value) {
    const TimelineSubmit info(timeline.get(), wait_value, signal_value);
    check(vkQueueSubmit(context.queue(), 1, info.info(), VK_NULL_HANDLE), "vkQueueSubmit (hand-off)");
  };
  uint64_t value = 0;
  std::vector<double> wall = time_frames(options.bench_frames, [&](long long) {
    submit(0, ++value);  // Vulkan hands over
    cudaExternalSemaphoreWaitParams wait{};
    wait.params.fence.value = value;
    INTEROP_CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&cuda.semaphore, &wait, 1, cuda.stream));
    cudaExternalSemaphoreSignalParams signal{};
    signal.params.fence.value = ++value;  // CUDA hands back
    INTEROP_CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&cuda.semaphore, &signal, 1, cuda.stream));
    submit(value, 0);
    check(vkQueueWaitIdle(context.queue()), "vkQueueWaitIdle");
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(cuda.stream));
  });
  return wall;  // ~RawImports releases CUDA's semaphore before Vulkan's goes
}

}  // namespace lab::vulkan
