// app/d3d11/mode_external.cpp — the Direct3D 11 `external` mode: the renderer creates the scene's
// resources shared with a keyed mutex each (D3D11_RESOURCE_MISC_SHARED_NTHANDLE |
// D3D11_RESOURCE_MISC_SHARED_KEYEDMUTEX), CUDA imports every resource once through an NT handle
// (cudaExternalMemoryHandleTypeD3D11Resource, dedicated) together with its keyed mutex
// (cudaExternalSemaphoreHandleTypeKeyedMutex), and each frame the two sides hand the resources over with
// the keyed mutexes alone: no register, no map/unmap, no copies. The keys and who takes them when are
// app/d3d/d3d_handoff.hpp's keyed_mutex_steps (Direct3D 11 holds the resources except while CUDA computes).
//
// The mode is app/modes/external_mode.hpp's; its CUDA side is KeyedMutexLink. Teardown (detach): CUDA's work
// is done first (the stream), Direct3D gives the mutexes back, then the surface/texture objects, mapped
// buffers and arrays, the imported memory and the semaphores go; the renderer releases the Direct3D
// resources after this. Needs the D3D11 device on the CUDA device's adapter (checked in attach) and
// Windows 10's NT-handle sharing.
#include "app/d3d/d3d_handoff.hpp"
#include "app/d3d11/cuda_modes.hpp"
#include "app/modes/external_mode.hpp"
#include "app/scene/cuda_views.hpp"
#include "interop/error.hpp"
#include "interop/external.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::d3d11 {
namespace {

// How long Direct3D waits for CUDA to release a key: far longer than any frame's kernels, short enough
// that a CUDA side that never releases is reported rather than hanging the app.
constexpr DWORD kAcquireTimeoutMs = 10000;

// One resource as both sides hold it. Declared in the order made; destroyed the other way round, so the
// CUDA objects go before the Direct3D reference.
struct SharedResource {
  std::string label;
  ComPtr<IDXGIKeyedMutex> mutex;
  bool direct3d_holds = false;  // Direct3D acquired the mutex and has not released it
  ImportedResource imported;
  interop::ExternalSemaphore keyed_mutex;  // CUDA's import of `mutex`
};

// The CUDA side of the mode (app/modes/external_mode.hpp's Link): every resource imported with its keyed
// mutex.
class KeyedMutexLink {
 public:
  KeyedMutexLink(Renderer& renderer, const CudaContext& cuda) : m_stream(cuda.stream) {
    throw_if_unavailable(ModeId::External, d3d::cuda_mode_availability<Renderer>(ModeId::External, cuda, "",
                                                                                 &renderer.device()));
    const std::vector<Resource>& resources = renderer.resources();
    m_shared.resize(resources.size());
    m_views.resize(resources.size());
    for (size_t i = 0; i < resources.size(); ++i)
      import(renderer, static_cast<int>(i), m_shared[i], m_views[i]);
    run(KeyedMutexPhase::Attach);
  }

  ~KeyedMutexLink() {
    // CUDA may still wait on, compute in or release the resources: all of that is done first.
    INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_stream));
    try {
      run(KeyedMutexPhase::Detach);  // the mutexes as they were created, for the next attach
    } catch (const std::exception& error) {
      std::fprintf(stderr, "interop-lab: the d3d11 external mode's teardown: %s\n", error.what());
    }
  }
  KeyedMutexLink(const KeyedMutexLink&) = delete;
  KeyedMutexLink& operator=(const KeyedMutexLink&) = delete;

  void acquire(Renderer&) { run(KeyedMutexPhase::BeforeKernels); }
  void release(Renderer&) { run(KeyedMutexPhase::AfterKernels); }
  const std::vector<CudaResourceView>& views() const { return m_views; }

 private:
  static void import(const Renderer& renderer, int index, SharedResource& shared, CudaResourceView& view) {
    const Resource& resource = renderer.resources()[static_cast<size_t>(index)];
    shared.label = resource.desc.label;
    LAB_D3D_CHECK(resource.get()->QueryInterface(IID_PPV_ARGS(&shared.mutex)));
    // One NT handle serves both imports. CUDA does not take it over: it is closed when `handle` goes, once
    // both imports are done, as the CUDA Runtime API reference asks of NT handles.
    const d3d::SharedHandle handle = renderer.export_handle(index);
    // Direct3D 11 tells no allocation size; the import is dedicated (the driver knows the resource's
    // allocation) and the size is the data's, which is what CUDA maps.
    shared.imported.memory = interop::ExternalMemory(shared_resource_import(
        interop::ExternalHandleType::D3D11Resource, handle.get(), resource.desc.bytes));
    map_imported(shared.imported, resource.desc, view);
    interop::ExternalSemaphoreDesc mutex;
    mutex.type = interop::ExternalHandleType::D3D11KeyedMutex;
    mutex.win32_handle = handle.get();
    shared.keyed_mutex = interop::ExternalSemaphore(mutex);
  }

  // Takes the steps of `phase`, each on every resource. CUDA's are queued on the stream; Direct3D's
  // acquire waits on the CPU until CUDA has released the key.
  void run(KeyedMutexPhase phase) {
    for (const KeyedMutexStep& step : keyed_mutex_steps(phase)) {
      for (SharedResource& shared : m_shared) {
        if (step.side == MutexSide::Cuda) {
          if (step.op == MutexOp::Acquire) {
            shared.keyed_mutex.wait(m_stream, step.key);
          } else {
            shared.keyed_mutex.signal(m_stream, step.key);
          }
        } else if (step.op == MutexOp::Acquire) {
          acquire(shared, step.key);
        } else if (shared.direct3d_holds) {
          LAB_D3D_CHECK(shared.mutex->ReleaseSync(step.key));
          shared.direct3d_holds = false;
        }
      }
    }
  }

  static void acquire(SharedResource& shared, uint64_t key) {
    const HRESULT result = shared.mutex->AcquireSync(key, kAcquireTimeoutMs);
    // WAIT_TIMEOUT and WAIT_ABANDONED are success codes: only S_OK means the mutex is ours.
    if (result != S_OK)
      throw std::runtime_error(
          "IDXGIKeyedMutex::AcquireSync(" + std::to_string(key) + ") of the " + shared.label + ": HRESULT " +
          d3d::hresult_text(result) +
          (result == static_cast<HRESULT>(WAIT_TIMEOUT)
               ? " (CUDA did not release the key within " + std::to_string(kAcquireTimeoutMs / 1000) + " s)"
               : std::string()));
    shared.direct3d_holds = true;
  }

  cudaStream_t m_stream;
  std::vector<SharedResource> m_shared;
  std::vector<CudaResourceView> m_views;
};

}  // namespace

std::unique_ptr<Mode> create_external_mode(const CudaContext& cuda) {
  return std::make_unique<ExternalMode<Renderer, KeyedMutexLink>>(cuda);
}

}  // namespace lab::d3d11
