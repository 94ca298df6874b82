// app/bench/report.cpp — the benchmark's one result type judged and written (report.hpp): the ratios of a
// case against the rows measured beside it, the table, the JSON and the SVG chart of every API's benchmark.
#include "app/bench/report.hpp"

#include "app/core/text.hpp"
#include "app/timing/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <sstream>

namespace lab::bench {
namespace {

bool same_case(const Result& a, const Result& b) {
  return a.api == b.api && a.scene == b.scene && a.width == b.width && a.height == b.height;
}

const Result* find_role(const Result& like, const std::vector<Result>& all, Role role) {
  for (const Result& r : all)
    if (same_case(r, like) && r.role == role) return &r;
  return nullptr;
}

double median_of_path(const Result& like, const std::vector<Result>& all, const std::string& path) {
  if (path.empty()) return 0.0;
  for (const Result& r : all)
    if (same_case(r, like) && r.path == path) return r.median_ms;
  return 0.0;
}

double median_of_role(const Result& like, const std::vector<Result>& all, Role role) {
  const Result* found = find_role(like, all, role);
  return found ? found->median_ms : 0.0;
}

std::string number(double value, const char* format) {
  char text[24] = "-";
  if (value > 0) std::snprintf(text, sizeof text, format, value);
  return text;
}

bool judged(const Result& result) {
  return result.role == Role::Mode || result.role == Role::Bare;
}

}  // namespace

const char* to_string(Role role) {
  switch (role) {
    case Role::Floor:
      return "floor";
    case Role::Handoff:
      return "handoff";
    case Role::Graphics:
      return "graphics";
    case Role::Show:
      return "show";
    case Role::Bare:
      return "bare";
    case Role::Own:
      return "own reference";
    case Role::Mode:
      return "mode";
  }
  return "mode";
}

Ratios ratios_of(const Result& result, const std::vector<Result>& all) {
  Ratios ratios;
  if (result.median_ms > 0 && result.timed_median_ms > 0)
    ratios.timing_cost = result.timed_median_ms / result.median_ms;
  if (!judged(result)) return ratios;
  ratios.floor_ms = median_of_role(result, all, Role::Floor);
  ratios.handoff_ms = result.handoff_path.empty() ? median_of_role(result, all, Role::Handoff)
                                                  : median_of_path(result, all, result.handoff_path);
  ratios.graphics_ms = median_of_role(result, all, Role::Graphics);
  // The reference is the kernels, one hand-off and the graphics work, each measured alone: without the
  // floor or the hand-off (no CUDA device, no interop) there is none, in every API alike.
  if (result.judged_by_reference && ratios.floor_ms > 0 && ratios.handoff_ms > 0) {
    ratios.reference_ms = ratios.floor_ms + ratios.handoff_ms + ratios.graphics_ms;
    ratios.to_reference = result.median_ms / ratios.reference_ms;
  }
  if (result.role == Role::Bare) return ratios;
  ratios.bare_ms = median_of_path(result, all, result.bare_path);
  ratios.own_ms = median_of_path(result, all, result.own_path);
  ratios.external_ms =
      result.external_path == result.path ? 0.0 : median_of_path(result, all, result.external_path);
  if (ratios.bare_ms > 0) ratios.to_bare = result.median_ms / ratios.bare_ms;
  if (ratios.own_ms > 0) ratios.to_own = result.median_ms / ratios.own_ms;
  if (ratios.external_ms > 0) ratios.to_external = result.median_ms / ratios.external_ms;
  return ratios;
}

Result combine_runs(std::vector<Result> runs) {
  if (runs.size() == 1) {
    runs.front().min_median_ms = runs.front().max_median_ms = runs.front().median_ms;
    return runs.front();
  }
  std::vector<double> medians, p90s, timed, host;
  for (const Result& r : runs) {
    medians.push_back(r.median_ms);
    p90s.push_back(r.p90_ms);
    if (r.timed_median_ms > 0) timed.push_back(r.timed_median_ms);
    if (r.host_median_ms > 0) host.push_back(r.host_median_ms);
  }
  const double middle = median(medians);
  Result combined = *std::min_element(runs.begin(), runs.end(), [middle](const Result& a, const Result& b) {
    return std::fabs(a.median_ms - middle) < std::fabs(b.median_ms - middle);
  });
  combined.median_ms = middle;
  combined.p90_ms = median(p90s);
  combined.timed_median_ms = timed.empty() ? 0.0 : median(timed);
  combined.host_median_ms = host.empty() ? 0.0 : median(host);
  combined.runs = static_cast<int>(runs.size());
  combined.min_median_ms = *std::min_element(medians.begin(), medians.end());
  combined.max_median_ms = *std::max_element(medians.begin(), medians.end());
  return combined;
}

double frames_per_second(const Throughput& throughput) {
  return throughput.ms_per_frame > 0 ? 1000.0 / throughput.ms_per_frame : 0.0;
}

double ratio_to_latency(const Throughput& throughput, const std::vector<Throughput>& all) {
  for (const Throughput& t : all)
    if (t.api == throughput.api && t.scene == throughput.scene && t.path == throughput.path &&
        t.width == throughput.width && t.height == throughput.height && t.in_flight == 1 &&
        t.per_handoff == 1 && t.ms_per_frame > 0)
      return throughput.ms_per_frame / t.ms_per_frame;
  return 0.0;
}

std::vector<ThroughputForm> throughput_forms() {
  return {{1, 1}, {2, 1}, {3, 1}, {1, 2}, {1, 4}};
}

long long throughput_frames(long long frames, int per_handoff) {
  const long long step = std::max(per_handoff, 1);
  return std::max((frames + step - 1) / step, 1LL) * step;
}

ThroughputPlan plan_throughput(bool asked, const std::string& unavailable) {
  ThroughputPlan plan;
  if (asked && unavailable.empty()) plan.forms = throughput_forms();
  plan.skipped = unavailable;
  return plan;
}

std::string SkipNotes::note(const std::string& path, const std::string& reason) {
  const auto same_reason = [&reason](const auto& said) { return said.second == reason; };
  const auto first = std::find_if(m_said.begin(), m_said.end(), same_reason);
  if (std::find(m_said.begin(), m_said.end(), std::make_pair(path, reason)) != m_said.end()) return "";
  const std::string line = first == m_said.end() ? path + " skipped: " + reason
                                                 : path + " skipped for the same reason as " + first->first;
  m_said.emplace_back(path, reason);
  return line;
}

std::string format_table(const Report& report) {
  const bool external = std::any_of(report.results.begin(), report.results.end(),
                                    [](const Result& r) { return !r.external_path.empty(); });
  int path_width = 15;
  for (const Result& r : report.results) path_width = std::max(path_width, static_cast<int>(r.path.size()));
  std::string text;
  char line[1024];
  std::snprintf(line, sizeof line, "\n%-12s %-10s %-*s %9s %s%9s %9s %9s %9s %s%9s %9s %9s  %s\n", "scene",
                "size", path_width, "path", "median ms", report.repeat ? "  runs min-max ms  " : "", "p90 ms",
                "x ref", "x bare", "x own", external ? "x external " : "", "timed ms", "x timing", "host ms",
                "phases (median ms, timing on)");
  text += line;
  for (const Result& r : report.results) {
    const Ratios ratios = ratios_of(r, report.results);
    std::string phases;
    for (const auto& [name, value] : r.phases) {
      char phase[64];
      std::snprintf(phase, sizeof phase, "%s %.3f  ", name.c_str(), value.first);
      phases += phase;
    }
    char spread[48] = "";
    if (report.repeat)
      std::snprintf(spread, sizeof spread, " %3d %6.3f-%-7.3f ", r.runs, r.min_median_ms, r.max_median_ms);
    std::string to_external;
    if (external) {
      char column[32];
      std::snprintf(column, sizeof column, "%10s ", number(ratios.to_external, "%.3f").c_str());
      to_external = column;
    }
    std::snprintf(
        line, sizeof line, "%-12s %-10s %-*s %9.3f %s%9.3f %9s %9s %9s %s%9s %9s %9s  %s\n", r.scene.c_str(),
        size_text(r.width, r.height).c_str(), path_width, r.path.c_str(), r.median_ms, spread, r.p90_ms,
        number(ratios.to_reference, "%.3f").c_str(), number(ratios.to_bare, "%.3f").c_str(),
        number(ratios.to_own, "%.3f").c_str(), to_external.c_str(), number(r.timed_median_ms, "%.3f").c_str(),
        number(ratios.timing_cost, "%.3f").c_str(), number(r.host_median_ms, "%.3f").c_str(), phases.c_str());
    text += line;
  }
  return text;
}

std::string format_throughput(const Report& report) {
  if (report.throughput.empty() && report.throughput_skipped.empty()) return "";
  std::string text =
      "\nthroughput: frames in flight (the host waits for the frame N back only) and K frames per hand-off "
      "(K resources handed over at once: one map, or one semaphore wait and one signal), ms per frame of all "
      "frames finished\n";
  if (report.throughput.empty()) return text + "  skipped: " + report.throughput_skipped + "\n";
  int path_width = 10;
  for (const Throughput& t : report.throughput)
    path_width = std::max(path_width, static_cast<int>(t.path.size()));
  char line[256];
  std::snprintf(line, sizeof line, "  %-12s %-10s %-*s %9s %11s %12s %9s %9s\n", "scene", "size", path_width,
                "path", "in flight", "per hand-off", "ms / frame", "fps", "x latency");
  text += line;
  for (const Throughput& t : report.throughput) {
    std::snprintf(line, sizeof line, "  %-12s %-10s %-*s %9d %11d %12.3f %9.1f %9s\n", t.scene.c_str(),
                  size_text(t.width, t.height).c_str(), path_width, t.path.c_str(), t.in_flight,
                  t.per_handoff, t.ms_per_frame, frames_per_second(t),
                  number(ratio_to_latency(t, report.throughput), "%.3f").c_str());
    text += line;
  }
  return text;
}

nlohmann::json cases_json(const Report& report) {
  nlohmann::json cases = nlohmann::json::array();
  for (const Result& r : report.results) {
    const Ratios ratios = ratios_of(r, report.results);
    nlohmann::json entry = {{"api", r.api},
                            {"scene", r.scene},
                            {"width", r.width},
                            {"height", r.height},
                            {"path", r.path},
                            {"role", to_string(r.role)},
                            {"frames", r.frames},
                            {"median_ms", r.median_ms},
                            {"p90_ms", r.p90_ms},
                            {"phases_median_ms", nlohmann::json::object()},
                            {"phases_p90_ms", nlohmann::json::object()}};
    if (report.repeat) {
      entry["runs"] = r.runs;
      entry["median_of_medians_ms"] = r.median_ms;
      entry["min_median_ms"] = r.min_median_ms;
      entry["max_median_ms"] = r.max_median_ms;
    }
    for (const auto& [name, value] : r.phases) {
      entry["phases_median_ms"][name] = value.first;
      entry["phases_p90_ms"][name] = value.second;
    }
    if (r.host_median_ms > 0) entry["host_median_ms"] = r.host_median_ms;
    if (r.timed_median_ms > 0) {
      entry["median_ms_with_phase_timing"] = r.timed_median_ms;
      entry["ratio_phase_timing_on_to_off"] = ratios.timing_cost;
    }
    if (judged(r)) {
      if (ratios.floor_ms > 0) entry["floor_ms"] = ratios.floor_ms;
      if (ratios.handoff_ms > 0) entry["handoff_ms"] = ratios.handoff_ms;
      entry["graphics_ms"] = ratios.graphics_ms;
      // Each row the case is judged against: that row's time and the case's ratio to it (none: 0 ms).
      const struct {
        const char* ms_key;
        double ms;
        const char* ratio_key;
        double ratio;
      } judges[] = {
          {"reference_ms", ratios.reference_ms, "ratio_to_reference", ratios.to_reference},
          {"bare_ms", ratios.bare_ms, "ratio_to_bare_loop", ratios.to_bare},
          {"own_reference_ms", ratios.own_ms, "ratio_to_own_reference", ratios.to_own},
          {"external_ms", ratios.external_ms, "ratio_to_external", ratios.to_external},
      };
      for (const auto& judge : judges)
        if (judge.ms > 0) {
          entry[judge.ms_key] = judge.ms;
          entry[judge.ratio_key] = judge.ratio;
        }
      if (ratios.to_bare > 0)
        entry["ratio_to_bare"] = ratios.to_bare;  // the same, as Vulkan's JSON named it first
    }
    cases.push_back(entry);
  }
  return cases;
}

nlohmann::json throughput_json(const Report& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const Throughput& t : report.throughput) {
    nlohmann::json row = {{"api", t.api},
                          {"scene", t.scene},
                          {"path", t.path},
                          {"width", t.width},
                          {"height", t.height},
                          {"frames_in_flight", t.in_flight},
                          {"frames_per_handoff", t.per_handoff},
                          {"frames", t.frames},
                          {"ms_per_frame", t.ms_per_frame},
                          {"frames_per_second", frames_per_second(t)}};
    if (const double ratio = ratio_to_latency(t, report.throughput); ratio > 0)
      row["ratio_to_latency"] = ratio;
    rows.push_back(row);
  }
  return rows;
}

std::string svg_chart(const std::vector<Result>& results, const std::vector<std::pair<int, int>>& sizes,
                      const std::vector<std::string>& scenes, const std::vector<std::string>& paths,
                      const std::string& title) {
  static const char* const kColours[] = {"#555555", "#999999", "#2a9d3f", "#d1495b", "#edae49", "#3d5a80",
                                         "#00798c", "#7b5ea7", "#e07a5f", "#81b29a", "#f2cc8f", "#3d405b"};
  const auto colour_of = [&](size_t i) { return kColours[i % std::size(kColours)]; };
  double lowest = 1e9, highest = 1e-9;
  for (const Result& r : results) {
    lowest = std::min(lowest, r.median_ms);
    highest = std::max(highest, r.median_ms);
  }
  const double log_low = std::floor(std::log10(std::max(lowest, 1e-3)));
  const double log_high = std::ceil(std::log10(std::max(highest, 1e-3)));
  const double decades = std::max(1.0, log_high - log_low);
  const int panel_width = 360, panel_height = 300, left = 70, top = 50, gap = 110;
  const int width = left + static_cast<int>(scenes.size()) * (panel_width + gap) + 110;
  const int height = top + panel_height + 70;
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
      << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n"
      << "<text x='" << left << "' y='22' font-size='15'>" << title << "</text>\n";
  bool dashed = false;  // whether a line of a part or a loop was drawn: the caption says what dashes mean
  for (size_t s = 0; s < scenes.size(); ++s) {
    const int x0 = left + static_cast<int>(s) * (panel_width + gap);
    const auto x_of = [&](size_t i) {
      return x0 + (sizes.size() == 1 ? panel_width / 2.0
                                     : static_cast<double>(i) * panel_width / (sizes.size() - 1));
    };
    const auto y_of = [&](double ms) {
      return top + panel_height - (std::log10(std::max(ms, 1e-3)) - log_low) / decades * panel_height;
    };
    svg << "<text x='" << x0 << "' y='" << top - 8 << "' font-weight='bold'>" << scenes[s] << "</text>\n"
        << "<rect x='" << x0 << "' y='" << top << "' width='" << panel_width << "' height='" << panel_height
        << "' fill='none' stroke='#ccc'/>\n";
    for (double d = log_low; d <= log_low + decades + 1e-9; d += 1.0) {
      const double y = y_of(std::pow(10.0, d));
      svg << "<line x1='" << x0 << "' x2='" << x0 + panel_width << "' y1='" << y << "' y2='" << y
          << "' stroke='#eee'/>\n<text x='" << x0 - 6 << "' y='" << y + 4 << "' text-anchor='end'>"
          << std::pow(10.0, d) << " ms</text>\n";
    }
    for (size_t i = 0; i < sizes.size(); ++i)
      svg << "<text x='" << x_of(i) << "' y='" << top + panel_height + 18 << "' text-anchor='middle'>"
          << size_text(sizes[i].first, sizes[i].second) << "</text>\n";
    for (size_t p = 0; p < paths.size(); ++p) {
      std::string points;
      bool reference = false;
      for (size_t i = 0; i < sizes.size(); ++i)
        for (const Result& r : results)
          if (r.scene == scenes[s] && r.path == paths[p] && r.width == sizes[i].first &&
              r.height == sizes[i].second) {
            points += std::to_string(x_of(i)) + "," + std::to_string(y_of(r.median_ms)) + " ";
            reference = r.role != Role::Mode;
          }
      if (points.empty()) continue;
      dashed = dashed || reference;
      svg << "<polyline fill='none' stroke='" << colour_of(p) << "' stroke-width='2'"
          << (reference ? " stroke-dasharray='5,4'" : "") << " points='" << points << "'/>\n";
    }
  }
  int legend_y = top + 10;
  const int legend_x = left + static_cast<int>(scenes.size()) * (panel_width + gap) - 20;
  for (size_t p = 0; p < paths.size(); ++p) {
    const bool present =
        std::any_of(results.begin(), results.end(), [&](const Result& r) { return r.path == paths[p]; });
    if (!present) continue;
    svg << "<line x1='" << legend_x << "' x2='" << legend_x + 24 << "' y1='" << legend_y << "' y2='"
        << legend_y << "' stroke='" << colour_of(p) << "' stroke-width='3'/><text x='" << legend_x + 30
        << "' y='" << legend_y + 4 << "'>" << paths[p] << "</text>\n";
    legend_y += 20;
  }
  svg << "<text x='" << left << "' y='" << height - 12 << "'>median wall time per frame (ms, log scale)"
      << (dashed ? "; dashed: the parts measured alone and the bare loop" : "") << "</text>\n</svg>\n";
  return svg.str();
}

}  // namespace lab::bench
