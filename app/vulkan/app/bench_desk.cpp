// app/vulkan/app/bench_desk.cpp — `interop-lab --bench --serve --api vulkan`: Vulkan's frames read back as
// its desk reads them (app/serve/desk_bench.hpp measures the rest: the encode, the link, the delivered rate).
#include "app/serve/desk.hpp"
#include "app/serve/desk_bench.hpp"
#include "app/vulkan/app/app.hpp"
#include "app/vulkan/app/bench.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab::vulkan {

namespace {

serve::DeskBenchCase desk_bench_case(const Options& run, long long frames, std::string& what) {
  App app(run);
  what = std::string("Vulkan (") + app.adapter() + "), mode " + to_string(app.mode_id());
  // As Vulkan's desk reads (serve::LateReader): a read's time is its begin, its looks and its collect, all
  // the loop's thread spends on it, as the desk's read-back phase is.
  serve::LateReader reader;
  return serve::bench_desk(
      {run.width, run.height}, frames, [&](long long index, serve::ReadAsk ask, double& read_back_ms) {
        app.render_frame(index);
        serve::LateRead read = reader.step(
            app.renderer(), ask.wanted(), [&] { app.renderer().begin_read_frame(app.plan(), index); },
            ask.wait);
        if (!read.collected) return std::optional<serve::BenchFrame>();
        read_back_ms = read.read_back_ms;
        FrameRead& frame = *read.collected;
        return std::optional<serve::BenchFrame>({frame.frame, std::move(frame.image), frame.way,
                                                 std::move(frame.stripe_hashes), std::vector<StepTime>()});
      });
}

}  // namespace

int run_desk_bench(const Options& options) {
  return serve::run_desk_bench(options, desk_bench_case);
}

}  // namespace lab::vulkan
