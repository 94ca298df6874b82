// app/gl/scene.hpp — the GL half of a scene: the GL objects its SceneCompute's resources live in, and the
// GL draws around the kernels. WHAT is computed, and on which resources, is the SceneCompute's
// (app/scene/scene_compute.hpp, no GL); a mode (app/gl/mode.hpp) says HOW the results reach the GL objects.
//
// A scene lists the GL objects that CUDA (or the CPU reference) writes or reads each frame as
// ResourceSpecs: the SceneCompute's ResourceDesc with the GL object's name. A mode makes each one
// available to the kernels as a CudaResourceView (mapped pointer, surface or texture object, or linear
// device memory) or a HostResourceView, and the scene forwards the views to its SceneCompute. Scenes
// know no registration; modes know no kernels. Both attach and detach while the app runs.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/gl/platform.hpp"
#include "app/scene/scene_compute.hpp"
#include "kernels/postprocess.hpp"

#include <cuda_runtime_api.h>
#include <glad/gl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lab {

// A ResourceDesc as GL holds it.
struct ResourceSpec : ResourceDesc {
  GLuint gl_name = 0;
  GLenum internal_format = GL_RGBA8;
};

inline ResourceSpec gl_resource_spec(const ResourceDesc& desc, GLuint gl_name) {
  ResourceSpec spec;
  static_cast<ResourceDesc&>(spec) = desc;
  spec.gl_name = gl_name;
  return spec;
}

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

  // Re-creates the objects in resources() (and nothing else) in `memory`: one GL memory object per
  // resource, imported from the API that allocated it (the external mode), textures through
  // glTextureStorageMem2DEXT and buffers through glNamedBufferStorageMemEXT; null puts them back in GL's
  // own storage. Their GL names change: read resources() again afterwards.
  virtual void place_resources(const std::vector<GLuint>* memory) = 0;
};

// What the three GL scenes share: the compute is their SceneCompute's, and resources() lists the GL
// objects they created for its ResourceDescs, in the same order.
class ComputedScene : public Scene {
 public:
  explicit ComputedScene(std::unique_ptr<SceneCompute> compute) : m_compute(std::move(compute)) {}

  SceneId id() const override { return m_compute->id(); }
  bool resize_recreates_resources() const override { return m_compute->resize_recreates_resources(); }
  const std::vector<ResourceSpec>& resources() const override { return m_resources; }
  void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream) override {
    m_compute->compute_cuda(frame, views, stream);
  }
  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override {
    m_compute->compute_cpu(frame, views);
  }
  void on_ui() override { m_compute->on_ui(); }
  void place_resources(const std::vector<GLuint>* memory) override {
    m_memory = memory != nullptr ? *memory : std::vector<GLuint>{};
    recreate_resources();
  }

 protected:
  // Re-creates the objects of resources() where resource_texture / resource_buffer now put them.
  virtual void recreate_resources() = 0;
  // resources()[index]'s object: in GL's own storage, or in the memory place_resources handed in.
  GlTexture resource_texture(size_t index, int width, int height, const std::string& label) const;
  GlBuffer resource_buffer(size_t index, size_t bytes, GLbitfield flags, const std::string& label) const;

  SceneCompute& compute() { return *m_compute; }
  const SceneCompute& compute() const { return *m_compute; }

  std::vector<ResourceSpec> m_resources;

 private:
  std::unique_ptr<SceneCompute> m_compute;
  std::vector<GLuint> m_memory;  // place_resources' memory objects; empty: GL's own storage
};

// `filter` is the postprocess scene's (the others ignore it).
std::unique_ptr<Scene> create_scene(SceneId id, kernels::Filter filter);

}  // namespace lab
