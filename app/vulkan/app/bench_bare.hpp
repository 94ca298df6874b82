// app/vulkan/app/bench_bare.hpp — the Vulkan benchmark's bare loops: the external, the exported and the
// buffer mode's frame written as a hand-written sample would write it, with raw CUDA calls (runtime; the
// driver's cuMem* for the exported one) and nothing of the app around them, so the benchmark can say what the
// app's own layers cost (its "x bare" column).
#pragma once

#include "app/cli/cli.hpp"
#include "app/image/image_io.hpp"
#include "app/scene/scene_compute.hpp"

#include <vector>

namespace lab::vulkan {

// Which mode's frame a bare loop writes.
enum class BareLoop {
  External,  // Vulkan's exportable memory imported into CUDA (images as mipmapped arrays)
  Exported,  // CUDA's cuMemCreate memory exported to Vulkan
  Buffer,    // the images in storage buffers Vulkan exports and CUDA writes through plain pointers
};

// One headless Vulkan device (CUDA device options.device's GPU) and renderer at `extent`, the scene's
// resources created exportable and imported into CUDA with cudaImportExternalMemory (`loop` External), or
// (`loop` Exported) allocated by CUDA with cuMemCreate, mapped, exported as POSIX FDs and imported by the
// renderer (Renderer::import_memory, whose frame pass copies images out of their buffers), or (`loop`
// Buffer) created exportable with every image in a storage buffer of its own (Renderer::place_linear_images,
// whose frame pass draws the image from it), each image's buffer imported into CUDA as a plain pointer and
// the other resources as External's; one timeline semaphore imported with cudaImportExternalSemaphore. Each
// frame: [cubes pass signals] -> cudaWaitExternalSemaphoresAsync -> the scene's kernels ->
// cudaSignalExternalSemaphoresAsync -> the frame pass waits; then the queue idle and the stream synchronised,
// as every case of the benchmark. Returns each measured frame's wall time (lab::time_frames); throws with the
// reason where it cannot run (no CUDA device, a Vulkan driver without the external extensions). `last`, when
// given, receives the frame drawn last and its index (the warm-up's length varies): the tests hold it against
// the cpu frame.
struct BareFrame {
  long long index = -1;
  Image image;  // top row first, as App::read_frame
};
std::vector<double> time_bare_loop(const Options& options, SceneId scene, Extent extent,
                                   BareFrame* last = nullptr, BareLoop loop = BareLoop::External);

// The external modes' hand-off alone, the reference's share that is neither kernels nor graphics (as GL's
// map + unmap alone): one exported timeline semaphore imported into CUDA; each frame a Vulkan submission
// with no commands signals it, CUDA waits on that value and signals the next, a second empty submission
// waits on it; then the queue idle and the stream synchronised. Raw calls, as the bare loop. Throws where it
// cannot run (no CUDA device, a Vulkan driver without semaphore export).
std::vector<double> time_handoff(const Options& options);

}  // namespace lab::vulkan
