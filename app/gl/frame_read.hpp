// app/gl/frame_read.hpp — a frame read back without waiting for it (the desk's read-back, app/serve): begin()
// queues GL's copy of the frame into a pixel-pack buffer that stays mapped for its life (persistent,
// coherent: the driver's pinned host memory) and fences it; end(), a frame later, waits on the fence (by then
// long signalled) and copies the rows out, top row first, as an Image tagged with the frame it holds. So the
// frame loop no longer stalls on glReadPixels for the whole copy: it pays the copy out of mapped memory.
// Needs the GL 4.5 context current (ARB_buffer_storage is core there).
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/image/frame_pool.hpp"
#include "app/image/frame_read.hpp"
#include "app/image/image_io.hpp"
#include "app/timing/step_laps.hpp"

#include <glad/gl.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>

namespace lab::gl {

// The frame read back, the type every renderer's end_read_frame() returns (app/image/frame_read.hpp); the
// name stays here for the code that still spells it gl::FrameRead.
using FrameRead = lab::FrameRead;

class FrameReadBack {
 public:
  // Issues the copy of an extent.width x extent.height RGBA8 frame, bottom row first (GL's), into
  // `pack_buffer` at offset 0 (glReadPixels or glGetTextureImage with it bound to GL_PIXEL_PACK_BUFFER, or
  // glCopyNamedBufferSubData into it).
  using Copy = std::function<void(GLuint pack_buffer)>;

  // Queues `copy` of frame `frame` and fences it; the buffer grows to the frame's size when it changes.
  // Throws std::logic_error when a read is begun and not yet collected (end() first: one in flight).
  void begin(Extent extent, long long frame, const Copy& copy);
  // The read begun last, once GL has done it (waits on its fence); nullopt when none is begun.
  std::optional<FrameRead> end();
  bool pending() const { return m_fence != nullptr; }
  // Whether GL has done the read begun last (its fence signalled: end() would not wait); asks without
  // waiting. False when none is begun.
  bool done();
  // Each step's host time in end() and begin() (off unless --bench --serve turns it on): take() lists
  // those that ran since the last take().
  StepLaps& steps() { return m_steps; }

 private:
  // m_steps' steps, in the order a frame loop runs them: the collect of the frame before, then this one's.
  enum Step : size_t { kDone, kWait, kPool, kRows, kBuffer, kCopy, kFence };
  StepLaps m_steps{{"done?: glClientWaitSync(0) (every look)", "end: glClientWaitSync (copy done)",
                    "end: frame from the pool", "end: rows out of mapped memory", "begin: pack buffer made",
                    "begin: GL copy queued", "begin: barrier, fence, glFlush"}};
  GlBuffer m_buffer;  // persistently mapped at m_mapped, m_bytes long
  const void* m_mapped = nullptr;
  size_t m_bytes = 0;
  GlSync m_fence;
  Extent m_extent;
  long long m_frame = 0;
  FramePool m_pool;  // end()'s frames, used again once the desk lets them go
};

}  // namespace lab::gl
