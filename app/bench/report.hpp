// app/bench/report.hpp — what every API's benchmark (`interop-lab --bench`, GL's app/gl/app/bench.cpp and
// Vulkan's app/vulkan/app/bench.cpp) reports, and how: one result type for every measured case, the ratios
// that judge a mode against the parts measured alone in the same run (x ref: floor + hand-off + graphics, in
// every API; x bare: the bare loop; x own: the mode's own minimal loop), the throughput rows (frames in
// flight, K frames per hand-off), and one writer each for the table, the JSON and the SVG chart. No graphics
// API and no GPU: the unit tests drive it on results they make up.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace lab::bench {

// What a measured case is: a part of the frame measured alone, a loop written with raw calls, or a mode.
enum class Role {
  Floor,     // the scene's kernels on plain cudaMalloc memory
  Handoff,   // the hand-off alone: GL's map + unmap, the external modes' semaphore round trip
  Graphics,  // the graphics API's work the frame needs, alone
  Show,      // a show pass alone (GL: from a texture, from a buffer)
  Bare,      // a sharing mode's frame with raw calls and nothing of the app
  Own,       // a mode's own minimal loop (GL's "<mode> ref")
  Mode,      // a mode of the app, judged against the others
};
const char* to_string(Role role);

struct Result {
  std::string api;  // "gl", "vulkan"
  std::string scene;
  std::string path;  // a mode ("interop", "external (timeline)"), "floor", "handoff", "bare", ...
  Role role = Role::Mode;
  int width = 0, height = 0;
  long long frames = 0;
  double median_ms = 0.0, p90_ms = 0.0;
  double timed_median_ms = 0.0;  // modes: the median with per-phase timing on (0: not measured)
  double host_median_ms = 0.0;   // modes: the host time that issuing a frame takes (0: not measured)
  // --bench-repeat: the runs of the case, and the least and most of their medians (median_ms is the
  // median of the medians, p90_ms the median of the p90s).
  int runs = 1;
  double min_median_ms = 0.0, max_median_ms = 0.0;
  std::map<std::string, std::pair<double, double>> phases;  // name -> (median, p90) in ms, timing on
  // Which rows of the same scene and size judge it ("": none): its bare loop, its own minimal loop, and
  // the sharing frame a copying mode is held against (Vulkan's x external).
  std::string bare_path;
  std::string own_path;
  // The hand-off measured alone that its reference holds: "" the scene and size's first Handoff row (GL's
  // map + unmap), else that row's path (GL's external modes: their semaphores' round trip).
  std::string handoff_path;
  std::string external_path;
  bool judged_by_reference = true;  // false: the parts do not describe it (Vulkan's cpu mode)
};

// A mode's numbers against the rows measured beside it; 0 where there is nothing to compare with.
struct Ratios {
  double floor_ms = 0.0, handoff_ms = 0.0, graphics_ms = 0.0;
  double reference_ms =
      0.0;  // floor + hand-off + graphics: only where the floor and the hand-off were measured
  double bare_ms = 0.0, own_ms = 0.0, external_ms = 0.0;
  double to_reference = 0.0, to_bare = 0.0, to_own = 0.0, to_external = 0.0;
  double timing_cost = 0.0;  // timed_median_ms / median_ms
};
// The ratios of `result` among `all` (the rows of the same API, scene and size). The parts measured alone
// are not judged; a bare loop is judged against the reference only.
Ratios ratios_of(const Result& result, const std::vector<Result>& all);

// One measurement from several runs of the same case: medians of the medians and of the p90s, the spread
// of the medians; the phases of the run whose median is the median.
Result combine_runs(std::vector<Result> runs);

// Frames per second beside the latency rows (each frame finished before the next): `in_flight` frames
// issued before the oldest is waited for (fences that many frames back; 1: each frame finished), and
// `per_handoff` frames written between one map and one unmap (K resources mapped in one call).
struct Throughput {
  std::string api, scene, path;  // path: the mode it measures ("interop")
  int width = 0, height = 0;
  int in_flight = 1;
  int per_handoff = 1;
  long long frames = 0;
  double ms_per_frame = 0.0;  // wall time of all the frames, finished, over their count
};
double frames_per_second(const Throughput& throughput);
// The row's ms per frame against the latency row of the same API, scene, path and size (in_flight 1,
// per_handoff 1); 0 where there is none.
double ratio_to_latency(const Throughput& throughput, const std::vector<Throughput>& all);

// The forms of the throughput rows, as every API measures them, in the order they are measured and
// reported: the latency row first (1 in flight, 1 per hand-off: what the others are held against), then 2
// and 3 frames in flight, then 2 and 4 frames per hand-off.
struct ThroughputForm {
  int in_flight = 1;
  int per_handoff = 1;
};
std::vector<ThroughputForm> throughput_forms();
// How many frames a row of `per_handoff` frames per hand-off measures when `frames` are asked for: whole
// hand-offs, at least one.
long long throughput_frames(long long frames, int per_handoff);
// What a run does about the rows: `asked` (no --mode, or the mode whose frame the rows measure: GL's
// interop, Vulkan's external) and `unavailable` (why that mode's frame cannot run here; "" where it can).
// The rows are measured where both allow; the section says why not wherever that frame cannot run, asked
// or not, and nothing where it was only not asked for.
struct ThroughputPlan {
  std::vector<ThroughputForm> forms;  // empty: no rows
  std::string skipped;                // Report::throughput_skipped
};
ThroughputPlan plan_throughput(bool asked, const std::string& unavailable);

// Why the cases a run skips are skipped, each reason said once, however many scenes, sizes and runs meet
// it: a path skipped for a reason not said yet is said with it; another path skipped for a reason said
// already points at the path it was said for; a path skipped again for the same reason is not said again.
class SkipNotes {
 public:
  // The line to print ("external (timeline) skipped: no CUDA device"), or "" when it says nothing new.
  std::string note(const std::string& path, const std::string& reason);

 private:
  std::vector<std::pair<std::string, std::string>> m_said;  // (path, reason), in the order said
};

// What the writers write: the cases, the throughput rows, and what each API adds as it is (the JSON's
// extra top-level members: GL's timing_cost, scaling, skipped and machine; printed tables of its own).
struct Report {
  std::vector<Result> results;
  std::vector<Throughput> throughput;
  std::string throughput_skipped;  // why there are no throughput rows ("": there are, or none were asked for)
  bool repeat = false;             // --bench-repeat > 1: the table shows the runs' spread
};

// The table of the cases: one row per result, with its ratios, and the throughput section under it.
std::string format_table(const Report& report);
std::string format_throughput(const Report& report);
// The JSON array of the cases (each result with its ratios) and of the throughput rows.
nlohmann::json cases_json(const Report& report);
nlohmann::json throughput_json(const Report& report);
// A log-scale line chart of median frame time per path and size, one panel per scene; `paths` in the
// legend's order (paths not among them are left out).
std::string svg_chart(const std::vector<Result>& results, const std::vector<std::pair<int, int>>& sizes,
                      const std::vector<std::string>& scenes, const std::vector<std::string>& paths,
                      const std::string& title);

}  // namespace lab::bench
