// app/gl/frame_read.cpp — the pixel-pack buffer and fence of app/gl/frame_read.hpp.
#include "app/gl/frame_read.hpp"

#include "app/core/text.hpp"
#include "app/os/out_of_memory.hpp"
#include "interop/error.hpp"

#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace lab::gl {

void FrameReadBack::begin(Extent extent, long long frame, const Copy& copy) {
  if (m_fence)
    throw std::logic_error("gl::FrameReadBack::begin: frame " + std::to_string(m_frame) +
                           " is still being read; collect it with end() first");
  if (extent.empty()) throw std::logic_error("gl::FrameReadBack::begin: a 0x0 frame has nothing to read");
  m_steps.start();
  const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  if (bytes != m_bytes) {
    m_buffer = GlBuffer();  // unmapped by its deletion
    m_mapped = nullptr;
    m_bytes = 0;
    constexpr GLbitfield kMapping = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    m_buffer = create_buffer(bytes, nullptr, kMapping | GL_CLIENT_STORAGE_BIT, "frame read-back");
    m_mapped = glMapNamedBufferRange(m_buffer.get(), 0, static_cast<GLsizeiptr>(bytes), kMapping);
    INTEROP_GL_CHECK("glMapNamedBufferRange(frame read-back)");
    if (!m_mapped)
      throw_out_of_memory(
          "mapping the " + size_text(extent.width, extent.height) + " frame's read-back buffer", bytes);
    m_bytes = bytes;
    m_steps.lap(kBuffer);
  }
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  copy(m_buffer.get());
  INTEROP_GL_CHECK("the frame's copy into its read-back buffer");
  m_steps.lap(kCopy);
  // Writes into a persistently mapped buffer become visible to the host only after this barrier and the
  // fence that follows it.
  glMemoryBarrier(GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
  m_fence.reset(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
  INTEROP_GL_CHECK("glFenceSync(frame read-back)");
  glFlush();  // the copy starts now, while the next frame is being made
  m_steps.lap(kFence);
  m_extent = extent;
  m_frame = frame;
}

bool FrameReadBack::done() {
  if (!m_fence) return false;
  m_steps.start();
  GlSync fence = std::move(m_fence);  // dropped if the wait fails: no read is under way then
  const bool done = fence_done(fence.get(), 0, "frame read-back");
  m_fence = std::move(fence);
  m_steps.lap(kDone);
  return done;
}

std::optional<FrameRead> FrameReadBack::end() {
  if (!m_fence) return std::nullopt;
  m_steps.start();
  GlSync fence = std::move(m_fence);
  wait_for_fence(fence.get(), "frame read-back");
  fence.reset();
  m_steps.lap(kWait);
  FrameRead read;
  read.frame = m_frame;
  read.way = "PBO";
  std::shared_ptr<Image> image;
  try {
    image = m_pool.take(m_extent);  // its pages already there after the first frames
  } catch (const std::bad_alloc&) {
    throw_out_of_memory("reading back the " + size_text(m_extent.width, m_extent.height) + " frame", m_bytes);
  }
  m_steps.lap(kPool);
  // GL's rows are bottom first, an Image's top first: flipped in the one copy out of mapped memory.
  const size_t row = static_cast<size_t>(m_extent.width) * 4;
  const auto* source = static_cast<const uint8_t*>(m_mapped);
  for (int y = 0; y < m_extent.height; ++y)
    std::memcpy(image->rgba.data() + row * static_cast<size_t>(y),
                source + row * static_cast<size_t>(m_extent.height - 1 - y), row);
  m_steps.lap(kRows);
  read.image = std::move(image);
  return read;
}

}  // namespace lab::gl
