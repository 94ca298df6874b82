// interop/device.hpp — which CUDA devices exist, and which of them can share resources with the
// current GL context (cudaGLGetDevices). Probing never throws: each answer carries its reason.
#pragma once

#include "interop/error.hpp"

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
  std::string
      error;  // why there are none ("cudaGetDeviceCount: cudaErrorNoDevice: ..."), "" when the query worked
  Condition condition = Condition::None;  // what `error` means (NoCudaDevice, CudaDriverMissing, ...)
  int driver_version = 0;                 // 13000 for 13.0; 0 when no driver
  int runtime_version = 0;
};

CudaDevices enumerate_cuda_devices();

enum class GlDeviceList { All, CurrentFrame, NextFrame };

struct GlDevices {
  std::vector<int> devices;               // CUDA ordinals that drive the current GL context
  std::string error;                      // why the query failed, "" on success
  Condition condition = Condition::None;  // what the failure means, where known
};

// Needs a current GL context.
GlDevices cuda_devices_for_current_gl(GlDeviceList which = GlDeviceList::All);

// Whether CUDA device `ordinal` can register resources of the current GL context, and if not why,
// in a sentence with what a program can do about it. `condition` says the same for programs that add
// remedies of their own: NoCudaDevice / CudaDriverMissing, InvalidCudaDevice, GlNotOnCudaDevice, or
// GlOnAnotherCudaDevice with `gl_device` the CUDA device that does drive the context.
struct InteropSupport {
  bool usable = false;
  std::string reason;
  Condition condition = Condition::None;
  int gl_device = -1;
};
InteropSupport probe_gl_interop(int ordinal);

// Makes `ordinal` the thread's current CUDA device for a scope, and the previous one current again at
// its end: work for a second device (allocations, streams, events, launches) happens inside one.
class ScopedDevice {
 public:
  explicit ScopedDevice(int ordinal);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int m_previous = -1;
};

// Whether device `from` can reach the memory of device `to` directly (cudaDeviceCanAccessPeer: NVLink
// or a PCIe switch that allows it); a device always reaches its own. False when either does not exist.
bool can_access_peer(int from, int to);
// Lets `from` reach `to`'s memory (cudaDeviceEnablePeerAccess in `from`'s context); enabling it twice
// is fine. Throws interop::Error when it cannot be enabled. Does nothing when from == to.
void enable_peer_access(int from, int to);

}  // namespace interop
