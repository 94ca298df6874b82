// app/scene/scene_compute.hpp — the graphics-API-free half of a scene: WHAT is computed each frame (CUDA
// kernels and their CPU reference), which resources the kernels write or read, and what the frame needs
// drawn around them. Every graphics backend (app/gl, app/vulkan, app/d3d11, ...) creates the resources
// in its own API from ResourceDesc, makes them available to the kernels in its own way (a mode), and
// performs the draws that SceneDraw names with the data this header computes (cameras, meshes, cube
// placements), so every API shows the same frame. Nothing here includes a graphics API.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/scene/caller_controls.hpp"
#include "app/scene/picture.hpp"
#include "app/scene/readout.hpp"
#include "app/scene/view.hpp"
#include "kernels/image.hpp"
#include "kernels/postprocess.hpp"

#include <cuda_runtime_api.h>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
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

// One resource the kernels use, in no API's terms. Textures are RGBA8 (UNORM, 4 bytes a texel), row 0
// at the bottom of the picture as in GL (screenshots flip rows; every backend keeps this order).
struct ResourceDesc {
  const char* label = "";  // "vertex buffer", "rendered scene": for the panel and messages
  ResourceKind kind = ResourceKind::Buffer;
  ResourceRole role = ResourceRole::Output;
  size_t bytes = 0;           // buffers: size; textures: width * height * 4
  int width = 0, height = 0;  // textures
};

// Bytes between rows when a texture sits in linear memory (tightly packed RGBA8); 0 for buffers.
inline size_t linear_pitch(const ResourceDesc& desc) {
  return desc.kind == ResourceKind::Texture2D ? static_cast<size_t>(desc.width) * 4 : 0;
}

// Whether any of `descs` plays `role` (e.g. whether a mode has inputs to bring to the kernels).
template <class Desc>
bool has_role(const std::vector<Desc>& descs, ResourceRole role) {
  for (const Desc& desc : descs)
    if (desc.role == role) return true;
  return false;
}

// One resource as a CUDA kernel gets it this frame. Which fields are set depends on the mode:
// buffers always come as `pointer`; textures as `surface` (Output) / `texture` (Input) when the API's
// texture itself is mapped or imported, or as linear memory (`pointer` + `pitch`) when the mode copies.
struct CudaResourceView {
  void* pointer = nullptr;
  size_t bytes = 0;
  size_t pitch = 0;
  cudaSurfaceObject_t surface = 0;
  cudaTextureObject_t texture = 0;
  cudaArray_t array = nullptr;  // the mapped texture the surface or texture object names (for copies)
};

// `desc` as the kernels see it when it lives in linear device memory at `pointer` (a mode's copy).
inline CudaResourceView linear_view(void* pointer, const ResourceDesc& desc) {
  CudaResourceView view;
  view.pointer = pointer;
  view.bytes = desc.bytes;
  view.pitch = linear_pitch(desc);
  return view;
}

// One resource in host memory, for the CPU reference.
struct HostResourceView {
  void* pointer = nullptr;
  size_t bytes = 0;
  size_t pitch = 0;
};

// ---- What a frame needs drawn, and the data every backend draws it with ---------------------------

// The three draws of the scenes. Each backend implements each one; the data comes from below, so the
// pictures agree across APIs within the goldens' tolerance.
enum class SceneDraw {
  ShowImage,  // the frame is resources()[image_resource], shown as it is (no scaling, no filtering)
  LitMesh,    // the wave mesh: vertex buffer resources()[mesh_resource] (WaveVertex), wave_mesh_indices()
};

struct DrawPlan {
  SceneDraw draw = SceneDraw::ShowImage;
  int image_resource = -1;  // ShowImage
  int mesh_resource = -1;   // LitMesh
  // Lit cubes rendered into resources()[cubes_target] before the kernels run (postprocess), else -1.
  int cubes_target = -1;
};

// The two frame draws' plans, without a cubes pass (set cubes_target for one).
inline DrawPlan show_image_plan(int image_resource) {
  DrawPlan plan;
  plan.draw = SceneDraw::ShowImage;
  plan.image_resource = image_resource;
  return plan;
}
inline DrawPlan lit_mesh_plan(int mesh_resource) {
  DrawPlan plan;
  plan.draw = SceneDraw::LitMesh;
  plan.mesh_resource = mesh_resource;
  return plan;
}

// The wave mesh: kWaveGrid x kWaveGrid vertices of kernels::WaveVertex (position, normal: 6 floats),
// drawn as indexed triangles, counter-clockwise seen from above; cleared to kClearColor first, depth test
// on, no culling; wave.vert/wave.frag light it (kernels::wave_shade is the same formula).
constexpr int kWaveGrid = 256;
std::vector<uint32_t> wave_mesh_indices();
// The wave camera: perspective for the extent's aspect ratio, looking at the centre (GL clip space:
// z in -w..w; backends with 0..w depth remap z).
glm::mat4 wave_view_projection(Extent extent);
// The background the wave scene clears to: whole 8-bit steps, so every driver stores the same bytes
// (a value halfway between two steps may round either way).
constexpr float kClearColor[3] = {20.0f / 255.0f, 20.0f / 255.0f, 26.0f / 255.0f};

// The postprocess scene's 3D input: one unit cube mesh (LitVertex: position, normal; four vertices a
// face), drawn once per CubeInstance with lit.vert/lit.frag, depth test and back-face culling on,
// counter-clockwise front faces, after clearing to kCubesClearColor.
struct LitVertex {
  float position[3];
  float normal[3];
};
struct CubeMesh {
  std::vector<LitVertex> vertices;
  std::vector<uint32_t> indices;
};
CubeMesh cube_mesh();
struct CubeInstance {
  glm::mat4 model;
  glm::vec3 color;
};
struct CubesView {
  glm::mat4 view_projection;  // GL clip space, as wave_view_projection
  glm::vec3 eye;
  std::vector<CubeInstance> cubes;  // in draw order: the floor, seven orbiting cubes, the centre one
};
CubesView cubes_view(Extent extent, float time);
constexpr float kCubesClearColor[3] = {0.10f, 0.11f, 0.14f};

// ---- The compute: a source of frames ----------------------------------------------------------------

// What produces the frame: an axis beside the mode and the API. A scene (SceneCompute: the app's own
// kernels) or another process's published frames (app/scene/published_source.hpp, --attach). The loop, the
// modes, the timings, the screenshot, the panel and the page take every source alike.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  virtual SourceKind kind() const = 0;
  // The scene this source is; nullopt for a source that is no scene.
  virtual std::optional<SceneId> scene() const { return std::nullopt; }
  // What the panel, the page and messages call it: "wave", "published 'sim'".
  virtual std::string name() const = 0;
  // How the source is doing, for the panel and the page ("frame 1234, 2 dropped"); "" when it has nothing
  // to say (a scene).
  virtual std::string status() const { return ""; }
  // The frame's size when the command line names none (a published picture's own); nullopt: the default.
  virtual std::optional<Extent> natural_extent() const { return std::nullopt; }

  // The resources for `extent`, in the order compute_cuda/compute_cpu get their views.
  virtual std::vector<ResourceDesc> resources(Extent extent) const = 0;
  // True when a new extent changes resources() (the backend re-creates them, the mode re-attaches).
  virtual bool resize_recreates_resources() const = 0;
  virtual DrawPlan draw_plan() const = 0;

  // Runs the CUDA kernels on views[i] for resources(frame.extent)[i], all on `stream` (of the current
  // device).
  virtual void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                            cudaStream_t stream) = 0;
  // Runs the CPU reference of the same kernels.
  virtual void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) = 0;
  // Frees what compute_* allocated on the side (scratch memory), e.g. before the device changes.
  virtual void release_scratch() {}
  // Before a frame: waits up to `most` while the source has nothing new to show (a published source whose
  // publisher is slower than the loop), so the loop does not draw one picture again and again. A scene, whose
  // every frame is new, returns at once.
  virtual void wait_for_frame(std::chrono::milliseconds /*most*/) {}

  // The post-process filter where the scene has one (nullopt in the others), and a change of it from the
  // next frame on; set_filter returns false, changing nothing, in a source without one. The same for the
  // blur's radius (0 to kernels::kMaxBlurRadius): the panel and the page show both from these.
  virtual std::optional<kernels::Filter> filter() const { return std::nullopt; }
  virtual bool set_filter(kernels::Filter) { return false; }
  virtual std::optional<int> blur_radius() const { return std::nullopt; }
  virtual bool set_blur_radius(int) { return false; }

  // Where the picture lies in the frame, in a source that shows a picture of its own size
  // (natural_extent: the published and array sources); the zoom, pan, 1:1 and fit commands move it
  // (app/scene/view.hpp). nullptr in a scene, whose frame is drawn at the frame's size.
  virtual view::View* picture_view() { return nullptr; }
  // Where the source draws a 3D view of its own (a caller's points, ArraySource::show_points), the view's
  // moves move its camera instead: a drag of (x, y) frame pixels turns it, a zoom by `factor` moves it
  // nearer, a fit frames what it shows again, 1:1 leaves it. Returns false, moving nothing, where the source
  // has no camera now (picture_view then takes the move).
  enum class ViewMove { Zoom, Pan, ActualSize, Fit };
  virtual bool move_camera(ViewMove /*move*/, double /*x*/, double /*y*/, double /*factor*/,
                           Extent /*frame*/) {
    return false;
  }
  // Where the values of the picture shown now lie (host or device memory, the array it was made from), for
  // the value under the cursor (app/scene/readout.hpp); nullopt in a scene, and before the first picture.
  virtual std::optional<readout::Source> picture_values() const { return std::nullopt; }
  // Which picture is shown, where the source numbers them (a count that changes with each new one): its
  // values are then read once per pixel and picture, so the readout says what the picture shows though the
  // caller writes the array after showing it. 0: read at every frame (another process's frames, read where
  // they are).
  virtual long long picture_serial() const { return 0; }
  // A one-channel picture's colorbar (PictureBlit::colorbar) and the 256 RGBA8 colours it runs through
  // (PictureBlit::colormap: the caller's, else gray); nullopt and null in a scene.
  virtual std::optional<std::array<double, 2>> picture_colorbar() const { return std::nullopt; }
  virtual const uint8_t* picture_colormap() const { return nullptr; }
  // What the caller who feeds the source added (app/scene/caller_controls.hpp): the stack its picture is a
  // frame of and its own controls, which the panel and the page show and set; nullptr where the source has
  // no caller (a scene, another process's frames).
  virtual caller::Stack* stack() { return nullptr; }
  virtual caller::Registry* caller_controls() { return nullptr; }
};

// A scene: the app's own kernels and their CPU reference.
class SceneCompute : public FrameSource {
 public:
  virtual SceneId id() const = 0;
  SourceKind kind() const final { return SourceKind::Scene; }
  std::optional<SceneId> scene() const final { return id(); }
  std::string name() const override { return to_string(id()); }
};

// What the sources build their resources and kernel targets from: an RGBA8 texture the size of the frame,
// a linear image in memory, and an Output texture as the mode hands it to the kernels (the mapped or
// imported texture itself when the mode gives a surface, else the linear copy it gives).
ResourceDesc frame_sized_texture(const char* label, ResourceRole role, Extent extent);
kernels::ImageTarget linear_image(void* pixels, size_t pitch, Extent extent);
kernels::ImageTarget cuda_target(const CudaResourceView& view, Extent extent);

// `filter` is the postprocess scene's (the others ignore it).
std::unique_ptr<SceneCompute> create_scene_compute(SceneId id, kernels::Filter filter);

}  // namespace lab
