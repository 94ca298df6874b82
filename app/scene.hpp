// app/scene.hpp — a scene says WHAT is computed; a mode (app/mode.hpp) says HOW the result reaches GL.
//
// A scene owns the GL objects it draws and lists those that CUDA (or the CPU reference) writes or
// reads each frame as ResourceSpecs. A mode makes each one available to the scene's kernels as a
// CudaResourceView (mapped pointer, surface or texture object, or linear device memory) or a
// HostResourceView, and the scene runs its kernels on them. Scenes know no registration; modes know
// no kernels. Both attach and detach while the app runs.
#pragma once

#include "app/platform.hpp"
#include "app/vocabulary.hpp"
#include "kernels/postprocess.hpp"

#include <cuda_runtime_api.h>
#include <glad/gl.h>

#include <memory>
#include <vector>

namespace lab {

struct FrameInfo {
  long long index = 0;
  float time = 0.0f;  // seconds of animation: index / 60 when --frames is given, else wall time
  Extent extent;
};

enum class ResourceKind { Buffer, Texture2D };
// Seen from the kernels: an Output is written every frame in full, an Input only read.
enum class ResourceRole { Output, Input };

struct ResourceSpec {
  const char* label = "";          // "vertex buffer", "rendered scene": for the panel and messages
  ResourceKind kind = ResourceKind::Buffer;
  ResourceRole role = ResourceRole::Output;
  GLuint gl_name = 0;
  size_t bytes = 0;                // buffers: size; textures: width * height * 4
  int width = 0, height = 0;       // textures
  GLenum internal_format = GL_RGBA8;
};

// Bytes between rows when a texture sits in linear memory (tightly packed RGBA8); 0 for buffers.
inline size_t linear_pitch(const ResourceSpec& spec) {
  return spec.kind == ResourceKind::Texture2D ? static_cast<size_t>(spec.width) * 4 : 0;
}

// One resource as a CUDA kernel gets it this frame. Which fields are set depends on the mode:
// buffers always come as `pointer`; textures as `surface` (Output) / `texture` (Input) when the GL
// texture itself is mapped, or as linear memory (`pointer` + `pitch`) when the mode copies.
struct CudaResourceView {
  void* pointer = nullptr;
  size_t bytes = 0;
  size_t pitch = 0;
  cudaSurfaceObject_t surface = 0;
  cudaTextureObject_t texture = 0;
};

// Whether any of `specs` plays `role` (e.g. whether a mode has inputs to bring to the kernels).
inline bool has_role(const std::vector<ResourceSpec>& specs, ResourceRole role) {
  for (const ResourceSpec& spec : specs)
    if (spec.role == role) return true;
  return false;
}

// `spec` as the kernels see it when it lives in linear device memory at `pointer` (a mode's copy).
inline CudaResourceView linear_view(void* pointer, const ResourceSpec& spec) {
  CudaResourceView view;
  view.pointer = pointer;
  view.bytes = spec.bytes;
  view.pitch = linear_pitch(spec);
  return view;
}

// One resource in host memory, for the CPU reference.
struct HostResourceView {
  void* pointer = nullptr;
  size_t bytes = 0;
  size_t pitch = 0;
};

class Scene {
 public:
  virtual ~Scene() = default;
  virtual SceneId id() const = 0;

  // Creates the GL objects for `extent`.
  virtual void on_attach(Extent extent) = 0;
  virtual void on_detach() = 0;
  // True when a new extent re-creates resources(): the mode must then release its registrations first.
  virtual bool resize_recreates_resources() const = 0;
  virtual void on_resize(Extent extent) = 0;

  virtual const std::vector<ResourceSpec>& resources() const = 0;
  // Runs the CUDA kernels on views[i] for resources()[i], all on `stream`.
  virtual void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                            cudaStream_t stream) = 0;
  // Runs the CPU reference of the same kernels.
  virtual void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) = 0;

  // GL work whose result the kernels consume, run before the mode produces the frame (the
  // postprocess scene renders its 3D scene into the texture CUDA reads). Most scenes have none.
  virtual void prepare(const FrameInfo&) {}
  virtual bool has_prepare() const { return false; }
  // The texture that holds the whole frame when the scene's result is an image the size of the
  // framebuffer (pattern, postprocess), else 0. The app shows it as it is: headless, that texture IS the
  // frame (screenshots read it; nothing is drawn); in a window, one full-screen pass copies it to the
  // back buffer. A full-screen pass costs as much as the kernel and the hand-off together at 4K on some
  // GPUs, so no scene may add a clear or draw that the frame does not need.
  virtual GLuint frame_image() const { return 0; }
  // Draws the frame into the bound framebuffer (viewport already set to frame.extent); only called for
  // scenes without a frame_image().
  virtual void render(const FrameInfo&) {}
  // The scene's own controls in the panel (ImGui calls), e.g. the post-process filter.
  virtual void on_ui() {}
};

// `filter` is the postprocess scene's (the others ignore it).
std::unique_ptr<Scene> create_scene(SceneId id, kernels::Filter filter);

}  // namespace lab
