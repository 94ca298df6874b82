// app/gl/app/bench_rows.cpp — the GL benchmark's rows, one per mode (bench_rows.hpp).
#include "app/gl/app/bench_rows.hpp"

#include "app/gl/mode.hpp"

#include <stdexcept>
#include <string>

namespace lab::gl {
namespace {

// The loops that can hand their last frame to the tests, as the rows call them.
std::optional<Measurement> external_own_loop(App& app, std::optional<long long> frames) {
  return external_loop(app, frames);
}
std::optional<Measurement> exported_own_loop(App& app, std::optional<long long> frames) {
  return exported_loop(app, frames);
}
std::optional<Measurement> eglstream_own_loop(App& app, std::optional<long long> frames) {
  return eglstream_loop(app, frames);
}

}  // namespace

const std::vector<BenchRow>& bench_rows() {
  // mode, own path, own loop alone, own loop paired, needs CUDA, maps GL objects, extras, show passes, the
  // context's availability
  static const std::vector<BenchRow> rows = {
      {ModeId::Interop, "bare", nullptr, nullptr, true, true, true, false, nullptr},
      {ModeId::Reregister, "reregister ref", nullptr, reregister_work, true, true, false, false, nullptr},
      {ModeId::Pbo, "pbo ref", nullptr, pbo_work, true, true, false, false, nullptr},
      {ModeId::Split, "split ref", split_loop, nullptr, true, true, false, false, nullptr},
      {ModeId::Buffer, "buffer ref", buffer_loop, nullptr, true, true, false, true, nullptr},
      {ModeId::Staging, "staging ref", nullptr, staging_work, true, false, false, false, nullptr},
      {ModeId::Cpu, "cpu ref", nullptr, cpu_work, false, false, false, false, nullptr},
      {ModeId::External, "external ref", external_own_loop, nullptr, true, true, false, false, nullptr},
      {ModeId::Exported, "exported ref", exported_own_loop, nullptr, true, true, false, false, nullptr},
      {ModeId::Eglstream, "eglstream ref", eglstream_own_loop, nullptr, true, true, false, false,
       eglstream_support},
  };
  return rows;
}

const BenchRow& bench_row(ModeId mode) {
  for (const BenchRow& row : bench_rows())
    if (row.mode == mode) return row;
  throw std::logic_error(std::string("the GL benchmark has no row for mode ") + to_string(mode));
}

ModeId parking_mode() {
  return ModeId::Cpu;
}

}  // namespace lab::gl
