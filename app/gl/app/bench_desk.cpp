// app/gl/app/bench_desk.cpp — `interop-lab --bench --serve --api gl`: GL's frames read back as GL's desk
// reads them (app/serve/desk_bench.hpp measures the rest: the encode, the link, the delivered rate).
#include "app/gl/app/app.hpp"
#include "app/gl/app/bench.hpp"
#include "app/serve/desk.hpp"
#include "app/serve/desk_bench.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab::gl {

namespace {

serve::DeskBenchCase desk_bench_case(const Options& run, long long frames, std::string& what) {
  App app(run);
  what = std::string("OpenGL (") + app.platform().description() + "), mode " + to_string(app.mode_id());
  // As GL's desk reads (serve::LateReader over app/gl/cuda_frame_read.hpp or app/gl/frame_read.hpp): a
  // frame's read-back time is all the loop's thread spent on reading back since the frame before it was
  // handed over (begins, looks, collects), as the desk's read-back phase is, and so are its steps.
  app.renderer().set_read_back_steps(true);
  serve::LateReader reader;
  return serve::bench_desk(
      {run.width, run.height}, frames, [&](long long, serve::ReadAsk ask, double& read_back_ms) {
        app.render_frame();
        Renderer& renderer = app.renderer();
        const long long index = app.frame_index() - 1;
        serve::LateRead read = reader.step(
            renderer, ask.wanted(),
            [&] { renderer.begin_read_frame(app.plan(), app.platform().framebuffer_extent(), index); },
            ask.wait);
        if (!read.collected) return std::optional<serve::BenchFrame>();
        read_back_ms = read.read_back_ms;
        FrameRead& frame = *read.collected;
        return std::optional<serve::BenchFrame>({frame.frame, std::move(frame.image), frame.way,
                                                 std::move(frame.stripe_hashes),
                                                 renderer.take_read_back_steps()});
      });
}

}  // namespace

int run_desk_bench(const Options& options) {
  return serve::run_desk_bench(options, desk_bench_case);
}

}  // namespace lab::gl
