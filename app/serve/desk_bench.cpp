// app/serve/desk_bench.cpp — the desk's benchmark (app/serve/desk_bench.hpp): a Server on 127.0.0.1 (a free
// port), a Boost.Beast client on its own thread, and the caller's frames in between.
#include "app/serve/desk_bench.hpp"

#include "app/core/text.hpp"
#include "app/serve/beast.hpp"
#include "app/serve/link_bench.hpp"
#include "app/serve/protocol.hpp"
#include "app/serve/server.hpp"
#include "app/timing/statistics.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace lab::serve {

namespace {

using Clock = std::chrono::steady_clock;

// How long bench_desk waits for a read-back to come back before it gives up.
constexpr std::chrono::seconds kNoReadFor{10};

// The slow link's rows: a page on 20 Mbit/s asking for 30 frames/s.
constexpr double kLinkBitsPerS = 20e6;
constexpr double kLinkFps = 30;

// Reads state + frame pairs until a frame of index `last` or later arrives (`last` is -1 until the bench
// knows it: it is set before that frame is offered); counts them and their bytes.
struct Client {
  net::io_context io;
  websocket::stream<tcp::socket> ws{io};
  unsigned long long frames = 0;
  unsigned long long frame_bytes = 0;
  Clock::time_point first, latest;
  std::string error;

  Client(int port, const std::string& token) {
    ws.next_layer().connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
    ws.read_message_max(1ull << 30);
    ws.handshake("127.0.0.1", "/?token=" + token);
  }

  void read_until(const std::atomic<long long>& last) {
    try {
      while (true) {
        beast::flat_buffer buffer;
        ws.read(buffer);
        if (ws.got_text()) continue;  // the state before each frame
        const std::string bytes = beast::buffers_to_string(buffer.data());
        std::string why;
        const auto frame =
            parse_frame_message(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), why);
        if (!frame) throw std::runtime_error("a malformed frame: " + why);
        latest = Clock::now();
        if (frames++ == 0) first = latest;
        frame_bytes += bytes.size();
        const long long end = last.load();
        if (end >= 0 && static_cast<long long>(frame->index) >= end) return;
      }
    } catch (const std::exception& failure) {
      error = failure.what();
    }
  }
};

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

StepStats stats_of(const std::string& name, const std::vector<double>& samples) {
  StepStats stats;
  stats.name = name;
  stats.frames = samples.size();
  if (samples.empty()) return stats;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  stats.median_ms = percentile_of_sorted(sorted, 0.5);
  stats.p90_ms = percentile_of_sorted(sorted, 0.9);
  stats.max_ms = sorted.back();
  return stats;
}

}  // namespace

std::vector<StepStats> step_stats(const std::vector<std::pair<double, std::vector<StepTime>>>& frames) {
  std::vector<std::string> names;  // in the order they first ran
  std::vector<std::vector<double>> samples;
  std::vector<double> outside;
  for (const auto& [read_back_ms, steps] : frames) {
    if (steps.empty()) continue;
    double in_steps = 0;
    for (const StepTime& step : steps) {
      const auto named = std::find(names.begin(), names.end(), step.name);
      const size_t row = static_cast<size_t>(named - names.begin());
      if (named == names.end()) {
        names.push_back(step.name);
        samples.emplace_back();
      }
      samples[row].push_back(step.ms);
      in_steps += step.ms;
    }
    outside.push_back(read_back_ms - in_steps);
  }
  std::vector<StepStats> rows;
  for (size_t i = 0; i < names.size(); ++i) rows.push_back(stats_of(names[i], samples[i]));
  if (!outside.empty()) rows.push_back(stats_of(kOutsideSteps, outside));
  return rows;
}

DeskBenchCase bench_desk(Extent size, long long frames, const RenderAndRead& render) {
  ServerOptions options;
  options.address.port = 0;
  Server server(options);
  Client client(server.port(), server.token());
  while (server.counts().viewers == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::atomic<long long> last{-1};  // the index of the last frame offered, once known
  std::thread reader([&] { client.read_until(last); });

  const Clock::time_point start = Clock::now();
  long long rendered = 0;
  std::string way;
  std::vector<std::pair<double, std::vector<StepTime>>> steps;  // each frame's read-back and its steps
  std::vector<double> offers_ms;                                // each frame's hand-over to the server
  long long read = 0;
  Clock::time_point came_back = start;
  for (; read < frames; ++rendered) {
    // A read under way is done within a few frames: a renderer that never says so would run forever.
    if (Clock::now() - came_back > kNoReadFor)
      throw std::logic_error(
          "--bench --serve: no frame came back in " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kNoReadFor).count()) +
          " s, after frame " + std::to_string(rendered));
    double read_back_ms = 0;
    std::optional<BenchFrame> frame =
        render(rendered, {[&server] { return server.frame_wanted(); }, false}, read_back_ms);
    if (!frame) continue;
    const Clock::time_point offering = Clock::now();
    came_back = offering;
    ++read;
    server.add_read_back_ms(read_back_ms);
    AppState state;
    state.frame = frame->index;
    state.size = size;
    if (read == frames) last = frame->index;  // before it is offered: the client stops at it
    way = frame->way;
    server.offer_frame(std::move(frame->image), std::move(state), std::move(frame->stripe_hashes));
    offers_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - offering).count());
    steps.emplace_back(read_back_ms, std::move(frame->read_back_steps));
  }
  const Clock::time_point rendered_at = Clock::now();
  // The last frame offered is always encoded and sent (nothing newer replaces it).
  reader.join();
  if (!client.error.empty()) throw std::runtime_error("--bench --serve: the local client: " + client.error);

  DeskBenchCase result;
  result.size = size;
  result.frames_rendered = rendered;
  result.frames_read = read;
  result.frames_delivered = client.frames;
  const double delivering = seconds_between(client.first, client.latest);
  result.delivered_fps = delivering > 0 ? static_cast<double>(client.frames - 1) / delivering : 0;
  result.render_fps = static_cast<double>(rendered) / seconds_between(start, rendered_at);
  const DeskStats stats = server.desk_stats();
  result.read_back_ms = stats.phases[0].median_ms;
  result.encode_ms = stats.phases[1].median_ms;
  result.send_ms = stats.phases[2].median_ms;
  result.read_back_way = way;
  result.read_back_steps = step_stats(steps);
  if (!result.read_back_steps.empty()) result.read_back_steps.push_back(stats_of(kOfferStep, offers_ms));
  result.jpeg_kib = client.frames ? static_cast<double>(client.frame_bytes) / client.frames / 1024.0 : 0;
  result.link =
      std::make_shared<const LinkBenchCase>(bench_desk_link(size, kLinkBitsPerS, kLinkFps, rendered, render));
  return result;
}

namespace {

// The read-back's steps of every size that has them: a row per step (in the order they first ran), a column
// per size, each cell "median / p90 / max" ms a frame; "-" where a size did not run the step.
std::string read_back_steps_table(const std::vector<DeskBenchCase>& cases) {
  std::vector<const DeskBenchCase*> timed;
  std::vector<std::string> names;
  for (const DeskBenchCase& result : cases) {
    if (result.read_back_steps.empty()) continue;
    timed.push_back(&result);
    for (const StepStats& step : result.read_back_steps)
      if (std::find(names.begin(), names.end(), step.name) == names.end()) names.push_back(step.name);
  }
  if (timed.empty()) return "";
  // The rows bench_desk adds go last, whatever order the sizes' own steps came in.
  for (const char* added : {kOutsideSteps, kOfferStep}) {
    const auto named = std::find(names.begin(), names.end(), added);
    if (named != names.end()) {
      names.erase(named);
      names.emplace_back(added);
    }
  }
  size_t label = std::string("read ms (the table's median)").size();
  for (const std::string& name : names) label = std::max(label, name.size());
  const int width = static_cast<int>(label);
  constexpr int kCell = 26;
  char cell[128];
  const auto end_line = [](std::string& text) {
    text.erase(text.find_last_not_of(' ') + 1);
    text += '\n';
  };
  std::string table = "read-back steps on the loop's thread, host clock, ms a frame: median / p90 / max\n";
  std::snprintf(cell, sizeof cell, "%-*s", width, "step");
  table += cell;
  for (const DeskBenchCase* result : timed) {
    std::snprintf(cell, sizeof cell, "  %-*s", kCell,
                  (size_text(result->size.width, result->size.height) + " (" +
                   (result->read_back_way.empty() ? "-" : result->read_back_way) + ")")
                      .c_str());
    table += cell;
  }
  end_line(table);
  for (const std::string& name : names) {
    std::snprintf(cell, sizeof cell, "%-*s", width, name.c_str());
    table += cell;
    for (const DeskBenchCase* result : timed) {
      const auto step = std::find_if(result->read_back_steps.begin(), result->read_back_steps.end(),
                                     [&](const StepStats& each) { return each.name == name; });
      std::string text = "-";
      if (step != result->read_back_steps.end()) {
        std::snprintf(cell, sizeof cell, "%.3f / %.3f / %.3f", step->median_ms, step->p90_ms, step->max_ms);
        text = cell;
      }
      std::snprintf(cell, sizeof cell, "  %-*s", kCell, text.c_str());
      table += cell;
    }
    end_line(table);
  }
  std::snprintf(cell, sizeof cell, "%-*s", width, "read ms (the table's median)");
  table += cell;
  for (const DeskBenchCase* result : timed) {
    std::snprintf(cell, sizeof cell, "  %-*.3f", kCell, result->read_back_ms);
    table += cell;
  }
  end_line(table);
  return table;
}

}  // namespace

std::string desk_bench_table(const std::vector<DeskBenchCase>& cases, const std::string& what) {
  std::string table =
      "desk (--serve) on " + what + ": frames to a local WebSocket client, no frame-rate cap\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-11s %9s %9s %9s %10s %10s %10s %-9s %9s %9s\n", "size", "rendered",
                "read", "delivered", "render/s", "deliver/s", "read ms", "read by", "encode ms", "send ms");
  table += line;
  for (const DeskBenchCase& result : cases) {
    std::snprintf(line, sizeof line,
                  "%-11s %9lld %9lld %9llu %10.1f %10.1f %10.3f %-9s %9.3f %9.3f  (%.0f KiB a frame)\n",
                  size_text(result.size.width, result.size.height).c_str(), result.frames_rendered,
                  result.frames_read, result.frames_delivered, result.render_fps, result.delivered_fps,
                  result.read_back_ms, result.read_back_way.empty() ? "-" : result.read_back_way.c_str(),
                  result.encode_ms, result.send_ms, result.jpeg_kib);
    table += line;
  }
  table += read_back_steps_table(cases);
  std::vector<LinkBenchCase> links;
  for (const DeskBenchCase& result : cases)
    if (result.link) links.push_back(*result.link);
  return table + link_bench_table(links);
}

int run_desk_bench(const Options& options, const DeskBenchSize& one_size) {
  std::vector<BenchSize> sizes = options.bench_sizes;
  if (sizes.empty()) sizes = {{1920, 1080}, {3840, 2160}};
  const long long frames = options.bench_frames.value_or(120);
  std::vector<DeskBenchCase> cases;
  std::string what;
  for (const BenchSize size : sizes) {
    Options run = options;
    run.bench = false;
    run.serve.reset();
    run.headless = true;
    run.width = size.width;
    run.height = size.height;
    std::fprintf(stderr, "interop-lab: desk bench: %s, %lld frames\n",
                 size_text(size.width, size.height).c_str(), frames);
    cases.push_back(one_size(run, frames, what));
  }
  std::fputs(desk_bench_table(cases, what).c_str(), stdout);
  return 0;
}

}  // namespace lab::serve
