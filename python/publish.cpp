// python/publish.cpp — the C ABI of interop_lab.Publisher and interop_lab.Subscriber
// (python/interop_lab/publish.py): a job's frames published to viewers in other processes through
// interop::Publisher (interop/publish.hpp), and a small subscriber that copies frames out to host memory
// (device slots imported into its CUDA; for scripts and tests, the viewer is interop-lab --attach).
//
// A slot holds the caller's array bytes as they are, rows packed (interop/publish_protocol.hpp, "What a
// slot holds"). show: one copy into a free slot (device slots: cudaMemcpy2DAsync queued on the caller's
// stream, announced by the publisher's helper thread once the stream reaches it; host slots: memcpy), or
// none when every slot is being read (counted as dropped). frame_begin hands out a free slot itself (or a
// scratch buffer when none is free: the frame is written, then not shown).
//
// Every function returns 0, or -1 with the reason in ilab_last_error(), as bridge.cpp's do.
#include "interop/publish.hpp"
#include "interop/error.hpp"
#include "python/errors.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using ilab::guarded;

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument(message);
}

// Device memory of our own, freed with the handle.
struct DeviceBuffer {
  void* data = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (data) INTEROP_CUDA_REPORT(cudaFree(data));
  }
};

struct PublishHandle {
  std::unique_ptr<interop::Publisher> publisher;
  interop::SlotMemory memory = interop::SlotMemory::Host;
  int device = -1;
  uint64_t next_frame = 1;
  // Inside a frame block: the slot handed out, or the scratch memory when none was free.
  bool in_frame = false;
  interop::Publisher::Slot slot;
  std::vector<uint8_t> host_scratch;
  DeviceBuffer device_scratch;

  size_t frame_bytes() const {
    const interop::FrameFormat& format = publisher->format();
    return format.pitch * format.height;
  }
  // Makes the publisher's device current for a CUDA call, and gives the caller's back.
  struct OnDevice {
    int previous = -1;
    explicit OnDevice(int device) {
      if (device < 0) return;
      INTEROP_CUDA_CHECK(cudaGetDevice(&previous));
      if (previous != device) INTEROP_CUDA_CHECK(cudaSetDevice(device));
    }
    ~OnDevice() {
      int current = -1;
      if (previous >= 0 && cudaGetDevice(&current) == cudaSuccess && current != previous)
        INTEROP_CUDA_REPORT(cudaSetDevice(previous));
    }
    OnDevice(const OnDevice&) = delete;
    OnDevice& operator=(const OnDevice&) = delete;
  };
};

PublishHandle& publish_handle(void* handle) {
  require(handle != nullptr, "this interop_lab.Publisher is closed");
  return *static_cast<PublishHandle*>(handle);
}

void require_outside_frame(const PublishHandle& handle, const char* what) {
  require(!handle.in_frame, std::string(what) +
                                " inside a `with publisher.frame()` block: the block's slot is "
                                "published when it ends; call it after the block");
}

struct SubscribeHandle {
  std::unique_ptr<interop::Subscriber> subscriber;
  // Device slots, imported into this process's CUDA at the first frame of each (as a viewer imports them).
  struct Imported {
    cudaExternalMemory_t memory = nullptr;
    void* data = nullptr;
  };
  std::vector<Imported> imported;

  SubscribeHandle() = default;
  SubscribeHandle(const SubscribeHandle&) = delete;
  SubscribeHandle& operator=(const SubscribeHandle&) = delete;
  ~SubscribeHandle() { forget_imports(); }
  void forget_imports() {
    for (Imported& slot : imported) {
      if (slot.data) INTEROP_CUDA_REPORT(cudaFree(slot.data));
      if (slot.memory) INTEROP_CUDA_REPORT(cudaDestroyExternalMemory(slot.memory));
    }
    imported.clear();
  }
  const void* device_slot(size_t index) {
    imported.resize(subscriber->slots().size());
    Imported& slot = imported[index];
    if (slot.data) return slot.data;
    const interop::Subscriber::SlotHandle& handle = subscriber->slots()[index];
    cudaExternalMemoryHandleDesc import = {};
    import.type = cudaExternalMemoryHandleTypeOpaqueFd;
    import.handle.fd = ::dup(handle.fd);  // CUDA takes the descriptor over when the import succeeds
    import.size = handle.size;
    const cudaError_t imported_status = cudaImportExternalMemory(&slot.memory, &import);
    if (imported_status != cudaSuccess) ::close(import.handle.fd);
    INTEROP_CUDA_CHECK(imported_status);
    cudaExternalMemoryBufferDesc buffer = {};
    buffer.size = handle.size;
    INTEROP_CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&slot.data, slot.memory, &buffer));
    return slot.data;
  }
};

SubscribeHandle& subscribe_handle(void* handle) {
  require(handle != nullptr, "this interop_lab.Subscriber is closed");
  return *static_cast<SubscribeHandle*>(handle);
}

void copy_text(char* target, size_t size, const std::string& text) {
  std::snprintf(target, size, "%s", text.c_str());
}

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

// What Python reads of a publisher or subscriber after opening it (publish.py's PublishInfo).
struct ilab_publish_info {
  int width, height, channels, dtype;  // dtype: interop::DType
  int memory;                          // interop::SlotMemory: 0 host, 1 device
  int device;                          // the CUDA device of device slots; -1 for host slots
  int slot_count;
  int publisher_pid;
  uint64_t pitch, slot_size;
  char socket_path[256];
  char notice[512];  // what the publisher's constructor did ("took over the stale socket ..."), or ""
};

struct ilab_publish_counts {
  uint64_t frames, dropped;
  int viewers;
  double frames_per_second;
};

struct ilab_published {
  char name[65];
  int width, height, channels, dtype, memory, publisher_pid, viewers;
  uint64_t frames, dropped;
  double frames_per_second;
};

// memory: 0 host (memfd), 1 device (cuMemCreate on `device`); slots: 1 to 16.
int ilab_publish_open(const char* name, int width, int height, int channels, int dtype, int memory,
                      int device, int slots, void** handle) {
  return guarded([&] {
    *handle = nullptr;
    require(width > 0 && height > 0,
            "shape: " + std::to_string(height) + "x" + std::to_string(width) + ": each edge at least 1");
    require(dtype >= 0 && dtype <= static_cast<int>(interop::DType::Float32),
            "dtype " + std::to_string(dtype) + " is not an interop::DType");
    require(memory == 0 || memory == 1, "memory: 0 (host) or 1 (device)");
    require(slots >= 1, "slots: " + std::to_string(slots) + ": at least 1");
    auto opened = std::make_unique<PublishHandle>();
    interop::PublisherDesc desc;
    desc.name = name;
    desc.format.width = static_cast<uint32_t>(width);
    desc.format.height = static_cast<uint32_t>(height);
    desc.format.channels = static_cast<uint32_t>(channels);
    desc.format.dtype = static_cast<interop::DType>(dtype);
    desc.slot_count = static_cast<uint32_t>(slots);
    desc.memory = static_cast<interop::SlotMemory>(memory);
    desc.device = device;
    opened->memory = desc.memory;
    if (desc.memory == interop::SlotMemory::Device) {
      int count = 0;
      const cudaError_t counted = cudaGetDeviceCount(&count);
      if (counted != cudaSuccess || count == 0) {
        cudaGetLastError();
        throw std::invalid_argument(
            std::string("memory='device' needs a CUDA device (") +
            (counted != cudaSuccess ? cudaGetErrorString(counted) : "none is visible") +
            "): publish NumPy arrays with memory='host'");
      }
      opened->device = device;
      if (opened->device < 0) INTEROP_CUDA_CHECK(cudaGetDevice(&opened->device));
      desc.device = opened->device;
    }
    opened->publisher = std::make_unique<interop::Publisher>(desc);
    *handle = opened.release();
  });
}

int ilab_publish_close(void* handle) {
  return guarded([&] { delete static_cast<PublishHandle*>(handle); });
}

int ilab_publish_describe(void* handle, ilab_publish_info* info) {
  return guarded([&] {
    const PublishHandle& opened = publish_handle(handle);
    const interop::FrameFormat& format = opened.publisher->format();
    *info = {};
    info->width = static_cast<int>(format.width);
    info->height = static_cast<int>(format.height);
    info->channels = static_cast<int>(format.channels);
    info->dtype = static_cast<int>(format.dtype);
    info->memory = static_cast<int>(opened.memory);
    info->device = opened.memory == interop::SlotMemory::Device ? opened.device : -1;
    info->publisher_pid = static_cast<int>(::getpid());
    info->pitch = format.pitch;
    info->slot_size = opened.publisher->slot_size();
    copy_text(info->socket_path, sizeof(info->socket_path), opened.publisher->socket_path());
    copy_text(info->notice, sizeof(info->notice), opened.publisher->notice());
  });
}

int ilab_publish_stats(void* handle, ilab_publish_counts* stats) {
  return guarded([&] {
    const interop::PublisherStats now = publish_handle(handle).publisher->stats();
    stats->frames = now.frames_published;
    stats->dropped = now.frames_dropped;
    stats->viewers = static_cast<int>(now.viewers);
    stats->frames_per_second = now.frames_per_second;
  });
}

// One frame of host memory, `row_stride` bytes from row to row (the pixels of a row packed), copied into a
// free slot and announced. *shown: 0 when no slot was free (counted as dropped).
int ilab_publish_show_host(void* handle, const void* data, uint64_t row_stride, int* shown) {
  return guarded([&] {
    PublishHandle& opened = publish_handle(handle);
    require_outside_frame(opened, "show()");
    require(opened.memory == interop::SlotMemory::Host,
            "show(): a NumPy array for a publisher of device slots: pass a CUDA array (the slots are on CUDA "
            "device " +
                std::to_string(opened.device) + "), or publish with memory='host'");
    const interop::FrameFormat& format = opened.publisher->format();
    require(row_stride >= format.row_bytes(), "show(): rows of " + std::to_string(row_stride) +
                                                  " bytes, under a row's " +
                                                  std::to_string(format.row_bytes()));
    *shown = 0;
    const interop::Publisher::Slot slot = opened.publisher->acquire();
    if (!slot) return;
    const auto* source = static_cast<const uint8_t*>(data);
    auto* target = static_cast<uint8_t*>(slot.data);
    if (row_stride == format.pitch) {
      std::memcpy(target, source, format.pitch * format.height);
    } else {
      for (uint32_t y = 0; y < format.height; ++y)
        std::memcpy(target + y * format.pitch, source + y * row_stride, format.row_bytes());
    }
    opened.publisher->publish(slot, opened.next_frame++);
    *shown = 1;
  });
}

// One frame of CUDA memory on the publisher's device, copied into a free slot by one cudaMemcpy2DAsync queued
// on `stream`, announced once the stream reaches it (the caller never waits). *shown as above.
int ilab_publish_show_device(void* handle, uintptr_t pointer, uint64_t row_stride, uintptr_t stream,
                             int* shown) {
  return guarded([&] {
    PublishHandle& opened = publish_handle(handle);
    require_outside_frame(opened, "show()");
    require(opened.memory == interop::SlotMemory::Device,
            "show(): a CUDA array for a publisher of host slots: pass a NumPy array, or publish with "
            "memory='device' (a viewer then imports the frames on the GPU without a copy through the host)");
    const interop::FrameFormat& format = opened.publisher->format();
    require(row_stride >= format.row_bytes(), "show(): rows of " + std::to_string(row_stride) +
                                                  " bytes, under a row's " +
                                                  std::to_string(format.row_bytes()));
    *shown = 0;
    const PublishHandle::OnDevice current(opened.device);
    const interop::Publisher::Slot slot = opened.publisher->acquire();
    if (!slot) return;
    const auto queue = reinterpret_cast<cudaStream_t>(stream);
    const cudaError_t copied =
        cudaMemcpy2DAsync(slot.data, format.pitch, reinterpret_cast<const void*>(pointer), row_stride,
                          format.row_bytes(), format.height, cudaMemcpyDefault, queue);
    if (copied != cudaSuccess) {
      opened.publisher->discard(slot);  // nothing was queued into it
      INTEROP_CUDA_CHECK(copied);
    }
    opened.publisher->publish(slot, opened.next_frame++, queue);
    *shown = 1;
  });
}

// A frame written in place: *pointer is a free slot (*real 1), or scratch memory of the same layout when
// every slot is being read (*real 0: what is written there is not shown). End it with ilab_publish_frame_end.
int ilab_publish_frame_begin(void* handle, uintptr_t* pointer, int* real) {
  return guarded([&] {
    PublishHandle& opened = publish_handle(handle);
    require_outside_frame(opened, "frame()");
    opened.slot = opened.publisher->acquire();
    *real = opened.slot ? 1 : 0;
    if (opened.slot) {
      *pointer = reinterpret_cast<uintptr_t>(opened.slot.data);
    } else if (opened.memory == interop::SlotMemory::Host) {
      opened.host_scratch.resize(opened.frame_bytes());
      *pointer = reinterpret_cast<uintptr_t>(opened.host_scratch.data());
    } else {
      if (!opened.device_scratch.data) {
        const PublishHandle::OnDevice current(opened.device);
        INTEROP_CUDA_CHECK(cudaMalloc(&opened.device_scratch.data, opened.frame_bytes()));
      }
      *pointer = reinterpret_cast<uintptr_t>(opened.device_scratch.data);
    }
    opened.in_frame = true;
  });
}

// publish 1: the block's slot is announced after the work queued on `stream` so far; 0 (the block raised):
// it is given back unannounced, once `stream` is done with it.
int ilab_publish_frame_end(void* handle, int publish, uintptr_t stream) {
  return guarded([&] {
    PublishHandle& opened = publish_handle(handle);
    require(opened.in_frame, "frame_end without frame_begin");
    opened.in_frame = false;
    const interop::Publisher::Slot slot = std::exchange(opened.slot, interop::Publisher::Slot{});
    if (!slot) return;
    const auto queue = reinterpret_cast<cudaStream_t>(stream);
    if (publish) {
      const PublishHandle::OnDevice current(opened.memory == interop::SlotMemory::Device ? opened.device
                                                                                         : -1);
      opened.publisher->publish(slot, opened.next_frame++, queue);
      return;
    }
    if (opened.memory == interop::SlotMemory::Device) {
      // The block failed: waiting here is the price of giving the slot back whole.
      const PublishHandle::OnDevice current(opened.device);
      const cudaError_t synced = cudaStreamSynchronize(queue);
      opened.publisher->discard(slot);
      INTEROP_CUDA_CHECK(synced);
      return;
    }
    opened.publisher->discard(slot);
  });
}

// ---- a subscriber that copies frames out to host memory, for scripts and tests ----

int ilab_subscribe_open(const char* name, void** handle) {
  return guarded([&] {
    *handle = nullptr;
    auto opened = std::make_unique<SubscribeHandle>();
    opened->subscriber = std::make_unique<interop::Subscriber>(name);
    *handle = opened.release();
  });
}

int ilab_subscribe_close(void* handle) {
  return guarded([&] { delete static_cast<SubscribeHandle*>(handle); });
}

int ilab_subscribe_reconnect(void* handle) {
  return guarded([&] {
    SubscribeHandle& opened = subscribe_handle(handle);
    opened.forget_imports();
    opened.subscriber->reconnect();
  });
}

int ilab_subscribe_describe(void* handle, ilab_publish_info* info) {
  return guarded([&] {
    const interop::Subscriber& subscriber = *subscribe_handle(handle).subscriber;
    const interop::FrameFormat& format = subscriber.format();
    *info = {};
    info->width = static_cast<int>(format.width);
    info->height = static_cast<int>(format.height);
    info->channels = static_cast<int>(format.channels);
    info->dtype = static_cast<int>(format.dtype);
    info->memory = static_cast<int>(subscriber.memory());
    info->device = -1;
    info->slot_count = static_cast<int>(subscriber.slots().size());
    info->publisher_pid = subscriber.publisher_pid();
    info->pitch = format.pitch;
    info->slot_size = subscriber.slots().empty() ? 0 : subscriber.slots()[0].size;
  });
}

// The newest frame, waiting up to timeout_ms, copied (rows packed) into host memory `target` of `bytes`
// (width * channels * dtype size * height) and released at once. *index: its frame number, 0 when none
// came (a timeout, or the publisher is gone: ilab_subscribe_status says which).
int ilab_subscribe_next(void* handle, int timeout_ms, void* target, uint64_t bytes, uint64_t* index) {
  return guarded([&] {
    SubscribeHandle& opened = subscribe_handle(handle);
    interop::Subscriber& subscriber = *opened.subscriber;
    const interop::FrameFormat& format = subscriber.format();
    require(bytes == format.row_bytes() * format.height,
            "Subscriber.next(): a target of " + std::to_string(bytes) + " bytes, not the frame's " +
                std::to_string(format.row_bytes() * format.height));
    *index = 0;
    const auto frame = subscriber.next(std::chrono::milliseconds(std::max(timeout_ms, 0)));
    if (!frame) return;
    auto* out = static_cast<uint8_t*>(target);
    if (subscriber.memory() == interop::SlotMemory::Device) {
      const cudaError_t copied =
          cudaMemcpy2D(out, format.row_bytes(), opened.device_slot(static_cast<size_t>(frame->slot)),
                       format.pitch, format.row_bytes(), format.height, cudaMemcpyDeviceToHost);
      subscriber.release(frame->slot);
      INTEROP_CUDA_CHECK(copied);
      *index = frame->index;
      return;
    }
    const auto* in = static_cast<const uint8_t*>(frame->data);
    for (uint32_t y = 0; y < format.height; ++y)
      std::memcpy(out + y * format.row_bytes(), in + y * format.pitch, format.row_bytes());
    *index = frame->index;
    subscriber.release(frame->slot);
  });
}

// *attached 1 while the publisher is there; else `reason` says why it is gone.
int ilab_subscribe_status(void* handle, int* attached, char* reason, uint64_t size) {
  return guarded([&] {
    const interop::Subscriber& subscriber = *subscribe_handle(handle).subscriber;
    *attached = subscriber.status() == interop::Subscriber::Status::Attached ? 1 : 0;
    copy_text(reason, size, subscriber.gone_reason());
  });
}

int ilab_subscribe_skipped(void* handle, uint64_t* skipped) {
  return guarded([&] { *skipped = subscribe_handle(handle).subscriber->frames_skipped(); });
}

// The live publishers (interop::list_published): *count of them; the first `capacity` in `entries`.
int ilab_list_published(ilab_published* entries, int capacity, int* count) {
  return guarded([&] {
    const std::vector<interop::PublishedInfo> published = interop::list_published();
    *count = static_cast<int>(published.size());
    for (int i = 0; i < std::min(capacity, *count); ++i) {
      const interop::PublishedInfo& info = published[static_cast<size_t>(i)];
      ilab_published& entry = entries[i];
      entry = {};
      copy_text(entry.name, sizeof(entry.name), info.name);
      entry.width = static_cast<int>(info.format.width);
      entry.height = static_cast<int>(info.format.height);
      entry.channels = static_cast<int>(info.format.channels);
      entry.dtype = static_cast<int>(info.format.dtype);
      entry.memory = static_cast<int>(info.memory);
      entry.publisher_pid = info.publisher_pid;
      entry.viewers = static_cast<int>(info.stats.viewers);
      entry.frames = info.stats.frames_published;
      entry.dropped = info.stats.frames_dropped;
      entry.frames_per_second = info.stats.frames_per_second;
    }
  });
}

}  // extern "C"
#pragma GCC visibility pop
