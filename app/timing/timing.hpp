// app/timing/timing.hpp — per-phase timings of every frame (CUDA events, the graphics API's GPU timer
// queries, steady_clock), read back a few frames late so that measuring never stalls the pipeline. Every
// graphics API's app uses it: the API brings its timer queries (GpuTimerQueries: GL's in app/gl/timing.hpp,
// Vulkan's timestamps in app/vulkan/renderer.hpp). Needs the CUDA runtime; without a CUDA device the CUDA
// phases are no-ops, and without timer queries the graphics phases are.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lab {

// Register/Unregister are the host-side registration calls of an attach/detach; Frame is the CPU wall
// time of a whole frame, recorded by the caller (the App: start to start, present and vsync included,
// which no call inside the frame could see). CUDA and graphics phases are GPU time between their markers:
// when CUDA and GL work overlap, the GPU time-slices between them and a phase includes the other's slices
// (seen on an H200: a 0.5 ms copy read 68 ms beside a long GL clear), so compare medians, not samples.
// Wait and Signal are the external mode's hand-off: CUDA waiting on the graphics API's semaphore, and
// signalling its own, where the map modes have Map and Unmap. Other is what no timer saw: the frame less the
// phases recorded in it (present and vsync, the panel, the host's own calls, work a GPU timer missed), worked
// out by FrameTimers from the frame's records and never recorded by a caller; with it the rows add up to the
// frame, except where phases overlap (CUDA beside the graphics API's work: their sum can pass the frame, and
// Other reads 0 then).
enum class Phase {
  Register,
  Map,
  Wait,
  Kernel,
  Signal,
  Unmap,
  Unregister,
  CudaCopy,
  GlCopy,
  VulkanCopy,
  HostCopy,
  Draw,
  Other,
  Frame
};
constexpr int kPhaseCount = 14;
// "register", "map", "wait", "kernel", "signal", "unmap", "unregister", "cuda copy", "gl copy", "vulkan
// copy", "host copy" (--api none's frames in host memory), "draw", "other (not timed)", "frame"
const char* to_string(Phase phase);
// Every phase, in the order the panel lists them.
const std::array<Phase, kPhaseCount>& all_phases();

// What measured a phase: GPU time on a CUDA stream, GPU time of GL commands (timer queries) or of Vulkan
// passes (timestamps), or host wall time.
enum class Clock { Cuda, Gl, Vulkan, Cpu };
constexpr int kClockCount = 4;
const char* to_string(Clock clock);  // "cuda", "gl", "vulkan", "cpu"

// The host clock every timeline is drawn on: steady_clock, in nanoseconds since its epoch.
int64_t host_clock_ns();

// A device clock read beside the host's: `device_ns` on the device's clock, `host_ns` on host_clock_ns(),
// the two reads at most `uncertainty_ns` apart from the moment they stand for (half the time the pair of
// reads took, where the device's read lies somewhere between two host reads).
struct ClockSample {
  int64_t device_ns = 0;
  int64_t host_ns = 0;
  int64_t uncertainty_ns = 0;
};

// Where a piece of GPU work ran, on its API's clock in nanoseconds.
struct GpuInterval {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// One finished frame's records as intervals on their own clocks, with what brings each clock onto the
// host's: what the frame timeline (app/timing/timeline.hpp) is built from. FrameTimers keeps the last one of
// each tag; durations (the stats) are kept apart from it and do not depend on it.
struct FrameRecords {
  struct Span {
    Phase phase = Phase::Draw;
    Clock clock = Clock::Cpu;
    int64_t start_ns = 0;  // on the clock's own nanoseconds; host_clock_ns() for Clock::Cpu
    int64_t end_ns = 0;
    int calibration = -1;   // index into `calibrations`; -1: none (Clock::Cpu needs none)
    bool has_start = true;  // false: a host duration recorded without its start (cpu_add(phase, ms))
  };
  long long frame = -1;       // the index begin_frame was given
  int64_t start_host_ns = 0;  // begin_frame's host time: the timeline's zero
  int64_t end_host_ns = 0;    // the next begin_frame's, or end_frame's while there is none
  std::vector<Span> spans;    // in the order they were recorded, by clock
  // Each: samples of one device clock beside the host's (one fixes the offset, more fit the rate too).
  std::vector<std::vector<ClockSample>> calibrations;
  // By Clock: why that clock's spans have no calibration ("" when they have one).
  std::array<std::string, kClockCount> why_uncalibrated;
};

// A GPU timer (GL's GL_TIME_ELAPSED, Vulkan's timestamps) that read less than this around a draw or a copy
// did not see the work: no GPU draws or copies a frame's image that fast, but a driver that runs the work
// elsewhere (Mesa's llvmpipe rasterises at the flush, on its own threads) leaves the query around nothing
// (llvmpipe: gl copy 0.000 ms, draw 0.0015-0.003 ms). Such a phase is "not measured here", not a number. A
// GPU's copy of a tiny image (a test's 64x64) can read under it too, and is then said unmeasured: saying
// less.
constexpr float kUnseenGpuMs = 0.004f;

// The statistics of one phase over the last PhaseWindow::kWindow frames that recorded it.
struct PhaseStats {
  float last_ms = 0.0f;
  float average_ms = 0.0f;     // mean of the window
  float median_ms = 0.0f;      // of the window, as app/timing/statistics.hpp defines it (as the benchmark's)
  float p90_ms = 0.0f;         // of the window, interpolated between the closest ranks (statistics.hpp)
  int samples = 0;             // in the window, at most kWindow
  std::vector<float> history;  // the window, oldest first (ImGui::PlotLines takes it as it is)
  Clock clock = Clock::Cpu;    // of the last sample
  // False where a GPU timer's window reads below kUnseenGpuMs at its median: the timer missed the work, and
  // its numbers say nothing of it (the work's time is in Phase::Other's then).
  bool measured = true;
};

// A phase's numbers as the panel and the page print one ("0.412"), or "not measured here" where its timer
// did not see the work (PhaseStats::measured).
std::string phase_ms_text(const PhaseStats& stats, float ms);
constexpr const char* kNotMeasuredHere = "not measured here";

// A sliding window of samples and its statistics, kept up to date on every push so that reading
// them (every frame, by the panel) costs nothing. No GPU: the unit tests drive it directly.
class PhaseWindow {
 public:
  // Two seconds at 60 Hz: long enough for a steady median, short enough to follow a change.
  static constexpr int kWindow = 120;

  void push(float ms, Clock clock = Clock::Cpu);
  void clear();
  const PhaseStats& stats() const { return m_stats; }

 private:
  PhaseStats m_stats;
  std::vector<float> m_sorted;  // scratch for median and p90, kept to avoid an allocation per push
};

// Which clocks per-phase timing uses. CUDA events and GL timer queries are GPU commands themselves,
// and on a GPU that time-slices between the GL and the CUDA context one placed where the other
// context's work is waiting adds a context switch to the frame. `map_on_gpu` brackets
// cudaGraphicsMapResources with CUDA events (its GPU-side wait for GL shows as map time); off, the map
// is timed on the host and its GPU-side wait is seen in the frame time only. The benchmark measures
// what each choice costs (README, Performance).
struct TimingClocks {
  bool cuda = true;         // CUDA events around kernels and copies
  bool graphics = true;     // the graphics API's timer queries around draws and its copies
  bool map_on_gpu = false;  // CUDA events around the map too
};

// A graphics API's GPU timer: a query measures the GPU time of that API's work between its begin and end
// (GL: a GL_TIME_ELAPSED query; Vulkan: timestamps around each pass submitted in between). FrameTimers
// creates queries on first use, reuses them once read, and never opens two at once.
class GpuTimerQueries {
 public:
  virtual ~GpuTimerQueries() = default;
  virtual Clock clock() const = 0;
  virtual unsigned int create() = 0;
  virtual void begin(unsigned int query) = 0;
  virtual void end(unsigned int query) = 0;
  // Whether end's result can be read without waiting.
  virtual bool available(unsigned int query) = 0;
  // The measured time; waits for the GPU when it is not there yet.
  virtual double elapsed_ms(unsigned int query) = 0;
  // Where the query's work ran on the API's GPU clock (GL: GL_TIMESTAMP counters around it; Vulkan: each
  // pass's timestamps), read after elapsed_ms; empty where the API writes no timestamps.
  virtual std::vector<GpuInterval> intervals(unsigned int /*query*/) { return {}; }
  // Reads the API's GPU clock beside host_clock_ns(), outside any open query. `may_wait`: it may wait for
  // the GPU (the first calibration); without it an API that would have to wait returns nullopt and is asked
  // again next frame. nullopt with `why_not` set where the clock cannot be read at all.
  virtual std::optional<ClockSample> sample_clock(bool /*may_wait*/, std::string& why_not) {
    why_not = "this API's timer queries give durations only, not timestamps on a clock of known host time";
    return std::nullopt;
  }
  // Deletes them (`open`: one of them was begun and never ended: a frame that threw).
  virtual void destroy(const std::vector<unsigned int>& queries, bool open) = 0;
};

// Times the phases of each frame. Up to kSlots frames are in flight: a frame's CUDA events and GL
// queries are read once they have completed, at a later begin_frame/end_frame, and credited to the
// tag the frame was begun with, so late results after a mode switch land on the mode that made them.
//
// CUDA timing is decided lazily, on the first cuda_begin: if cudaEventCreate fails (no device, no
// driver) or any later CUDA call of the timers fails, CUDA timing goes off for good, the error is
// cleared with cudaGetLastError() and cuda_begin/cuda_end become no-ops; cuda_timing_off_reason() says
// why. Timing never throws for a CUDA failure: the mode's own checks report it where it happened.
// A phase's events are on the device current at its cuda_begin, whose stream (and cuda_end's) must
// belong to that device: a mode working on two devices makes each current around its own phases.
//
// Single-threaded: call everything on the thread whose GL context is current (GL). The destructor deletes
// the timer queries, so it must run while their API's context or device still lives (the apps destroy
// their timers first); CPU- or CUDA-only use needs neither.
class FrameTimers {
 public:
  static constexpr int kSlots = 4;  // frames in flight; more than drivers queue, so reuse rarely waits

  // `queries`: the graphics API's timer queries; without them graphics phases are not timed.
  explicit FrameTimers(std::unique_ptr<GpuTimerQueries> queries = nullptr);
  ~FrameTimers();
  FrameTimers(const FrameTimers&) = delete;
  FrameTimers& operator=(const FrameTimers&) = delete;

  // Collects, without blocking and oldest first, every finished frame (stopping at the first one still
  // pending so that histories stay in frame order), then starts recording frame `tag` in the next slot.
  // If that slot is still pending (the GPU is more than kSlots frames behind), waits for it. A frame
  // begun and never ended (it threw) is dropped. `frame`: the loop's frame index, which the frame's
  // timeline (last_frame) carries. Brings the clocks in use onto the host's now and then (calibrate_clocks).
  void begin_frame(int tag, long long frame = -1);
  // Closes the frame and collects what has finished, so CPU-only frames show up in stats() at once.
  void end_frame();

  // Host-side records made between frames (cpu_add, CpuPhase) count in the next frame: a frame time
  // measured start to start is recorded just before its begin_frame, and an attach made before the
  // first frame counts in it. CUDA and GL records outside a frame are dropped: they need a frame's slot.
  // A phase recorded more than once in a frame counts as one sample of the sum (e.g. two copies); all
  // its records in a frame must use the same clock.
  //
  // cudaEventRecord on `stream` (events with cudaEventDefault, created on first use and reused). A
  // phase ends on the stream it began on: its end event completing says its begin has.
  void cuda_begin(Phase phase, cudaStream_t stream);
  void cuda_end(Phase phase, cudaStream_t stream);
  // A timer query around the graphics API's work in between (queries created on first use and reused).
  // GL timer queries cannot nest, so only one graphics phase may be open at a time.
  void graphics_begin(Phase phase);
  void graphics_end(Phase phase);
  // A host-side time measured by the caller (registration calls, CPU kernels, the frame time).
  void cpu_add(Phase phase, double ms);
  // The same, placed on the timeline too: `ms` is what it adds to the stats (as cpu_add), the span runs from
  // `start_host_ns` to `end_host_ns` (host_clock_ns()).
  void cpu_add(Phase phase, double ms, int64_t start_host_ns, int64_t end_host_ns);

  // Clocks off make their begin/end calls no-ops (the phase is not recorded). Takes effect at once.
  void set_clocks(const TimingClocks& clocks) { m_clocks = clocks; }
  const TimingClocks& clocks() const { return m_clocks; }

  // Zero stats when `tag` never recorded `phase` (or not since clear()). Phase::Other is worked out of every
  // frame that has a Phase::Frame record: that time less the frame's other phases, 0 at least. The App
  // records a frame's start-to-start time just before the next begin_frame, so it is the frame before's
  // length, and Other's the difference from that; over the window the averages add up all the same.
  const PhaseStats& stats(int tag, Phase phase) const;
  bool has(int tag, Phase phase) const { return stats(tag, phase).samples > 0; }
  // Forgets all stats and drops the results of finished frames still in flight (a scene switch: they
  // are the old scene's). The frame being recorded, or the host records waiting for the next one, are
  // kept, so the switch's own registration counts.
  void clear();
  // Waits for every finished frame still in flight and collects it (tests, benchmark).
  void flush();

  // "" while CUDA timing is on or untried; else why it is off ("cudaEventCreate: cudaErrorNoDevice").
  const std::string& cuda_timing_off_reason() const { return m_cuda_off_reason; }

  // The last finished frame begun with `tag`: its records where they ran (the frame timeline's input);
  // null before one finished, and after clear().
  const FrameRecords* last_frame(int tag) const;
  // How often the clocks are read beside the host's again: often enough that drift between two readings
  // (a few parts per million) moves no span by a microsecond.
  static constexpr int64_t kCalibrationIntervalNs = 1'000'000'000;
  // How many graphics clock samples the rate is fitted over (ClockCalibration, app/timing/timeline.hpp).
  static constexpr size_t kGraphicsSamples = 8;

 private:
  enum class SlotState { Idle, Recording, Pending };
  // A CUDA event recorded on an idle stream of its own and synchronised on, beside two host reads: the
  // event's GPU time lies between them, so its host time is their midpoint within half their distance
  // (`uncertainty_ns`: some 10 us on an idle GPU; more when the GPU was running the graphics context's work
  // and CUDA's event had to wait for its turn). Shared by the records that measure from it; the event is
  // destroyed with the last of them.
  struct CudaReference {
    cudaEvent_t event = nullptr;
    int64_t host_ns = 0;
    int64_t uncertainty_ns = 0;
    ~CudaReference();
  };
  struct CpuSpan {
    Phase phase = Phase::Register;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  // `complete` once its end was recorded: a frame that ends with the phase still open (it threw, or a
  // missing end) drops that record rather than read an event or query that was never closed.
  struct CudaRecord {
    Phase phase = Phase::Kernel;
    cudaEvent_t begin = nullptr;
    cudaEvent_t end = nullptr;
    int device = -1;  // the events' device
    bool complete = false;
    // The device's reference event when the record began, whose host time is known: the record's events
    // are placed by their time after it (null: not calibrated, m_cuda_uncalibrated says why).
    std::shared_ptr<const CudaReference> reference;
  };
  struct GraphicsRecord {
    Phase phase = Phase::Draw;
    unsigned int query = 0;  // GpuTimerQueries::create()'s
    bool complete = false;
  };
  // One frame's records. The event and query pools grow to the most a frame has used and are reused.
  struct Slot {
    SlotState state = SlotState::Idle;
    int tag = 0;
    std::vector<CudaRecord> cuda;
    size_t cuda_used = 0;
    std::vector<GraphicsRecord> graphics;
    size_t graphics_used = 0;
    std::array<double, kPhaseCount> cpu_ms{};
    std::array<std::optional<Clock>, kPhaseCount> clocks{};  // set by a phase's first record
    long long frame = -1;
    int64_t start_ns = 0;  // host_clock_ns() at begin_frame
    int64_t end_ns = 0;    // at end_frame, then at the next begin_frame
    std::vector<CpuSpan> cpu_spans;
    std::vector<ClockSample> graphics_samples;  // the graphics clock's calibration when the frame began
    std::string graphics_uncalibrated;          // or why it had none
  };
  enum class CudaTiming { Untried, On, Off };
  static constexpr int kClosed = -1;   // m_cuda_open: no cuda_begin outstanding for the phase
  static constexpr int kUntimed = -2;  // m_cuda_open: open, but not timed (CUDA timing off)

  Slot& recording_slot() { return m_slots[static_cast<size_t>(m_recording)]; }
  void note_clock(Slot& slot, Phase phase, Clock clock);
  void close_open_phases();
  bool cuda_on() const { return m_cuda_timing == CudaTiming::On; }
  void cuda_failed(cudaError_t error, const char* call);
  // Makes slot.cuda[slot.cuda_used] a record with events on `device` (adding one, or re-creating a
  // reused one's events when they are on another device). False when CUDA timing went off.
  bool prepare_cuda_record(Slot& slot, int device);
  bool ready(Slot& slot);
  void collect(Slot& slot);
  void collect_ready();
  // Reads the graphics clock beside the host's when its last reading is older than
  // kCalibrationIntervalNs (or was refused: the GPU was busy).
  void calibrate_graphics_clock(int64_t now_ns);
  // The reference of the current device (made on the first record of a device and every
  // kCalibrationIntervalNs); null when it cannot be made (m_cuda_uncalibrated says why).
  std::shared_ptr<const CudaReference> cuda_reference(int device);
  FrameRecords records_of(const Slot& slot);

  std::array<Slot, kSlots> m_slots;
  int m_next = 0;        // the slot begin_frame uses next; from it on, the ring runs oldest to newest
  int m_recording = -1;  // the slot between begin_frame and end_frame, -1 outside a frame
  std::array<double, kPhaseCount> m_next_frame_cpu_ms{};  // host records made between frames
  std::array<bool, kPhaseCount> m_next_frame_recorded{};
  std::array<int, kPhaseCount> m_cuda_open;  // record index in the recording slot, kClosed or kUntimed
  int m_graphics_open = -1;                  // record index of the open graphics phase, -1 when none
  bool m_graphics_untimed_open = false;      // a graphics phase is open while it is not timed
  TimingClocks m_clocks;
  std::unique_ptr<GpuTimerQueries> m_queries;
  CudaTiming m_cuda_timing = CudaTiming::Untried;
  std::string m_cuda_off_reason;
  std::map<int, std::array<PhaseWindow, kPhaseCount>> m_stats;  // by tag
  std::vector<CpuSpan> m_next_frame_cpu_spans;                  // host spans made between frames
  int m_last_ended = -1;  // the slot end_frame closed last, whose end the next begin_frame sets
  std::map<int, FrameRecords> m_last_frames;  // by tag
  // The graphics clock's calibration: its last samples, when it was last read (0: never), why not.
  std::vector<ClockSample> m_graphics_samples;
  int64_t m_graphics_sampled_ns = 0;
  std::string m_graphics_uncalibrated;
  // By CUDA device: the calibration stream (cudaStreamNonBlocking, nothing else on it) and the reference.
  struct CudaClock {
    cudaStream_t stream = nullptr;
    std::shared_ptr<const CudaReference> reference;
  };
  std::map<int, CudaClock> m_cuda_clocks;
  std::string m_cuda_uncalibrated;
};

// Scoped records: the phase ends when the guard goes out of scope, exceptions included. Each guard is
// also an NVTX range named after the phase ("map", "kernel", ...); GL's GlPhase (app/gl/timing.hpp) adds
// a GL debug group to a GraphicsPhase.
class CudaPhase {
 public:
  CudaPhase(FrameTimers& timers, Phase phase, cudaStream_t stream);
  ~CudaPhase();
  CudaPhase(const CudaPhase&) = delete;
  CudaPhase& operator=(const CudaPhase&) = delete;

 private:
  FrameTimers& m_timers;
  Phase m_phase;
  cudaStream_t m_stream;
};

class GraphicsPhase {
 public:
  GraphicsPhase(FrameTimers& timers, Phase phase);
  ~GraphicsPhase();
  GraphicsPhase(const GraphicsPhase&) = delete;
  GraphicsPhase& operator=(const GraphicsPhase&) = delete;

 private:
  FrameTimers& m_timers;
  Phase m_phase;
};

class CpuPhase {
 public:
  CpuPhase(FrameTimers& timers, Phase phase);
  ~CpuPhase();
  CpuPhase(const CpuPhase&) = delete;
  CpuPhase& operator=(const CpuPhase&) = delete;

 private:
  FrameTimers& m_timers;
  Phase m_phase;
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace lab
