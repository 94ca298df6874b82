// app/vulkan/app/bench_desk.cpp — `interop-lab --bench --serve --api vulkan`: Vulkan's frames read back as
// its desk reads them (app/serve/desk_bench.hpp measures the rest: the encode, the link, the delivered rate).
#include "app/serve/desk_bench.hpp"
#include "app/vulkan/app/app.hpp"
#include "app/vulkan/app/bench.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab::vulkan {

namespace {

serve::DeskBenchCase desk_bench_case(const Options& run, long long frames, std::string& what) {
  App app(run);
  what = std::string("Vulkan (") + app.adapter() + "), mode " + to_string(app.mode_id());
  // As Vulkan's desk reads: the frame before, collected, then this one's read begun; the read-back's time is
  // both, all the loop's thread spends on it, as the desk's read-back phase is.
  return serve::bench_desk({run.width, run.height}, frames, [&](long long index, double& read_back_ms) {
    app.render_frame(index);
    const auto started = std::chrono::steady_clock::now();
    std::optional<FrameRead> before = app.renderer().end_read_frame();
    app.renderer().begin_read_frame(app.plan(), index);
    read_back_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return before
               ? std::optional<serve::BenchFrame>({before->frame, std::move(before->image), before->way,
                                                   std::move(before->stripe_hashes), std::vector<StepTime>()})
               : std::nullopt;
  });
}

}  // namespace

int run_desk_bench(const Options& options) {
  return serve::run_desk_bench(options, desk_bench_case);
}

}  // namespace lab::vulkan
