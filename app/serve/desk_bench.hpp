// app/serve/desk_bench.hpp — `interop-lab --bench --serve`: what the browser desk delivers. For each size,
// the app's frames are rendered and read back as the desk's loop does, offered to a desk server on a free
// loopback port, and read by a local WebSocket client as fast as it can: frames per second delivered to the
// client, and the read-back, encode and send milliseconds per frame (medians). No frame-rate cap. As in the
// desk's loop (app/serve/desk.hpp's LateReader), frames are read back only as the server takes them (one or
// two ahead), and a read under way is collected once done, never waited for. Where the
// read-back says its steps (GL's: app/gl/cuda_frame_read.hpp, app/gl/frame_read.hpp), a second table says
// where its milliseconds on the loop's thread go.
#pragma once

#include "app/cli/cli.hpp"
#include "app/core/vocabulary.hpp"
#include "app/image/image_io.hpp"
#include "app/timing/step_laps.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab::serve {

struct LinkBenchCase;  // app/serve/link_bench.hpp

// One row of the read-back's steps: its host time per frame over the frames it ran in.
struct StepStats {
  std::string name;
  double median_ms = 0, p90_ms = 0, max_ms = 0;
  size_t frames = 0;
};

// The rows bench_desk adds to the read-back's own steps: the read-back's time in none of them (the
// renderer's choice of a source, the calls between the steps), and the hand-over to the server after it (not
// in the read-back's time).
constexpr const char* kOutsideSteps = "(read ms in no step above)";
constexpr const char* kOfferStep = "after: offer_frame to the server";

struct DeskBenchCase {
  Extent size;
  long long frames_rendered = 0;            // render calls, until `frames` frames were read back
  long long frames_read = 0;                // read back and offered to the server: `frames`
  unsigned long long frames_delivered = 0;  // to the client; the rest were skipped while it read
  double delivered_fps = 0;                 // frames delivered / the time from the first to the last
  double render_fps = 0;                    // frames rendered and offered / the same run's time
  double read_back_ms = 0, encode_ms = 0, send_ms = 0;  // medians
  double jpeg_kib = 0;                                  // per delivered frame
  // The same frames to a page over a 20 Mbit/s link at 30 frames/s asked, moving and still, with the quality
  // and scale the desk chose (app/serve/link_bench.hpp).
  std::shared_ptr<const LinkBenchCase> link;
  std::string read_back_way;  // how the frames were read back ("CUDA", "PBO"; "" where an API has one way)
  // The read-back's steps on the loop's thread, in the order they first ran, then kOutsideSteps and
  // kOfferStep; empty where the read-back says no steps (Vulkan's).
  std::vector<StepStats> read_back_steps;
};

// A frame read back (top row first) and the index of the frame it is.
struct BenchFrame {
  long long index = 0;
  std::shared_ptr<const Image> image;   // FrameRead's: never null
  std::string way;                      // FrameRead's: how it was read back
  std::vector<uint64_t> stripe_hashes;  // FrameRead's: its GPU stripe hashes, passed on to the server
  // The read-back's steps in the render call that returned this frame (its collect, and the next frame's
  // read begun), on the host clock; empty where it says none.
  std::vector<StepTime> read_back_steps;
};

// What a RenderAndRead call is asked: LateReader::step's `wanted` (the server wants a frame: a viewer took
// the one before), asked once the frame is rendered, as the app's loop asks the desk at the end of its frame
// (a question asked before rendering, just after the last offer, would find that offer not yet taken and
// read every other frame); and `wait` (collect the oldest read waiting for it, as the link rows gather
// frames).
struct ReadAsk {
  std::function<bool()> wanted = [] { return true; };
  bool wait = false;
};

// Renders frame `index` and reads frames back through a serve::LateReader as `ask` says; returns the frame
// it handed over, an earlier one, with `read_back_ms` what reading back cost the loop's thread since the
// frame handed over before (LateRead::read_back_ms); nullopt when none was handed over.
using RenderAndRead =
    std::function<std::optional<BenchFrame>(long long index, ReadAsk ask, double& read_back_ms)>;

// One size: frames through `render` until `frames` frames have come back, each offered to the desk, a local
// client reading. Throws std::runtime_error when the client cannot connect or
// the stream breaks, std::logic_error when no frame comes back for 10 s.
DeskBenchCase bench_desk(Extent size, long long frames, const RenderAndRead& render);

// The steps of `frames` (each frame's, with what its whole read-back took) as rows: each step's median, p90
// and largest time over the frames it ran in, in the order the steps first ran, then kOutsideSteps (each
// frame's read-back time less its steps'). No rows where no frame has steps.
std::vector<StepStats> step_stats(const std::vector<std::pair<double, std::vector<StepTime>>>& frames);

// The table --bench --serve prints, and under it the read-back's steps per size where there are some.
std::string desk_bench_table(const std::vector<DeskBenchCase>& cases, const std::string& what);

// One size of an API's desk benchmark: `frames` frames of its loop made with `run` (headless, at the size),
// each read back as its desk reads it; sets `what` to the table's title line (the API, its device, the mode).
using DeskBenchSize = std::function<DeskBenchCase(const Options& run, long long frames, std::string& what)>;

// --bench --serve: the desk's frames to a local client, at --sizes (default 1920x1080 and 3840x2160),
// --bench-frames frames each (default 120), each size through `one_size`; prints the table. Returns 0.
int run_desk_bench(const Options& options, const DeskBenchSize& one_size);

}  // namespace lab::serve
