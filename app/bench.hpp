// app/bench.hpp — `interop-lab --bench`: every available mode x scene x size, headless, measured
// against two references taken in the same run: the floor (the same kernel writing plain cudaMalloc
// memory) and the bare loop (register once, then map -> kernel -> unmap with direct CUDA calls).
#pragma once

#include "app/cli.hpp"

namespace lab {

int run_bench(const Options& options);

}  // namespace lab
