// tests/windows/d3d_frames.cpp — renders one scene's cpu-mode frame with the Direct3D 11 or 12 backend and
// writes it as raw RGBA8 (top row first, width * height * 4 bytes), for the goldens' comparison on the
// Linux side (windows_frame_check). No CUDA: the scene's CPU reference (SceneCompute::compute_cpu, the
// same code the app runs) computes, app/d3d11 or app/d3d12 draws, as the app's cpu mode does in GL:
//   draw the cubes (postprocess) -> download them -> compute_cpu -> upload the outputs -> draw -> read.
// A ShowImage scene's image is also drawn as a window would show it (draw_image), which must reproduce it
// exactly.
// scripts/windows-cross.sh runs it under Wine for every golden in tests/golden and both APIs.
//
//   d3d_frames d3d11|d3d12 OUT.rgba SCENE WIDTH HEIGHT FRAME [FILTER]
// Exit 0 written, 1 failed (the reason on stderr), 2 usage, 77 no device of that API here (skipped: what is
// missing on stdout).
#include "app/d3d11/renderer.hpp"
#include "app/d3d12/renderer.hpp"
#include "app/scene_compute.hpp"
#include "kernels/common.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct SceneName {
  lab::SceneId id;
  const char* name;
};
constexpr SceneName kScenes[] = {{lab::SceneId::Wave, "wave"},
                                 {lab::SceneId::Pattern, "pattern"},
                                 {lab::SceneId::Postprocess, "postprocess"}};

std::optional<lab::SceneId> scene_from(const char* name) {
  for (const SceneName& scene : kScenes)
    if (std::strcmp(name, scene.name) == 0) return scene.id;
  return std::nullopt;
}

std::optional<kernels::Filter> filter_from(const char* name) {
  for (const kernels::FilterName& filter : kernels::kFilterNames)
    if (std::strcmp(name, filter.name) == 0) return filter.value;
  return std::nullopt;
}

std::optional<int> positive(const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != 0 || value < 0 || value > 16384) return std::nullopt;
  return static_cast<int>(value);
}

// No device at all: not this code's failure but the machine's (exit 77, said what is missing).
struct NoDevice : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Both backends have the same calls (app/d3d11/renderer.hpp, app/d3d12/renderer.hpp).
template <class Device, class Renderer, class DeviceDesc>
lab::Image render(Device (*create_device)(const DeviceDesc&), lab::SceneId id, kernels::Filter filter,
                  lab::Extent extent, int frame_index, std::string& adapter, std::string& checked) {
  Device device;
  try {
    device = create_device({});
  } catch (const std::exception& error) {
    throw NoDevice(error.what());
  }
  adapter = device.adapter;
  Renderer renderer(device, extent);
  const std::unique_ptr<lab::SceneCompute> scene = lab::create_scene_compute(id, filter);
  const std::vector<lab::ResourceDesc> descs = scene->resources(extent);
  renderer.create_resources(descs);
  const lab::DrawPlan plan = scene->draw_plan();

  lab::FrameInfo frame;
  frame.index = frame_index;
  frame.time = kernels::time_of_frame(frame_index);
  frame.extent = extent;
  std::vector<std::vector<unsigned char>> memory(descs.size());
  std::vector<lab::HostResourceView> views(descs.size());
  for (size_t i = 0; i < descs.size(); ++i) {
    memory[i].resize(descs[i].bytes);
    views[i] = {memory[i].data(), descs[i].bytes, lab::linear_pitch(descs[i])};
  }
  if (plan.cubes_target >= 0) {
    renderer.draw_cubes(plan.cubes_target, lab::cubes_view(extent, frame.time));
    renderer.download(plan.cubes_target, memory[static_cast<size_t>(plan.cubes_target)].data());
  }
  scene->compute_cpu(frame, views);
  for (size_t i = 0; i < descs.size(); ++i)
    if (descs[i].role == lab::ResourceRole::Output) renderer.upload(static_cast<int>(i), memory[i].data());
  renderer.draw_frame(plan, lab::wave_view_projection(extent));
  lab::Image image = renderer.read_frame(plan);
  if (plan.draw == lab::SceneDraw::ShowImage) {
    // What a window shows of it: drawn into the frame target, it must be the image, byte for byte.
    renderer.draw_image(plan.image_resource);
    if (renderer.read_target().rgba != image.rgba)
      throw std::runtime_error("the ShowImage draw (draw_image) did not reproduce its image exactly");
    checked = "; its ShowImage draw reproduces it exactly";
  }
  return image;
}

}  // namespace

int main(int argc, char** argv) {
  const auto usage = [] {
    std::fprintf(
        stderr,
        "usage: d3d_frames d3d11|d3d12 OUT.rgba wave|pattern|postprocess WIDTH HEIGHT FRAME [sobel|blur]\n");
    return 2;
  };
  if (argc != 7 && argc != 8) return usage();
  const std::string api = argv[1];
  const char* path = argv[2];
  const std::optional<lab::SceneId> scene = scene_from(argv[3]);
  const std::optional<int> width = positive(argv[4]), height = positive(argv[5]), frame = positive(argv[6]);
  const std::optional<kernels::Filter> filter = argc == 8 ? filter_from(argv[7]) : kernels::Filter::Sobel;
  if ((api != "d3d11" && api != "d3d12") || !scene || !width || !height || !frame || *width == 0 ||
      *height == 0 || !filter)
    return usage();
  try {
    std::string adapter, checked;
    const lab::Extent extent{*width, *height};
    const lab::Image image =
        api == "d3d11" ? render<lab::d3d11::Device, lab::d3d11::Renderer>(
                             lab::d3d11::create_device, *scene, *filter, extent, *frame, adapter, checked)
                       : render<lab::d3d12::Device, lab::d3d12::Renderer>(
                             lab::d3d12::create_device, *scene, *filter, extent, *frame, adapter, checked);
    FILE* out = std::fopen(path, "wb");
    if (out == nullptr) throw std::runtime_error(std::string("cannot write ") + path);
    const bool written = std::fwrite(image.rgba.data(), 1, image.rgba.size(), out) == image.rgba.size();
    if (std::fclose(out) != 0 || !written)
      throw std::runtime_error(std::string("writing ") + path + " failed");
    std::printf("d3d_frames: %s %s %dx%d frame %d on %s: %s%s\n", api.c_str(), argv[3], *width, *height,
                *frame, adapter.c_str(), path, checked.c_str());
    return 0;
  } catch (const NoDevice& error) {
    std::printf("d3d_frames: SKIPPED %s: no %s device here (%s); %s\n", argv[3], api.c_str(), error.what(),
                api == "d3d12"
                    ? "Wine's Direct3D 12 runs on Vulkan (vkd3d): it needs a Vulkan driver, e.g. "
                      "mesa-vulkan-drivers (lavapipe) and libvulkan1"
                    : "Wine's Direct3D 11 runs on OpenGL: it needs an X server (xvfb-run) and Mesa");
    return 77;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "d3d_frames: %s %s: %s\n", api.c_str(), argv[3], error.what());
    return 1;
  }
}
