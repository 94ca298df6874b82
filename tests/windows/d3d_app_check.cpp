// tests/windows/d3d_app_check.cpp — the Direct3D apps' live switches and resizes (app/d3d11/app_core.hpp:
// what the panel's buttons and a window's size call), for both APIs, under Wine (scripts/windows-cross.sh)
// or on Windows: a scene, mode or size switched between frames must give the frame that a fresh run with
// it gives, byte for byte, headless and in a window (its back buffer read back), and a CUDA mode must be
// refused with the reason while the running mode stays. Linked as interop-lab.exe is (no CUDA:
// tests/windows/cuda_free.cpp). One line per check; exit 0 all passed, 1 any failed, 77 no device of an
// API here (said which; the other API is still checked).
#include "app/d3d11/app.hpp"
#include "app/d3d12/app.hpp"
#include "app/text.hpp"

#include <cstdio>
#include <exception>
#include <string>

namespace {

struct Checks {
  int failed = 0;
  void check(bool ok, const std::string& what, const std::string& detail = "") {
    std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
                detail.c_str());
    if (!ok) ++failed;
  }
};

lab::Options headless(lab::GraphicsApi api, lab::SceneId scene) {
  lab::Options options;
  options.api = api;
  options.scene = scene;
  options.mode = lab::ModeId::Cpu;
  options.headless = true;
  options.width = 160;
  options.height = 90;
  options.frames = 3;
  return options;
}

// Frame `index` of `scene` rendered by a fresh App.
template <class App>
lab::Image fresh_frame(lab::GraphicsApi api, lab::SceneId scene, long long index) {
  App app(headless(api, scene));
  app.render_frame(index);
  return app.read_frame();
}

template <class App>
void check_switches(lab::GraphicsApi api, Checks& checks) {
  const std::string prefix = std::string(lab::to_string(api)) + ": ";
  App app(headless(api, lab::SceneId::Wave));
  app.render_frame(0);
  // Through every scene and back, one frame each: the new scene's resources, its mode attached anew.
  long long index = 1;
  for (const lab::SceneId scene : {lab::SceneId::Postprocess, lab::SceneId::Pattern, lab::SceneId::Wave}) {
    app.request_scene(scene);
    app.render_frame(index);
    const bool switched = app.scene_id() == scene;
    const lab::Image frame = app.read_frame();
    const bool same = frame.rgba == fresh_frame<App>(api, scene, index).rgba;
    checks.check(switched && same,
                 prefix + "switched to " + lab::to_string(scene) + " at frame " + std::to_string(index) +
                     ", the frame is a fresh run's",
                 switched ? (same ? "" : "the frames differ") : "the scene did not switch");
    ++index;
  }
  // A CUDA mode in a build without CUDA: refused with the reason; the cpu mode runs on.
  const lab::ModeAvailability staging = app.request_mode(lab::ModeId::Staging);
  app.render_frame(index);
  checks.check(!staging.available && app.mode_id() == lab::ModeId::Cpu &&
                   staging.reason.find("built without CUDA") != std::string::npos,
               prefix + "staging refused, cpu runs on", staging.reason);
  // Resized between frames: the frame is a fresh run's at the new size (the frame target re-created, and
  // the pattern's image with it, the mode attached anew; the wave's mesh stays).
  for (const lab::SceneId scene : {lab::SceneId::Pattern, lab::SceneId::Wave}) {
    app.request_scene(scene);
    app.render_frame(index);
    app.resize({96, 64});
    app.render_frame(index);
    lab::Options resized = headless(api, scene);
    resized.width = 96;
    resized.height = 64;
    App fresh(resized);
    fresh.render_frame(index);
    const lab::Image frame = app.read_frame();
    checks.check(frame.width == 96 && frame.height == 64 && frame.rgba == fresh.read_frame().rgba,
                 prefix + "resized to 96x64 in " + lab::to_string(scene) + ", the frame is a fresh run's");
    app.resize({160, 90});
  }
  // In a window (no panel), resized: the swap chain follows, and what the window shows is a fresh headless
  // run's frame. (Larger
  // than the headless checks' 96x64: Windows keeps a window with a title bar wider than that.)
  lab::Options windowed = headless(api, lab::SceneId::Pattern);
  windowed.headless = false;
  windowed.no_ui = true;
  {
    App window(windowed);
    window.render_frame(0);
    window.resize({240, 135});
    // The window manager (Wine's, in Xvfb) may take a few events to apply it.
    for (long long frame = 1; frame <= 20 && window.extent() != lab::Extent{240, 135}; ++frame)
      window.render_frame(frame);
    window.render_frame(21);
    lab::Options resized = headless(api, lab::SceneId::Pattern);
    resized.width = 240;
    resized.height = 135;
    App fresh(resized);
    fresh.render_frame(21);
    checks.check(
        window.extent() == lab::Extent{240, 135} && window.read_window().rgba == fresh.read_frame().rgba,
        prefix + "a window resized to 240x135 shows a fresh run's frame (its back buffer read back)",
        lab::size_text(window.extent().width, window.extent().height));
  }
  // The running mode asked for again: no switch, the next frame as a fresh run's.
  app.request_mode(lab::ModeId::Cpu);
  app.render_frame(index + 1);
  checks.check(app.read_frame().rgba == fresh_frame<App>(api, lab::SceneId::Wave, index + 1).rgba,
               prefix + "the running mode asked for again, the next frame is a fresh run's");
}

// Runs `check` on `api` when a device of it can be created here; false when none can (said why).
template <class DeviceDesc, class Device, class Check>
bool run_where_there_is_a_device(lab::GraphicsApi api, Device (*create_device)(const DeviceDesc&),
                                 Check check, Checks& checks) {
  try {
    create_device({});
  } catch (const std::exception& error) {
    // The machine's lack, not the app's (Wine's Direct3D 12 runs on Vulkan: it needs a Vulkan driver).
    std::printf("SKIPPED %s: no device here (%s)\n", lab::to_string(api), error.what());
    return false;
  }
  try {
    check(api, checks);
  } catch (const std::exception& error) {
    checks.check(false, std::string(lab::to_string(api)) + ": the app ran", error.what());
  }
  return true;
}

}  // namespace

int main() {
  Checks checks;
  const bool d3d11 = run_where_there_is_a_device(lab::GraphicsApi::D3d11, lab::d3d11::create_device,
                                                 check_switches<lab::d3d11::App>, checks);
  const bool d3d12 = run_where_there_is_a_device(lab::GraphicsApi::D3d12, lab::d3d12::create_device,
                                                 check_switches<lab::d3d12::App>, checks);
  std::printf("d3d_app_check: %s (%d failed)\n", checks.failed == 0 ? "passed" : "FAILED", checks.failed);
  if (checks.failed != 0) return 1;
  return d3d11 && d3d12 ? 0 : 77;
}
