// tests/publish/publish_bench.cpp — what publishing frames to viewers in other processes
// (interop/publish.hpp) costs and delivers, at 1920x1080 and 3840x2160 RGBA8, with host slots (memfd) and,
// where a CUDA device exports VMM memory, device slots (cuMemCreate FDs). A C++ program, not a Python script:
// it runs on a GPU machine with nothing but the build (no CuPy or PyTorch), and it measures the transport
// itself; Python's show() adds its ctypes call and array checks on top (a few microseconds).
//
// This process is the job: a loop that writes a frame (a memset, on its stream for device slots, then waits
// for the stream as a training step waits for its loss) and shows it as interop_lab.Publisher.show() does
// (acquire a free slot, one copy into it, publish). With --step-ms MS each step first does about MS
// milliseconds of memory-bound work (tests/publish/step_work.hpp: passes of a read-modify-write kernel over
// 512 MiB of device memory on the job's stream for device slots, a loop over a host buffer for host slots;
// how much is calibrated on this machine at start and printed), so that the cost of publishing is measured
// against a step that shares the GPU's memory with the subscribers' copies, as a training step does. Each run
// is that loop with no publisher at all, then with a publisher and 0, 1 and 3 subscribers. A subscriber is
// this program again (--subscribe, exec'd so that its CUDA is its own): for each announced frame it takes the
// newest, copies the slot into a buffer of its own (host: memcpy; device: the slot imported once with
// cudaImportExternalMemory, then cudaMemcpyAsync and a wait for it: a stand-in for the viewer's texture
// upload) and only then counts it as held.
//
// Per run: the loop's time per frame, show()'s own time, the cost over the loop without a publisher and the
// ratio of the two loops (step ×: with N viewers / with no publisher), frames per second delivered to a
// subscriber (the slowest one), the latency from the show() call to the subscriber holding the frame (median
// and p90 over every frame of every subscriber; both processes read CLOCK_MONOTONIC, the show times cross in
// a shared memfd) and the frames the publisher dropped.
//
//   publish_bench [--memory auto|host|device] [--frames N] [--sizes WxH,WxH] [--step-ms MS] [--hold-only]
//                 [--viewer COMMAND]
//
// --hold-only: the subscribers take and release each frame without copying it, so that the runs say what
// attaching costs the job apart from the viewers' own GPU work.
// --viewer COMMAND: each subscriber is a real viewer instead, `COMMAND NAME` run by /bin/sh (for example
// `interop-lab --attach --headless --frames 1000000`), counted as attached when the publisher sees it and
// stopped with SIGTERM after the run. Such a viewer reports nothing back: its runs have the step's cost
// but no frames per second or latency.
//
// auto: host slots, and device slots too where a GPU can; device: a GPU must (exit 1 without one). Exit 0
// when every run delivered frames to every subscriber, 1 on any error (and with --step-ms, when the loop
// without a publisher took under half of MS a step: the calibration did not hold), 2 on a usage error.
#include "app/os/os.hpp"
#include "interop/error.hpp"
#include "interop/publish.hpp"
#include "interop/vmm.hpp"
#include "tests/publish/device_slots.hpp"
#include "tests/publish/step_work.hpp"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The show() times of the frames, by frame index modulo kRing, shared with the subscribers.
constexpr size_t kRing = 1 << 16;
constexpr int kWarmupFrames = 10;
// A real viewer (--viewer) is counted once it attached, but makes its GL and CUDA contexts and its first
// frames after that: the job's frames of its first seconds are not measured.
constexpr auto kViewerWarmup = 2s;

struct SharedTimes {
  std::atomic<int64_t> shown_ns[kRing];
};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr,
               "publish_bench: %s\nusage: publish_bench [--memory auto|host|device] [--frames N] "
               "[--sizes WxH,WxH] [--step-ms MS] [--hold-only] [--viewer COMMAND]\n",
               message.c_str());
  std::exit(2);
}

#define BENCH_CUDA(call)                                                                    \
  do {                                                                                      \
    const cudaError_t bench_status = (call);                                                \
    if (bench_status != cudaSuccess)                                                        \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorName(bench_status)); \
  } while (0)

struct Size {
  uint32_t width = 0, height = 0;
};

// ---- the subscriber (a process of its own) ----

struct SubscriberReport {
  uint64_t frames = 0;  // held after the warm-up
  std::vector<double> latencies_ms;
};

// Whether the subscribers copy each frame they take (the stand-in for a viewer's upload), or only hold it
// (--hold-only). Set by main before any subscriber starts, and passed to each as its last argument.
bool g_hold_only = false;
// --viewer: the command each subscriber runs, with the publication's name appended; empty: this program.
std::string g_viewer_command;

// Holds every frame it can until the publisher goes; prints "frames N" and one latency (ms) per line.
// `copy`: each frame is copied before it counts as held (else it is held and released as it is).
int run_subscriber(const std::string& name, int times_fd, bool copy) {
  void* mapped = ::mmap(nullptr, sizeof(SharedTimes), PROT_READ, MAP_SHARED, times_fd, 0);
  if (mapped == MAP_FAILED) throw std::runtime_error("mmap(shared times)");
  const auto* times = static_cast<const SharedTimes*>(mapped);
  interop::Subscriber subscriber(name);
  const interop::FrameFormat format = subscriber.format();
  const size_t bytes = format.pitch * format.height;
  const bool device = subscriber.memory() == interop::SlotMemory::Device;

  std::vector<uint8_t> host_copy(device ? 0 : bytes);
  void* device_copy = nullptr;
  cudaStream_t stream = nullptr;
  std::vector<cudaExternalMemory_t> imported(subscriber.slots().size(), nullptr);
  std::vector<void*> slot_pointers(subscriber.slots().size(), nullptr);
  if (device) {
    BENCH_CUDA(cudaMalloc(&device_copy, bytes));
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (size_t i = 0; i < imported.size(); ++i) {
      cudaExternalMemoryHandleDesc import = {};
      import.type = cudaExternalMemoryHandleTypeOpaqueFd;
      import.handle.fd = ::dup(subscriber.slots()[i].fd);
      import.size = subscriber.slots()[i].size;
      BENCH_CUDA(cudaImportExternalMemory(&imported[i], &import));
      cudaExternalMemoryBufferDesc buffer = {};
      buffer.size = bytes;
      BENCH_CUDA(cudaExternalMemoryGetMappedBuffer(&slot_pointers[i], imported[i], &buffer));
    }
  }
  std::printf("attached\n");
  std::fflush(stdout);

  SubscriberReport report;
  for (;;) {
    const auto frame = subscriber.next(10s);
    if (!frame) break;
    if (copy && device) {
      BENCH_CUDA(cudaMemcpyAsync(device_copy, slot_pointers[static_cast<size_t>(frame->slot)], bytes,
                                 cudaMemcpyDeviceToDevice, stream));
      BENCH_CUDA(cudaStreamSynchronize(stream));
    } else if (copy) {
      std::memcpy(host_copy.data(), frame->data, bytes);
    }
    const int64_t held = now_ns();
    subscriber.release(frame->slot);
    const int64_t shown = times->shown_ns[frame->index % kRing].load(std::memory_order_acquire);
    if (frame->index <= kWarmupFrames) continue;
    ++report.frames;
    report.latencies_ms.push_back(static_cast<double>(held - shown) / 1e6);
  }
  if (subscriber.status() != interop::Subscriber::Status::PublisherGone) {
    std::fprintf(stderr, "publish_bench subscriber: no frame within 10 s\n");
    return 1;
  }
  std::printf("frames %llu\n", static_cast<unsigned long long>(report.frames));
  for (const double latency : report.latencies_ms) std::printf("%.6f\n", latency);
  for (size_t i = 0; i < imported.size(); ++i) {
    if (slot_pointers[i]) cudaFree(slot_pointers[i]);
    if (imported[i]) cudaDestroyExternalMemory(imported[i]);
  }
  if (device_copy) cudaFree(device_copy);
  if (stream) cudaStreamDestroy(stream);
  return 0;
}

// A subscriber process, its stdout read here.
class SubscriberProcess {
 public:
  SubscriberProcess(const std::string& name, int times_fd) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    // Made before the fork: the child only execs.
    const std::string fd_text = std::to_string(times_fd);
    const std::string viewer =
        g_viewer_command.empty() ? std::string() : "exec " + g_viewer_command + " '" + name + "'";
    m_pid = ::fork();
    if (m_pid == 0) {
      if (viewer.empty()) {
        ::dup2(out[1], STDOUT_FILENO);
      } else {  // a viewer's own output is not read: it goes nowhere rather than filling the pipe
        const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
        ::dup2(null, STDOUT_FILENO);
      }
      ::close(out[0]);
      ::close(out[1]);
      if (viewer.empty())
        ::execl("/proc/self/exe", "publish_bench", "--subscribe", name.c_str(), fd_text.c_str(),
                g_hold_only ? "hold" : "copy", static_cast<char*>(nullptr));
      else
        ::execl("/bin/sh", "sh", "-c", viewer.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    m_out = out[0];
  }
  SubscriberProcess(const SubscriberProcess&) = delete;
  SubscriberProcess& operator=(const SubscriberProcess&) = delete;
  ~SubscriberProcess() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
    }
    ::close(m_out);
  }
  // The next line it wrote, waiting up to `limit`; nullopt when it closed its output or said nothing.
  std::optional<std::string> line(std::chrono::milliseconds limit) {
    std::string text;
    char c = 0;
    pollfd polled{m_out, POLLIN, 0};
    for (;;) {
      if (::poll(&polled, 1, static_cast<int>(limit.count())) <= 0) return std::nullopt;
      if (::read(m_out, &c, 1) != 1) return text.empty() ? std::nullopt : std::optional<std::string>(text);
      if (c == '\n') return text;
      text += c;
    }
  }
  // Its report once it has ended; throws when it failed. A --viewer is stopped here and reports nothing.
  SubscriberReport finish() {
    SubscriberReport report;
    if (!g_viewer_command.empty()) {
      ::kill(m_pid, SIGTERM);
      int status = 0;
      ::waitpid(m_pid, &status, 0);
      m_pid = -1;
      // interop-lab exits 128 + N when signal N stopped it.
      if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 128 + SIGTERM)
        throw std::runtime_error("a viewer failed (exit " + std::to_string(WEXITSTATUS(status)) + ")");
      return report;
    }
    const auto summary = line(30s);
    unsigned long long frames = 0;
    if (!summary || std::sscanf(summary->c_str(), "frames %llu", &frames) != 1)
      throw std::runtime_error("a subscriber gave no report");
    report.frames = frames;
    while (const auto latency = line(10s)) report.latencies_ms.push_back(std::atof(latency->c_str()));
    int status = 0;
    ::waitpid(m_pid, &status, 0);
    m_pid = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("a subscriber failed");
    return report;
  }

 private:
  pid_t m_pid = -1;
  int m_out = -1;
};

// ---- the job ----

struct RunResult {
  double loop_ms = 0;  // per frame
  double show_ms = 0;  // per frame, inside show()
  uint64_t published = 0, dropped = 0;
  std::vector<SubscriberReport> subscribers;
};

// The frame the job makes each step, and where it waits for it.
class Job {
 public:
  Job(interop::SlotMemory memory, const interop::FrameFormat& format)
      : m_memory(memory), m_bytes(format.pitch_or_packed() * format.height), m_format(format) {
    if (m_memory == interop::SlotMemory::Device) {
      BENCH_CUDA(cudaMalloc(&m_device, m_bytes));
      BENCH_CUDA(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
    } else {
      m_host.resize(m_bytes);
    }
  }
  ~Job() {
    if (m_device) cudaFree(m_device);
    if (m_stream) cudaStreamDestroy(m_stream);
  }
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // `step`, when given, before the frame: the job's own work, on the same stream.
  void make(uint64_t frame, publish_bench::StepWork* step) {
    if (step) step->run(m_stream);
    if (m_memory == interop::SlotMemory::Device)
      BENCH_CUDA(cudaMemsetAsync(m_device, static_cast<int>(frame & 0xff), m_bytes, m_stream));
    else
      std::memset(m_host.data(), static_cast<int>(frame & 0xff), m_bytes);
  }
  void wait() {
    if (m_stream) BENCH_CUDA(cudaStreamSynchronize(m_stream));
  }
  // interop_lab.Publisher.show(): a free slot, one copy into it, announced (device: once the stream has
  // made the copy, by the publisher's helper thread).
  void show(interop::Publisher& publisher, uint64_t frame) {
    const interop::Publisher::Slot slot = publisher.acquire();
    if (!slot) return;
    if (m_memory == interop::SlotMemory::Device)
      BENCH_CUDA(cudaMemcpy2DAsync(slot.data, m_format.pitch_or_packed(), m_device,
                                   m_format.pitch_or_packed(), m_format.row_bytes(), m_format.height,
                                   cudaMemcpyDeviceToDevice, m_stream));
    else
      std::memcpy(slot.data, m_host.data(), m_bytes);
    publisher.publish(slot, frame, m_stream);
  }

 private:
  interop::SlotMemory m_memory;
  size_t m_bytes;
  interop::FrameFormat m_format;
  std::vector<uint8_t> m_host;
  void* m_device = nullptr;
  cudaStream_t m_stream = nullptr;
};

// subscribers < 0: the loop without a publisher.
RunResult run(interop::SlotMemory memory, Size size, int subscribers, int frames, SharedTimes* times,
              int times_fd, publish_bench::StepWork* step) {
  interop::FrameFormat format;
  format.width = size.width;
  format.height = size.height;
  format.channels = 4;
  format.dtype = interop::DType::UInt8;
  Job job(memory, format);
  RunResult result;
  std::optional<interop::Publisher> publisher;
  std::vector<std::unique_ptr<SubscriberProcess>> processes;
  if (subscribers >= 0) {
    interop::PublisherDesc desc;
    desc.name = "publish-bench-" + std::to_string(::getpid());
    desc.format = format;
    desc.memory = memory;
    desc.device = memory == interop::SlotMemory::Device ? 0 : -1;
    publisher.emplace(desc);
    for (int i = 0; i < subscribers; ++i) {
      processes.push_back(std::make_unique<SubscriberProcess>(desc.name, times_fd));
      if (!g_viewer_command.empty()) continue;  // counted below, by the publisher
      const auto attached = processes.back()->line(60s);
      if (!attached || *attached != "attached") throw std::runtime_error("a subscriber did not attach");
    }
    const auto deadline = Clock::now() + 60s;
    while (publisher->stats().viewers != static_cast<uint32_t>(subscribers)) {
      if (Clock::now() > deadline) throw std::runtime_error("the subscribers did not all attach");
      std::this_thread::sleep_for(1ms);
    }
  }
  double show_seconds = 0;
  Clock::time_point start;
  const Clock::time_point warm_until =
      Clock::now() + (g_viewer_command.empty() || subscribers <= 0 ? Clock::duration(0) : kViewerWarmup);
  int first_measured = 0;  // the first frame measured, once the warm-up is over
  for (int frame = 1; first_measured == 0 || frame < first_measured + frames; ++frame) {
    if (first_measured == 0 && frame > kWarmupFrames && Clock::now() >= warm_until) {
      first_measured = frame;
      start = Clock::now();
      show_seconds = 0;
    }
    job.make(static_cast<uint64_t>(frame), step);
    if (publisher) {
      const auto before = Clock::now();
      times->shown_ns[static_cast<size_t>(frame) % kRing].store(now_ns(), std::memory_order_release);
      job.show(*publisher, static_cast<uint64_t>(frame));
      show_seconds += std::chrono::duration<double>(Clock::now() - before).count();
    }
    job.wait();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.loop_ms = seconds * 1e3 / frames;
  result.show_ms = show_seconds * 1e3 / frames;
  if (publisher) {
    // The last frames reach the subscribers before the publisher goes.
    std::this_thread::sleep_for(100ms);
    const interop::PublisherStats stats = publisher->stats();
    result.published = stats.frames_published;
    result.dropped = stats.frames_dropped;
    publisher.reset();
    for (auto& process : processes) result.subscribers.push_back(process->finish());
  }
  return result;
}

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t index = std::min(values.size() - 1, static_cast<size_t>(fraction * (values.size() - 1) + 0.5));
  return values[index];
}

std::optional<Size> parse_size(const std::string& text) {
  unsigned width = 0, height = 0;
  char end = 0;
  if (std::sscanf(text.c_str(), "%ux%u%c", &width, &height, &end) != 2 || width == 0 || height == 0 ||
      width > 16384 || height > 16384)
    return std::nullopt;
  return Size{width, height};
}

// step_ms 0: the job's step is the frame's memset alone.
int bench(interop::SlotMemory memory, const std::vector<Size>& sizes, int frames, double step_ms) {
  if (memory == interop::SlotMemory::Device) BENCH_CUDA(cudaSetDevice(0));
  FILE* out = stdout;
  int failures = 0;
  std::fprintf(out, "\n%s slots, RGBA8, %d frames per run (after %d unmeasured)\n",
               interop::to_string(memory), frames, kWarmupFrames);
  // Whether the processes take turns on the GPU or share it (docs/performance.md, viewers under MPS).
  std::fprintf(out, "MPS: %s\n", lab::os::mps_status(std::getenv("CUDA_MPS_PIPE_DIRECTORY")).c_str());
  std::unique_ptr<publish_bench::StepWork> step;
  if (step_ms > 0) {
    step = std::make_unique<publish_bench::StepWork>(memory == interop::SlotMemory::Device);
    step->calibrate(step_ms);
    std::fprintf(out, "the job's step (--step-ms %g): %s, then the frame's memset\n", step_ms,
                 step->description().c_str());
  } else {
    std::fprintf(out, "the job's step: the frame's memset alone (--step-ms MS adds work of MS ms)\n");
  }
  if (!g_viewer_command.empty())
    std::fprintf(out,
                 "the subscribers: `%s NAME` (--viewer; fps and latency not reported; measured from %d s "
                 "after they attached)\n",
                 g_viewer_command.c_str(),
                 static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(kViewerWarmup).count()));
  else
    std::fprintf(out, "the subscribers: %s\n",
                 g_hold_only ? "hold each frame and release it, without copying it (--hold-only)"
                             : "copy each frame before they release it (a viewer's upload)");
  // "step ×" is 7 bytes for 6 columns in UTF-8: its field is one byte wider than the numbers under it.
  std::fprintf(out, "%-10s %-11s %9s %9s %9s %10s %11s %10s %10s %8s\n", "size", "subscribers", "loop ms",
               "show ms", "+cost ms", "step \u00d7", "fps (min)", "lat p50", "lat p90", "dropped");
  interop::FileDescriptor times_fd(::memfd_create("publish-bench-times", 0));  // inherited by the subscribers
  if (!times_fd || ::ftruncate(times_fd.get(), sizeof(SharedTimes)) != 0)
    throw std::runtime_error("memfd_create(shared times)");
  void* mapped = ::mmap(nullptr, sizeof(SharedTimes), PROT_READ | PROT_WRITE, MAP_SHARED, times_fd.get(), 0);
  if (mapped == MAP_FAILED) throw std::runtime_error("mmap(shared times)");
  auto* times = static_cast<SharedTimes*>(mapped);
  for (const Size size : sizes) {
    const std::string size_text = std::to_string(size.width) + "x" + std::to_string(size.height);
    double baseline_ms = 0;
    for (const int subscribers : {-1, 0, 1, 3}) {
      try {
        const RunResult result = run(memory, size, subscribers, frames, times, times_fd.get(), step.get());
        if (subscribers < 0) {
          baseline_ms = result.loop_ms;
          std::fprintf(out, "%-10s %-11s %9.3f %9s %9s %9s %11s %10s %10s %8s\n", size_text.c_str(),
                       "no publisher", result.loop_ms, "-", "-", "1.000", "-", "-", "-", "-");
          if (step && result.loop_ms < 0.5 * step_ms) {
            std::fprintf(stderr,
                         "publish_bench: %s: the loop without a publisher took %.3f ms a step, under half of "
                         "--step-ms %g: the step's calibration did not hold\n",
                         size_text.c_str(), result.loop_ms, step_ms);
            ++failures;
          }
          continue;
        }
        std::vector<double> latencies;
        double slowest = 0;
        for (const SubscriberReport& report : result.subscribers) {
          if (!g_viewer_command.empty()) continue;  // a viewer reports nothing back
          if (report.frames == 0) {
            std::fprintf(stderr, "publish_bench: %s, %d subscribers: a subscriber held no frame\n",
                         size_text.c_str(), subscribers);
            ++failures;
          }
          latencies.insert(latencies.end(), report.latencies_ms.begin(), report.latencies_ms.end());
          // Frames held per second of the job's measured loop: what a viewer of this job would show.
          const double delivered = static_cast<double>(report.frames) / (result.loop_ms * frames / 1e3);
          slowest = slowest == 0 ? delivered : std::min(slowest, delivered);
        }
        const bool measured = !latencies.empty();
        char fps[32] = "-", p50[32] = "-", p90[32] = "-";
        if (measured) {
          std::snprintf(fps, sizeof(fps), "%.1f", slowest);
          std::snprintf(p50, sizeof(p50), "%.3f", percentile(latencies, 0.5));
          std::snprintf(p90, sizeof(p90), "%.3f", percentile(latencies, 0.9));
        }
        std::fprintf(out, "%-10s %-11d %9.3f %9.3f %9.3f %9.3f %11s %10s %10s %8llu\n", size_text.c_str(),
                     subscribers, result.loop_ms, result.show_ms, result.loop_ms - baseline_ms,
                     result.loop_ms / baseline_ms, fps, p50, p90,
                     static_cast<unsigned long long>(result.dropped));
        if (result.published == 0) {
          std::fprintf(stderr, "publish_bench: %s, %d subscribers: nothing was published\n",
                       size_text.c_str(), subscribers);
          ++failures;
        }
      } catch (const std::exception& error) {
        std::fprintf(stderr, "publish_bench: %s, %d subscribers: %s\n", size_text.c_str(), subscribers,
                     error.what());
        ++failures;
      }
      std::fflush(out);
    }
  }
  ::munmap(mapped, sizeof(SharedTimes));
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 4 && args[0] == "--subscribe")
      return run_subscriber(args[1], std::atoi(args[2].c_str()), args[3] == "copy");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "publish_bench subscriber: %s\n", error.what());
    return 1;
  }
  std::string memory = "auto";
  int frames = 300;
  double step_ms = 0;
  std::vector<Size> sizes{{1920, 1080}, {3840, 2160}};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      std::printf(
          "usage: publish_bench [--memory auto|host|device] [--frames N] [--sizes WxH,WxH] [--step-ms MS]\n"
          "                     [--hold-only] [--viewer COMMAND]\n"
          "  --step-ms MS  the job's step does about MS ms of memory-bound work (a kernel over 512 MiB of\n"
          "                device memory, a loop over a host buffer for host slots) before each show(),\n"
          "                calibrated here at start; default: the frame's memset alone\n"
          "  --hold-only   the subscribers hold each frame without copying it: the cost of attaching apart\n"
          "                from the viewers' own GPU work\n"
          "  --viewer CMD  each subscriber runs `CMD NAME` through /bin/sh, a real viewer (for example\n"
          "                'interop-lab --attach --headless --frames 1000000'); stopped after each run\n");
      return 0;
    }
    if (arg == "--hold-only") {
      g_hold_only = true;
      continue;
    }
    if (i + 1 >= args.size()) usage_error(arg + " needs a value (or is not an option)");
    const std::string& value = args[++i];
    if (arg == "--memory") {
      if (value != "auto" && value != "host" && value != "device")
        usage_error("--memory " + value + ": auto, host or device");
      memory = value;
    } else if (arg == "--viewer") {
      if (value.empty()) usage_error("--viewer needs a command");
      g_viewer_command = value;
    } else if (arg == "--frames") {
      frames = std::atoi(value.c_str());
      if (frames < 2 || frames > 100000) usage_error("--frames " + value + ": from 2 to 100000");
    } else if (arg == "--step-ms") {
      char* end = nullptr;
      step_ms = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !(step_ms >= 0.1 && step_ms <= 1000))
        usage_error("--step-ms " + value + ": milliseconds, from 0.1 to 1000");
    } else if (arg == "--sizes") {
      sizes.clear();
      size_t begin = 0;
      while (begin <= value.size()) {
        const size_t end = std::min(value.find(',', begin), value.size());
        const auto size = parse_size(value.substr(begin, end - begin));
        if (!size) usage_error("--sizes " + value + ": WxH[,WxH...], each edge from 1 to 16384");
        sizes.push_back(*size);
        begin = end + 1;
      }
    } else {
      usage_error("unknown option " + arg);
    }
  }
  ::signal(SIGPIPE, SIG_IGN);
  int failures = 0;
  try {
    if (memory != "device") failures += bench(interop::SlotMemory::Host, sizes, frames, step_ms);
    if (memory != "host") {
      const std::string problem = publish_tests::device_problem();
      if (problem.empty()) {
        failures += bench(interop::SlotMemory::Device, sizes, frames, step_ms);
      } else if (memory == "device") {
        std::fprintf(stderr, "publish_bench: device slots need a GPU: %s\n", problem.c_str());
        return 1;
      } else {
        std::printf("\ndevice slots: not measured (%s)\n", problem.c_str());
      }
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "publish_bench: %s\n", error.what());
    return 1;
  }
  if (failures > 0) std::fprintf(stderr, "publish_bench: %d run(s) failed\n", failures);
  return failures > 0 ? 1 : 0;
}
