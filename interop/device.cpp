// interop/device.cpp — CUDA device enumeration and the GL <-> CUDA device match.
#include "interop/device.hpp"

#include "interop/error.hpp"
#include "interop/gl.hpp"  // cuda_gl_interop.h after the GL loader's header

#include <cstdio>

namespace interop {

namespace {

std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char text[64];
  std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return text;
}

}  // namespace

CudaDevices enumerate_cuda_devices() {
  CudaDevices result;
  cudaRuntimeGetVersion(&result.runtime_version);
  cudaDriverGetVersion(&result.driver_version);
  int count = 0;
  if (const cudaError_t error = cudaGetDeviceCount(&count); error != cudaSuccess) {
    cudaGetLastError();
    result.error = describe_cuda_error(error, "cudaGetDeviceCount");
    result.condition = cuda_error_condition(error, "cudaGetDeviceCount");
    return result;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp properties{};
    if (const cudaError_t error = cudaGetDeviceProperties(&properties, ordinal); error != cudaSuccess) {
      cudaGetLastError();
      result.error = describe_cuda_error(error, "cudaGetDeviceProperties");
      result.condition = cuda_error_condition(error, "cudaGetDeviceProperties");
      continue;
    }
    CudaDeviceInfo info;
    info.ordinal = ordinal;
    info.name = properties.name;
    info.uuid = format_uuid(properties.uuid);
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal) == cudaSuccess) info.pci_bus_id = bus_id;
    info.compute_major = properties.major;
    info.compute_minor = properties.minor;
    info.total_memory = properties.totalGlobalMem;
    result.devices.push_back(std::move(info));
  }
  if (count == 0 && result.error.empty()) {
    result.error = "cudaGetDeviceCount: 0 CUDA devices";
    result.condition = Condition::NoCudaDevice;
  }
  return result;
}

GlDevices cuda_devices_for_current_gl(GlDeviceList which) {
  const cudaGLDeviceList list = which == GlDeviceList::CurrentFrame ? cudaGLDeviceListCurrentFrame
                                : which == GlDeviceList::NextFrame  ? cudaGLDeviceListNextFrame
                                                                    : cudaGLDeviceListAll;
  GlDevices result;
  unsigned int count = 0;
  int devices[16] = {};
  if (const cudaError_t error = cudaGLGetDevices(&count, devices, 16, list); error != cudaSuccess) {
    cudaGetLastError();
    result.error = describe_cuda_error(error, "cudaGLGetDevices");
    result.condition = cuda_error_condition(error, "cudaGLGetDevices");
    return result;
  }
  result.devices.assign(devices, devices + count);
  return result;
}

InteropSupport probe_gl_interop(int ordinal) {
  const CudaDevices cuda = enumerate_cuda_devices();
  if (cuda.devices.empty())
    return {false, "no CUDA device: " + cuda.error,
            cuda.condition == Condition::None ? Condition::NoCudaDevice : cuda.condition};
  if (ordinal < 0 || ordinal >= static_cast<int>(cuda.devices.size()))
    return {false,
            "CUDA device " + std::to_string(ordinal) + " does not exist (this machine has " +
                std::to_string(cuda.devices.size()) + ")",
            Condition::InvalidCudaDevice};
  const GlDevices gl = cuda_devices_for_current_gl(GlDeviceList::All);
  const std::string renderer = current_gl_renderer();
  if (gl.condition == Condition::GlInteropOnOtherWindowSystem)
    return {false, "GL (" + renderer + ") cannot share with CUDA in this process: " + gl.error, gl.condition};
  if (!gl.error.empty())
    return {false, "GL (" + renderer + ") is not on a CUDA device: " + gl.error,
            Condition::GlNotOnCudaDevice};
  if (gl.devices.empty())
    return {
        false,
        "GL is rendered by " + renderer +
            ", not by an NVIDIA GPU that CUDA can use: create the GL context on the NVIDIA driver "
            "(GLX with __GLX_VENDOR_LIBRARY_NAME=nvidia, or EGL on the NVIDIA EGL device), or hand results "
            "to GL through host memory instead of interop",
        Condition::GlNotOnCudaDevice};
  for (int device : gl.devices)
    if (device == ordinal)
      return {true, "CUDA device " + std::to_string(ordinal) + " drives GL (" + renderer + ")",
              Condition::None};
  return {false,
          "CUDA device " + std::to_string(ordinal) + " (" + cuda.devices[ordinal].name +
              ") does not drive the GL context (" + renderer + "); CUDA device " +
              std::to_string(gl.devices.front()) + " does: use that one for interop",
          Condition::GlOnAnotherCudaDevice, gl.devices.front()};
}

ScopedDevice::ScopedDevice(int ordinal) {
  INTEROP_CUDA_CHECK(cudaGetDevice(&m_previous));
  if (ordinal != m_previous) INTEROP_CUDA_CHECK(cudaSetDevice(ordinal));
}

ScopedDevice::~ScopedDevice() {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current != m_previous)
    INTEROP_CUDA_REPORT(cudaSetDevice(m_previous));
}

bool can_access_peer(int from, int to) {
  if (from == to) return true;
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return can != 0;
}

void enable_peer_access(int from, int to) {
  if (from == to) return;
  ScopedDevice on(from);
  const cudaError_t error = cudaDeviceEnablePeerAccess(to, 0);
  if (error == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();
    return;
  }
  INTEROP_CUDA_CHECK(error);
}

}  // namespace interop
