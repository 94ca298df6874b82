// app/vulkan/mode_buffer.cpp — the Vulkan `buffer` mode: the scene's images live in linear memory, as in
// GL's buffer mode (app/gl/mode_buffer.cpp). Attached, it asks the renderer to give every image a storage
// buffer of its own (Renderer::place_linear_images); the kernels write that buffer through a plain
// pointer (rows tightly packed, as any array library views memory), and the frame pass draws the image
// from it with a fragment shader that reads the storage buffer (assets/shaders/vulkan/buffer_image.frag).
// What the kernels read (the postprocess scene's cubes) Vulkan renders into its image and copies into the
// buffer at the end of the cubes pass, as a rasteriser draws into images only.
//
// Two forms:
//   CUDA  (a CUDA device): the buffers' memory is exported and imported into CUDA once as external memory
//         (cudaExternalMemoryGetMappedBuffer: a device pointer; CudaLink), and each frame is ordered by
//         the external mode's semaphores (app/vulkan/semaphore_mode.hpp); no map/unmap, no host wait.
//   cpu   (no CUDA device): the buffers are host-visible and the CPU reference writes them through their
//         mapping after the renderer's passes are done; what lets CI check the show pass on lavapipe.
#include "app/os/out_of_memory.hpp"
#include "app/vulkan/cuda_link.hpp"
#include "app/vulkan/modes.hpp"
#include "app/vulkan/semaphore_mode.hpp"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace lab::vulkan {

namespace {

// The renderer's images in linear buffers from construction to destruction.
class LinearPlacement {
 public:
  LinearPlacement(Renderer& renderer, bool exportable) : m_renderer(renderer) {
    renderer.place_linear_images(exportable);
  }
  ~LinearPlacement() {
    try {
      m_renderer.remove_linear_images();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "interop-lab: buffer mode teardown: %s\n", error.what());
    }
  }
  LinearPlacement(const LinearPlacement&) = delete;
  LinearPlacement& operator=(const LinearPlacement&) = delete;

 private:
  Renderer& m_renderer;
};

// The CUDA form's link, as SemaphoreOrderedMode makes its links: the placement first, so that CudaLink
// imports the linear buffers, and it goes last, after CUDA's imports (CudaLink waits for both sides).
class BufferLink {
 public:
  BufferLink(Renderer& renderer, const CudaContext&, interop::SemaphoreKind kind)
      : m_placement(renderer, /*exportable=*/true), m_link(renderer, kind) {}

  const std::vector<CudaResourceView>& views() const { return m_link.views(); }
  PassSync cubes_pass() { return m_link.cubes_pass(); }
  void cuda_acquire(cudaStream_t stream) { m_link.cuda_acquire(stream); }
  void cuda_release(cudaStream_t stream) { m_link.cuda_release(stream); }
  PassSync frame_pass(bool prepared) { return m_link.frame_pass(prepared); }

 private:
  LinearPlacement m_placement;
  CudaLink m_link;
};

// The cpu form: images through the mapped linear buffers, buffers (the wave's mesh) uploaded as the cpu
// mode does. The reference runs once the renderer is idle: the last frame's show pass has read the
// buffers, and this frame's cubes pass has written its input.
class BufferCpuMode final : public Mode {
 public:
  ~BufferCpuMode() override { detach(); }

  ModeId id() const override { return ModeId::Buffer; }

  void attach(Renderer& renderer) override {
    detach();
    m_placement = std::make_unique<LinearPlacement>(renderer, /*exportable=*/false);
    const std::vector<Resource>& resources = renderer.resources();
    m_storage.resize(resources.size());
    for (size_t i = 0; i < resources.size(); ++i) {
      const Resource& resource = resources[i];
      const ResourceDesc& desc = resource.desc;
      if (resource.shown_from_linear) {
        m_views.push_back({resource.linear_mapped, desc.bytes, linear_pitch(desc)});
        continue;
      }
      try {
        m_storage[i].resize(desc.bytes);
      } catch (const std::bad_alloc&) {
        detach();
        throw_out_of_memory(std::string("the buffer mode's copy of the ") + desc.label, desc.bytes);
      }
      m_views.push_back({m_storage[i].data(), desc.bytes, linear_pitch(desc)});
      m_uploaded.push_back(static_cast<int>(i));
    }
  }

  void detach() override {
    m_uploaded.clear();
    m_views.clear();
    m_storage.clear();
    m_placement.reset();
  }

  void produce(Renderer& renderer, FrameSource& scene, const FrameInfo& frame, FrameTimers& timers) override {
    {
      const CpuPhase phase(timers, Phase::Wait);
      renderer.wait_idle();
    }
    {
      const CpuPhase phase(timers, Phase::Kernel);
      scene.compute_cpu(frame, m_views);
    }
    for (const int index : m_uploaded) renderer.upload(index, m_storage[static_cast<size_t>(index)].data());
  }

  std::string transfer() const override {
    return "no CUDA device: the CPU reference writes the images into host-visible storage buffers, which "
           "the frame pass shows";
  }

 private:
  std::unique_ptr<LinearPlacement> m_placement;
  std::vector<std::vector<uint8_t>> m_storage;  // the resources that are not linear images
  std::vector<HostResourceView> m_views;
  std::vector<int> m_uploaded;  // the indices of m_storage's resources
};

}  // namespace

std::unique_ptr<Mode> create_buffer_mode(const CudaContext& cuda, interop::SemaphoreKind kind) {
  if (cuda.device < 0) return std::make_unique<BufferCpuMode>();
  return std::make_unique<SemaphoreOrderedMode<BufferLink>>(ModeId::Buffer, cuda, kind);
}

}  // namespace lab::vulkan
