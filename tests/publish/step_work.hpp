// tests/publish/step_work.hpp — publish_bench's stand-in for a job's step (--step-ms): memory-bound work of
// a chosen duration, so that what publishing adds is measured against a step that uses the GPU's (or the
// CPU's) memory the way a training step does, not against a memset of the frame alone.
//
//   device: passes of a read-modify-write kernel over a 512 MiB device buffer (less where the device has
//           less than 2 GiB free: a quarter of what is free), queued on the job's stream
//   host:   a read-modify-write loop over a 64 MiB host buffer, a chosen number of bytes a step, wrapping
//
// calibrate() times the work alone on this machine and picks how much of it one step does.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace publish_bench {

class StepWork {
 public:
  // device: the work is on CUDA's current device; host: on this thread.
  explicit StepWork(bool device);
  ~StepWork();
  StepWork(const StepWork&) = delete;
  StepWork& operator=(const StepWork&) = delete;

  // Picks how much work one step does so that it takes about `ms` alone here. Throws on a CUDA error.
  void calibrate(double ms);
  // One step, queued on `stream` (device) or done now (host).
  void run(cudaStream_t stream);
  // "45 passes of a read-modify-write kernel over 512 MiB of device memory, 10.02 ms alone (...)".
  std::string description() const;

 private:
  std::vector<double> times_ms(int repeats, cudaStream_t stream);
  void host_pass(size_t bytes);

  bool m_device;
  void* m_buffer = nullptr;  // device
  unsigned m_blocks = 0;     // device: the kernel's grid
  size_t m_buffer_bytes = 0;
  std::vector<uint32_t> m_host;  // host
  size_t m_host_offset = 0;      // where the next host step starts (words)
  uint32_t m_salt = 0;
  int m_passes = 1;          // device: kernel passes a step
  size_t m_host_bytes = 0;   // host: bytes a step
  double m_pass_ms = 0;      // device: one pass alone; host: one MiB
  double m_measured_ms = 0;  // a calibrated step alone
  uint32_t m_checksum = 0;   // what the host loop computes, kept so that it is not optimised away
};

}  // namespace publish_bench
