// app/vulkan/app/bench_rows.hpp — what the Vulkan benchmark (app/vulkan/app/bench.cpp) knows of each mode, in
// one table beside Vulkan's mode table (app/vulkan/modes.cpp): the rows it measures (a mode with a kind of
// semaphores, its label), the bare loop that judges each (app/vulkan/app/bench_bare.hpp), and which frame the
// throughput rows measure. Adding a mode adds a row here; the benchmark's code names no mode.
#pragma once

#include "app/cli/cli.hpp"
#include "app/vulkan/app/bench_bare.hpp"
#include "interop/external.hpp"

#include <vector>

namespace lab::vulkan {

// A bare loop of the table: which frame it writes and its row's label.
struct BareRow {
  BareLoop loop;
  const char* path;  // "bare", "bare exported", "bare buffer"
};

// A mode measured in the table, with one kind of semaphores.
struct BenchRow {
  ModeId mode;
  interop::SemaphoreKind semaphores;
  const char* path;       // its label ("external (timeline)")
  const char* bare_path;  // the bare loop that judges it ("": none; the cpu mode runs no kernel on the GPU)
  bool judged_by_reference;  // false: neither the parts nor a bare loop describe it (cpu)
  bool measures_throughput;  // the throughput rows measure its frame: asked for with --mode of this mode
};

// In the order they are measured and reported; the first row is what every mode's "x external" holds it
// against.
const std::vector<BareRow>& bare_rows();
const std::vector<BenchRow>& bench_rows();
// Whether the run's --mode (none: every mode) asks for the row's mode.
bool asks_for(const Options& options, const BenchRow& row);
// Whether a mode the run asks for is judged by `bare`; with --mode of a mode judged by none, the first
// (external's, which the other modes are judged against too).
bool asks_for(const Options& options, const BareRow& bare);
// Whether the run asks for the throughput rows (no --mode, or a mode whose frame they measure).
bool asks_for_throughput(const Options& options);
// The mode an app of the parts alone runs (its graphics: the Vulkan passes, never asked to produce): cpu.
ModeId graphics_only_mode();

}  // namespace lab::vulkan
