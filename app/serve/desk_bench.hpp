// app/serve/desk_bench.hpp — `interop-lab --bench --serve`: what the browser desk delivers. For each size,
// the app's frames are rendered and read back as the desk's loop does, offered to a desk server on a free
// loopback port, and read by a local WebSocket client as fast as it can: frames per second delivered to the
// client, and the read-back, encode and send milliseconds per frame (medians). No frame-rate cap.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/image/image_io.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lab::serve {

struct LinkBenchCase;  // app/serve/link_bench.hpp

struct DeskBenchCase {
  Extent size;
  long long frames_rendered = 0;            // render calls: `frames`, one more with a read-back a frame late
  unsigned long long frames_delivered = 0;  // to the client; the rest were skipped while it read
  double delivered_fps = 0;                 // frames delivered / the time from the first to the last
  double render_fps = 0;                    // frames rendered and offered / the same run's time
  double read_back_ms = 0, encode_ms = 0, send_ms = 0;  // medians
  double jpeg_kib = 0;                                  // per delivered frame
  // The same frames to a page over a 20 Mbit/s link at 30 frames/s asked, moving and still, with the quality
  // and scale the desk chose (app/serve/link_bench.hpp).
  std::shared_ptr<const LinkBenchCase> link;
  std::string read_back_way;  // how the frames were read back ("CUDA", "PBO"; "" where an API has one way)
};

// A frame read back (top row first) and the index of the frame it is.
struct BenchFrame {
  long long index = 0;
  std::shared_ptr<const Image> image;   // FrameRead's: never null
  std::string way;                      // FrameRead's: how it was read back
  std::vector<uint64_t> stripe_hashes;  // FrameRead's: its GPU stripe hashes, passed on to the server
};

// Renders frame `index` and returns a frame read back, setting `read_back_ms` to what reading it back cost:
// this frame, or with a read-back a frame late (GL's) the one before it, nullopt when there is none yet.
using RenderAndRead = std::function<std::optional<BenchFrame>(long long index, double& read_back_ms)>;

// One size: frames through `render` until frame `frames - 1` has come back (one more render with a read-back
// a frame late), each offered to the desk, a local client reading. Throws std::runtime_error when the client
// cannot connect or the stream breaks.
DeskBenchCase bench_desk(Extent size, long long frames, const RenderAndRead& render);

// The table --bench --serve prints.
std::string desk_bench_table(const std::vector<DeskBenchCase>& cases, const std::string& what);

}  // namespace lab::serve
