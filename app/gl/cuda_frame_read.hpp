// app/gl/cuda_frame_read.hpp — the desk's read-back of a frame CUDA already sees (the GL modes interop,
// pbo, split and buffer, which hold the frame's resource registered with CUDA): begin() maps the mode's own
// registration on the frame's stream (after the mode has unmapped it: a resource is never mapped twice; set
// read-only for it only where the mode maps write-discard, which forbids reading),
// turns the frame top row first and hashes its stripes (kernels/stripe_hash.hpp) in one kernel into device
// memory, unmaps, and queues the copy into page-locked host memory on a stream of its own (the next frame's
// work does not wait for it); end(), a frame later, waits for that
// copy (by then long done) and hands the picture over with its stripe hashes. The copy lands in a pooled
// frame whose pixels are page-locked (app/image/frame_pool.hpp), which the desk's server holds until it has
// sent it: nothing is copied on the host. No glReadPixels or
// glGetTextureImage: GL's pixel-pack read (app/gl/frame_read.hpp) stays for the frames CUDA does not see
// (cpu, staging, a frame GL draws, no CUDA device).
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/image/frame_pool.hpp"
#include "app/image/frame_read.hpp"
#include "app/timing/step_laps.hpp"
#include "interop/memory.hpp"
#include "interop/stream.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <vector>

namespace lab::gl {

// Where CUDA reaches a resource holding the frame (rows bottom-first, as GL keeps them), as the mode that
// registered it says (gl::Renderer::set_cuda_source).
struct CudaFrameSource {
  // The mode's registration, unmapped between its frames: mapped around the copy on `stream`. A texture's
  // array, or (`linear`) a buffer's pointer with rows `pitch` bytes apart.
  cudaGraphicsResource_t registered = nullptr;
  // Or memory CUDA holds without a registration (the external and exported modes: memory CUDA imported or
  // allocated, which GL imported): a texture's array, or (`linear`) a pointer with rows `pitch` bytes apart.
  cudaArray_t array = nullptr;
  const void* pointer = nullptr;
  // Its map flags (cudaGraphicsMapFlags*): the read-back maps with read_back_map_flags(map_flags), then
  // puts these back.
  unsigned int map_flags = cudaGraphicsMapFlagsNone;
  bool linear = false;
  size_t pitch = 0;
  cudaStream_t stream = nullptr;  // the frame's CUDA work is queued on it, on the GL context's device
  int device = -1;                // that device

  bool has_frame() const { return registered != nullptr || array != nullptr || pointer != nullptr; }
};

// The map flags the read-back maps a registration with whose mode maps it with `mode_flags`: the mode's own
// where they let CUDA read (none, read-only), so that nothing is set per frame; read-only in place of
// write-discard, which promises CUDA will not read.
inline unsigned int read_back_map_flags(unsigned int mode_flags) {
  if (mode_flags == cudaGraphicsMapFlagsWriteDiscard) return cudaGraphicsMapFlagsReadOnly;
  return mode_flags;
}

class CudaFrameReadBack {
 public:
  CudaFrameReadBack();

  // Queues the copy of frame `index` (extent.width x extent.height RGBA8) out of `source` and its stripe
  // hashes. Throws std::logic_error when a read is begun and not yet collected, interop::Error when CUDA
  // fails.
  void begin(const CudaFrameSource& source, Extent extent, long long index);
  // The read begun last, once CUDA has done it: way "CUDA", with its stripe hashes; nullopt when none is
  // begun.
  std::optional<FrameRead> end();
  bool pending() const { return m_pending; }
  // Whether CUDA has done the read begun last (its copies: end() would not wait); asks without waiting
  // (cudaEventQuery). False when none is begun. Throws interop::Error when CUDA reports an error.
  bool done();
  // Each step's host time in end() and begin() (off unless --bench --serve turns it on): take() lists
  // those that ran since the last take().
  StepLaps& steps() { return m_steps; }

 private:
  // m_steps' steps, in the order a frame loop runs them: the collect of the frame before, then this one's.
  enum Step : size_t {
    kDone,
    kWait,
    kHashesOut,
    kBuffers,
    kFlagsReadOnly,
    kMap,
    kLaunch,
    kUnmap,
    kFlagsBack,
    kPool,
    kCopies,
  };
  StepLaps m_steps{{"done?: cudaEventQuery (every look)", "end: cudaEventSynchronize (copy done)",
                    "end: stripe hashes out", "begin: device, buffers", "begin: SetMapFlags read-only",
                    "begin: MapResources + array/pointer", "begin: flip + hash kernel launch",
                    "begin: UnmapResources", "begin: SetMapFlags back", "begin: frame from the pool",
                    "begin: 2 cudaMemcpyAsync + EventRecord"}};

  void ensure_buffers(Extent extent, int device);

  interop::DeviceBuffer m_scratch;    // a texture's array, linear (bottom-first)
  interop::DeviceBuffer m_top_first;  // the frame, top row first
  interop::DeviceBuffer m_hashes;
  FramePool m_pool;                // page-locked frames the copies land in
  std::shared_ptr<Image> m_frame;  // the one being read
  interop::PinnedHostBuffer m_host_hashes;
  std::optional<interop::Event> m_flipped;       // orders the copies after the flip on the frame's stream
  std::optional<interop::Stream> m_copy_stream;  // the copies into host memory, off the frame's stream
  std::optional<interop::Event> m_copied;        // after the copies into the frame and m_host_hashes
  Extent m_allocated;
  int m_device = -1;
  Extent m_extent;
  long long m_frame_index = 0;
  bool m_pending = false;
};

}  // namespace lab::gl
