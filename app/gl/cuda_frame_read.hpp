// app/gl/cuda_frame_read.hpp — the desk's read-back of a frame CUDA already sees (the GL modes interop,
// pbo, split and buffer, which hold the frame's resource registered with CUDA): begin() maps the mode's own
// registration on the frame's stream (after the mode has unmapped it: a resource is never mapped twice; set
// read-only for it only where the mode maps write-discard, which forbids reading),
// turns the frame top row first and hashes its stripes (kernels/stripe_hash.hpp) in one kernel into device
// memory, unmaps, and queues the copy into page-locked host memory on a stream of its own (the next frame's
// work does not wait for it). Up to kReadsInFlight reads are under way at once, each in a slot of its own:
// done() says, without waiting, whether the oldest one's copy is done, and end() collects it (waiting when it
// is not), so a loop that collects only what is done never waits for the GPU to finish drawing and copying
// a frame (a 4K frame is 33 MB over PCIe; app/serve/desk.hpp's LateReader). The copy lands in a pooled
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

#include <array>
#include <cstddef>
#include <memory>
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
  // Reads under way at once. Two: where the GPU is behind the loop, a read takes longer than the desk's
  // encoder takes to send a frame; with two under way, one is done by the time the encoder wants it.
  static constexpr size_t kReadsInFlight = 2;

  CudaFrameReadBack();

  // Queues the copy of frame `index` (extent.width x extent.height RGBA8) out of `source` and its stripe
  // hashes. Throws std::logic_error when every slot holds a read not yet collected, interop::Error when CUDA
  // fails.
  void begin(const CudaFrameSource& source, Extent extent, long long index);
  // The oldest read begun, once CUDA has done it (end() waits for its copy): way "CUDA", with its stripe
  // hashes; nullopt when none is begun.
  std::optional<FrameRead> end();
  bool pending() const { return m_pending > 0; }
  size_t under_way() const { return m_pending; }
  bool full() const { return m_pending == kReadsInFlight; }
  // Whether CUDA has done the oldest read under way (its copies: end() would not wait); asks without waiting
  // (cudaEventQuery). False when none is begun. Throws interop::Error when CUDA reports an error.
  bool done();
  // Each step's host time in done(), end() and begin() (off unless --bench --serve turns it on): take()
  // lists those that ran since the last take().
  StepLaps& steps() { return m_steps; }

 private:
  // m_steps' steps, in the order a frame loop runs them: the collect of a frame before, then this one's.
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

  // One read's memory, stream and events, allocated for its extent and device and kept while they stay.
  struct Slot {
    interop::DeviceBuffer scratch;    // a texture's array, linear (bottom-first)
    interop::DeviceBuffer top_first;  // the frame, top row first
    interop::DeviceBuffer hashes;
    interop::PinnedHostBuffer host_hashes;
    std::optional<interop::Event> flipped;       // orders the copies after the flip on the frame's stream
    std::optional<interop::Stream> copy_stream;  // the copies into host memory, off the frame's stream
    std::optional<interop::Event> copied;        // after the copies into the frame and host_hashes
    Extent allocated;
    int device = -1;
    // The read under way in it.
    std::shared_ptr<Image> frame;
    Extent extent;
    long long index = 0;
  };

  static void ensure_buffers(Slot& slot, Extent extent, int device);
  // Hands the oldest slot's read over (its copy done) and frees the slot.
  FrameRead take_oldest();

  std::array<Slot, kReadsInFlight> m_slots;
  FramePool m_pool;      // page-locked frames the copies land in
  size_t m_oldest = 0;   // the slot of the oldest read under way
  size_t m_pending = 0;  // reads under way, in m_slots[m_oldest], the next, ...
};

}  // namespace lab::gl
