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
#pragma once

#include "app/scene/picture.hpp"
#include "app/scene/scene_compute.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lab {

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
  // How many pictures show() took.
  long long pictures() const { return m_pictures; }

  SourceKind kind() const override { return SourceKind::Array; }
  std::string name() const override { return m_name; }
  // "float32x1 640x480, range 0..1, picture 12"; "waiting for the first picture" before one came.
  std::string status() const override;
  std::optional<Extent> natural_extent() const override;
  std::vector<ResourceDesc> resources(Extent extent) const override;
  bool resize_recreates_resources() const override { return true; }
  DrawPlan draw_plan() const override;
  void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream) override;
  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override;
  void release_scratch() override { m_blit.release(); }
  view::View* picture_view() override { return &m_blit.view(); }
  std::optional<PictureDesc> picture_shown() const override { return m_picture; }
  std::optional<std::array<double, 2>> picture_colorbar() const override { return m_blit.colorbar(); }
  const uint8_t* picture_colormap() const override { return m_blit.colormap(); }
  // The caller says which frame of how many its picture is (stack()->frames) and adds its controls; it reads
  // what the user picked and changed there (the panel's, the page's, Python's).
  caller::Stack* stack() override { return &m_stack; }
  caller::Registry* caller_controls() override { return &m_controls; }

 private:
  std::string m_name;
  std::optional<PictureDesc> m_picture;
  std::array<uint8_t, 256 * 4> m_colormap{};  // the picture's mapping's colormap, where it has one
  long long m_pictures = 0;
  PictureBlit m_blit;
  caller::Stack m_stack;
  caller::Registry m_controls;
};

}  // namespace lab
