// app/gl/mode.hpp — GL's interop modes: how the results of a scene's kernels reach the GL renderer's
// resources (app/gl/renderer.hpp), as lab::Mode<gl::Renderer> (app/modes/mode.hpp). Each mode owns
// everything it allocates or registers for them, from attach to detach, so switching modes live is
// detach + attach and leaves nothing behind. cpu and staging are app/core's templates over GL's renderer.
//
//   interop     register once; every frame map -> kernels on the mapped memory -> unmap
//   reregister  register + map -> kernels -> unmap + unregister, every frame (the anti-pattern)
//   pbo         kernels write a mapped GL buffer; GL copies it into the texture / vertex buffer
//   split       kernels write memory of the compute device; copied into the GL objects mapped on the GL
//               device, device to device (cudaMemcpyPeerAsync) or through pinned host memory
//   staging     kernels write cudaMalloc memory; copied to pinned host memory; GL uploads from there
//   cpu         the CPU reference writes host memory; GL uploads from there (no CUDA at all)
//   eglstream   kernels write a pitched frame; CUDA presents it into an EGLStream, GL acquires it as an
//               external texture and draws it into the scene's texture (mode_eglstream.cpp)
//   external    Vulkan allocates the scene's resources and semaphores; GL and CUDA both import them; each
//               frame GL signals -> CUDA waits, computes, signals -> GL waits (no register, no map/unmap)
#pragma once

#include "app/gl/renderer.hpp"
#include "app/gl/timing.hpp"
#include "app/modes/access.hpp"
#include "app/modes/mode.hpp"
#include "interop/access.hpp"
#include "interop/device.hpp"
#include "interop/external.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lab::gl {

// Whether `mode` can run on GL: cpu always; staging needs a CUDA device (cuda_device >= 0); interop,
// reregister, pbo and split need CUDA-GL interop (`interop`, from interop::probe_gl_interop); external
// needs GL's import of memory and semaphores on the CUDA device (`external`, from probe_gl_external;
// unprobed: unavailable, saying so). `cuda_error` says why there is no CUDA device. App::availability and
// --doctor both judge by this one rule.
ModeAvailability mode_availability(ModeId mode, int cuda_device, const interop::InteropSupport& interop,
                                   const std::string& cuda_error,
                                   const interop::InteropSupport& external = {});

// GL's modes are the one mode interface of every API (app/modes/mode.hpp) over GL's renderer.
using Mode = lab::Mode<Renderer>;

// The way the split mode takes from `compute_device` to `gl_device` when `requested` is asked for.
struct SplitPath {
  bool peer = false;        // cudaMemcpyPeerAsync / cudaMemcpy3DPeerAsync between the devices
  std::string description;  // "device 1 -> device 0 by cudaMemcpyPeerAsync (peer access)", with the why
};
// Peer when asked and the devices can reach each other (or are one device); host memory otherwise.
SplitPath choose_split_path(int compute_device, int gl_device, SplitCopy requested);

// The eglstream mode (mode_eglstream.cpp; EGL: Linux only): whether the current GL context can consume an
// EGLStream (an EGL context whose display has EGL_KHR_stream, _fifo and _consumer_gltexture; the reason
// names what is missing; GL's samplerExternalOES is the shader compiler's to judge, at attach), and whether
// a scene of `resources` can travel in one (CUDA's output images only).
ModeAvailability eglstream_support();
ModeAvailability eglstream_scene_availability(const std::vector<ResourceDesc>& resources);
// What the scene of `resources` decides of `mode` once mode_availability has allowed it: eglstream carries
// CUDA's output images only, and GL's exported mode refuses a scene whose input GL renders (postprocess).
ModeAvailability scene_mode_availability(ModeId mode, const std::vector<ResourceDesc>& resources);

// GL's mode table (mode.cpp's kGlModes): each ModeId's mode, with the register and map flags of the modes
// that register.
std::unique_ptr<gl::Mode> create_mode(ModeId id, const CudaContext& cuda, const AccessSettings& access);
// The modes of that table, in its order (test_doctor holds it to modes_of(GraphicsApi::Gl)).
const std::vector<ModeId>& gl_mode_table_order();

}  // namespace lab::gl
