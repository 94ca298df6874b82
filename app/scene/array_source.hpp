// app/scene/array_source.hpp — the `array` source of frames: pictures a caller hands in (a C++ caller of
// the loop; the Python viewer's arrays are to come here too), shown by the one loop as it shows a scene or
// another process's frames: every mode, the timings, the screenshot, the panel and the page alike. Each
// frame copies the picture shown last into the frame's texture (app/scene/picture.hpp: flipped to the
// frames' row order, nearest sampled when the frame's size differs, made RGBA8 first where it is not packed
// uint8), through CUDA in the CUDA modes and through the CPU reference in cpu mode. Before the first
// picture the frame is black.
//
// No copy is made of a picture: the caller keeps its memory valid and unchanged until show() is called
// again or the source ends (a device picture is read on the mode's stream, a host picture copied to the
// device first in the CUDA modes).
//
// Points (Viewer.points) take the frame in place of the picture, from show_points() until the next
// picture: squares of an edge in frame pixels, nearest first, seen through an orbit camera
// (app/scene/orbit.hpp) and drawn by kernels/points.hpp in CUDA or its CPU reference. The view's commands
// move the camera while they are shown: a drag turns it, a zoom moves it nearer, a fit frames them again.
// Their memory is the caller's too, read where it is as a picture's is.
#pragma once

#include "app/scene/orbit.hpp"
#include "app/scene/picture.hpp"
#include "app/scene/scene_compute.hpp"
#include "interop/memory.hpp"
#include "kernels/points.hpp"

#include <glm/glm.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lab {

// Points a caller hands in: `count` positions of three float32 each (12 bytes a point, packed) and as many
// RGBA8 colours, both in host memory or both in device memory of the loop's CUDA device.
struct PointsPicture {
  const void* xyz = nullptr;
  const void* rgba = nullptr;
  long long count = 0;
  bool on_device = false;
  float size = 3.0f;     // a point's edge, frame pixels: kMinPointSize to kMaxPointSize
  orbit::Bounds bounds;  // of the finite positions: what the camera frames (at the first points, a fit)
};
constexpr long long kMaxPoints = 1ll << 28;  // 12 + 4 bytes each, 4 GiB in all
constexpr float kMinPointSize = 1.0f, kMaxPointSize = 64.0f;

class ArraySource final : public FrameSource {
 public:
  // `name`: what the panel, the page and messages call it ("array" unless said).
  explicit ArraySource(std::string name = "array") : m_name(std::move(name)) {}
  ~ArraySource() override { release_scratch(); }

  // `picture` is the frame from the next frame on (its size is the frame's where the frame follows the
  // source), its values mapped as its mapping says where it has one (the Python viewer's range= and
  // colormap=; the colormap is copied). Throws std::invalid_argument, keeping the picture before it, for no
  // pixels, a size below 1x1, channels other than 1, 3 or 4, a negative stride, or a mapping that cannot be
  // computed (PictureBlit::check_mapping).
  void show(const PictureDesc& picture);
  // What a picture was made from, where its caller converted an array of its own into it (the Python viewer
  // does, once at show(), into memory it keeps, so that no frame reads an array its caller may be writing):
  // the value under the cursor reads `values` (the caller's memory, valid until the next show), and the
  // colorbar says `colorbar` (the range; nullopt: none) through `colours` (256 RGBA8), in place of the
  // picture's own.
  struct Origin {
    readout::Source values;
    std::optional<std::array<double, 2>> colorbar;
    std::array<uint8_t, 256 * 4> colours{};
    std::string range;  // what its values were mapped through, for status() ("0..1 (auto)"; "": none)
  };
  // show(picture), the picture made from `origin`.
  void show(const PictureDesc& picture, const Origin& origin);
  // How many pictures show() took.
  long long pictures() const { return m_pictures; }

  // `points` are the frame from the next frame on, until the next picture. The first points the source
  // shows frame the camera on their bounds at the next frame; later ones keep it where it is. Throws
  // std::invalid_argument, changing nothing, for a count outside 1..kMaxPoints, no memory, or a size outside
  // kMinPointSize..kMaxPointSize.
  void show_points(const PointsPicture& points);
  bool showing_points() const { return m_points.has_value(); }
  // The camera the points are seen through (a fit frames their bounds again), and its projection for the
  // frame at `extent` as the kernels take it. A camera set is kept: the first points do not frame it then.
  const orbit::Orbit& camera() const { return m_camera; }
  void set_camera(const orbit::Orbit& camera) {
    m_camera = camera;
    m_frame_camera = false;
  }
  glm::mat4 view_projection(Extent extent) const;

  SourceKind kind() const override { return SourceKind::Array; }
  std::string name() const override { return m_name; }
  // "float32x1 640x480, range 0..1, picture 12"; "waiting for the first picture" before one came; while
  // points are shown, how many and where the camera is.
  std::string status() const override;
  std::optional<Extent> natural_extent() const override;
  std::vector<ResourceDesc> resources(Extent extent) const override;
  bool resize_recreates_resources() const override { return true; }
  DrawPlan draw_plan() const override;
  void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream) override;
  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override;
  void release_scratch() override;
  view::View* picture_view() override { return &m_blit.view(); }
  bool move_camera(ViewMove move, double x, double y, double factor, Extent frame) override;
  // While points are shown: no picture, so no picture tools (the natural extent is none either).
  std::optional<readout::Source> picture_values() const override;
  long long picture_serial() const override { return m_pictures; }
  std::optional<std::array<double, 2>> picture_colorbar() const override;
  const uint8_t* picture_colormap() const override;
  // The caller says which frame of how many its picture is (stack()->frames) and adds its controls; it reads
  // what the user picked and changed there (the panel's, the page's, Python's).
  caller::Stack* stack() override { return &m_stack; }
  caller::Registry* caller_controls() override { return &m_controls; }

 private:
  std::string m_name;
  // Frames the camera on the points' bounds where the first points came since (m_frame_camera).
  void frame_camera(Extent frame);
  // The points at `frame`'s size as the kernels take them (xyz and rgba where the draw reads them).
  kernels::PointsDesc points_desc(Extent frame, const void* xyz, const void* rgba) const;

  std::optional<PictureDesc> m_picture;
  std::optional<Origin> m_origin;  // the picture's, where show() was given one
  std::optional<PointsPicture> m_points;
  orbit::Orbit m_camera;
  bool m_frame_camera = true;  // the camera frames the points' bounds at the next frame (the first points)
  interop::DeviceBuffer m_point_keys;                  // CUDA: one depth key a frame pixel
  interop::DeviceBuffer m_device_xyz, m_device_rgba;   // CUDA: host points copied to the device
  std::vector<unsigned char> m_host_xyz, m_host_rgba;  // cpu: device points copied to the host
  std::array<uint8_t, 256 * 4> m_colormap{};           // the picture's mapping's colormap, where it has one
  long long m_pictures = 0;
  PictureBlit m_blit;
  caller::Stack m_stack;
  caller::Registry m_controls;
};

}  // namespace lab
