// app/vulkan/renderer.hpp — the Vulkan backend's drawing: the resources a scene's kernels use (created
// from ResourceDesc, exportable for CUDA when the mode asks, or moved into memory CUDA exported), an
// offscreen frame target (RGBA8 colour + depth), the three scene draws of app/scene/scene_compute.hpp,
// host <-> resource copies for the copying modes, and passes submitted with the semaphores a mode hands in
// (CUDA's external semaphores wait on and signal the same ones).
//
// Conventions every backend keeps, so all APIs give the same picture and the same screenshot:
//   - rows: row 0 of every image is the BOTTOM of the picture, as in GL (the frame target is drawn
//     with a positive-height viewport and GL clip-space matrices, so memory rows match GL's; meshes
//     counter-clockwise in GL are VK_FRONT_FACE_CLOCKWISE here; the vertex shaders remap GL's -w..w
//     depth to Vulkan's 0..w). read_frame() flips, so its Image is top row first like App::read_frame.
//   - a scene whose DrawPlan is ShowImage has no draw headless: that image is the frame (read_frame
//     reads it), as in GL.
//   - images shared with CUDA (exportable) stay in VK_IMAGE_LAYOUT_GENERAL between passes, and each pass
//     that touches them acquires them from VK_QUEUE_FAMILY_EXTERNAL and releases them to it at the end,
//     so CUDA's accesses between passes are ordered by the semaphores alone.
//
// Needs the Vulkan loader and a Vulkan 1.2 device (lavapipe in CI); SPIR-V compiled from
// assets/shaders/vulkan/*.{vert,frag} at build time (glslc).
#pragma once

#include "app/image/frame_pool.hpp"
#include "app/image/frame_read.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/timing/timing.hpp"
#include "app/vulkan/device.hpp"
#include "app/vulkan/export_memory.hpp"
#include "app/vulkan/host_frames.hpp"
#include "app/vulkan/pass_sync.hpp"
#include "interop/vmm.hpp"

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lab::vulkan {

// One resource of the scene, as the renderer created it: its object and memory (ResourceMemory, as
// app/vulkan/export_memory.hpp's exports have them), and how it is shared.
struct Resource : ResourceMemory {
  bool exportable = false;
  bool dedicated =
      false;  // VkMemoryDedicatedAllocateInfo: an importer must say so (cudaExternalMemoryDedicated)
  // In memory another owner exported (Renderer::import_memory): a buffer is bound to it; an image keeps
  // memory of its own, and `linear` (bound to the imported memory) holds its texels.
  bool imported = false;
  VkBuffer linear = VK_NULL_HANDLE;
  // The buffer mode (Renderer::place_linear_images): an image whose texels live in `linear`, a storage
  // buffer of its own; the frame pass draws an Output image from it, the cubes pass copies its target into
  // it. Its memory is exported to CUDA (linear_exportable: linear_memory, linear_allocation_size) or
  // host-visible, mapped at linear_mapped for the CPU reference.
  bool shown_from_linear = false;
  bool linear_exportable = false;
  VkDeviceMemory linear_memory = VK_NULL_HANDLE;
  VkDeviceSize linear_allocation_size = 0;
  void* linear_mapped = nullptr;
};

class Renderer {
 public:
  using PassSync = vulkan::PassSync;  // what app/modes/mode.hpp's Mode hands the passes

  // Offscreen frame target of `extent` on `context`'s device (the context outlives the renderer).
  Renderer(Context& context, Extent extent);
  ~Renderer();  // waits for the device to be idle, then destroys everything it created
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  Context& context() { return m_context; }
  Extent extent() const;
  // Re-creates the frame target (waits idle first). Resources are the caller's to re-create.
  void resize(Extent extent);

  // The scene's resources, in the order of FrameSource::resources(); replaces the previous set (waits
  // idle first). exportable: memory exported as an opaque FD with a dedicated allocation (images) —
  // what CUDA imports in the external mode. Usage covers what the draws, copies and CUDA need.
  void create_resources(const std::vector<ResourceDesc>& descs, bool exportable);
  void destroy_resources();
  const std::vector<Resource>& resources() const;
  // A new FD for resources()[index]'s memory; the importer owns it once its import succeeds.
  int export_fd(int index) const;
  // The exported mode: resources()[index] (created with exportable = false) moves into memory that CUDA
  // allocated and exported as an opaque FD, `size` bytes (the allocation's size, a multiple of CUDA's
  // granularity). A buffer is re-created bound to it (VkExternalMemoryBufferCreateInfo +
  // VkImportMemoryFdInfoKHR). An image keeps its VkImage (CUDA's linear memory cannot be an optimal-tiled
  // image) and gets a buffer in that memory holding its texels, tightly packed, row 0 first, as the
  // kernels' linear views write them: draw_frame copies an Output image's buffer into the image at the
  // start of its pass, draw_cubes copies its target image into the buffer at the end of its pass. Like an
  // exportable resource, the memory is acquired from VK_QUEUE_FAMILY_EXTERNAL by each pass that touches
  // it and released back. A successful import takes the FD over; a failed one leaves it to `fd`, which
  // closes it. Waits idle first.
  void import_memory(int index, interop::FileDescriptor fd, VkDeviceSize size);

  // The buffer mode: each Texture2D resource gets a storage buffer (Resource::linear) holding its texels,
  // tightly packed, row 0 first, as the kernels' linear views write them. draw_frame fills an Output image
  // from it with a full-screen draw whose fragment shader reads the buffer (assets/shaders/vulkan/
  // buffer_image.frag), so read_frame and show find the picture where they always do; draw_cubes copies
  // its target into it at the end of its pass. `exportable`: device-local memory exported as an opaque
  // FD (export_linear_fd), acquired from and released to VK_QUEUE_FAMILY_EXTERNAL by each pass like an
  // exportable resource; else host-visible coherent memory mapped at Resource::linear_mapped, which the
  // host may touch only while no pass runs (wait_idle). An image created exportable is re-created plain
  // while placed (contents undefined, as create_resources leaves them): CUDA reaches its texels through the
  // buffer only, so no pass hands the image itself to and from VK_QUEUE_FAMILY_EXTERNAL. The show pass has
  // a render pass of its own: the image alone, nothing loaded or cleared, no depth attachment. Waits idle
  // first; remove_linear_images undoes it (an image re-created plain is re-created exportable).
  void place_linear_images(bool exportable);
  void remove_linear_images();
  // A new FD for resources()[index]'s linear buffer memory (placed exportable); the importer owns it.
  int export_linear_fd(int index) const;

  // The copying modes (cpu, staging): `data` (desc.bytes, rows tightly packed, row 0 first) is copied
  // into a host-visible staging buffer now and into the resource at the start of the next pass.
  void upload(int index, const void* data);
  // Copies resources()[index] into `data` (desc.bytes) and waits for it: call after the pass that wrote it.
  void download(int index, void* data);

  // The postprocess scene's 3D input: the cubes of `view` into image resources()[target], cleared first.
  // One submission.
  void draw_cubes(int target, const CubesView& view, const PassSync& sync);
  // The frame: plan.draw == LitMesh draws the wave mesh from resources()[plan.mesh_resource] with
  // `view_projection` into the frame target (cleared to kClearColor); ShowImage has nothing to draw
  // headless (the pass still runs: pending uploads, the sync, ownership transfers). One submission.
  void draw_frame(const DrawPlan& plan, const glm::mat4& view_projection, const PassSync& sync);

  // The frame drawn last, top row first: the frame target, or for a ShowImage plan its image. Waits
  // for the device. Throws std::logic_error with missing_frame(plan) when there is none.
  Image read_frame(const DrawPlan& plan);
  // The same without waiting for it (the desk's read-back, app/serve/desk.hpp's LateReader):
  // begin_read_frame submits the copy of what read_frame would return now into a host-visible buffer of its
  // own, tagged `frame`; reads_under_way says how many are (up to kFrameReadSlots, so a read begins while
  // the one before is still on the GPU; can_begin_read while fewer are), read_frame_done whether the
  // oldest one's submission is done (the timeline's counter, without waiting); end_read_frame waits for the
  // oldest and returns it, top row first; nullopt when none was begun. A begin while every slot is under
  // way throws std::logic_error.
  // Where the device imports host memory (VK_EXT_external_memory_host), the copy goes straight into a pooled
  // frame (app/vulkan/host_frames.hpp) and the collected frame's `way` is kReadIntoFrame; elsewhere it goes
  // into the slot's buffer and end_read_frame copies the rows into a frame (way "").
  static constexpr size_t kFrameReadSlots = 2;
  static constexpr const char* kReadIntoFrame = "into frame";
  void begin_read_frame(const DrawPlan& plan, long long frame);
  int reads_under_way() const;
  bool can_begin_read() const;
  // Keeps the GPU at most `frames` frames behind the caller: waits for the last pass submitted `frames`
  // calls ago (app/serve/desk.hpp's LateReader calls it once a frame).
  void limit_frames_ahead(int frames);
  bool read_frame_done();
  std::optional<FrameRead> end_read_frame();
  // What read_frame and show lack for `plan`, "" when nothing: a LitMesh frame drawn at this extent, a
  // ShowImage plan's texture resource.
  std::string missing_frame(const DrawPlan& plan) const;
  // In a window (app/vulkan/presenter.hpp): one pass that blits what read_frame(plan) would return, right
  // way up and scaled to `extent` (nearest), into `target` (a swapchain image; what it held is discarded)
  // and leaves it in VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, then records `then` into the same command
  // buffer (the presenter's overlay, which leaves the image ready to present). Sync as for the draws.
  void show(const DrawPlan& plan, VkImage target, Extent extent,
            const std::function<void(VkCommandBuffer)>& then, const PassSync& sync);
  void wait_idle();

  // The GPU time of the passes submitted while a query is open (draw_cubes, draw_frame, show, and the
  // copies of download), from timestamps written at each pass's start and end: FrameTimers'
  // graphics clock on Vulkan (Clock::Vulkan). nullptr where the queue writes no timestamps
  // (timestampValidBits 0); timestamp_reason() then says so. The queries must go before the renderer.
  std::unique_ptr<GpuTimerQueries> timer_queries();
  const std::string& timestamp_reason() const;

 private:
  class TimerQueries;
  struct State;
  Context& m_context;
  std::unique_ptr<State> m_state;
  // Where the device imports host memory, the pool's frames are imported once each, and a read copies
  // straight into one (way kReadIntoFrame); else into a slot's buffer, then the rows into a pooled frame.
  std::shared_ptr<HostFrameImports> m_host_frames;
  FramePool m_frame_pool;  // end_read_frame's frames, used again once the desk lets them go
};

}  // namespace lab::vulkan
