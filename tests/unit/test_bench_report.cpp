// tests/unit/test_bench_report.cpp — the benchmark's one report (app/bench/report.hpp) on made-up results:
// the ratios against the parts measured alone (x ref = floor + hand-off + graphics in every API), the bare
// and own loops, what is not judged, the runs combined, the throughput rows (their plan, GL's and Vulkan's
// held against their own latency rows, the clock's frame count), and the table, JSON and chart written from
// them, and the pairs' clock. Every expected number is computed from the inputs; nothing is timed but the
// pairs' clock's frames, one of which sleeps.
#include "app/bench/report.hpp"
#include "app/timing/bench_timing.hpp"
#include "app/timing/statistics.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using lab::bench::Result;
using lab::bench::Role;

Result row(const std::string& api, const std::string& path, Role role, double median_ms, int width = 64) {
  Result r;
  r.api = api;
  r.scene = "pattern";
  r.path = path;
  r.role = role;
  r.width = width;
  r.height = 48;
  r.frames = 10;
  r.median_ms = median_ms;
  r.p90_ms = median_ms * 1.25;
  return r;
}

// One API's rows of one size: the parts, a bare loop, a mode judged by both, its own loop.
std::vector<Result> rows_of(const std::string& api, double scale, int width = 64) {
  std::vector<Result> rows = {row(api, "floor", Role::Floor, 0.07 * scale, width),
                              row(api, "handoff", Role::Handoff, 0.33 * scale, width),
                              row(api, "graphics", Role::Graphics, 0.61 * scale, width),
                              row(api, "bare", Role::Bare, 1.02 * scale, width),
                              row(api, "interop ref", Role::Own, 0.98 * scale, width),
                              row(api, "interop", Role::Mode, 1.05 * scale, width)};
  rows.back().bare_path = "bare";
  rows.back().own_path = "interop ref";
  return rows;
}

std::string formatted(double value) {
  char text[24];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

TEST(BenchRatios, EveryApiIsJudgedAgainstFloorPlusHandoffPlusGraphics) {
  for (const char* api : {"gl", "vulkan"}) {
    const std::vector<Result> rows = rows_of(api, api == std::string("gl") ? 1.0 : 1.7);
    const Result& mode = rows.back();
    const lab::bench::Ratios ratios = lab::bench::ratios_of(mode, rows);
    const double reference = rows[0].median_ms + rows[1].median_ms + rows[2].median_ms;
    EXPECT_DOUBLE_EQ(ratios.reference_ms, reference) << api;
    EXPECT_DOUBLE_EQ(ratios.handoff_ms, rows[1].median_ms) << api;
    EXPECT_DOUBLE_EQ(ratios.to_reference, mode.median_ms / reference) << api;
    EXPECT_DOUBLE_EQ(ratios.to_bare, mode.median_ms / rows[3].median_ms) << api;
    EXPECT_DOUBLE_EQ(ratios.to_own, mode.median_ms / rows[4].median_ms) << api;
    EXPECT_EQ(ratios.to_external, 0.0) << api;

    // The bare loop is judged against the reference only; the parts and the own loop are not judged.
    const lab::bench::Ratios bare = lab::bench::ratios_of(rows[3], rows);
    EXPECT_DOUBLE_EQ(bare.to_reference, rows[3].median_ms / reference);
    EXPECT_EQ(bare.to_bare, 0.0);
    for (size_t i : {0u, 1u, 2u, 4u}) {
      const lab::bench::Ratios part = lab::bench::ratios_of(rows[i], rows);
      EXPECT_EQ(part.reference_ms, 0.0) << rows[i].path;
      EXPECT_EQ(part.to_reference, 0.0) << rows[i].path;
    }
  }
}

TEST(BenchRatios, NoReferenceWithoutTheHandoffAndNoneForWhatThePartsDoNotDescribe) {
  std::vector<Result> rows = rows_of("vulkan", 1.0);
  rows.erase(rows.begin() + 1);  // the hand-off could not be measured
  EXPECT_EQ(lab::bench::ratios_of(rows.back(), rows).reference_ms, 0.0);
  EXPECT_GT(lab::bench::ratios_of(rows.back(), rows).to_bare, 0.0);  // the bare loop still judges it

  std::vector<Result> full = rows_of("vulkan", 1.0);
  full.back().judged_by_reference = false;  // Vulkan's cpu mode
  EXPECT_EQ(lab::bench::ratios_of(full.back(), full).to_reference, 0.0);
}

// GL's external modes hand off through semaphores, not map + unmap: their reference holds that round trip.
TEST(BenchRatios, AModeIsJudgedWithTheHandoffItMakes) {
  std::vector<Result> rows = rows_of("gl", 1.0);
  rows.insert(rows.begin() + 2, row("gl", "handoff (semaphores)", Role::Handoff, 0.31));
  Result external = row("gl", "external", Role::Mode, 1.01);
  external.handoff_path = "handoff (semaphores)";
  rows.push_back(external);
  const double semaphores = lab::bench::ratios_of(external, rows).handoff_ms;
  EXPECT_DOUBLE_EQ(semaphores, rows[2].median_ms);
  EXPECT_DOUBLE_EQ(lab::bench::ratios_of(external, rows).reference_ms,
                   rows[0].median_ms + rows[2].median_ms + rows[3].median_ms);
  // The map/unmap modes keep the first hand-off row, map + unmap.
  EXPECT_DOUBLE_EQ(lab::bench::ratios_of(rows[6], rows).handoff_ms, rows[1].median_ms);
}

TEST(BenchRatios, OnlyRowsOfTheSameApiSceneAndSizeCount) {
  std::vector<Result> rows = rows_of("gl", 1.0, 64);
  const std::vector<Result> other_size = rows_of("gl", 3.0, 128);
  const std::vector<Result> other_api = rows_of("vulkan", 5.0, 64);
  rows.insert(rows.begin(), other_size.begin(), other_size.end());
  rows.insert(rows.begin(), other_api.begin(), other_api.end());
  const Result& mode = rows.back();
  const std::vector<Result> alone = rows_of("gl", 1.0, 64);
  EXPECT_DOUBLE_EQ(lab::bench::ratios_of(mode, rows).to_reference,
                   lab::bench::ratios_of(alone.back(), alone).to_reference);
}

TEST(BenchRatios, ACopyingModeIsHeldAgainstTheSharingFrame) {
  std::vector<Result> rows = rows_of("vulkan", 1.0);
  rows.back().path = "external (timeline)";
  rows.back().external_path = "external (timeline)";
  Result staging = row("vulkan", "staging", Role::Mode, 5.6);
  staging.external_path = "external (timeline)";
  rows.push_back(staging);
  EXPECT_EQ(lab::bench::ratios_of(rows[5], rows).to_external, 0.0) << "not against itself";
  EXPECT_DOUBLE_EQ(lab::bench::ratios_of(staging, rows).to_external, staging.median_ms / rows[5].median_ms);
}

TEST(BenchRuns, CombinedRunsTakeTheMedianOfTheMediansAndTheirSpread) {
  std::vector<Result> runs;
  for (double median : {1.3, 1.1, 1.2}) runs.push_back(row("gl", "interop", Role::Mode, median));
  const Result combined = lab::bench::combine_runs(runs);
  EXPECT_EQ(combined.runs, 3);
  EXPECT_DOUBLE_EQ(combined.median_ms, 1.2);
  EXPECT_DOUBLE_EQ(combined.min_median_ms, 1.1);
  EXPECT_DOUBLE_EQ(combined.max_median_ms, 1.3);
  EXPECT_DOUBLE_EQ(combined.p90_ms, 1.2 * 1.25);
}

TEST(BenchTable, EachResultIsOneRowWithItsRatios) {
  lab::bench::Report report;
  report.results = rows_of("gl", 1.0);
  const std::string table = lab::bench::format_table(report);
  size_t lines = 0;
  for (char c : table) lines += c == '\n';
  EXPECT_EQ(lines, report.results.size() + 2) << table;  // a blank line, the header, the rows
  const lab::bench::Ratios ratios = lab::bench::ratios_of(report.results.back(), report.results);
  const size_t at = table.rfind("\npattern      64x48      interop ");  // the last row, after "interop ref"
  ASSERT_NE(at, std::string::npos) << table;
  const std::string interop_line = table.substr(at + 1, table.find('\n', at + 1) - at - 1);
  for (double value : {ratios.to_reference, ratios.to_bare, ratios.to_own})
    EXPECT_NE(interop_line.find(formatted(value)), std::string::npos) << interop_line;
  EXPECT_EQ(table.find("x external"), std::string::npos) << "no row is held against a sharing frame";

  report.results.back().external_path = "interop ref";
  EXPECT_NE(lab::bench::format_table(report).find("x external"), std::string::npos);
}

TEST(BenchJson, EveryCaseCarriesTheRatiosTheTableShows) {
  lab::bench::Report report;
  report.results = rows_of("vulkan", 1.0);
  const nlohmann::json cases = lab::bench::cases_json(report);
  ASSERT_EQ(cases.size(), report.results.size());
  for (size_t i = 0; i < report.results.size(); ++i) {
    const Result& r = report.results[i];
    const lab::bench::Ratios ratios = lab::bench::ratios_of(r, report.results);
    EXPECT_EQ(cases[i]["api"], r.api);
    EXPECT_EQ(cases[i]["path"], r.path);
    EXPECT_EQ(cases[i]["role"], lab::bench::to_string(r.role));
    EXPECT_DOUBLE_EQ(cases[i]["median_ms"].get<double>(), r.median_ms);
    EXPECT_EQ(cases[i].contains("ratio_to_reference"), ratios.to_reference > 0) << cases[i].dump();
    if (ratios.to_reference > 0) {
      EXPECT_DOUBLE_EQ(cases[i]["reference_ms"].get<double>(), ratios.reference_ms);
      EXPECT_DOUBLE_EQ(cases[i]["handoff_ms"].get<double>(), ratios.handoff_ms);
    }
    if (ratios.to_bare > 0) {
      // GL's readers know ratio_to_bare_loop, Vulkan's ratio_to_bare: both are written.
      EXPECT_DOUBLE_EQ(cases[i]["ratio_to_bare_loop"].get<double>(), ratios.to_bare);
      EXPECT_DOUBLE_EQ(cases[i]["ratio_to_bare"].get<double>(), ratios.to_bare);
    }
    EXPECT_EQ(cases[i].contains("ratio_to_own_reference"), ratios.to_own > 0);
  }
}

std::vector<lab::bench::Throughput> throughput_rows() {
  std::vector<lab::bench::Throughput> rows;
  const std::pair<int, int> forms[] = {{1, 1}, {2, 1}, {1, 2}, {1, 4}};
  double ms = 1.05;
  for (const auto& [in_flight, per_handoff] : forms) {
    lab::bench::Throughput t;
    t.api = "gl";
    t.scene = "pattern";
    t.path = "interop";
    t.width = 3840;
    t.height = 2160;
    t.in_flight = in_flight;
    t.per_handoff = per_handoff;
    t.frames = 300;
    t.ms_per_frame = ms;
    ms -= 0.07;
    rows.push_back(t);
  }
  return rows;
}

TEST(BenchThroughput, EachFormIsHeldAgainstTheFrameFinishedEachTime) {
  lab::bench::Report report;
  report.throughput = throughput_rows();
  const double latency = report.throughput[0].ms_per_frame;
  for (const lab::bench::Throughput& t : report.throughput) {
    EXPECT_DOUBLE_EQ(lab::bench::ratio_to_latency(t, report.throughput), t.ms_per_frame / latency);
    EXPECT_DOUBLE_EQ(lab::bench::frames_per_second(t), 1000.0 / t.ms_per_frame);
  }
  const nlohmann::json rows = lab::bench::throughput_json(report);
  ASSERT_EQ(rows.size(), report.throughput.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]["frames_in_flight"], report.throughput[i].in_flight);
    EXPECT_EQ(rows[i]["frames_per_handoff"], report.throughput[i].per_handoff);
    EXPECT_DOUBLE_EQ(rows[i]["ratio_to_latency"].get<double>(),
                     lab::bench::ratio_to_latency(report.throughput[i], report.throughput));
  }
  const std::string text = lab::bench::format_throughput(report);
  for (const lab::bench::Throughput& t : report.throughput)
    EXPECT_NE(text.find(formatted(t.ms_per_frame)), std::string::npos) << text;

  // Without the latency row nothing is held against it.
  std::vector<lab::bench::Throughput> without = report.throughput;
  without.erase(without.begin());
  EXPECT_EQ(lab::bench::ratio_to_latency(without[0], without), 0.0);
}

TEST(BenchThroughput, ASkippedSectionSaysWhy) {
  lab::bench::Report report;
  EXPECT_EQ(lab::bench::format_throughput(report), "") << "nothing asked, nothing said";
  report.throughput_skipped = "no CUDA device: use a machine with one";
  EXPECT_NE(lab::bench::format_throughput(report).find("skipped: " + report.throughput_skipped),
            std::string::npos);
  EXPECT_TRUE(lab::bench::throughput_json(report).empty());
}

TEST(BenchThroughput, ThePlanStartsWithTheLatencyRowAndVariesOneThingAtATime) {
  const std::vector<lab::bench::ThroughputForm> forms = lab::bench::throughput_forms();
  ASSERT_FALSE(forms.empty());
  EXPECT_EQ(forms.front().in_flight, 1);
  EXPECT_EQ(forms.front().per_handoff, 1);
  std::set<std::pair<int, int>> seen;
  std::set<int> in_flight, per_handoff;
  for (const lab::bench::ThroughputForm& form : forms) {
    EXPECT_TRUE(form.in_flight == 1 || form.per_handoff == 1)
        << form.in_flight << " in flight and " << form.per_handoff << " per hand-off: one at a time";
    EXPECT_TRUE(seen.insert({form.in_flight, form.per_handoff}).second) << "each form once";
    in_flight.insert(form.in_flight);
    per_handoff.insert(form.per_handoff);
  }
  EXPECT_EQ(in_flight, (std::set<int>{1, 2, 3}));
  EXPECT_EQ(per_handoff, (std::set<int>{1, 2, 4}));
}

TEST(BenchThroughput, ARowMeasuresWholeHandoffs) {
  for (const lab::bench::ThroughputForm& form : lab::bench::throughput_forms()) {
    for (const long long asked : {0LL, 1LL, 5LL, 12LL, 300LL}) {
      const long long frames = lab::bench::throughput_frames(asked, form.per_handoff);
      EXPECT_EQ(frames % form.per_handoff, 0) << asked << " asked, " << form.per_handoff << " per hand-off";
      EXPECT_GE(frames, std::max(asked, static_cast<long long>(form.per_handoff)));
      EXPECT_LT(frames, std::max(asked, 1LL) + form.per_handoff);
    }
  }
}

TEST(BenchThroughput, RowsAreMeasuredWhereAskedAndPossibleAndTheSectionSaysWhyNot) {
  const std::string reason = "no CUDA device: cudaErrorNoDevice";
  const lab::bench::ThroughputPlan measured = lab::bench::plan_throughput(true, "");
  EXPECT_EQ(measured.forms.size(), lab::bench::throughput_forms().size());
  EXPECT_EQ(measured.skipped, "");
  const lab::bench::ThroughputPlan impossible = lab::bench::plan_throughput(true, reason);
  EXPECT_TRUE(impossible.forms.empty());
  EXPECT_EQ(impossible.skipped, reason);
  const lab::bench::ThroughputPlan not_asked = lab::bench::plan_throughput(false, "");
  EXPECT_TRUE(not_asked.forms.empty());
  EXPECT_EQ(not_asked.skipped, "") << "--mode cpu where CUDA works: nothing to say";
  const lab::bench::ThroughputPlan neither = lab::bench::plan_throughput(false, reason);
  EXPECT_TRUE(neither.forms.empty());
  EXPECT_EQ(neither.skipped, reason) << "as GL's: without CUDA the section says why, whatever --mode asked";

  lab::bench::Report report;
  report.throughput_skipped = impossible.skipped;
  EXPECT_NE(lab::bench::format_throughput(report).find("skipped: " + reason), std::string::npos);
}

// Vulkan's rows (the external frame, per scene) beside GL's at the same size: each row is held against the
// latency row of its own API, scene and path only.
TEST(BenchThroughput, VulkanRowsAreHeldAgainstTheirOwnLatencyRow) {
  lab::bench::Report report;
  report.throughput = throughput_rows();  // GL's pattern rows, 3840x2160
  const std::vector<std::pair<std::string, double>> scenes = {{"pattern", 0.43}, {"postprocess", 2.59}};
  for (const auto& [scene, latency_ms] : scenes) {
    double ms = latency_ms;
    for (const lab::bench::ThroughputForm& form : lab::bench::throughput_forms()) {
      lab::bench::Throughput t;
      t.api = "vulkan";
      t.scene = scene;
      t.path = "external (timeline)";
      t.width = 3840;
      t.height = 2160;
      t.in_flight = form.in_flight;
      t.per_handoff = form.per_handoff;
      t.frames = lab::bench::throughput_frames(300, form.per_handoff);
      t.ms_per_frame = ms;
      ms *= 0.9;
      report.throughput.push_back(t);
    }
  }
  for (const lab::bench::Throughput& t : report.throughput) {
    double latency = 0.0;
    for (const lab::bench::Throughput& other : report.throughput)
      if (other.api == t.api && other.scene == t.scene && other.in_flight == 1 && other.per_handoff == 1)
        latency = other.ms_per_frame;
    ASSERT_GT(latency, 0.0);
    EXPECT_DOUBLE_EQ(lab::bench::ratio_to_latency(t, report.throughput), t.ms_per_frame / latency)
        << t.api << " " << t.scene << " " << t.in_flight << "/" << t.per_handoff;
  }
  // A Vulkan row whose latency row is missing is held against nothing, not against GL's.
  std::vector<lab::bench::Throughput> without;
  for (const lab::bench::Throughput& t : report.throughput)
    if (!(t.api == "vulkan" && t.scene == "pattern" && t.in_flight == 1 && t.per_handoff == 1))
      without.push_back(t);
  for (const lab::bench::Throughput& t : without)
    if (t.api == "vulkan" && t.scene == "pattern") {
      EXPECT_EQ(lab::bench::ratio_to_latency(t, without), 0.0);
    }

  // The table names the long path in full, each row with its numbers; the JSON has every row.
  const std::string text = lab::bench::format_throughput(report);
  for (const lab::bench::Throughput& t : report.throughput) {
    if (t.api != "vulkan") continue;
    char expected[160];
    std::snprintf(expected, sizeof expected, "external (timeline) %9d %11d %12.3f", t.in_flight,
                  t.per_handoff, t.ms_per_frame);
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " in\n" << text;
  }
  EXPECT_EQ(lab::bench::throughput_json(report).size(), report.throughput.size());
}

// The rows' clock (lab::ms_per_frame_issued) issues whole steps of consecutive frames, the warm-up first,
// finishing once after it and once after the measured frames, and counts what bench::throughput_frames
// reports.
TEST(BenchThroughput, TheClockIssuesWholeStepsAndFinishesTwice) {
  for (const lab::bench::ThroughputForm& form : lab::bench::throughput_forms()) {
    const long long step = form.per_handoff;
    std::vector<long long> issued;
    int finishes = 0;
    size_t issued_at_first_finish = 0;
    const double ms = lab::ms_per_frame_issued(
        7, step, [&](long long index) { issued.push_back(index); },
        [&] {
          if (finishes++ == 0) issued_at_first_finish = issued.size();
        });
    EXPECT_GE(ms, 0.0);
    EXPECT_EQ(finishes, 2);
    ASSERT_FALSE(issued.empty());
    for (size_t i = 0; i < issued.size(); ++i)
      EXPECT_EQ(issued[i], static_cast<long long>(i) * step) << "consecutive steps from frame 0";
    const long long measured = static_cast<long long>(issued.size() - issued_at_first_finish) * step;
    EXPECT_EQ(measured, lab::bench::throughput_frames(7, form.per_handoff));
  }
}

// The pairs' clock (lab::time_frame_pairs) runs both frames of a pair with the same index, swaps their order
// from one pair to the next, and returns as many times for each as it measured pairs (the warm-up's left
// out): each time is that frame's own, not the pair's.
TEST(BenchPairs, BothFramesOfAPairShareTheIndexAndTakeTurnsGoingFirst) {
  std::vector<std::pair<char, long long>> ran;
  const auto [first, second] = lab::time_frame_pairs(
      7,
      [&](long long index) {
        ran.emplace_back('a', index);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      },
      [&](long long index) { ran.emplace_back('b', index); });
  ASSERT_EQ(first.size(), 7u);
  ASSERT_EQ(second.size(), 7u);
  ASSERT_EQ(ran.size() % 2, 0u);
  EXPECT_GE(ran.size() / 2, 7u + 2u) << "a warm-up came first";
  for (size_t pair = 0; pair < ran.size() / 2; ++pair) {
    const auto& [kind_1, index_1] = ran[2 * pair];
    const auto& [kind_2, index_2] = ran[2 * pair + 1];
    EXPECT_EQ(index_1, static_cast<long long>(pair));
    EXPECT_EQ(index_2, index_1) << "one index for both frames of a pair";
    EXPECT_EQ(kind_1, pair % 2 == 0 ? 'a' : 'b') << "pair " << pair;
    EXPECT_NE(kind_1, kind_2);
  }
  for (const double ms : first) EXPECT_GE(ms, 20.0) << "the first frame's own time: it sleeps 20 ms";
  EXPECT_LT(lab::median(second), 20.0) << "the second frame's own time, not the pair's";
}

TEST(BenchChart, OneLinePerPathAndSceneThatWasMeasured) {
  std::vector<Result> rows = rows_of("gl", 1.0, 64);
  const std::vector<Result> larger = rows_of("gl", 2.0, 128);
  rows.insert(rows.end(), larger.begin(), larger.end());
  const std::vector<std::string> paths = {"floor", "bare", "interop", "pbo"};
  const std::string svg = lab::bench::svg_chart(rows, {{64, 48}, {128, 48}}, {"pattern"}, paths, "a chart");
  size_t polylines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1))
    ++polylines;
  EXPECT_EQ(polylines, 3u) << "floor, bare and interop were measured, pbo was not";
  EXPECT_EQ(svg.find(">pbo<"), std::string::npos);
  EXPECT_NE(svg.find(">interop<"), std::string::npos);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// The caption explains dashes only where a line is dashed: a run without CUDA measures no floor and no bare
// loop, and its chart has the modes' solid lines alone.
TEST(BenchChart, TheCaptionSpeaksOfDashedLinesOnlyWhereItDrewOne) {
  const std::vector<Result> rows = rows_of("gl", 1.0);
  const std::string with_parts =
      lab::bench::svg_chart(rows, {{64, 48}}, {"pattern"}, {"floor", "interop"}, "c");
  EXPECT_EQ(count_of(with_parts, "stroke-dasharray"), 1u) << "the floor's line";
  EXPECT_NE(with_parts.find("dashed: the parts measured alone"), std::string::npos);

  std::vector<Result> modes_only;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(modes_only),
               [](const Result& r) { return r.role == Role::Mode; });
  for (const auto& [results, paths] :
       {std::make_pair(modes_only, std::vector<std::string>{"floor", "bare", "interop"}),
        std::make_pair(rows, std::vector<std::string>{"interop", "pbo"})}) {
    const std::string svg = lab::bench::svg_chart(results, {{64, 48}}, {"pattern"}, paths, "c");
    EXPECT_EQ(count_of(svg, "<polyline"), 1u) << "interop's line alone";
    EXPECT_EQ(count_of(svg, "stroke-dasharray"), 0u);
    EXPECT_EQ(svg.find("dashed"), std::string::npos) << svg;
    EXPECT_NE(svg.find("median wall time per frame (ms, log scale)</text>"), std::string::npos);
  }
}

// A reason is said once: with the first path it skips; the next path skipped for it points there; the same
// path skipped again (the next scene, size or run) says nothing.
TEST(BenchSkips, EachReasonIsSaidOnce) {
  lab::bench::SkipNotes notes;
  const std::string no_cuda = "no CUDA device: cudaGetDeviceCount: cudaErrorNoDevice";
  EXPECT_EQ(notes.note("external (timeline)", no_cuda), "external (timeline) skipped: " + no_cuda);
  EXPECT_EQ(notes.note("staging", no_cuda), "staging skipped for the same reason as external (timeline)");
  for (int scene = 0; scene < 3; ++scene) {
    EXPECT_EQ(notes.note("external (timeline)", no_cuda), "") << "scene " << scene;
    EXPECT_EQ(notes.note("staging", no_cuda), "") << "scene " << scene;
  }
  EXPECT_EQ(notes.note("staging", "out of memory"), "staging skipped: out of memory")
      << "a new reason is said";
}

}  // namespace
