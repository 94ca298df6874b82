// app/vulkan/bench.hpp — `interop-lab --bench --api vulkan`: the Vulkan modes x scenes x sizes, timed
// as the GL benchmark times its cases (bench.cpp says how).
#pragma once

#include "app/core/cli.hpp"

namespace lab::vulkan {

// Prints the table (and writes --json); returns 0. Cases a mode cannot run here are skipped, saying why.
int run_bench(const Options& options);

}  // namespace lab::vulkan
