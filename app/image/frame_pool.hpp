// app/image/frame_pool.hpp — frames read back, used again once nobody holds them. The desk reads a frame back
// every frame and hands it to its server, whose threads hold it while they encode and send it (and keep the
// newest for a screenshot). A new 33 MB vector per 4K frame cost the loop its page faults every frame, and
// freeing it an munmap on whichever thread let it go; a pooled frame comes back to the pool when its last
// holder drops it and is handed out again with its pages already there.
//
// A CUDA read-back copies straight into a pooled frame: its hooks page-lock each frame's pixels once, when
// the frame is made (cudaHostRegister), and unlock them when the pool lets the frame go. Each frame's
// vector is made with two pages more capacity than its pixels, so that the pixels of two frames never share
// a page (a page locked twice is refused).
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/image/image_io.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace lab {

class FramePool {
 public:
  struct Hooks {
    // Called with a new frame's pixels before it is first handed out (may throw: the frame is not made).
    std::function<void(uint8_t* pixels, size_t bytes)> adopt;
    // Called with a frame's pixels before the pool frees them (must not throw).
    std::function<void(uint8_t* pixels, size_t bytes)> release;
  };

  // `most_free`: how many frames the pool keeps for later when nobody holds them; more are freed.
  explicit FramePool(Hooks hooks = {}, size_t most_free = 4);
  // Frees the frames waiting; those still held are freed when their last holder lets them go.
  ~FramePool();
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;

  // An RGBA8 frame of `extent` that nobody else holds, its pixels as its last holder left them (zero when
  // new). Frames of another extent waiting in the pool are freed. Thread-safe, as is dropping a frame.
  std::shared_ptr<Image> take(Extent extent);

  // Frames made so far, and frames waiting in the pool now (for tests and the bench).
  size_t made() const;
  size_t waiting() const;

 private:
  struct State;
  std::shared_ptr<State> m_state;  // shared with every frame handed out: the pool may go before them
};

}  // namespace lab
