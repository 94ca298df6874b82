// app/serve/link_bench.hpp — `--bench --serve`'s rows over a slow link: what the desk delivers to a page
// whose link carries `link_bits_per_s` (a relay on the loopback interface passes the desk's bytes on at that
// rate, as a page on a slow network reads them), the page acking each frame it drew as the desk's page does.
// Moving: frames the app rendered (a few distinct ones, each offered after the other so that every frame
// moves) offered at `fps` (the desk's frame-rate cap too) for a few seconds; the frames per second the page
// got, kbit/s and the quality and scale the desk chose over the last seconds. Still: the same frame offered
// at `fps`;
// what the page receives per second once the paint-over is done (the state messages alone).
#pragma once

#include "app/serve/desk_bench.hpp"

#include <string>
#include <vector>

namespace lab::serve {

struct LinkBenchCase {
  Extent size;
  double link_mbit_per_s = 0;
  double asked_fps = 0;
  double moving_fps = 0;  // frame messages the page drew per second
  double moving_kbit_per_s = 0;
  int quality_low = 0, quality_last = 0;  // the lowest and the last quality the desk's state said
  int scale_most = 1, scale_last = 1;     // the smallest scale (its divisor: 1, 2, 4) and the last one
  double still_kib_per_s = 0;             // every byte the page received, after the paint-over
  double still_paint_kib = 0;             // the paint-over's frame messages
};

// Renders a few frames through `render` (frame indices from `first_index`), then runs the moving and the
// still case. Throws std::runtime_error when the page cannot connect.
LinkBenchCase bench_desk_link(Extent size, double link_bits_per_s, double fps, long long first_index,
                              const RenderAndRead& render);

// The rows --bench --serve prints under its table.
std::string link_bench_table(const std::vector<LinkBenchCase>& cases);

}  // namespace lab::serve
