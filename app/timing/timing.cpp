// app/timing/timing.cpp — PhaseWindow, FrameTimers and the scoped phase guards. The graphics API is called
// only through its GpuTimerQueries, for graphics phases; CUDA only for CUDA phases: CPU-only use needs
// neither.
#include "app/timing/timing.hpp"

#include "app/core/names.hpp"
#include "app/timing/profile_range.hpp"
#include "app/timing/statistics.hpp"

#include "interop/error.hpp"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdio>
#include <initializer_list>

namespace lab {

namespace {

size_t index_of(Phase phase) {
  return static_cast<size_t>(phase);
}

}  // namespace

namespace {

// The names the panel, the JSON and the NVTX ranges use.
constexpr NamedValue<Phase> kPhases[] = {
    {Phase::Register, "register", ""},
    {Phase::Map, "map", ""},
    {Phase::Wait, "wait", ""},
    {Phase::Kernel, "kernel", ""},
    {Phase::Signal, "signal", ""},
    {Phase::Unmap, "unmap", ""},
    {Phase::Unregister, "unregister", ""},
    {Phase::CudaCopy, "cuda copy", ""},
    {Phase::GlCopy, "gl copy", ""},
    {Phase::VulkanCopy, "vulkan copy", ""},
    {Phase::HostCopy, "host copy", ""},
    {Phase::Draw, "draw", ""},
    {Phase::Other, "other (not timed)", ""},
    {Phase::Frame, "frame", ""},
};
static_assert(std::size(kPhases) == kPhaseCount, "every Phase needs its name in kPhases");

constexpr NamedValue<Clock> kClocks[] = {
    {Clock::Cuda, "cuda", "CUDA events on the stream"},
    {Clock::Gl, "gl", "GL timer queries"},
    {Clock::Vulkan, "vulkan", "Vulkan timestamps"},
    {Clock::Cpu, "cpu", "host wall time"},
};

}  // namespace

const char* to_string(Phase phase) {
  return name_of(kPhases, phase);
}

const std::array<Phase, kPhaseCount>& all_phases() {
  static const std::array<Phase, kPhaseCount> phases = [] {
    std::array<Phase, kPhaseCount> values{};
    for (size_t i = 0; i < values.size(); ++i) values[i] = kPhases[i].value;
    return values;
  }();
  return phases;
}

const char* to_string(Clock clock) {
  return name_of(kClocks, clock);
}

int64_t host_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// ---- PhaseWindow

void PhaseWindow::push(float ms, Clock clock) {
  std::vector<float>& history = m_stats.history;
  if (history.capacity() < kWindow) history.reserve(kWindow);
  // Shifting kWindow floats is cheaper than it sounds and keeps the history contiguous, oldest first.
  if (history.size() == kWindow) history.erase(history.begin());
  history.push_back(ms);

  const size_t count = history.size();
  double sum = 0.0;  // double: a float sum of 120 samples would drift in the last digit the panel shows
  for (float sample : history) sum += sample;
  m_sorted.assign(history.begin(), history.end());
  std::sort(m_sorted.begin(), m_sorted.end());

  m_stats.last_ms = ms;
  m_stats.clock = clock;
  m_stats.samples = static_cast<int>(count);
  m_stats.average_ms = static_cast<float>(sum / static_cast<double>(count));
  m_stats.median_ms = static_cast<float>(percentile_of_sorted(m_sorted, 0.5));
  m_stats.p90_ms = static_cast<float>(percentile_of_sorted(m_sorted, 0.9));
  const bool gpu_timer = clock == Clock::Gl || clock == Clock::Vulkan;
  m_stats.measured = !gpu_timer || m_stats.median_ms >= kUnseenGpuMs;
}

void PhaseWindow::clear() {
  m_stats = PhaseStats{};
  m_sorted.clear();
}

// ---- FrameTimers

FrameTimers::FrameTimers(std::unique_ptr<GpuTimerQueries> queries) : m_queries(std::move(queries)) {
  m_cuda_open.fill(kClosed);
}

FrameTimers::CudaReference::~CudaReference() {
  if (event) cudaEventDestroy(event);  // on any device: destroying an event needs none current
}

FrameTimers::~FrameTimers() {
  std::vector<unsigned int> queries;
  for (auto& [device, clock] : m_cuda_clocks) {
    static_cast<void>(device);
    if (clock.stream) cudaStreamDestroy(clock.stream);
  }
  for (Slot& slot : m_slots) {
    for (const CudaRecord& record : slot.cuda) {
      for (cudaEvent_t event : {record.begin, record.end}) {
        // Once timing went off for an error, the context may be gone: one report was enough.
        if (cuda_on()) {
          INTEROP_CUDA_REPORT(cudaEventDestroy(event));
        } else {
          cudaEventDestroy(event);
        }
      }
    }
    for (const GraphicsRecord& record : slot.graphics) queries.push_back(record.query);
  }
  if (m_cuda_timing == CudaTiming::Off) cudaGetLastError();
  if (!queries.empty()) m_queries->destroy(queries, m_graphics_open >= 0);  // open: destroyed mid-frame
}

void FrameTimers::begin_frame(int tag, long long frame) {
  if (m_recording >= 0) {
    // The previous frame threw before end_frame: its records are incomplete, drop them.
    close_open_phases();
    recording_slot().state = SlotState::Idle;
    m_recording = -1;
  }
  const int64_t now_ns = host_clock_ns();
  if (m_last_ended >= 0) {
    // The frame before ends where this one starts (so its strip holds its present and its wait).
    Slot& before = m_slots[static_cast<size_t>(m_last_ended)];
    if (before.state == SlotState::Pending) {
      before.end_ns = now_ns;
    } else if (const auto found = m_last_frames.find(before.tag);
               found != m_last_frames.end() && found->second.frame == before.frame) {
      found->second.end_host_ns = now_ns;
    }
    m_last_ended = -1;
  }
  collect_ready();
  Slot& slot = m_slots[static_cast<size_t>(m_next)];
  if (slot.state == SlotState::Pending) {
    // The GPU is kSlots frames behind: the oldest frame has to be read before its slot is reused.
    collect(slot);
    collect_ready();
  }
  slot.state = SlotState::Recording;
  slot.tag = tag;
  slot.cuda_used = 0;
  slot.graphics_used = 0;
  slot.cpu_ms = m_next_frame_cpu_ms;
  slot.clocks.fill(std::nullopt);
  for (size_t i = 0; i < kPhaseCount; ++i) {
    if (m_next_frame_recorded[i]) slot.clocks[i] = Clock::Cpu;
  }
  m_next_frame_cpu_ms.fill(0.0);
  m_next_frame_recorded.fill(false);
  slot.frame = frame;
  slot.cpu_spans.swap(m_next_frame_cpu_spans);
  m_next_frame_cpu_spans.clear();
  if (m_queries && m_clocks.graphics) calibrate_graphics_clock(now_ns);
  slot.graphics_samples = m_graphics_samples;
  slot.graphics_uncalibrated = m_graphics_uncalibrated;
  slot.start_ns = now_ns;
  slot.end_ns = now_ns;
  m_recording = m_next;
  m_next = (m_next + 1) % kSlots;
}

void FrameTimers::calibrate_graphics_clock(int64_t now_ns) {
  const bool first = m_graphics_samples.empty();
  if (!first && now_ns - m_graphics_sampled_ns < kCalibrationIntervalNs) return;
  if (first && m_graphics_sampled_ns != 0 && !m_graphics_uncalibrated.empty() &&
      now_ns - m_graphics_sampled_ns < kCalibrationIntervalNs)
    return;  // refused for good last time: ask again a while later, not every frame
  std::string why_not;
  const std::optional<ClockSample> sample = m_queries->sample_clock(first, why_not);
  if (!sample) {
    if (!why_not.empty()) {
      m_graphics_uncalibrated = why_not;
      m_graphics_sampled_ns = now_ns;
    }
    return;  // busy: next frame
  }
  if (m_graphics_samples.size() == kGraphicsSamples) m_graphics_samples.erase(m_graphics_samples.begin());
  m_graphics_samples.push_back(*sample);
  m_graphics_sampled_ns = now_ns;
  m_graphics_uncalibrated.clear();
}

void FrameTimers::end_frame() {
  assert(m_recording >= 0 && "FrameTimers::end_frame without begin_frame: call begin_frame() first");
  if (m_recording < 0) return;
  Slot& slot = recording_slot();
  assert(m_graphics_open < 0 &&
         "FrameTimers::end_frame with a graphics phase open: call graphics_end() (or use GraphicsPhase)");
  assert(std::all_of(m_cuda_open.begin(), m_cuda_open.end(), [](int open) { return open == kClosed; }) &&
         "FrameTimers::end_frame with a CUDA phase open: call cuda_end() (or use CudaPhase)");
  close_open_phases();
  slot.state = SlotState::Pending;
  slot.end_ns = host_clock_ns();
  m_last_ended = m_recording;
  m_recording = -1;
  collect_ready();
}

void FrameTimers::cuda_begin(Phase phase, cudaStream_t stream) {
  if (m_recording < 0) return;
  int& open = m_cuda_open[index_of(phase)];
  assert(open == kClosed && "FrameTimers::cuda_begin: the phase is already open; call cuda_end() first");
  if (open != kClosed) return;
  open = kUntimed;
  if (m_cuda_timing == CudaTiming::Off || !m_clocks.cuda) return;
  Slot& slot = recording_slot();
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();  // no usable CUDA: cudaEventCreate fails next and says why
    device = -1;
  }
  if (!prepare_cuda_record(slot, device)) return;
  std::shared_ptr<const CudaReference> reference = cuda_reference(device);
  CudaRecord& record = slot.cuda[slot.cuda_used];
  record.reference = std::move(reference);
  const cudaError_t error = cudaEventRecord(record.begin, stream);
  if (error != cudaSuccess) {
    cuda_failed(error, "cudaEventRecord");
    return;
  }
  record.phase = phase;
  record.complete = false;
  open = static_cast<int>(slot.cuda_used++);
}

void FrameTimers::cuda_end(Phase phase, cudaStream_t stream) {
  if (m_recording < 0) return;
  int& open = m_cuda_open[index_of(phase)];
  assert(open != kClosed && "FrameTimers::cuda_end without cuda_begin: call cuda_begin() first");
  const int record_index = open;
  open = kClosed;
  if (record_index < 0 || !cuda_on()) return;
  Slot& slot = recording_slot();
  CudaRecord& record = slot.cuda[static_cast<size_t>(record_index)];
  const cudaError_t error = cudaEventRecord(record.end, stream);
  if (error != cudaSuccess) {
    cuda_failed(error, "cudaEventRecord");
    return;
  }
  record.complete = true;
  note_clock(slot, phase, Clock::Cuda);
}

void FrameTimers::graphics_begin(Phase phase) {
  if (m_recording < 0) return;
  assert(m_graphics_open < 0 &&
         "FrameTimers::graphics_begin: only one graphics phase may be open at a time "
         "(GL_TIME_ELAPSED queries cannot nest); call graphics_end() for the open one first");
  if (m_graphics_open >= 0 || m_graphics_untimed_open) return;
  if (!m_clocks.graphics || !m_queries) {
    m_graphics_untimed_open = true;
    return;
  }
  Slot& slot = recording_slot();
  if (slot.graphics_used == slot.graphics.size()) {
    slot.graphics.reserve(slot.graphics.size() +
                          1);  // before creating: a failed push_back must not leak the query
    slot.graphics.push_back(GraphicsRecord{phase, m_queries->create(), false});
  }
  GraphicsRecord& record = slot.graphics[slot.graphics_used];
  record.phase = phase;
  record.complete = false;
  m_queries->begin(record.query);
  m_graphics_open = static_cast<int>(slot.graphics_used++);
}

void FrameTimers::graphics_end(Phase phase) {
  static_cast<void>(phase);  // only the assert reads it: the open record knows its phase
  if (m_recording < 0) return;
  if (m_graphics_untimed_open) {
    m_graphics_untimed_open = false;
    return;
  }
  assert(m_graphics_open >= 0 &&
         "FrameTimers::graphics_end without graphics_begin: call graphics_begin() first");
  if (m_graphics_open < 0) return;
  Slot& slot = recording_slot();
  GraphicsRecord& record = slot.graphics[static_cast<size_t>(m_graphics_open)];
  assert(record.phase == phase &&
         "FrameTimers::graphics_end for another phase than the open one: end that one");
  m_queries->end(record.query);
  m_graphics_open = -1;
  record.complete = true;
  note_clock(slot, record.phase, m_queries->clock());
}

void FrameTimers::cpu_add(Phase phase, double ms) {
  assert(phase != Phase::Other && "FrameTimers: Phase::Other is worked out from the frame, never recorded");
  if (m_recording < 0) {
    m_next_frame_cpu_ms[index_of(phase)] += ms;
    m_next_frame_recorded[index_of(phase)] = true;
    return;
  }
  Slot& slot = recording_slot();
  slot.cpu_ms[index_of(phase)] += ms;
  note_clock(slot, phase, Clock::Cpu);
}

void FrameTimers::cpu_add(Phase phase, double ms, int64_t start_host_ns, int64_t end_host_ns) {
  cpu_add(phase, ms);
  (m_recording < 0 ? m_next_frame_cpu_spans : recording_slot().cpu_spans)
      .push_back({phase, start_host_ns, end_host_ns});
}

const FrameRecords* FrameTimers::last_frame(int tag) const {
  const auto found = m_last_frames.find(tag);
  return found == m_last_frames.end() ? nullptr : &found->second;
}

std::shared_ptr<const FrameTimers::CudaReference> FrameTimers::cuda_reference(int device) {
  CudaClock& clock = m_cuda_clocks[device];
  const int64_t now_ns = host_clock_ns();
  if (clock.reference && now_ns - clock.reference->host_ns < kCalibrationIntervalNs) return clock.reference;
  if (!clock.stream) {
    const cudaError_t error = cudaStreamCreateWithFlags(&clock.stream, cudaStreamNonBlocking);
    if (error != cudaSuccess) {
      clock.stream = nullptr;
      m_cuda_uncalibrated = std::string("cudaStreamCreate: ") + interop::cuda_error_name(error);
      cudaGetLastError();
      return clock.reference;  // the old one, if any, still measures
    }
  }
  auto reference = std::make_shared<CudaReference>();
  cudaError_t error = cudaEventCreateWithFlags(&reference->event, cudaEventDefault);
  // The record, then the wait: the event's GPU time lies between `before` and `after`. The stream has
  // nothing else on it, so the event runs as soon as the GPU runs this context's work.
  const int64_t before = host_clock_ns();
  if (error == cudaSuccess) error = cudaEventRecord(reference->event, clock.stream);
  if (error == cudaSuccess) error = cudaEventSynchronize(reference->event);
  const int64_t after = host_clock_ns();
  if (error != cudaSuccess) {
    m_cuda_uncalibrated = std::string("calibrating the CUDA clock: ") + interop::cuda_error_name(error);
    cudaGetLastError();
    return clock.reference;
  }
  reference->host_ns = before + (after - before) / 2;
  reference->uncertainty_ns = (after - before + 1) / 2;
  clock.reference = std::move(reference);
  m_cuda_uncalibrated.clear();
  return clock.reference;
}

const PhaseStats& FrameTimers::stats(int tag, Phase phase) const {
  static const PhaseStats kNone;
  const auto found = m_stats.find(tag);
  return found == m_stats.end() ? kNone : found->second[index_of(phase)].stats();
}

void FrameTimers::clear() {
  m_stats.clear();
  m_last_frames.clear();
  for (Slot& slot : m_slots) {
    // Reusing an event or query whose result was never read is allowed: the new record replaces it.
    if (slot.state == SlotState::Pending) slot.state = SlotState::Idle;
  }
}

void FrameTimers::flush() {
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = m_slots[static_cast<size_t>((m_next + i) % kSlots)];
    if (slot.state == SlotState::Pending) collect(slot);
  }
}

void FrameTimers::note_clock(Slot& slot, Phase phase, Clock clock) {
  std::optional<Clock>& noted = slot.clocks[index_of(phase)];
  assert((!noted || *noted == clock) &&
         "FrameTimers: a phase recorded with two clocks in one frame; their times cannot be added. "
         "Record the parts as different phases");
  noted = clock;
}

void FrameTimers::close_open_phases() {
  // Records left open stay incomplete, so collect() skips them.
  m_cuda_open.fill(kClosed);
  m_graphics_untimed_open = false;
  if (m_graphics_open >= 0) {
    // The next graphics_begin could not begin a GL query while this one is active.
    m_queries->end(recording_slot().graphics[static_cast<size_t>(m_graphics_open)].query);
    m_graphics_open = -1;
  }
}

void FrameTimers::cuda_failed(cudaError_t error, const char* call) {
  m_cuda_off_reason = std::string(call) + ": " + interop::cuda_error_name(error);
  // A first cudaEventCreate that fails is a process without CUDA (cpu mode): nothing to report.
  if (m_cuda_timing == CudaTiming::On)
    std::fprintf(stderr, "interop-lab: CUDA phase timing off: %s\n", m_cuda_off_reason.c_str());
  m_cuda_timing = CudaTiming::Off;
  cudaGetLastError();
}

bool FrameTimers::prepare_cuda_record(Slot& slot, int device) {
  if (slot.cuda_used < slot.cuda.size()) {
    CudaRecord& reused = slot.cuda[slot.cuda_used];
    if (reused.device == device) return true;
    // Its events are on another device (a mode with a second device): make new ones here. Destroying
    // an event needs no particular current device.
    cudaEventDestroy(reused.begin);
    cudaEventDestroy(reused.end);
    reused = CudaRecord{};
  } else {
    slot.cuda.emplace_back();  // before creating the events: a failed allocation must not leak them
  }
  CudaRecord& record = slot.cuda[slot.cuda_used];
  cudaError_t error = cudaEventCreateWithFlags(&record.begin, cudaEventDefault);
  if (error == cudaSuccess) error = cudaEventCreateWithFlags(&record.end, cudaEventDefault);
  if (error != cudaSuccess) {
    if (record.begin) cudaEventDestroy(record.begin);
    slot.cuda.erase(slot.cuda.begin() + static_cast<std::ptrdiff_t>(slot.cuda_used));
    cuda_failed(error, "cudaEventCreate");
    return false;
  }
  record.device = device;
  m_cuda_timing = CudaTiming::On;
  return true;
}

bool FrameTimers::ready(Slot& slot) {
  // A record's two events are on one stream: once its end has completed, so has its begin. Each CUDA
  // call here is host time in every timed frame, so the fewest are made.
  for (size_t i = 0; i < slot.cuda_used && cuda_on(); ++i) {
    const CudaRecord& record = slot.cuda[i];
    if (!record.complete) continue;
    const cudaError_t status = cudaEventQuery(record.end);
    if (status == cudaErrorNotReady) {
      cudaGetLastError();  // not an error, but the runtime may keep it as the last one
      return false;
    }
    if (status != cudaSuccess) {
      cuda_failed(status, "cudaEventQuery");
      break;
    }
  }
  for (size_t i = 0; i < slot.graphics_used; ++i) {
    const GraphicsRecord& record = slot.graphics[i];
    if (record.complete && !m_queries->available(record.query)) return false;
  }
  return true;
}

void FrameTimers::collect(Slot& slot) {
  std::array<double, kPhaseCount> total_ms{};
  std::array<bool, kPhaseCount> present{};
  for (size_t i = 0; i < kPhaseCount; ++i) {
    if (slot.clocks[i] != Clock::Cpu) continue;
    total_ms[i] = slot.cpu_ms[i];
    present[i] = true;
  }

  // CUDA times go in only when every record of the frame could be read: half a sum is a wrong sample.
  std::array<double, kPhaseCount> cuda_ms{};
  std::array<bool, kPhaseCount> cuda_present{};
  FrameRecords records;
  records.frame = slot.frame;
  records.start_host_ns = slot.start_ns;
  records.end_host_ns = slot.end_ns;
  std::vector<const CudaReference*> references;  // records.calibrations' of CUDA, in the same order
  for (size_t i = 0; i < slot.cuda_used && cuda_on(); ++i) {
    const CudaRecord& record = slot.cuda[i];
    if (!record.complete) continue;
    float ms = 0.0f;
    // Collected unready only when a slot must be reused or flush() asks: then wait for the end event
    // (which implies the begin, on the same stream).
    cudaError_t error = cudaEventSynchronize(record.end);
    if (error == cudaSuccess) error = cudaEventElapsedTime(&ms, record.begin, record.end);
    if (error != cudaSuccess) {
      cuda_failed(error, "cudaEventElapsedTime");
      break;
    }
    cuda_ms[index_of(record.phase)] += ms;
    cuda_present[index_of(record.phase)] = true;
    // Where it ran: its events' times after the reference's, on the reference's device clock (in ns
    // from the reference; float milliseconds keep 0.1 us within kCalibrationIntervalNs of it).
    FrameRecords::Span span{record.phase, Clock::Cuda, 0, 0, -1};
    float begin_ms = 0.0f, end_ms = 0.0f;
    if (record.reference &&
        cudaEventElapsedTime(&begin_ms, record.reference->event, record.begin) == cudaSuccess &&
        cudaEventElapsedTime(&end_ms, record.reference->event, record.end) == cudaSuccess) {
      const auto known = std::find(references.begin(), references.end(), record.reference.get());
      span.calibration = static_cast<int>(records.calibrations.size());
      if (known == references.end()) {
        references.push_back(record.reference.get());
        records.calibrations.push_back({{0, record.reference->host_ns, record.reference->uncertainty_ns}});
      } else {
        span.calibration = static_cast<int>(known - references.begin());
      }
      span.start_ns = static_cast<int64_t>(static_cast<double>(begin_ms) * 1e6);
      span.end_ns = static_cast<int64_t>(static_cast<double>(end_ms) * 1e6);
    } else {
      cudaGetLastError();
      span.start_ns = 0;
      span.end_ns = static_cast<int64_t>(static_cast<double>(ms) * 1e6);
      if (records.why_uncalibrated[static_cast<size_t>(Clock::Cuda)].empty())
        records.why_uncalibrated[static_cast<size_t>(Clock::Cuda)] =
            m_cuda_uncalibrated.empty() ? "no reference event of known host time" : m_cuda_uncalibrated;
    }
    records.spans.push_back(span);
  }
  if (cuda_on()) {
    for (size_t i = 0; i < kPhaseCount; ++i) {
      total_ms[i] += cuda_ms[i];
      present[i] = present[i] || cuda_present[i];
    }
  }

  int graphics_calibration = -1;
  if (!slot.graphics_samples.empty()) {
    graphics_calibration = static_cast<int>(records.calibrations.size());
    records.calibrations.push_back(slot.graphics_samples);
  }
  // The work of a query ran between its begin, in this frame, and now: a reading longer than that, and
  // longer than any pass of a frame takes (kImplausibleGpuMs; scripted clocks in tests read more than the
  // microseconds they run), is not the work's time (llvmpipe's first GL_TIME_ELAPSED query read 5.6e6 ms).
  // The phase then goes without a sample in this frame, as with a half sum, rather than with a wrong one.
  constexpr double kImplausibleGpuMs = 1000.0;
  const double since_start_ms = static_cast<double>(host_clock_ns() - slot.start_ns) / 1e6;
  std::array<bool, kPhaseCount> impossible{};
  for (size_t i = 0; i < slot.graphics_used; ++i) {
    const GraphicsRecord& record = slot.graphics[i];
    if (!record.complete) continue;
    const double ms = m_queries->elapsed_ms(record.query);  // waits if the GPU is not there yet
    if (ms > since_start_ms && ms > kImplausibleGpuMs) {
      impossible[index_of(record.phase)] = true;
      continue;
    }
    total_ms[index_of(record.phase)] += ms;
    present[index_of(record.phase)] = true;
    const Clock clock = m_queries->clock();
    const std::vector<GpuInterval> intervals = m_queries->intervals(record.query);
    for (const GpuInterval& interval : intervals)
      records.spans.push_back(
          {record.phase, clock, interval.start_ns, interval.end_ns, graphics_calibration, true});
    std::string& why = records.why_uncalibrated[static_cast<size_t>(clock)];
    if (intervals.empty() && ms > 0) {
      // Timed, but without timestamps (a GL whose GL_TIMESTAMP has no bits): listed by its duration.
      records.spans.push_back({record.phase, clock, 0, static_cast<int64_t>(ms * 1e6), -1, false});
      if (why.empty())
        why = slot.graphics_uncalibrated.empty() ? "its timer queries give durations only here"
                                                 : slot.graphics_uncalibrated;
    } else if (!intervals.empty() && graphics_calibration < 0 && why.empty()) {
      why = slot.graphics_uncalibrated.empty() ? "its clock was not read beside the host's yet"
                                               : slot.graphics_uncalibrated;
    }
  }
  for (size_t i = 0; i < kPhaseCount; ++i) {
    if (!impossible[i]) continue;
    total_ms[i] = 0;
    present[i] = false;
    const auto of_phase = [&](const FrameRecords::Span& span) { return span.phase == all_phases()[i]; };
    records.spans.erase(std::remove_if(records.spans.begin(), records.spans.end(), of_phase),
                        records.spans.end());
  }
  for (const CpuSpan& span : slot.cpu_spans)
    records.spans.push_back({span.phase, Clock::Cpu, span.start_ns, span.end_ns, -1, true});
  for (size_t i = 0; i < kPhaseCount; ++i) {
    // A host time given as a duration alone (the frame's own is the strip's length, not a span).
    const Phase phase = all_phases()[i];
    if (slot.clocks[i] != Clock::Cpu || phase == Phase::Frame) continue;
    const bool placed = std::any_of(slot.cpu_spans.begin(), slot.cpu_spans.end(),
                                    [&](const CpuSpan& span) { return span.phase == phase; });
    if (placed) continue;
    records.spans.push_back({phase, Clock::Cpu, 0, static_cast<int64_t>(slot.cpu_ms[i] * 1e6), -1, false});
    records.why_uncalibrated[static_cast<size_t>(Clock::Cpu)] =
        "a host time recorded as a duration, without its start";
  }

  // What no timer saw: the frame less its phases, each counted once whatever its clock.
  if (present[index_of(Phase::Frame)]) {
    double timed_ms = 0;
    for (size_t i = 0; i < kPhaseCount; ++i)
      if (present[i] && all_phases()[i] != Phase::Frame) timed_ms += total_ms[i];
    total_ms[index_of(Phase::Other)] = total_ms[index_of(Phase::Frame)] - timed_ms;
    present[index_of(Phase::Other)] = true;
    slot.clocks[index_of(Phase::Other)] = Clock::Cpu;
  }

  slot.state = SlotState::Idle;
  if (std::none_of(present.begin(), present.end(), [](bool p) { return p; })) return;
  m_last_frames[slot.tag] = std::move(records);
  std::array<PhaseWindow, kPhaseCount>& windows = m_stats[slot.tag];
  for (size_t i = 0; i < kPhaseCount; ++i) {
    if (present[i]) windows[i].push(static_cast<float>(total_ms[i]), *slot.clocks[i]);
  }
}

void FrameTimers::collect_ready() {
  // Oldest first, and no further than the first frame still pending: histories stay in frame order.
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = m_slots[static_cast<size_t>((m_next + i) % kSlots)];
    if (slot.state == SlotState::Idle) continue;
    if (slot.state == SlotState::Recording || !ready(slot)) return;
    collect(slot);
  }
}

// ---- Scoped phases

// Each guard is also an NVTX range named after its phase, open while
// the phase is timed whether timing is on or not, so a profiler sees every phase of every frame.

CudaPhase::CudaPhase(FrameTimers& timers, Phase phase, cudaStream_t stream)
    : m_timers(timers), m_phase(phase), m_stream(stream) {
  push_profile_range(to_string(phase));
  m_timers.cuda_begin(m_phase, m_stream);
}

CudaPhase::~CudaPhase() {
  m_timers.cuda_end(m_phase, m_stream);
  pop_profile_range();
}

GraphicsPhase::GraphicsPhase(FrameTimers& timers, Phase phase) : m_timers(timers), m_phase(phase) {
  push_profile_range(to_string(phase));
  m_timers.graphics_begin(m_phase);
}

GraphicsPhase::~GraphicsPhase() {
  m_timers.graphics_end(m_phase);
  pop_profile_range();
}

CpuPhase::CpuPhase(FrameTimers& timers, Phase phase)
    : m_timers(timers), m_phase(phase), m_start(std::chrono::steady_clock::now()) {
  push_profile_range(to_string(phase));
}

CpuPhase::~CpuPhase() {
  const auto end = std::chrono::steady_clock::now();
  const auto ns = [](std::chrono::steady_clock::time_point at) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
  };
  m_timers.cpu_add(m_phase, std::chrono::duration<double, std::milli>(end - m_start).count(), ns(m_start),
                   ns(end));
  pop_profile_range();
}

std::string phase_ms_text(const PhaseStats& stats, float ms) {
  if (!stats.measured) return kNotMeasuredHere;
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", ms);
  return text;
}

}  // namespace lab
