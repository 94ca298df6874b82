// app/d3d/d3d_handoff.hpp — the Direct3D-free rules of the Direct3D backends' CUDA modes, kept apart so that
// they run and are tested where Direct3D does not exist (tests/unit/test_d3d_handoff.cpp):
//   - which of them can run with a CUDA device and a Direct3D device (cuda_mode_availability), and why not;
//   - the D3D11 external mode's keyed-mutex protocol, as the steps each side takes (keyed_mutex_steps);
//   - the D3D12 external mode's fence values, one per step (FenceTimeline);
//   - what CUDA's import of a shared Direct3D resource says (shared_resource_import; its textures are
//     app/scene/cuda_views.hpp's rgba8_image).
// app/d3d11 and app/d3d12 execute exactly these steps and values; they only add the API calls.
#pragma once

#include "app/core/vocabulary.hpp"
#include "interop/external.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lab {

// What decides whether a CUDA mode of a Direct3D backend runs here.
struct CudaAdapterFacts {
  int cuda_device = -1;     // the CUDA ordinal; -1: none
  std::string cuda_error;   // why there is none (empty: none is visible)
  std::string cuda_name;    // "NVIDIA H200 (CUDA device 0)"
  bool tcc_driver = false;  // cudaDeviceProp::tccDriver: the GPU runs without graphics (TCC/MCDM)
  std::array<unsigned char, 8> cuda_luid{};  // cudaDeviceProp::luid: its DXGI adapter's LUID (Windows)
  // The Direct3D device, once there is one (the checks on it apply then): its adapter, and whether it
  // renders on the CUDA device (D3D11: cudaD3D11GetDevices; D3D12: the adapter's LUID is the device's).
  bool has_graphics_device = false;
  bool graphics_on_cuda_device = false;
  std::string adapter;  // "NVIDIA H200 (LUID 0x...)", "WARP (Direct3D on the CPU)"
};

// The CUDA half of the facts, from cudaGetDeviceProperties of `device` (-1: none, `cuda_error` says why).
// A failed query is said in cuda_error, with cuda_device -1.
CudaAdapterFacts cuda_device_facts(int device, const std::string& cuda_error);

// Whether `mode` of `api` (d3d11 or d3d12) can run with these facts: cpu always; staging with a CUDA
// device; interop, reregister and external also need the GPU to have graphics (not TCC) and the Direct3D
// device on the CUDA device, since both import or register the very same memory. The reason says what
// is missing and what works instead.
ModeAvailability cuda_mode_availability(GraphicsApi api, ModeId mode, const CudaAdapterFacts& facts);
// The same with the facts gathered: the CUDA side from `cuda_device` (cuda_device_facts); the Direct3D
// device's `adapter` (nullptr: there is no device yet, only the CUDA side is judged), and whether it renders
// on the CUDA device as `renders_on_cuda_device(facts)` says, asked only when there is a CUDA device.
template <class RendersOnCudaDevice>
ModeAvailability cuda_mode_availability(GraphicsApi api, ModeId mode, int cuda_device,
                                        const std::string& cuda_error, const std::string* adapter,
                                        RendersOnCudaDevice renders_on_cuda_device) {
  CudaAdapterFacts facts = cuda_device_facts(cuda_device, cuda_error);
  if (adapter != nullptr && facts.cuda_device >= 0) {
    facts.has_graphics_device = true;
    facts.adapter = *adapter;
    facts.graphics_on_cuda_device = renders_on_cuda_device(facts);
  }
  return cuda_mode_availability(api, mode, facts);
}

// Throws std::runtime_error "--mode <mode> is unavailable: <reason>" when it is; what a mode's attach does.
void throw_if_unavailable(ModeId mode, const ModeAvailability& availability);

// ---- D3D11 external: one keyed mutex per shared resource ---------------------------------------------
//
// A keyed mutex is acquired with the key its last owner released. Direct3D 11 holds every resource's
// mutex whenever it may draw into or read from the resource: from attach, through the frame pass, the
// read-back and the next frame's cubes pass. Each frame it hands the resources to CUDA and takes them back:
//   before the kernels: Direct3D releases key 0, CUDA acquires key 0 (queued on the stream)
//   after the kernels:  CUDA releases key 1 (queued), Direct3D acquires key 1 (waits until CUDA did)
// Detach releases key 0: the mutex is as it was created, and a new attach starts the same way.
enum class MutexSide { Direct3D, Cuda };
enum class MutexOp { Acquire, Release };
struct KeyedMutexStep {
  MutexSide side;
  MutexOp op;
  uint64_t key;
};
enum class KeyedMutexPhase { Attach, BeforeKernels, AfterKernels, Detach };
const std::vector<KeyedMutexStep>& keyed_mutex_steps(KeyedMutexPhase phase);

// ---- D3D12 external: one shared fence, one value per step ---------------------------------------------
//
// The fence starts at 0 and only grows. Each frame:
//   the graphics queue signals `graphics_signal` after the work that used the resources (the cubes pass,
//   the previous frame's draws) -> CUDA waits for it (`cuda_wait`), runs the kernels, signals
//   `cuda_signal` -> the queue waits for that (`graphics_wait`) before the frame pass.
struct FenceFrame {
  uint64_t graphics_signal = 0;
  uint64_t cuda_wait = 0;
  uint64_t cuda_signal = 0;
  uint64_t graphics_wait = 0;
};
class FenceTimeline {
 public:
  FenceFrame next_frame();
  // A value above every one handed out, for the teardown: the queue signals it and the host waits for it,
  // so the queue is past its last wait before the fence goes.
  uint64_t next_teardown();
  uint64_t last() const { return m_value; }  // 0 before the first frame

 private:
  uint64_t m_value = 0;
};

// ---- Imports --------------------------------------------------------------------------------------

// CUDA's import of a shared Direct3D resource's NT handle (`type` D3D12Resource or D3D11Resource):
// always dedicated, since each resource has its own allocation, of `allocation_size` bytes (D3D12:
// GetResourceAllocationInfo's SizeInBytes, which may exceed the data's bytes).
interop::ExternalMemoryDesc shared_resource_import(interop::ExternalHandleType type, void* handle,
                                                   uint64_t allocation_size);

}  // namespace lab
