// tests/publish/step_work.cu — publish_bench's job step (step_work.hpp): the read-modify-write kernel, and
// its calibration on this machine.
#include "tests/publish/step_work.hpp"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace publish_bench {
namespace {

#define STEP_CUDA(call)                                                                    \
  do {                                                                                     \
    const cudaError_t step_status = (call);                                                \
    if (step_status != cudaSuccess)                                                        \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorName(step_status)); \
  } while (0)

constexpr size_t kDeviceBufferBytes = size_t{512} << 20;
constexpr size_t kHostBufferBytes = size_t{64} << 20;
constexpr size_t kMiB = size_t{1} << 20;

// Each 32-bit lane read, stepped once through a linear congruential generator, written back: one read and
// one write of every byte a pass, no reuse, so the pass is bound by memory bandwidth.
__global__ void step_pass(uint4* data, size_t words, uint32_t salt) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) {
    uint4 value = data[i];
    value.x = value.x * 1664525u + salt;
    value.y = value.y * 1664525u + salt;
    value.z = value.z * 1664525u + salt;
    value.w = value.w * 1664525u + salt;
    data[i] = value;
  }
}

double thread_cpu_ms() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

std::string mib_text(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.0f MiB", static_cast<double>(bytes) / kMiB);
  return text;
}

}  // namespace

StepWork::StepWork(bool device) : m_device(device) {
  if (m_device) {
    size_t free_bytes = 0, total_bytes = 0;
    STEP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    m_buffer_bytes =
        free_bytes >= 4 * kDeviceBufferBytes ? kDeviceBufferBytes : (free_bytes / 4) & ~size_t{15};
    if (m_buffer_bytes < kMiB) throw std::runtime_error("--step-ms: the device has under 4 MiB free");
    STEP_CUDA(cudaMalloc(&m_buffer, m_buffer_bytes));
    STEP_CUDA(cudaMemset(m_buffer, 0, m_buffer_bytes));
    int device = 0, multiprocessors = 0;
    STEP_CUDA(cudaGetDevice(&device));
    STEP_CUDA(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    // Enough blocks to keep every SM's memory pipeline busy; the grid-stride loop covers the rest.
    m_blocks = static_cast<unsigned>(std::max(1, multiprocessors) * 8);
  } else {
    m_host.assign(kHostBufferBytes / sizeof(uint32_t), 1u);
  }
}

StepWork::~StepWork() {
  if (m_buffer) cudaFree(m_buffer);
}

void StepWork::host_pass(size_t bytes) {
  size_t words = bytes / sizeof(uint32_t);
  uint32_t checksum = m_checksum;
  const uint32_t salt = ++m_salt;
  while (words > 0) {
    const size_t run = std::min(words, m_host.size() - m_host_offset);
    uint32_t* data = m_host.data() + m_host_offset;
    for (size_t i = 0; i < run; ++i) {
      data[i] = data[i] * 1664525u + salt;
      checksum ^= data[i];
    }
    m_host_offset = (m_host_offset + run) % m_host.size();
    words -= run;
  }
  m_checksum = checksum;
}

void StepWork::run(cudaStream_t stream) {
  if (!m_device) {
    host_pass(m_host_bytes);
    return;
  }
  for (int pass = 0; pass < m_passes; ++pass) {
    step_pass<<<m_blocks, 256, 0, stream>>>(static_cast<uint4*>(m_buffer), m_buffer_bytes / 16, ++m_salt);
    STEP_CUDA(cudaGetLastError());
  }
}

// The current step timed `repeats` times, fastest first: CUDA events on the device, the thread's CPU time on
// the host (so that another process taking the core mid-step does not count: it would make the step too
// short, where the loop then runs with that core).
std::vector<double> StepWork::times_ms(int repeats, cudaStream_t stream) {
  std::vector<double> times;
  if (!m_device) {
    for (int i = 0; i < repeats; ++i) {
      const double start = thread_cpu_ms();
      run(stream);
      times.push_back(thread_cpu_ms() - start);
    }
    std::sort(times.begin(), times.end());
    return times;
  }
  cudaEvent_t start = nullptr, end = nullptr;
  STEP_CUDA(cudaEventCreate(&start));
  STEP_CUDA(cudaEventCreate(&end));
  try {
    for (int i = 0; i < repeats; ++i) {
      STEP_CUDA(cudaEventRecord(start, stream));
      run(stream);
      STEP_CUDA(cudaEventRecord(end, stream));
      STEP_CUDA(cudaEventSynchronize(end));
      float elapsed = 0;
      STEP_CUDA(cudaEventElapsedTime(&elapsed, start, end));
      times.push_back(elapsed);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(end);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  std::sort(times.begin(), times.end());
  return times;
}

// The unit of work (a device pass, a host MiB) timed in batches of 1, 2, 4, ... units until a batch takes
// 20 ms or more, so that launches and the clock's resolution are a small part of it; that batch timed three
// times more, the fastest taken (anything else on the machine only slows a batch); then as many units as
// `ms` holds, and the step so made timed alone (the median of five).
void StepWork::calibrate(double ms) {
  cudaStream_t stream = nullptr;
  if (m_device) STEP_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  try {
    if (m_device) {
      m_passes = 1;
      times_ms(1, stream);  // warm-up: the kernel loaded, the buffer's pages mapped
      for (int batch = 1;; batch *= 2) {
        m_passes = batch;
        if (times_ms(1, stream)[0] >= 20 || batch >= 4096) {
          m_pass_ms = times_ms(3, stream)[0] / batch;
          break;
        }
      }
      m_passes = std::max(1, static_cast<int>(ms / m_pass_ms + 0.5));
    } else {
      m_host_bytes = kHostBufferBytes;
      times_ms(1, stream);  // warm-up: every page touched
      for (size_t mib = 1;; mib *= 2) {
        m_host_bytes = mib * kMiB;
        if (times_ms(1, stream)[0] >= 20 || mib >= 4096) {
          m_pass_ms = times_ms(3, stream)[0] / static_cast<double>(mib);
          break;
        }
      }
      const size_t bytes = static_cast<size_t>(ms / m_pass_ms * kMiB);
      m_host_bytes = std::max<size_t>(4096, bytes & ~size_t{4095});
    }
    m_measured_ms = times_ms(5, stream)[2];
  } catch (...) {
    if (stream) cudaStreamDestroy(stream);
    throw;
  }
  if (stream) STEP_CUDA(cudaStreamDestroy(stream));
}

std::string StepWork::description() const {
  char text[256];
  if (m_device)
    std::snprintf(text, sizeof(text),
                  "%d pass%s of a read-modify-write kernel over %s of device memory, %.3f ms alone "
                  "(one pass %.3f ms, timed here with CUDA events)",
                  m_passes, m_passes == 1 ? "" : "es", mib_text(m_buffer_bytes).c_str(), m_measured_ms,
                  m_pass_ms);
  else
    std::snprintf(text, sizeof(text),
                  "a read-modify-write loop over %.2f MiB of a %s host buffer, %.3f ms alone "
                  "(one MiB %.3f ms, timed here in the thread's CPU time)",
                  static_cast<double>(m_host_bytes) / kMiB,
                  mib_text(m_host.size() * sizeof(uint32_t)).c_str(), m_measured_ms, m_pass_ms);
  return text;
}

}  // namespace publish_bench
