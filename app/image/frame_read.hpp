// app/image/frame_read.hpp — a frame read back a frame late (the desk's read-back, app/serve): its pixels
// and the index of the frame they are. Every renderer that reads so returns it from end_read_frame() (GL's
// through app/gl/frame_read.hpp's fenced pixel-pack copy, Vulkan's from a submitted copy into a host-visible
// buffer), so the loops (app/loop/app.hpp, app/main.cpp's desk bench) hand over one type whatever the API.
#pragma once

#include "app/image/image_io.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lab {

struct FrameRead {
  // Top row first; never null. Shared, as the desk's server threads hold it while they encode and send it,
  // and often a pooled frame (app/image/frame_pool.hpp) that goes back to its pool when the last holder
  // drops it.
  std::shared_ptr<const Image> image;
  long long frame = 0;
  // How it was read, for the desk's read-back span and --bench --serve: "CUDA" (copied by CUDA out of what
  // it already sees, app/gl/cuda_frame_read.hpp), "PBO" (GL's pixel-pack buffer); "" where an API has one
  // way.
  std::string way;
  // kernels/stripe_hash.hpp's hashes of `image`, where the read-back computed them on the GPU; else empty.
  std::vector<uint64_t> stripe_hashes;
};

}  // namespace lab
