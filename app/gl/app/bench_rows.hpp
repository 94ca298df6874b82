// app/gl/app/bench_rows.hpp — what the GL benchmark (app/gl/app/bench.cpp) knows of each mode, in one table
// beside GL's mode table (app/gl/mode.cpp): the mode's own loop and the label of its row, and the references
// and extras the mode's frame asks for. Adding a mode adds one row here; the benchmark's code names no mode.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/gl/app/bench_loops.hpp"

#include <vector>

namespace lab::gl {

struct BenchRow {
  ModeId mode;
  // The row the mode is judged by as its own loop ("x own"), and the loop that measures it: alone, in turns
  // with the mode run by run (own_loop), or beside the mode, frame by frame (paired_loop); neither: the row
  // is measured with the references (interop's "bare").
  const char* own_path;
  OwnLoop own_loop;
  PairedLoop paired_loop;
  bool needs_cuda;        // false: the mode and its own loop run without a CUDA device (cpu)
  bool maps_gl_objects;   // with --mode, it asks for the hand-off (map + unmap) and the bare loop
  bool measures_extras;   // its frame is what the throughput rows and the timing cost measure (interop)
  bool asks_show_passes;  // the show pass from a texture and from a buffer measured beside it (buffer)
  // Where set, the mode's availability in the plan is this, the GL context's alone (eglstream: only the
  // scenes of CUDA's images run it; each other scene leaves it out without saying so again).
  ModeAvailability (*context_availability)();
};

// One row per GL mode, in all_modes()'s order.
const std::vector<BenchRow>& bench_rows();
const BenchRow& bench_row(ModeId mode);
// The mode the benchmark attaches between cases and before each raw loop: it holds no GL object and leaves
// the scene's images in textures (the cpu mode).
ModeId parking_mode();

}  // namespace lab::gl
