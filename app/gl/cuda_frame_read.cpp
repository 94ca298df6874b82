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

void CudaFrameReadBack::ensure_buffers(Extent extent, int device) {
  if (extent == m_allocated && device == m_device && m_copied) return;
  m_allocated = {};
  m_copied.reset();
  m_scratch = {};
  m_top_first = {};
  m_hashes = {};
  m_host_hashes = {};
  m_copy_stream.reset();
  m_flipped.reset();
  const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  const size_t hash_bytes = sizeof(uint64_t) * static_cast<size_t>(kernels::stripe_count(extent.height));
  m_scratch = interop::DeviceBuffer(bytes);
  m_top_first = interop::DeviceBuffer(bytes);
  m_hashes = interop::DeviceBuffer(hash_bytes);
  m_host_hashes = interop::PinnedHostBuffer(hash_bytes);
  m_copied.emplace();
  m_flipped.emplace();
  m_copy_stream.emplace();  // on `device`, current here
  m_allocated = extent;
  m_device = device;
}

void CudaFrameReadBack::begin(const CudaFrameSource& source, Extent extent, long long index) {
  if (m_pending)
    throw std::logic_error("gl::CudaFrameReadBack::begin: frame " + std::to_string(m_frame_index) +
                           " is still being read; collect it with end() first");
  if (extent.empty()) throw std::logic_error("gl::CudaFrameReadBack::begin: a 0x0 frame has nothing to read");
  if (!source.has_frame()) throw std::logic_error("gl::CudaFrameReadBack::begin: no frame to read");
  m_steps.start();
  std::optional<interop::ScopedDevice> on_device;
  if (source.device >= 0) on_device.emplace(source.device);
  ensure_buffers(extent, source.device);
  m_steps.lap(kBuffers);
  auto* top_first = static_cast<uint8_t*>(m_top_first.data());
  auto* hashes = static_cast<uint64_t*>(m_hashes.data());
  // The frame top row first into m_top_first, its stripe hashes into m_hashes.
  const auto flip_and_hash = [&](const uint8_t* linear, cudaArray_t array) {
    if (linear == nullptr) {
      INTEROP_CUDA_CHECK(static_cast<cudaError_t>(kernels::flip_and_hash_array(
          array, extent.width, extent.height, static_cast<uint8_t*>(m_scratch.data()), top_first, hashes,
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
  // The copies run on a stream of their own, after the flip: the next frame's work on the frame's stream
  // does not queue behind them (a 4K frame is 33 MB over PCIe). end() waits for them before the next
  // begin() writes m_top_first again.
  const cudaStream_t copies = m_copy_stream->get();
  m_flipped->order(source.stream, copies);
  INTEROP_CUDA_CHECK(
      cudaMemcpyAsync(frame->rgba.data(), top_first, frame->rgba.size(), cudaMemcpyDeviceToHost, copies));
  INTEROP_CUDA_CHECK(
      cudaMemcpyAsync(m_host_hashes.data(), hashes, m_host_hashes.size(), cudaMemcpyDeviceToHost, copies));
  INTEROP_CUDA_CHECK(cudaEventRecord(m_copied->get(), copies));
  m_steps.lap(kCopies);
  m_frame = std::move(frame);
  m_extent = extent;
  m_frame_index = index;
  m_pending = true;
}

bool CudaFrameReadBack::done() {
  if (!m_pending) return false;
  m_steps.start();
  const cudaError_t status = cudaEventQuery(m_copied->get());
  m_steps.lap(kDone);
  if (status == cudaErrorNotReady) return false;
  INTEROP_CUDA_CHECK(status);
  return true;
}

std::optional<FrameRead> CudaFrameReadBack::end() {
  if (!m_pending) return std::nullopt;
  m_pending = false;
  m_steps.start();
  INTEROP_CUDA_CHECK(cudaEventSynchronize(m_copied->get()));
  m_steps.lap(kWait);
  FrameRead read;
  read.frame = m_frame_index;
  read.way = "CUDA";
  read.image = std::move(m_frame);  // already top row first: nothing to copy
  const auto* hashes = static_cast<const uint64_t*>(m_host_hashes.data());
  read.stripe_hashes.assign(hashes, hashes + m_host_hashes.size() / sizeof(uint64_t));
  m_steps.lap(kHashesOut);
  return read;
}

}  // namespace lab::gl
