// app/gl/app/bench.hpp — `interop-lab --bench`: every available mode x scene x size (or the cases --scene,
// --mode and --size pick), headless, measured against references taken in the same run: the floor
// (the kernels alone), the hand-off (map + unmap alone), the graphics (the GL work alone) and the bare
// loop (the minimal correct frame with direct CUDA calls). bench.cpp says how.
#pragma once

#include "app/cli/cli.hpp"

namespace lab::gl {

int run_bench(const Options& options);
// --bench --serve: the desk's frames through GL's loop, each read back as GL's desk reads it
// (bench_desk.cpp; app/serve/desk_bench.hpp measures the rest).
int run_desk_bench(const Options& options);

}  // namespace lab::gl
