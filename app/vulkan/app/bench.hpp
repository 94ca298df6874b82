// app/vulkan/app/bench.hpp — `interop-lab --bench --api vulkan`: the Vulkan modes x scenes x sizes, timed
// as the GL benchmark times its cases (bench.cpp says how).
#pragma once

#include "app/cli/cli.hpp"
#include "app/vulkan/app/app.hpp"

#include <memory>

namespace lab::vulkan {

// Prints the table (and writes --json); returns 0. Cases a mode cannot run here are skipped, saying why.
int run_bench(const Options& options);
// --bench --serve: the desk's frames through Vulkan's loop, each read back as Vulkan's desk reads it
// (bench_desk.cpp; app/serve/desk_bench.hpp measures the rest).
int run_desk_bench(const Options& options);

// The app whose passes the graphics row times (render_graphics_only): headless at `extent`, `scene`, the mode
// that needs no GPU, with one frame of it rendered (untimed), so the passes read a real frame.
std::unique_ptr<App> graphics_app(const Options& options, SceneId scene, Extent extent);

}  // namespace lab::vulkan
