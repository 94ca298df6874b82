// app/gl/app/bench_desk.cpp — `interop-lab --bench --serve --api gl`: GL's frames read back as GL's desk
// reads them (app/serve/desk_bench.hpp measures the rest: the encode, the link, the delivered rate).
#include "app/gl/app/app.hpp"
#include "app/gl/app/bench.hpp"
#include "app/serve/desk_bench.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab::gl {

namespace {

serve::DeskBenchCase desk_bench_case(const Options& run, long long frames, std::string& what) {
  App app(run);
  what = std::string("OpenGL (") + app.platform().description() + "), mode " + to_string(app.mode_id());
  // As GL's desk reads: the frame before, collected, then this one's read begun (app/gl/frame_read.hpp);
  // the read-back's time is both, as the desk's read-back phase is, and so are its steps.
  app.renderer().set_read_back_steps(true);
  return serve::bench_desk({run.width, run.height}, frames, [&](long long, double& read_back_ms) {
    app.render_frame();
    const auto started = std::chrono::steady_clock::now();
    std::optional<FrameRead> before = app.renderer().end_read_frame();
    app.renderer().begin_read_frame(app.plan(), app.platform().framebuffer_extent(), app.frame_index() - 1);
    read_back_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    std::vector<StepTime> steps = app.renderer().take_read_back_steps();
    return before ? std::optional<serve::BenchFrame>({before->frame, std::move(before->image), before->way,
                                                      std::move(before->stripe_hashes), std::move(steps)})
                  : std::nullopt;
  });
}

}  // namespace

int run_desk_bench(const Options& options) {
  return serve::run_desk_bench(options, desk_bench_case);
}

}  // namespace lab::gl
