// interop/device.hpp — which CUDA devices exist, and which of them can share resources with the
// current GL context (cudaGLGetDevices). Probing never throws: each answer carries its reason.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace interop {

struct CudaDeviceInfo {
  int ordinal = -1;
  std::string name;
  std::string uuid;        // "GPU-xxxxxxxx-xxxx-..." as nvidia-smi prints it
  std::string pci_bus_id;  // "0000:3B:00.0"
  int compute_major = 0;
  int compute_minor = 0;
  size_t total_memory = 0;
};

struct CudaDevices {
  std::vector<CudaDeviceInfo> devices;
  std::string error;  // why there are none ("cudaErrorInsufficientDriver — ..."), "" when the query worked
  int driver_version = 0;   // 13000 for 13.0; 0 when no driver
  int runtime_version = 0;
};

CudaDevices enumerate_cuda_devices();

enum class GlDeviceList { All, CurrentFrame, NextFrame };

struct GlDevices {
  std::vector<int> devices;  // CUDA ordinals that drive the current GL context
  std::string error;         // why the query failed, "" on success
};

// Needs a current GL context.
GlDevices cuda_devices_for_current_gl(GlDeviceList which = GlDeviceList::All);

// Whether CUDA device `ordinal` can register resources of the current GL context, and if not why,
// in a sentence with a remedy.
struct InteropSupport {
  bool usable = false;
  std::string reason;
};
InteropSupport probe_gl_interop(int ordinal);

}  // namespace interop
