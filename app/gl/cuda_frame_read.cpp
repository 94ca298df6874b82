// app/gl/cuda_frame_read.cpp — the CUDA copy of app/gl/cuda_frame_read.hpp.
#include "app/gl/cuda_frame_read.hpp"

#include "app/core/text.hpp"
#include "app/os/out_of_memory.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/mapping.hpp"
#include "kernels/stripe_hash.hpp"

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

namespace lab::gl {

void CudaFrameReadBack::ensure_buffers(Extent extent, int device) {
  if (extent == m_allocated && device == m_device && m_copied) return;
  m_allocated = {};
  m_copied.reset();
  m_scratch = {};
  m_top_first = {};
  m_hashes = {};
  m_host = {};
  m_host_hashes = {};
  const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  const size_t hash_bytes = sizeof(uint64_t) * static_cast<size_t>(kernels::stripe_count(extent.height));
  m_scratch = interop::DeviceBuffer(bytes);
  m_top_first = interop::DeviceBuffer(bytes);
  m_hashes = interop::DeviceBuffer(hash_bytes);
  m_host = interop::PinnedHostBuffer(bytes);
  m_host_hashes = interop::PinnedHostBuffer(hash_bytes);
  m_copied.emplace();
  m_allocated = extent;
  m_device = device;
}

void CudaFrameReadBack::begin(const CudaFrameSource& source, Extent extent, long long frame) {
  if (m_pending)
    throw std::logic_error("gl::CudaFrameReadBack::begin: frame " + std::to_string(m_frame) +
                           " is still being read; collect it with end() first");
  if (extent.empty()) throw std::logic_error("gl::CudaFrameReadBack::begin: a 0x0 frame has nothing to read");
  if (!source.registered) throw std::logic_error("gl::CudaFrameReadBack::begin: no registration to read");
  std::optional<interop::ScopedDevice> on_device;
  if (source.device >= 0) on_device.emplace(source.device);
  ensure_buffers(extent, source.device);
  auto* top_first = static_cast<uint8_t*>(m_top_first.data());
  auto* hashes = static_cast<uint64_t*>(m_hashes.data());
  {
    // Read-only for this map (the mode's may be write-discard, which promises CUDA will not read); the
    // mode's flags are back before its next map, also when the copy throws.
    struct MapFlags {
      cudaGraphicsResource_t resource;
      unsigned int restore;
      MapFlags(cudaGraphicsResource_t registered, unsigned int flags) : resource(registered), restore(flags) {
        if (restore != cudaGraphicsMapFlagsReadOnly)
          INTEROP_CUDA_CHECK(cudaGraphicsResourceSetMapFlags(resource, cudaGraphicsMapFlagsReadOnly));
      }
      ~MapFlags() {
        if (restore != cudaGraphicsMapFlagsReadOnly)
          INTEROP_CUDA_REPORT(cudaGraphicsResourceSetMapFlags(resource, restore));
      }
      MapFlags(const MapFlags&) = delete;
      MapFlags& operator=(const MapFlags&) = delete;
    } read_only(source.registered, source.map_flags);
    interop::ScopedMap mapped({source.registered}, source.stream);
    if (source.linear) {
      const interop::MappedPointer pointer = mapped.pointer(0);
      const size_t needed =
          source.pitch * static_cast<size_t>(extent.height - 1) + static_cast<size_t>(extent.width) * 4;
      if (pointer.size < needed)
        throw std::logic_error("gl::CudaFrameReadBack::begin: the mapped buffer holds " +
                               std::to_string(pointer.size) + " bytes, the " +
                               size_text(extent.width, extent.height) + " frame needs " +
                               std::to_string(needed));
      INTEROP_CUDA_CHECK(static_cast<cudaError_t>(
          kernels::flip_and_hash_linear(static_cast<const uint8_t*>(pointer.data), source.pitch, extent.width,
                                        extent.height, top_first, hashes, source.stream)));
    } else {
      INTEROP_CUDA_CHECK(static_cast<cudaError_t>(kernels::flip_and_hash_array(
          mapped.array(0), extent.width, extent.height, static_cast<uint8_t*>(m_scratch.data()), top_first,
          hashes, source.stream)));
    }
    mapped.unmap();  // GL may use the frame again: what follows reads the read-back's own memory
  }
  INTEROP_CUDA_CHECK(
      cudaMemcpyAsync(m_host.data(), top_first, m_host.size(), cudaMemcpyDeviceToHost, source.stream));
  INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_host_hashes.data(), hashes, m_host_hashes.size(),
                                     cudaMemcpyDeviceToHost, source.stream));
  INTEROP_CUDA_CHECK(cudaEventRecord(m_copied->get(), source.stream));
  m_extent = extent;
  m_frame = frame;
  m_pending = true;
}

std::optional<FrameRead> CudaFrameReadBack::end() {
  if (!m_pending) return std::nullopt;
  m_pending = false;
  INTEROP_CUDA_CHECK(cudaEventSynchronize(m_copied->get()));
  FrameRead read;
  read.frame = m_frame;
  read.way = "CUDA";
  read.image.width = m_extent.width;
  read.image.height = m_extent.height;
  const auto* pixels = static_cast<const uint8_t*>(m_host.data());
  const auto* hashes = static_cast<const uint64_t*>(m_host_hashes.data());
  try {
    // Already top row first: one copy out of page-locked memory, with no zero-filling before it.
    read.image.rgba.assign(pixels, pixels + m_host.size());
    read.stripe_hashes.assign(hashes, hashes + m_host_hashes.size() / sizeof(uint64_t));
  } catch (const std::bad_alloc&) {
    throw_out_of_memory("reading back the " + size_text(m_extent.width, m_extent.height) + " frame",
                        m_host.size());
  }
  return read;
}

}  // namespace lab::gl
