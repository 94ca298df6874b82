// app/vulkan/app/bench_rows.cpp — the Vulkan benchmark's rows (bench_rows.hpp).
#include "app/vulkan/app/bench_rows.hpp"

#include <cstring>

namespace lab::vulkan {

const std::vector<BareRow>& bare_rows() {
  static const std::vector<BareRow> rows = {
      {BareLoop::External, "bare"}, {BareLoop::Exported, "bare exported"}, {BareLoop::Buffer, "bare buffer"}};
  return rows;
}

const std::vector<BenchRow>& bench_rows() {
  using interop::SemaphoreKind;
  // mode, semaphores, path, bare path, judged by the reference, measures the throughput rows
  static const std::vector<BenchRow> rows = {
      {ModeId::External, SemaphoreKind::Timeline, "external (timeline)", "bare", true, true},
      {ModeId::External, SemaphoreKind::Binary, "external (binary)", "bare", true, true},
      {ModeId::Exported, SemaphoreKind::Timeline, "exported (timeline)", "bare exported", true, false},
      {ModeId::Exported, SemaphoreKind::Binary, "exported (binary)", "bare exported", true, false},
      {ModeId::Buffer, SemaphoreKind::Timeline, "buffer", "bare buffer", true, false},
      {ModeId::Staging, SemaphoreKind::Timeline, "staging", "bare", true, false},
      {ModeId::Cpu, SemaphoreKind::Timeline, "cpu", "", false, false},
  };
  return rows;
}

bool asks_for(const Options& options, const BenchRow& row) {
  return !options.mode || *options.mode == row.mode;
}

bool asks_for(const Options& options, const BareRow& bare) {
  if (!options.mode) return true;
  bool judged = false;
  for (const BenchRow& row : bench_rows()) {
    if (row.mode != *options.mode) continue;
    if (*row.bare_path == '\0') return &bare == &bare_rows().front();
    judged = judged || std::strcmp(row.bare_path, bare.path) == 0;
  }
  return judged;
}

bool asks_for_throughput(const Options& options) {
  for (const BenchRow& row : bench_rows())
    if (row.measures_throughput && asks_for(options, row)) return true;
  return false;
}

ModeId graphics_only_mode() {
  return ModeId::Cpu;
}

}  // namespace lab::vulkan
