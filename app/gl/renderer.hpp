// app/gl/renderer.hpp — GL's drawing, with the contract of every backend's renderer (app/modes/mode.hpp):
// the resources a scene's kernels use, created from its ResourceDescs in GL's own storage or in memory
// another API allocated (the external mode); the draws of app/scene/scene_compute.hpp (the cubes into a
// texture, the lit wave mesh, a full-screen image shown in a window); host <-> resource copies for the
// copying modes; and the frame read back. A scene no longer owns GL objects: its SceneCompute says what
// is computed and drawn, and this draws it, so one GL frame is the same straight line as the others':
//
//   renderer (cubes pass) -> mode (kernels) -> renderer (frame pass) -> the platform shows it
//
// Conventions (the same in every API): row 0 of every texture is the bottom of the picture; a ShowImage
// plan's texture IS the frame headless (nothing is drawn; read_frame reads the texture), and in a window
// one full-screen pass copies it to the back buffer. Draws go to the platform's framebuffer (the back
// buffer in a window, an FBO headless). Needs the platform's GL 4.5 context current.
#pragma once

#include "app/gl/cuda_frame_read.hpp"
#include "app/gl/frame_read.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/gl/platform.hpp"
#include "app/image/image_io.hpp"
#include "app/modes/mode.hpp"  // NoPassSync
#include "app/scene/scene_compute.hpp"
#include "interop/gl.hpp"

#include <glad/gl.h>
#include <glm/mat4x4.hpp>

#include <deque>
#include <optional>
#include <vector>

namespace lab::gl {

// One resource of the scene, as the renderer created it.
struct Resource {
  ResourceDesc desc;
  // A buffer (ResourceKind::Buffer, or a Texture2D placed in linear memory: `linear`) or a texture.
  GLuint gl_name = 0;
  GLenum internal_format = GL_RGBA8;  // textures
  // A Texture2D whose texels live in a buffer of desc.bytes, rows tightly packed (linear_pitch), row 0 at
  // the bottom: what CUDA writes through a plain pointer and the show pass reads as a storage buffer.
  bool linear = false;
};

// Where the resources' storage is (place_resources): GL's own, or `memory`, one GL memory object per
// resource imported from the API that allocated it; textures as textures, or with `linear_images` as
// buffers (an image in linear memory: the buffer mode, and memory GL cannot tile as a texture).
struct Placement {
  const std::vector<GLuint>* memory = nullptr;
  bool linear_images = false;
};

// The descs of `resources`, in their order.
inline std::vector<ResourceDesc> descs_of(const std::vector<Resource>& resources) {
  std::vector<ResourceDesc> descs;
  for (const Resource& resource : resources) descs.push_back(resource.desc);
  return descs;
}

class Renderer {
 public:
  // GL orders its own passes: the modes' syncs are empty.
  using PassSync = NoPassSync;

  explicit Renderer(Platform& platform);
  // The frame loop's (app/loop/app.hpp) construction: the frame's size is the platform's already.
  Renderer(Platform& platform, Extent /*extent: the platform's*/) : Renderer(platform) {}
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // The frame's size follows the platform's framebuffer; the resources are the caller's to re-create
  // (FrameSource::resize_recreates_resources says when). Headless, the frame loop of app/loop/app.hpp
  // resizes through this: the offscreen target is made `extent` (a window's size is the window's).
  void resize(Extent extent) {
    if (!m_platform.is_window() && extent != m_platform.framebuffer_extent()) {
      m_framebuffer_registration = {};  // before the framebuffer it names goes
      m_platform.resize(extent);
    }
  }
  // Waits until GL has done everything queued so far (glFinish).
  void wait_idle();

  // The scene's resources, in FrameSource::resources() order, in GL's own storage; replaces the previous
  // set. Buffers have dynamic storage (the copying modes write them with glNamedBufferSubData); a texture
  // the kernels read is the cubes pass's target, with a depth buffer and a framebuffer of its own. GL
  // makes nothing importable for CUDA (the external mode places the resources in imported memory
  // instead), so `importable` must be false.
  void create_resources(const std::vector<ResourceDesc>& descs, bool importable = false);
  // Re-creates resources() where `placement` says: in imported memory (textures through
  // glTextureStorageMem2DEXT, buffers through glNamedBufferStorageMemEXT) or GL's own storage, images as
  // textures or in buffers. Their GL names change: read resources() again afterwards. A mode that places
  // them puts them back ({}) when it detaches; create_resources starts from GL's own textures again.
  void place_resources(const Placement& placement);
  void destroy_resources();
  const std::vector<Resource>& resources() const { return m_resources; }

  // The copying modes: host memory (desc.bytes, rows tightly packed, row 0 first) into resources()[index]
  // at once, and back out (waits for GL).
  void upload(int index, const void* data);
  void download(int index, void* data);
  // The pbo mode: resources()[index] <-> a GL buffer of desc.bytes (a pixel pack/unpack copy for textures).
  void copy_to_buffer(int index, GLuint buffer);
  void copy_from_buffer(int index, GLuint buffer);

  // The postprocess scene's 3D input: the cubes of `view` into texture resources()[target], cleared first.
  void draw_cubes(int target, const CubesView& view, const PassSync& sync = {});
  // Whether draw_frame does any GL work for `plan`: a LitMesh plan always, a ShowImage plan in a window
  // only (headless, its image is the frame).
  bool draws_frame(const DrawPlan& plan) const;
  // The frame into the platform's framebuffer at `extent`: LitMesh draws the wave mesh from
  // resources()[plan.mesh_resource] with `view_projection` (cleared to kClearColor first); ShowImage in
  // a window copies its texture by one full-screen pass, and headless does nothing.
  void draw_frame(const DrawPlan& plan, const glm::mat4& view_projection, Extent extent,
                  const PassSync& sync = {});
  // The same at the platform's framebuffer size: the renderer contract of app/loop/app.hpp's loop.
  void draw_frame(const DrawPlan& plan, const glm::mat4& view_projection, const PassSync& sync) {
    draw_frame(plan, view_projection, m_platform.framebuffer_extent(), sync);
  }
  // A ShowImage plan's image into the platform's framebuffer at `extent` by one full-screen pass, headless
  // too (draw_frame runs it in a window; the benchmark times it alone).
  void show_image(const DrawPlan& plan, Extent extent);
  // The frame drawn last, top row first: headless, a ShowImage plan's texture; else the platform's
  // framebuffer (in a window the back buffer before it is presented: the panel included when it is drawn).
  Image read_frame(const DrawPlan& plan, Extent extent) const;
  Image read_frame(const DrawPlan& plan) const { return read_frame(plan, m_platform.framebuffer_extent()); }
  // The same without waiting for it (the desk's read-back, app/serve/desk.hpp's LateReader): begin_read_frame
  // queues the copy of what read_frame would return now (in a window, a ShowImage plan's image itself: the
  // frame without the panel that covers the window by then), tagged `frame` (when can_begin_read: else
  // std::logic_error); reads_under_way counts those begun and not collected, read_frame_done says whether the
  // oldest is done (without waiting), end_read_frame collects it (waiting for it; nullopt when none was
  // begun). Reads are collected in the order they began. A frame CUDA sees (a ShowImage plan's image
  // headless, with a CUDA source set) is copied by CUDA (app/gl/cuda_frame_read.hpp, way "CUDA", with its
  // stripe hashes; up to two under way), any other through GL's pixel-pack buffer (app/gl/frame_read.hpp,
  // "PBO"; one at a time). A GL read begun while CUDA reads are under way (the mode switched to one CUDA does
  // not see) waits for those and drops them: the desk goes on with the newer frame.
  void begin_read_frame(const DrawPlan& plan, Extent extent, long long frame);
  void begin_read_frame(const DrawPlan& plan, long long frame) {
    begin_read_frame(plan, m_platform.framebuffer_extent(), frame);
  }
  int reads_under_way() const;
  bool can_begin_read() const;
  // Keeps the GPU at most `frames` frames behind the caller: fences the work queued so far and waits for the
  // fence of `frames` calls ago (a window's swap does this; a headless loop that reads frames back late
  // calls it once a frame, app/serve/desk.hpp's LateReader). 0: waits for everything queued.
  void limit_frames_ahead(int frames);
  bool read_frame_done();
  std::optional<FrameRead> end_read_frame();
  // Host-clock steps of the read-backs' begin and end (CUDA's and GL's), for --bench --serve: off unless
  // set on; take_read_back_steps() lists the steps that ran since it was last called.
  void set_read_back_steps(bool on) {
    m_read_back.steps().set_enabled(on);
    m_cuda_read_back.steps().set_enabled(on);
  }
  std::vector<StepTime> take_read_back_steps();
  // How begin_read_frame reads `plan`'s frame at `extent` now: "CUDA" or "PBO".
  const char* read_way(const DrawPlan& plan, Extent extent) const {
    return cuda_frame_source(plan, extent) ? "CUDA" : "PBO";
  }
  // How CUDA reaches resources()[index], as the mode that registered it says (interop, pbo, split, buffer:
  // each frame, so a re-registration is followed); the desk's read-back copies the frame through it. The
  // mode clears its sources when it detaches; re-creating or placing the resources clears them too.
  void set_cuda_source(int index, const CudaFrameSource& source);
  // The frame's CUDA stream (on the GL context's device), as a CUDA mode says each frame: a frame GL draws
  // headless (the wave scene's) is then read by CUDA too, through the read-back's own read-only
  // registration of the offscreen framebuffer's colour texture, which no mode registers.
  void set_cuda_frame_stream(cudaStream_t stream, int device) { m_cuda_frame_stream = {stream, device}; }
  void clear_cuda_sources() {
    m_cuda_sources.clear();
    m_cuda_frame_stream.reset();
  }
  // The texture that holds a ShowImage plan's frame, else 0 (also when the image is in a buffer).
  GLuint frame_image(const DrawPlan& plan) const;

 private:
  // What resources()[i] owns: a buffer, a texture, or (a texture the kernels read) a render target; an
  // image in linear memory that the kernels read also has a render target, copied into its buffer.
  struct Storage {
    GlBuffer buffer;
    GlTexture texture;
    OffscreenTarget target;
  };
  void create_storage(const std::vector<ResourceDesc>& descs);
  const Resource& resource(int index) const;
  void ensure_wave_pipeline();
  void ensure_cubes_pipeline();
  // The CUDA source of `plan`'s frame at `extent`: a ShowImage image headless, of the frame's size, whose
  // mode set one; else null.
  std::optional<CudaFrameSource> cuda_frame_source(const DrawPlan& plan, Extent extent) const;
  // The read-back's registration of the offscreen framebuffer's colour texture at `extent`, made on first
  // use; null in a window, without a frame stream, or when the framebuffer's colour is no RGBA8 texture.
  cudaGraphicsResource_t framebuffer_registration(Extent extent) const;
  // An image GL drew (`texture`) into `image`'s buffer, texel (x, y) at word y * width + x.
  void pack_into_buffer(GLuint texture, const Resource& image);

  Platform& m_platform;
  std::vector<Resource> m_resources;
  std::vector<Storage> m_storage;
  std::vector<GLuint> m_memory;  // place_resources' memory objects; empty: GL's own storage
  bool m_linear_images = false;  // place_resources' images in buffers
  // Each draw's objects, made on its first use (a scene that never draws the wave compiles none of it).
  GlProgram m_wave_program;
  GlBuffer m_wave_indices;
  GlVertexArray m_wave_vertex_array;
  GLsizei m_wave_index_count = 0;
  GlProgram m_cubes_program;
  GlBuffer m_cubes_vertices;
  GlBuffer m_cubes_indices;
  GlVertexArray m_cubes_vertex_array;
  GLsizei m_cubes_index_count = 0;
  GlProgram m_show_program;
  GlProgram m_show_buffer_program;  // the show pass of an image in a buffer
  GlProgram m_pack_program;         // an image GL drew, into the buffer in imported memory
  GlVertexArray m_show_vertex_array;
  FrameReadBack m_read_back;
  std::deque<GlSync> m_frames_ahead;            // limit_frames_ahead's fences, oldest first
  std::vector<CudaFrameSource> m_cuda_sources;  // by resource index; registered == nullptr: none
  struct FrameStream {
    cudaStream_t stream = nullptr;
    int device = -1;
  };
  std::optional<FrameStream> m_cuda_frame_stream;
  // framebuffer_registration's, of texture m_registered_color at m_registered_extent on m_registered_device;
  // dropped before the platform re-makes its framebuffer (resize).
  mutable interop::GlTextureRegistration m_framebuffer_registration;
  mutable GLuint m_registered_color = 0;
  mutable Extent m_registered_extent;
  mutable int m_registered_device = -1;
  CudaFrameReadBack m_cuda_read_back;
};

}  // namespace lab::gl
