// tests/publish/publish_pattern.cpp — a publisher of known frames for the fault drill
// (tests/publish/kill_drill.py), and the check of what a viewer showed of them.
//
//   publish_pattern NAME [--memory auto|host|device] [--size WxH] [--fps N] [--generation G]
//   publish_pattern --check PNG --size WxH [--generation G]
//
// Publishing: interop::Publisher NAME, RGBA8 at --size (default 320x180), device slots where CUDA device 0
// exports VMM memory and host slots otherwise (auto; device: a GPU must, exit 1 without one), frames 1, 2,
// 3, ... at --fps (default 120) until SIGTERM or SIGINT. Frame F of generation G (default 1) is pattern():
// pixel (0, 0) holds F (red the low byte, then green, then blue), pixel (1, 0) holds G and a marker, and
// every other pixel is a function of (x, y, F, G), all opaque. Device slots are written with a copy from
// the host. On stdout, line by line: "publishing NAME WxH MEMORY slots pid P", then every 100 ms
// "status frames=F viewers=V dropped=D fds=N device_free=BYTES" (fds: this process's open descriptors;
// device_free: cudaMemGetInfo's free bytes on the device, 0 for host slots).
//
// Checking: the PNG (interop-lab --screenshot of an attached viewer) must be pattern() of the frame and
// generation its first two pixels name, pixel for pixel. Exit 0 and "frame F of generation G, pixel-exact";
// 1 and what differs; 2 on a usage error.
#include "app/image/image_io.hpp"
#include "interop/error.hpp"
#include "interop/publish.hpp"
#include "interop/vmm.hpp"
#include "tests/publish/device_slots.hpp"

#include <cuda_runtime_api.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint8_t kMarkerGreen = 0x5a, kMarkerBlue = 0xa5;
constexpr const char* kUsage =
    "usage: publish_pattern NAME [--memory auto|host|device] [--size WxH] [--fps N] [--generation G]\n"
    "       publish_pattern --check PNG --size WxH [--generation G]\n";

std::atomic<bool> g_stop{false};  // set by SIGTERM / SIGINT: the publisher ends cleanly

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "publish_pattern: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

// Channel c of pixel (x, y) in frame `frame` of generation `generation`, RGBA8.
void pattern_pixel(uint32_t x, uint32_t y, uint64_t frame, uint32_t generation, uint8_t out[4]) {
  if (y == 0 && x == 0) {
    out[0] = static_cast<uint8_t>(frame & 0xff);
    out[1] = static_cast<uint8_t>((frame >> 8) & 0xff);
    out[2] = static_cast<uint8_t>((frame >> 16) & 0xff);
  } else if (y == 0 && x == 1) {
    out[0] = static_cast<uint8_t>(generation & 0xff);
    out[1] = kMarkerGreen;
    out[2] = kMarkerBlue;
  } else {
    out[0] = static_cast<uint8_t>((x * 3 + y * 7 + frame * 5) & 0xff);
    out[1] = static_cast<uint8_t>((x * 5 + y * 3 + generation * 40 + frame * 3) & 0xff);
    out[2] = static_cast<uint8_t>(((x ^ y) + frame * 11) & 0xff);
  }
  out[3] = 255;
}

std::vector<uint8_t> pattern(uint32_t width, uint32_t height, uint64_t frame, uint32_t generation) {
  std::vector<uint8_t> bytes(size_t{width} * height * 4);
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x)
      pattern_pixel(x, y, frame, generation, &bytes[(size_t{y} * width + x) * 4]);
  return bytes;
}

int open_descriptors() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int count = 0;
  while (const dirent* entry = ::readdir(dir))
    if (entry->d_name[0] != '.') ++count;
  ::closedir(dir);
  return count - 1;  // the directory's own descriptor
}

bool parse_size(const std::string& text, uint32_t& width, uint32_t& height) {
  unsigned w = 0, h = 0;
  char end = 0;
  if (std::sscanf(text.c_str(), "%ux%u%c", &w, &h, &end) != 2 || w < 2 || h < 1 || w > 8192 || h > 8192)
    return false;
  width = w;
  height = h;
  return true;
}

int check(const std::string& path, uint32_t width, uint32_t height, std::optional<uint32_t> generation) {
  const lab::Image image = lab::read_png(path);
  if (image.width != static_cast<int>(width) || image.height != static_cast<int>(height)) {
    std::printf("%s: %dx%d, not the published %ux%u\n", path.c_str(), image.width, image.height, width,
                height);
    return 1;
  }
  const uint8_t* frame_pixel = image.pixel(0, 0);
  const uint8_t* marker = image.pixel(1, 0);
  if (marker[1] != kMarkerGreen || marker[2] != kMarkerBlue) {
    const bool black = marker[0] == 0 && marker[1] == 0 && marker[2] == 0;
    std::printf("%s: pixel (1, 0) is %u,%u,%u,%u: no frame of the pattern%s\n", path.c_str(), marker[0],
                marker[1], marker[2], marker[3], black ? " (black: no frame was shown)" : "");
    return 1;
  }
  const uint64_t frame = frame_pixel[0] | (uint64_t{frame_pixel[1]} << 8) | (uint64_t{frame_pixel[2]} << 16);
  const uint32_t shown_generation = marker[0];
  if (generation && *generation != shown_generation) {
    std::printf("%s: frame %llu of generation %u, not of generation %u\n", path.c_str(),
                static_cast<unsigned long long>(frame), shown_generation, *generation);
    return 1;
  }
  const std::vector<uint8_t> expected = pattern(width, height, frame, shown_generation);
  size_t off = 0;
  std::optional<std::pair<uint32_t, uint32_t>> first;
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x)
      if (std::memcmp(image.pixel(static_cast<int>(x), static_cast<int>(y)),
                      &expected[(size_t{y} * width + x) * 4], 4) != 0) {
        ++off;
        if (!first) first = std::make_pair(x, y);
      }
  if (off > 0) {
    const uint8_t* got = image.pixel(static_cast<int>(first->first), static_cast<int>(first->second));
    const uint8_t* want = &expected[(size_t{first->second} * width + first->first) * 4];
    std::printf(
        "%s: %zu of %zu pixels differ from frame %llu of generation %u (first at %u,%u: %u,%u,%u,%u, "
        "expected "
        "%u,%u,%u,%u)\n",
        path.c_str(), off, size_t{width} * height, static_cast<unsigned long long>(frame), shown_generation,
        first->first, first->second, got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
    return 1;
  }
  std::printf("frame %llu of generation %u, pixel-exact\n", static_cast<unsigned long long>(frame),
              shown_generation);
  return 0;
}

void on_stop(int) {
  g_stop = true;
}

int publish(const std::string& name, interop::SlotMemory memory, uint32_t width, uint32_t height, int fps,
            uint32_t generation) {
  if (memory == interop::SlotMemory::Device) {
    const cudaError_t status = cudaSetDevice(0);
    if (status != cudaSuccess)
      throw std::runtime_error(std::string("cudaSetDevice(0): ") + cudaGetErrorName(status));
  }
  interop::PublisherDesc desc;
  desc.name = name;
  desc.format.width = width;
  desc.format.height = height;
  desc.format.channels = 4;
  desc.format.dtype = interop::DType::UInt8;
  desc.memory = memory;
  desc.device = memory == interop::SlotMemory::Device ? 0 : -1;
  interop::Publisher publisher(desc);
  if (!publisher.notice().empty()) std::fprintf(stderr, "publish_pattern: %s\n", publisher.notice().c_str());
  std::printf("publishing %s %ux%u %s slots pid %d\n", name.c_str(), width, height,
              interop::to_string(memory), static_cast<int>(::getpid()));
  std::fflush(stdout);

  const auto period = std::chrono::nanoseconds(1000000000LL / fps);
  auto next_frame = Clock::now();
  auto next_status = Clock::now();
  for (uint64_t frame = 1; !g_stop; ++frame) {
    const std::vector<uint8_t> bytes = pattern(width, height, frame, generation);
    const interop::Publisher::Slot slot = publisher.acquire();
    if (slot) {  // none free: every slot is being read; this frame is skipped
      if (memory == interop::SlotMemory::Device) {
        const cudaError_t status = cudaMemcpy(slot.data, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
        if (status != cudaSuccess)
          throw std::runtime_error(std::string("cudaMemcpy: ") + cudaGetErrorName(status));
      } else {
        std::memcpy(slot.data, bytes.data(), bytes.size());
      }
      publisher.publish(slot, frame);
    }
    const auto now = Clock::now();
    if (now >= next_status) {
      size_t free_bytes = 0, total_bytes = 0;
      if (memory == interop::SlotMemory::Device && cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
        free_bytes = 0;
      const interop::PublisherStats stats = publisher.stats();
      std::printf("status frames=%llu viewers=%u dropped=%llu fds=%d device_free=%zu\n",
                  static_cast<unsigned long long>(stats.frames_published), stats.viewers,
                  static_cast<unsigned long long>(stats.frames_dropped), open_descriptors(), free_bytes);
      std::fflush(stdout);
      next_status = now + std::chrono::milliseconds(100);
    }
    next_frame += period;
    if (next_frame < now) next_frame = now;  // late: no burst to catch up
    std::this_thread::sleep_until(next_frame);
  }
  std::printf("stopped\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string name, memory = "auto", check_path;
  uint32_t width = 320, height = 180;
  bool size_given = false;
  int fps = 120;
  std::optional<uint32_t> generation;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!name.empty()) usage_error("one NAME only: " + name + " and " + arg);
      name = arg;
      continue;
    }
    if (i + 1 >= args.size()) usage_error(arg + " needs a value (or is not an option)");
    const std::string& value = args[++i];
    if (arg == "--memory") {
      if (value != "auto" && value != "host" && value != "device")
        usage_error("--memory " + value + ": auto, host or device");
      memory = value;
    } else if (arg == "--size") {
      if (!parse_size(value, width, height))
        usage_error("--size " + value + ": WxH, width 2 to 8192, height 1 to 8192");
      size_given = true;
    } else if (arg == "--fps") {
      fps = std::atoi(value.c_str());
      if (fps < 1 || fps > 10000) usage_error("--fps " + value + ": from 1 to 10000");
    } else if (arg == "--generation") {
      const int parsed = std::atoi(value.c_str());
      if (parsed < 0 || parsed > 255) usage_error("--generation " + value + ": from 0 to 255");
      generation = static_cast<uint32_t>(parsed);
    } else if (arg == "--check") {
      check_path = value;
    } else {
      usage_error("unknown option " + arg);
    }
  }
  try {
    if (!check_path.empty()) {
      if (!name.empty()) usage_error("--check takes no NAME");
      if (!size_given) usage_error("--check needs the published --size");
      return check(check_path, width, height, generation);
    }
    if (name.empty()) usage_error("the publication NAME is missing");
    if (const std::string problem = interop::validate_publication_name(name); !problem.empty())
      usage_error(problem);
    ::signal(SIGTERM, on_stop);
    ::signal(SIGINT, on_stop);
    ::signal(SIGPIPE, SIG_IGN);
    interop::SlotMemory slots = interop::SlotMemory::Host;
    if (memory != "host") {
      const std::string problem = publish_tests::device_problem();
      if (problem.empty()) {
        slots = interop::SlotMemory::Device;
      } else if (memory == "device") {
        std::fprintf(stderr, "publish_pattern: device slots need a GPU: %s\n", problem.c_str());
        return 1;
      }
    }
    return publish(name, slots, width, height, fps, generation.value_or(1));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "publish_pattern: %s\n", error.what());
    return 1;
  }
}
