// tests/unit/test_frame_pool.cpp — app/image/frame_pool.hpp: a frame comes back to its pool when its last
// holder lets it go and is handed out again, never while someone holds it; a new size frees the frames of
// the old one; the hooks see each frame's pixels once when it is made and once when it is freed, also when
// frames outlive the pool and when they are let go on other threads; two frames' pixels never share a page.
#include "app/image/frame_pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using lab::Extent;
using lab::FramePool;
using lab::Image;

// Records the hooks' calls: pixels adopted and not yet released.
struct HookLog {
  std::mutex mutex;
  std::map<const uint8_t*, size_t> adopted;
  int adoptions = 0;
  int releases = 0;
  int unknown_releases = 0;

  FramePool::Hooks hooks() {
    return {[this](uint8_t* pixels, size_t bytes) {
              const std::lock_guard<std::mutex> lock(mutex);
              adopted[pixels] = bytes;
              ++adoptions;
            },
            [this](uint8_t* pixels, size_t bytes) {
              const std::lock_guard<std::mutex> lock(mutex);
              const auto found = adopted.find(pixels);
              if (found == adopted.end() || found->second != bytes) ++unknown_releases;
              if (found != adopted.end()) adopted.erase(found);
              ++releases;
            }};
  }
};

TEST(FramePool, AFrameLetGoIsHandedOutAgainWithItsPixels) {
  FramePool pool;
  std::shared_ptr<Image> first = pool.take({64, 32});
  ASSERT_EQ(first->width, 64);
  ASSERT_EQ(first->height, 32);
  ASSERT_EQ(first->rgba.size(), 64u * 32 * 4);
  first->rgba[5] = 99;
  const uint8_t* pixels = first->rgba.data();
  first.reset();
  EXPECT_EQ(pool.waiting(), 1u);
  std::shared_ptr<Image> again = pool.take({64, 32});
  EXPECT_EQ(again->rgba.data(), pixels) << "a frame nobody held was not used again";
  EXPECT_EQ(again->rgba[5], 99) << "its pixels are as its last holder left them";
  EXPECT_EQ(pool.made(), 1u);
}

TEST(FramePool, AFrameSomeoneHoldsIsNeverHandedOut) {
  FramePool pool;
  std::shared_ptr<const Image> held = pool.take({16, 16});
  std::shared_ptr<const Image> also_held = held;  // as the server's threads share it
  std::shared_ptr<Image> other = pool.take({16, 16});
  EXPECT_NE(other->rgba.data(), held->rgba.data());
  EXPECT_EQ(pool.made(), 2u);
  held.reset();
  EXPECT_EQ(pool.waiting(), 0u) << "back in the pool while a holder remained";
  also_held.reset();
  EXPECT_EQ(pool.waiting(), 1u);
}

TEST(FramePool, ANewSizeFreesTheFramesOfTheOldOneAndFramesComingBackLate) {
  HookLog log;
  FramePool pool(log.hooks());
  std::shared_ptr<Image> small = pool.take({8, 8});
  std::shared_ptr<Image> small_too = pool.take({8, 8});
  small.reset();
  EXPECT_EQ(pool.waiting(), 1u);
  std::shared_ptr<Image> large = pool.take({32, 8});
  EXPECT_EQ(pool.waiting(), 0u);
  EXPECT_EQ(log.releases, 1) << "the waiting frame of the old size was not freed";
  small_too.reset();  // an old size coming back late is freed, not kept
  EXPECT_EQ(pool.waiting(), 0u);
  EXPECT_EQ(log.releases, 2);
  large.reset();
  EXPECT_EQ(pool.waiting(), 1u);
  EXPECT_EQ(log.unknown_releases, 0);
}

TEST(FramePool, KeepsAtMostItsNumberOfFramesWaiting) {
  HookLog log;
  FramePool pool(log.hooks(), 2);
  std::vector<std::shared_ptr<Image>> frames;
  for (int i = 0; i < 5; ++i) frames.push_back(pool.take({4, 4}));
  frames.clear();
  EXPECT_EQ(pool.waiting(), 2u);
  EXPECT_EQ(log.adoptions, 5);
  EXPECT_EQ(log.releases, 3);
}

TEST(FramePool, EveryFrameIsReleasedOnceAlsoWhenItOutlivesThePool) {
  HookLog log;
  std::shared_ptr<const Image> outliving;
  {
    FramePool pool(log.hooks());
    outliving = pool.take({10, 10});
    std::shared_ptr<Image> waiting = pool.take({10, 10});
    waiting.reset();
    EXPECT_EQ(log.releases, 0);
  }
  EXPECT_EQ(log.releases, 1) << "the pool's waiting frame was not released when the pool went";
  outliving.reset();
  EXPECT_EQ(log.releases, 2) << "a frame let go after its pool was not released";
  EXPECT_EQ(log.adoptions, 2);
  EXPECT_EQ(log.unknown_releases, 0);
  EXPECT_TRUE(log.adopted.empty());
}

TEST(FramePool, AHookThatRefusesAFrameMakesNone) {
  FramePool pool(
      FramePool::Hooks{[](uint8_t*, size_t) { throw std::runtime_error("cannot lock"); }, nullptr});
  EXPECT_THROW(pool.take({4, 4}), std::runtime_error);
  EXPECT_EQ(pool.made(), 0u);
  EXPECT_EQ(pool.waiting(), 0u);
}

TEST(FramePool, TwoFramesPixelsNeverShareAPage) {
  // Small frames come from the heap side by side; a page locked for two frames would be refused.
  FramePool pool;
  std::vector<std::shared_ptr<Image>> frames;
  for (int i = 0; i < 64; ++i) frames.push_back(pool.take({7, 5}));
  constexpr uintptr_t kPage = 4096;
  std::vector<std::pair<uintptr_t, uintptr_t>> pages;  // first and last page of each frame's pixels
  for (const std::shared_ptr<Image>& frame : frames) {
    const auto begin = reinterpret_cast<uintptr_t>(frame->rgba.data());
    pages.emplace_back(begin / kPage, (begin + frame->rgba.size() - 1) / kPage);
  }
  for (size_t a = 0; a < pages.size(); ++a)
    for (size_t b = a + 1; b < pages.size(); ++b)
      EXPECT_TRUE(pages[a].second < pages[b].first || pages[b].second < pages[a].first)
          << "frames " << a << " and " << b << " share a page";
}

TEST(FramePool, FramesLetGoOnOtherThreadsAllComeBack) {
  HookLog log;
  FramePool pool(log.hooks(), 8);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::thread> holders;
    for (int i = 0; i < 4; ++i) {
      std::shared_ptr<const Image> frame = pool.take({16, 8});
      holders.emplace_back([frame = std::move(frame)]() mutable { frame.reset(); });
    }
    for (std::thread& holder : holders) holder.join();
  }
  EXPECT_LE(pool.made(), 4u) << "frames let go on other threads were not used again";
  EXPECT_EQ(pool.waiting(), pool.made());
  EXPECT_EQ(log.unknown_releases, 0);
}

}  // namespace
