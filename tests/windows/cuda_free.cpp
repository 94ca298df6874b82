// tests/windows/cuda_free.cpp — what the CUDA-free Windows executables (d3d_device_check, d3d_app_check and
// interop-lab.exe with Direct3D only) link in place of the CUDA runtime, the CUDA kernels and the interop
// library's device memory and GL registrations. There is no Windows CUDA runtime on the Linux machine that
// builds them. (The check without a panel links no_panel.cpp for ImGui.)
//   - The CUDA runtime functions the code under test calls answer as on a machine without a CUDA device
//     (cudaErrorNoDevice), so what interop/d3d11.cpp and the app's device probe do up to and after each
//     CUDA call is what runs.
//   - The doctor's VMM export probe answers that this build has no CUDA.
//   - app/scene/scene_compute.cpp is compiled whole, but only its CPU reference runs: its CUDA launchers and
//   device
//     memory, if ever reached, say so and abort.
#include "interop/gl.hpp"  // cuda_gl_interop.h, after the GL loader's header
#include "interop/memory.hpp"
#include "interop/vmm.hpp"
#include "kernels/pattern.hpp"
#include "kernels/postprocess.hpp"
#include "kernels/wave.hpp"

#include <cuda_d3d11_interop.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {
[[noreturn]] void not_in_this_build(const char* what) {
  std::fprintf(stderr, "%s was called, but this build has no CUDA\n", what);
  std::abort();
}
}  // namespace

// ---- The CUDA runtime of a machine without a CUDA device --------------------------------------------
extern "C" {
cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  *device = -1;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaGetDeviceCount(int* count) {
  *count = 0;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaGetLastError() {
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int* version) {
  *version = 0;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDriverGetVersion(int* version) {
  *version = 0;  // what the runtime says without a driver
  return cudaSuccess;
}
// Reached only with a device, which there is none of: the app's and interop's device code links.
cudaError_t CUDARTAPI cudaSetDevice(int /*device*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaGetDeviceProperties(cudaDeviceProp* /*properties*/, int /*device*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char* /*bus_id*/, int /*length*/, int /*device*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int* can_access, int /*device*/, int /*peer*/) {
  *can_access = 0;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int /*peer*/, unsigned int /*flags*/) {
  return cudaErrorNoDevice;
}
// The readout of a picture in device memory (app/scene/readout.cpp), which no source here makes.
cudaError_t CUDARTAPI cudaMemcpy(void* /*to*/, const void* /*from*/, size_t /*bytes*/,
                                 cudaMemcpyKind /*kind*/) {
  return cudaErrorNoDevice;
}
// The staging mode's copy to the host (--api none's staging, which needs a CUDA device and so never runs).
cudaError_t CUDARTAPI cudaMemcpyAsync(void* /*to*/, const void* /*from*/, size_t /*bytes*/,
                                      cudaMemcpyKind /*kind*/, cudaStream_t /*stream*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaGLGetDevices(unsigned int* count, int* /*devices*/, unsigned int /*capacity*/,
                                       enum cudaGLDeviceList /*list*/) {
  *count = 0;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int /*flags*/) {
  *stream = nullptr;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t /*stream*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t /*stream*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t /*stream*/, cudaEvent_t /*event*/,
                                          unsigned int /*flags*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int /*flags*/) {
  *event = nullptr;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t /*event*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t /*event*/, cudaStream_t /*stream*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t /*event*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t /*event*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaEventElapsedTime(float* ms, cudaEvent_t /*start*/, cudaEvent_t /*end*/) {
  *ms = 0.0f;
  return cudaErrorNoDevice;
}
const char* CUDARTAPI cudaGetErrorName(cudaError_t error) {
  return error == cudaErrorNoDevice ? "cudaErrorNoDevice" : "cudaError (CUDA-free test build)";
}
cudaError_t CUDARTAPI cudaD3D11GetDevice(int* device, IDXGIAdapter* /*adapter*/) {
  *device = -1;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaD3D11GetDevices(unsigned int* count, int* /*devices*/, unsigned int /*capacity*/,
                                          ID3D11Device* /*device*/, enum cudaD3D11DeviceList /*list*/) {
  *count = 0;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaGraphicsD3D11RegisterResource(struct cudaGraphicsResource** resource,
                                                        ID3D11Resource* /*d3d_resource*/,
                                                        unsigned int /*flags*/) {
  *resource = nullptr;
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaGraphicsUnregisterResource(cudaGraphicsResource_t /*resource*/) {
  return cudaErrorNoDevice;
}
cudaError_t CUDARTAPI cudaGraphicsResourceSetMapFlags(cudaGraphicsResource_t /*resource*/,
                                                      unsigned int /*flags*/) {
  return cudaErrorNoDevice;
}
}

namespace interop {
namespace detail {
// gl.cpp's counter (no GL registrations here).
std::atomic<int>& registration_counter() {
  static std::atomic<int> count{0};
  return count;
}
}  // namespace detail
DeviceBuffer::DeviceBuffer(size_t /*bytes*/) {
  not_in_this_build("interop::DeviceBuffer");
}
void detail::DeviceMemoryTraits::destroy(Handle /*allocation*/) noexcept {
  not_in_this_build("cudaFree");
}
PinnedHostBuffer::PinnedHostBuffer(size_t /*bytes*/) {
  not_in_this_build("interop::PinnedHostBuffer");
}
void detail::PinnedHostMemoryTraits::destroy(Handle allocation) noexcept {
  if (allocation.data != nullptr) not_in_this_build("cudaFreeHost");  // an empty buffer frees nothing
}
}  // namespace interop

// ---- The interop library's VMM probe (the doctor's CUDA section): no CUDA, nothing to export -----------

namespace interop {
VmmExportSupport probe_vmm_export(int /*device*/, ExportHandleType /*type*/) {
  VmmExportSupport support;
  support.reason = "this build has no CUDA";
  return support;
}
}  // namespace interop

// ---- The scenes' CUDA launchers: never reached --------------------------------------------------------
namespace kernels {
void wave_cuda(WaveVertex* /*vertices*/, const WaveParams& /*params*/, cudaStream_t /*stream*/) {
  not_in_this_build("kernels::wave_cuda");
}
void pattern_cuda(ImageTarget /*target*/, const PatternParams& /*params*/, cudaStream_t /*stream*/) {
  not_in_this_build("kernels::pattern_cuda");
}
void postprocess_cuda(const ImageSource& /*source*/, const ImageTarget& /*target*/,
                      const PostprocessParams& /*params*/, Vec4* /*scratch*/, cudaStream_t /*stream*/) {
  not_in_this_build("kernels::postprocess_cuda");
}
}  // namespace kernels
