// app/gl/mode.hpp — an interop mode: how the results of a scene's kernels reach its GL objects.
// Each mode owns everything it allocates or registers for a scene, from on_attach to on_detach, so
// switching modes live is detach + attach and leaves nothing behind.
//
//   interop     register once; every frame map -> kernels on the mapped memory -> unmap
//   reregister  register + map -> kernels -> unmap + unregister, every frame (the anti-pattern)
//   pbo         kernels write a mapped GL buffer; GL copies it into the texture / vertex buffer
//   split       kernels write memory of the compute device; copied into the GL objects mapped on the GL
//               device, device to device (cudaMemcpyPeerAsync) or through pinned host memory
//   staging     kernels write cudaMalloc memory; copied to pinned host memory; GL uploads from there
//   cpu         the CPU reference writes host memory; GL uploads from there (no CUDA at all)
//   external    Vulkan allocates the scene's resources and semaphores; GL and CUDA both import them; each
//               frame GL signals -> CUDA waits, computes, signals -> GL waits (no register, no map/unmap)
#pragma once

#include "app/core/mode.hpp"  // CudaContext
#include "app/gl/scene.hpp"
#include "app/gl/timing.hpp"
#include "interop/access.hpp"
#include "interop/device.hpp"
#include "interop/external.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lab {

// Whether `mode` can run on GL: cpu always; staging needs a CUDA device (cuda_device >= 0); interop,
// reregister, pbo and split need CUDA-GL interop (`interop`, from interop::probe_gl_interop); external
// needs GL's import of memory and semaphores on the CUDA device (`external`, from probe_gl_external;
// unprobed: unavailable, saying so). `cuda_error` says why there is no CUDA device. App::availability and
// --doctor both judge by this one rule.
ModeAvailability mode_availability(ModeId mode, int cuda_device, const interop::InteropSupport& interop,
                                   const std::string& cuda_error,
                                   const interop::InteropSupport& external = {});

// Register and map flags for every resource a mode registers. Unset: the best for each resource's role
// (write-discard for what CUDA writes, read-only for what it reads).
struct AccessSettings {
  std::optional<interop::Access> register_access;
  std::optional<interop::Access> map_access;
};

interop::Access best_access(ResourceRole role);
// The access a resource gets under `choice` (its best when unset).
interop::Access resolve_access(std::optional<interop::Access> choice, ResourceRole role);
// "" when `access` suits every resource, else why not, naming the resource and what would work:
// read-only cannot apply to what CUDA writes, write-discard not to what it reads.
std::string check_access(const std::vector<ResourceSpec>& resources, std::optional<interop::Access> access);

// What the panel shows for one registered resource.
struct RegisteredFlags {
  std::string label;
  ResourceRole role = ResourceRole::Output;
  interop::Access register_access = interop::Access::ReadWrite;
  interop::Access map_access = interop::Access::ReadWrite;
};

namespace gl {

// GL's mode interface, until GL draws through a renderer as the other APIs do (app/core/mode.hpp).
class Mode {
 public:
  virtual ~Mode() = default;
  virtual ModeId id() const = 0;

  // Registers / allocates what scene.resources() needs. The scene stays attached until on_detach.
  // A failure halfway releases what was done and rethrows.
  virtual void on_attach(Scene& scene) = 0;
  // Releases all of it. Must run before the scene deletes or re-creates its GL objects.
  virtual void on_detach() = 0;
  // Makes the scene's GL objects hold `frame`, recording each phase in `timers`.
  virtual void produce(Scene& scene, const FrameInfo& frame, FrameTimers& timers) = 0;

  // Modes that register GL objects with CUDA (interop, reregister, pbo) take flags; the settings were
  // checked with check_access against the attached scene. Register flags re-register.
  virtual void apply_access(const AccessSettings&) {}
  virtual std::vector<RegisteredFlags> registered_flags() const { return {}; }
  // How results travel between devices, for the panel (the split mode); "" for the others.
  virtual std::string transfer() const { return ""; }
};

}  // namespace gl

// The way the split mode takes from `compute_device` to `gl_device` when `requested` is asked for.
struct SplitPath {
  bool peer = false;        // cudaMemcpyPeerAsync / cudaMemcpy3DPeerAsync between the devices
  std::string description;  // "device 1 -> device 0 by cudaMemcpyPeerAsync (peer access)", with the why
};
// Peer when asked and the devices can reach each other (or are one device); host memory otherwise.
SplitPath choose_split_path(int compute_device, int gl_device, SplitCopy requested);

std::unique_ptr<gl::Mode> create_mode(ModeId id, const CudaContext& cuda, const AccessSettings& access);

// The GL side of the copying modes, shared with the benchmark's reference loops (bench.cpp), which
// must do the same GL work with none of the modes' code around it. Host memory <-> a spec's GL object
// (cpu, staging; mode_cpu.cpp), and a GL buffer of spec.bytes <-> it (pbo; mode_pbo.cpp).
void upload_to_gl(const ResourceSpec& spec, const void* data);
void download_from_gl(const ResourceSpec& spec, void* data);
void copy_gl_object_to_buffer(const ResourceSpec& spec, GLuint buffer);
void copy_buffer_to_gl_object(const ResourceSpec& spec, GLuint buffer);

}  // namespace lab
