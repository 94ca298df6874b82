// tests/publish/device_slots.hpp — whether publications here can have device slots: a CUDA device is visible
// and device 0 exports VMM memory (interop/vmm.hpp). publish_bench and publish_pattern both ask before they
// choose device slots (--memory auto) or refuse to run without them (--memory device).
#pragma once

#include "interop/vmm.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace publish_tests {

// "" where device slots can be published here; otherwise why not.
inline std::string device_problem() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return "no CUDA device is visible";
  }
  const interop::VmmExportSupport support = interop::probe_vmm_export(0);
  return support.supported ? "" : "CUDA device 0 exports no VMM memory: " + support.reason;
}

}  // namespace publish_tests
