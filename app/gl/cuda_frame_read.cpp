// app/gl/cuda_frame_read.cpp — the CUDA copy of app/gl/cuda_frame_read.hpp.
#include "app/gl/cuda_frame_read.hpp"

#include "app/core/text.hpp"
#include "app/os/out_of_memory.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/mapping.hpp"
#include "kernels/stripe_hash.hpp"

#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

namespace lab::gl {

CudaFrameReadBack::CudaFrameReadBack()
    : m_pool(FramePool::Hooks{[](uint8_t* pixels, size_t bytes) {
                                // Portable: page-locked for every CUDA context, so that a device switch keeps
                                // the pool.
                                INTEROP_CUDA_CHECK(cudaHostRegister(pixels, bytes, cudaHostRegisterPortable));
                              },
                              [](uint8_t* pixels, size_t) {
                                // A frame let go as the process ends, after CUDA itself: nothing is locked
                                // any more.
                                const cudaError_t unlocked = cudaHostUnregister(pixels);
                                if (unlocked != cudaSuccess && unlocked != cudaErrorCudartUnloading)
                                  INTEROP_CUDA_REPORT(unlocked);
                                cudaGetLastError();
                              }}) {}

void CudaFrameReadBack::ensure_buffers(Slot& slot, Extent extent, int device) {
  if (extent == slot.allocated && device == slot.device && slot.copied) return;
  slot.allocated = {};
  slot.copied.reset();
  slot.scratch = {};
  slot.top_first = {};
  slot.hashes = {};
  slot.host_hashes = {};
  slot.copy_stream.reset();
  slot.flipped.reset();
  const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  const size_t hash_bytes = sizeof(uint64_t) * static_cast<size_t>(kernels::stripe_count(extent.height));
  slot.scratch = interop::DeviceBuffer(bytes);
  slot.top_first = interop::DeviceBuffer(bytes);
  slot.hashes = interop::DeviceBuffer(hash_bytes);
  slot.host_hashes = interop::PinnedHostBuffer(hash_bytes);
  slot.copied.emplace();
  slot.flipped.emplace();
  slot.copy_stream.emplace();  // on `device`, current here
  slot.allocated = extent;
  slot.device = device;
}

void CudaFrameReadBack::begin(const CudaFrameSource& source, Extent extent, long long index) {
  if (full())
    throw std::logic_error("gl::CudaFrameReadBack::begin: frames " + std::to_string(m_slots[m_oldest].index) +
                           " to " +
                           std::to_string(m_slots[(m_oldest + m_pending - 1) % kReadsInFlight].index) +
                           " are still being read; collect one with end() first");
  if (extent.empty()) throw std::logic_error("gl::CudaFrameReadBack::begin: a 0x0 frame has nothing to read");
  if (!source.has_frame()) throw std::logic_error("gl::CudaFrameReadBack::begin: no frame to read");
  m_steps.start();
  std::optional<interop::ScopedDevice> on_device;
  if (source.device >= 0) on_device.emplace(source.device);
  // A free slot: its read, if it had one, was collected (its copies done), so its memory may be written.
  Slot& slot = m_slots[(m_oldest + m_pending) % kReadsInFlight];
  ensure_buffers(slot, extent, source.device);
  m_steps.lap(kBuffers);
  auto* top_first = static_cast<uint8_t*>(slot.top_first.data());
  auto* hashes = static_cast<uint64_t*>(slot.hashes.data());
  // The frame top row first into slot.top_first, its stripe hashes into slot.hashes.
  const auto flip_and_hash = [&](const uint8_t* linear, cudaArray_t array) {
    if (linear == nullptr) {
      INTEROP_CUDA_CHECK(static_cast<cudaError_t>(kernels::flip_and_hash_array(
          array, extent.width, extent.height, static_cast<uint8_t*>(slot.scratch.data()), top_first, hashes,
          source.stream)));
      return;
    }
    INTEROP_CUDA_CHECK(static_cast<cudaError_t>(kernels::flip_and_hash_linear(
        linear, source.pitch, extent.width, extent.height, top_first, hashes, source.stream)));
  };
  if (!source.registered) {
    // Memory CUDA holds: read in stream order after the frame's kernels, nothing to map.
    flip_and_hash(source.linear ? static_cast<const uint8_t*>(source.pointer) : nullptr, source.array);
    m_steps.lap(kLaunch);
  } else {
    // Flags that let CUDA read for this map (the mode's may be write-discard, which promises CUDA will not
    // read); the mode's flags are back before its next map, also when the copy throws.
    struct MapFlags {
      cudaGraphicsResource_t resource;
      unsigned int restore;
      unsigned int read;
      MapFlags(cudaGraphicsResource_t registered, unsigned int flags)
          : resource(registered), restore(flags), read(read_back_map_flags(flags)) {
        if (read != restore) INTEROP_CUDA_CHECK(cudaGraphicsResourceSetMapFlags(resource, read));
      }
      ~MapFlags() {
        if (read != restore) INTEROP_CUDA_REPORT(cudaGraphicsResourceSetMapFlags(resource, restore));
      }
      MapFlags(const MapFlags&) = delete;
      MapFlags& operator=(const MapFlags&) = delete;
    };
    {
      const MapFlags readable(source.registered, source.map_flags);
      if (readable.read != readable.restore) m_steps.lap(kFlagsReadOnly);
      interop::ScopedMap mapped({source.registered}, source.stream);
      const uint8_t* linear = nullptr;
      cudaArray_t array = nullptr;
      if (source.linear) {
        const interop::MappedPointer pointer = mapped.pointer(0);
        const size_t needed =
            source.pitch * static_cast<size_t>(extent.height - 1) + static_cast<size_t>(extent.width) * 4;
        if (pointer.size < needed)
          throw std::logic_error("gl::CudaFrameReadBack::begin: the mapped buffer holds " +
                                 std::to_string(pointer.size) + " bytes, the " +
                                 size_text(extent.width, extent.height) + " frame needs " +
                                 std::to_string(needed));
        linear = static_cast<const uint8_t*>(pointer.data);
      } else {
        array = mapped.array(0);
      }
      m_steps.lap(kMap);
      flip_and_hash(linear, array);
      m_steps.lap(kLaunch);
      mapped.unmap();  // GL may use the frame again: what follows reads the read-back's own memory
      m_steps.lap(kUnmap);
    }
    if (read_back_map_flags(source.map_flags) != source.map_flags) m_steps.lap(kFlagsBack);
  }
  // Straight into a page-locked frame nobody holds (the desk's server lets the frames it sent go back).
  std::shared_ptr<Image> frame;
  try {
    frame = m_pool.take(extent);
  } catch (const std::bad_alloc&) {
    throw_out_of_memory("reading back the " + size_text(extent.width, extent.height) + " frame",
                        static_cast<size_t>(extent.width) * extent.height * 4);
  }
  m_steps.lap(kPool);
  // The copies run on the slot's stream, after the flip: the next frame's work on the frame's stream does
  // not queue behind them (a 4K frame is 33 MB over PCIe). The slot is not begun again before its read is
  // collected, which waits for them.
  const cudaStream_t copies = slot.copy_stream->get();
  slot.flipped->order(source.stream, copies);
  INTEROP_CUDA_CHECK(
      cudaMemcpyAsync(frame->rgba.data(), top_first, frame->rgba.size(), cudaMemcpyDeviceToHost, copies));
  INTEROP_CUDA_CHECK(cudaMemcpyAsync(slot.host_hashes.data(), hashes, slot.host_hashes.size(),
                                     cudaMemcpyDeviceToHost, copies));
  INTEROP_CUDA_CHECK(cudaEventRecord(slot.copied->get(), copies));
  m_steps.lap(kCopies);
  slot.frame = std::move(frame);
  slot.extent = extent;
  slot.index = index;
  ++m_pending;
}

bool CudaFrameReadBack::done() {
  if (!pending()) return false;
  m_steps.start();
  const cudaError_t status = cudaEventQuery(m_slots[m_oldest].copied->get());
  m_steps.lap(kDone);
  if (status == cudaErrorNotReady) return false;
  INTEROP_CUDA_CHECK(status);
  return true;
}

std::optional<FrameRead> CudaFrameReadBack::end() {
  if (!pending()) return std::nullopt;
  m_steps.start();
  INTEROP_CUDA_CHECK(cudaEventSynchronize(m_slots[m_oldest].copied->get()));
  m_steps.lap(kWait);
  return take_oldest();
}

FrameRead CudaFrameReadBack::take_oldest() {
  Slot& slot = m_slots[m_oldest];
  FrameRead read;
  read.frame = slot.index;
  read.way = "CUDA";
  read.image = std::move(slot.frame);  // already top row first: nothing to copy
  const auto* hashes = static_cast<const uint64_t*>(slot.host_hashes.data());
  read.stripe_hashes.assign(hashes, hashes + slot.host_hashes.size() / sizeof(uint64_t));
  m_steps.lap(kHashesOut);
  m_oldest = (m_oldest + 1) % kReadsInFlight;
  --m_pending;
  return read;
}

}  // namespace lab::gl
