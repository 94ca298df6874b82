// app/image/frame_pool.cpp — app/image/frame_pool.hpp.
#include "app/image/frame_pool.hpp"

#include <mutex>
#include <utility>
#include <vector>

namespace lab {

namespace {

// Spare capacity after a frame's pixels: two pages, so the next allocation's first page lies past the page
// of the pixels' last byte whatever the allocator puts around them.
constexpr size_t kGuardBytes = 2 * 4096;

}  // namespace

struct FramePool::State {
  Hooks hooks;
  size_t most_free = 4;
  mutable std::mutex mutex;
  Extent extent;  // of the frames waiting
  std::vector<std::unique_ptr<Image>> waiting;
  size_t made = 0;

  void free_frame(std::unique_ptr<Image> frame) const {
    if (hooks.release) hooks.release(frame->rgba.data(), frame->rgba.size());
  }

  ~State() {
    for (std::unique_ptr<Image>& frame : waiting) free_frame(std::move(frame));
  }

  // A frame's last holder let it go: back into the pool, or freed.
  void give_back(Image* returned) {
    std::unique_ptr<Image> frame(returned);
    {
      const std::lock_guard<std::mutex> lock(mutex);
      if (Extent{frame->width, frame->height} == extent && waiting.size() < most_free) {
        waiting.push_back(std::move(frame));
        return;
      }
    }
    free_frame(std::move(frame));
  }
};

FramePool::FramePool(Hooks hooks, size_t most_free) : m_state(std::make_shared<State>()) {
  m_state->hooks = std::move(hooks);
  m_state->most_free = most_free;
}

FramePool::~FramePool() {
  std::vector<std::unique_ptr<Image>> waiting;
  {
    const std::lock_guard<std::mutex> lock(m_state->mutex);
    waiting = std::move(m_state->waiting);
    m_state->waiting.clear();
    m_state->most_free = 0;  // frames coming back later are freed
  }
  for (std::unique_ptr<Image>& frame : waiting) m_state->free_frame(std::move(frame));
}

std::shared_ptr<Image> FramePool::take(Extent extent) {
  std::unique_ptr<Image> frame;
  std::vector<std::unique_ptr<Image>> other_size;
  {
    const std::lock_guard<std::mutex> lock(m_state->mutex);
    if (extent != m_state->extent) {
      other_size = std::move(m_state->waiting);
      m_state->waiting.clear();
      m_state->extent = extent;
    }
    if (!m_state->waiting.empty()) {
      frame = std::move(m_state->waiting.back());
      m_state->waiting.pop_back();
    }
  }
  for (std::unique_ptr<Image>& stale : other_size) m_state->free_frame(std::move(stale));
  if (!frame) {
    const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
    frame = std::make_unique<Image>();
    frame->width = extent.width;
    frame->height = extent.height;
    frame->rgba.reserve(bytes + kGuardBytes);
    frame->rgba.resize(bytes);
    if (m_state->hooks.adopt) m_state->hooks.adopt(frame->rgba.data(), frame->rgba.size());
    const std::lock_guard<std::mutex> lock(m_state->mutex);
    ++m_state->made;
  }
  std::shared_ptr<State> state = m_state;
  return std::shared_ptr<Image>(frame.release(), [state](Image* returned) { state->give_back(returned); });
}

size_t FramePool::made() const {
  const std::lock_guard<std::mutex> lock(m_state->mutex);
  return m_state->made;
}

size_t FramePool::waiting() const {
  const std::lock_guard<std::mutex> lock(m_state->mutex);
  return m_state->waiting.size();
}

}  // namespace lab
