// app/serve/stripes.hpp — what the desk sends a viewer that composites: only the stripes that changed since
// the frame it holds, and once a stripe has been still for a while, that stripe again at a high quality
// ("paint-over"), so a still picture ends sharp and then costs nothing. A slow link may have the changed
// stripes sent at a smaller scale (app/serve/link.hpp); a paint-over is always at scale 1, and a change of
// the scale sends the whole picture again at the new one. Stripes are
// kernels/stripe_hash.hpp's: kStripeRows rows from the top row, each with a 64-bit hash (the GPU's where the
// frame came with them, else stripe_hashes_cpu). No sockets and no threads here: the server
// (app/serve/server.cpp) keeps one StripeBook per viewer on its network thread, and the unit tests drive it
// with their own clock.
#pragma once

#include "app/image/image_io.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace lab::serve {

using SteadyClock = std::chrono::steady_clock;

// Rows [y, y + rows) of a frame, whole stripes (the last one of the frame may be short), sent as one JPEG at
// `quality`, of the rows downscaled by `scale` (1, 2 or 4: the JPEG is ceil(width / scale) x
// ceil(rows / scale)). y and rows stay the frame's.
struct StripeRun {
  int y = 0;
  int rows = 0;
  int quality = 0;
  int scale = 1;
};

struct PaintOver {
  int quality = 90;  // above any quality the link picks (LinkControl's top_quality); always at scale 1
  // How long a stripe stays unchanged before it is sent again at `quality`: long enough that a picture
  // which moves every few frames is not painted over between its moves.
  std::chrono::milliseconds after{600};
};

// The stripe hashes of an RGBA8 frame, top row first, on the CPU (kernels::stripe_hashes_cpu).
std::vector<uint64_t> stripe_hashes(const Image& frame);

// The runs that `stripes` make (each one stripe, top to bottom, at its quality and scale: a run of one):
// neighbours of one quality and scale join, a run at most `most_stripes` stripes long (so that several
// encoders share a large change).
std::vector<StripeRun> stripe_runs(const std::vector<StripeRun>& stripes, int most_stripes);

// One viewer's record of the picture it holds: per stripe the hash, quality and scale it was last sent at,
// and since when the app's frames have kept that stripe unchanged.
class StripeBook {
 public:
  explicit StripeBook(PaintOver paint_over = {}) : m_paint_over(paint_over) {}

  // The runs to send for a frame `width` x `height` with stripe `hashes`, at time `now`: every stripe whose
  // hash differs from the one the viewer holds, at `quality` and `scale`; every stripe still for
  // PaintOver::after and last sent below PaintOver::quality or at a smaller scale, at that quality and scale
  // 1; all stripes when the viewer holds nothing of this size (the first frame, a resize, after forget()) or
  // `scale` is not the last plan's (a whole picture at the new scale). Records them as sent. `pieces`: how
  // many encoders share the work (runs are cut to about an equal share each).
  std::vector<StripeRun> plan(const std::vector<uint64_t>& hashes, int width, int height, int quality,
                              SteadyClock::time_point now, int pieces = 1, int scale = 1);
  // The viewer holds nothing any more (its page asked for a whole frame): the next plan sends every stripe.
  void forget() { m_stripes.clear(); }
  // When the next paint-over falls due for the frame last planned, if any would.
  std::optional<SteadyClock::time_point> next_paint_over() const;

 private:
  struct Stripe {
    uint64_t seen = 0;  // the hash in the newest frame planned
    SteadyClock::time_point still_since;
    uint64_t sent = 0;  // the hash the viewer holds
    int sent_quality = 0;
    int sent_scale = 1;
    // Whether the paint-over would send it again, once still for long enough.
    bool below(const PaintOver& paint_over) const {
      return sent_quality < paint_over.quality || sent_scale != 1;
    }
  };
  PaintOver m_paint_over;
  int m_width = 0, m_height = 0;
  int m_scale = 1;  // the last plan's
  std::vector<Stripe> m_stripes;
};

}  // namespace lab::serve
