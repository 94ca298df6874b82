// tests/windows/d3d_app_check.cpp — the Direct3D apps' live switches and resizes (app/loop/app.hpp:
// what the panel's buttons and a window's size call), for both APIs, under Wine (scripts/windows-cross.sh)
// or on Windows: a scene, mode or size switched between frames must give the frame that a fresh run with
// it gives, byte for byte, headless and in a window (its back buffer read back), and a CUDA mode must be
// refused with the reason while the running mode stays. The window's keys (App::handle_hotkey, and Esc
// posted to the window as a key press), and the panel drawn over the window's frame, nowhere else, with the
// doctor's report. Linked as interop-lab.exe is (no CUDA: tests/windows/cuda_free.cpp). One line per
// check; exit 0 all passed, 1 any failed, 77 no device of an API here (said which; the other API is still
// checked).
#include "app/core/text.hpp"
#include "app/d3d/doctor_d3d.hpp"
#include "app/d3d/dxgi_report.hpp"
#include "app/d3d11/app/app.hpp"
#include "app/d3d12/app/app.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // the monitor F11 fills
#include <imgui.h>
#include <imgui_internal.h>  // ImGui::FindWindowByName: where the panel is
#include <windows.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

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
  options.layout_file = "";  // a check's panel never reads or writes the user's imgui.ini
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

// A fresh folder for the screenshots of `api`'s checks, under the temporary folder.
std::filesystem::path fresh_folder(lab::GraphicsApi api, const char* what) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                       (std::string("interop-lab-") + lab::to_string(api) + "-" + what);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

bool same_image(const lab::Image& a, const lab::Image& b) {
  return a.width == b.width && a.height == b.height && a.rgba == b.rgba;
}

// Wine's ntdll exports wine_get_version; Windows' does not.
bool under_wine() {
  const HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  return ntdll != nullptr && GetProcAddress(ntdll, "wine_get_version") != nullptr;
}

// The keys, through App::handle_hotkey as a key press calls it: headless, the next scene at the next frame,
// F12's numbered screenshots, the next mode; in a window, Esc pressed (a WM_KEYDOWN posted to it, through
// GLFW's key callback) ends run().
template <class App>
void check_hotkeys(lab::GraphicsApi api, Checks& checks) {
  const std::string prefix = std::string(lab::to_string(api)) + ": ";
  const std::filesystem::path folder = fresh_folder(api, "hotkeys");
  lab::Options options = headless(api, lab::SceneId::Wave);
  options.screenshot_dir = folder.string();
  App app(options);
  app.render_frame(0);
  // all_scenes()' order, wrapping: the one after wave.
  const std::vector<lab::SceneId>& scenes = lab::all_scenes();
  const size_t wave_at =
      static_cast<size_t>(std::find(scenes.begin(), scenes.end(), lab::SceneId::Wave) - scenes.begin());
  const lab::SceneId next_scene = scenes[(wave_at + 1) % scenes.size()];
  app.handle_hotkey(lab::Hotkey::NextScene);
  app.render_frame(1);
  const bool scene_switched = app.scene_id() == next_scene;
  checks.check(scene_switched && same_image(app.read_frame(), fresh_frame<App>(api, next_scene, 1)),
               prefix + "NextScene: " + lab::to_string(next_scene) + " at the next frame, a fresh run's",
               scene_switched ? "" : std::string("the scene is ") + app.source().name());

  // F12 twice, a frame apart: 0001 then 0002, each the frame read_frame() gave when it was pressed.
  const lab::Image first = app.read_frame();
  app.handle_hotkey(lab::Hotkey::Screenshot);
  app.render_frame(2);
  const lab::Image second = app.read_frame();
  app.handle_hotkey(lab::Hotkey::Screenshot);
  const std::filesystem::path first_path = folder / "interop-lab-0001.png";
  const std::filesystem::path second_path = folder / "interop-lab-0002.png";
  const bool written = std::filesystem::exists(first_path) && std::filesystem::exists(second_path);
  checks.check(written && same_image(lab::read_png(first_path.string()), first) &&
                   same_image(lab::read_png(second_path.string()), second) && !same_image(first, second),
               prefix + "F12 twice wrote interop-lab-0001.png then -0002.png, each the frame of its press",
               written ? "" : "missing in " + folder.string());

  // A screenshot that cannot be written (its folder is a file): said, and the run goes on.
  lab::Options unwritable = headless(api, lab::SceneId::Pattern);
  unwritable.screenshot_dir = first_path.string();
  bool went_on = false;
  try {
    App blocked(unwritable);
    blocked.render_frame(0);
    blocked.handle_hotkey(lab::Hotkey::Screenshot);
    went_on = blocked.render_frame(1);
  } catch (const std::exception& error) {
    std::printf("     the unwritable screenshot threw: %s\n", error.what());
  }
  checks.check(went_on, prefix + "F12 into a folder that is a file: no throw, the next frame renders");

  // Without CUDA only cpu runs here: NextMode finds no other mode and the frames go on as a fresh run's.
  app.handle_hotkey(lab::Hotkey::NextMode);
  app.render_frame(3);
  const bool still_cpu = app.mode_id() == lab::ModeId::Cpu;
  checks.check(still_cpu && same_image(app.read_frame(), fresh_frame<App>(api, next_scene, 3)),
               prefix + "NextMode without CUDA stays in cpu, the frame a fresh run's",
               still_cpu ? "" : std::string("the mode is ") + lab::to_string(app.mode_id()));

  // Esc pressed in a window (posted as Windows would: WM_KEYDOWN, the Esc scan code 1 in bits 16-23), with
  // 1000 frames to go: the key is read at frame 0's events, so run() ends after frame 0, whose screenshot
  // is then written. Ignored, the screenshot would be frame 999's.
  lab::Options windowed = headless(api, lab::SceneId::Wave);
  windowed.headless = false;
  windowed.no_ui = true;
  windowed.frames = 1000;
  windowed.screenshot = (folder / "quit.png").string();
  const std::string title = std::string("interop-lab (") + lab::display_name(api) + ")";
  bool posted = false;
  int status = -1;
  lab::Options fresh_options = headless(api, lab::SceneId::Wave);
  {
    // The window (its swap chain, GLFW) is gone before the fresh headless run starts.
    App window(windowed);
    const HWND hwnd = FindWindowA(nullptr, title.c_str());
    posted = hwnd != nullptr && PostMessageW(hwnd, WM_KEYDOWN, VK_ESCAPE, (1 << 16) | 1) != 0;
    status = window.run();
    fresh_options.width = window.extent().width;
    fresh_options.height = window.extent().height;
  }
  App fresh(fresh_options);
  fresh.render_frame(0);
  const bool shot = std::filesystem::exists(windowed.screenshot);
  const bool frame_zero = shot && same_image(lab::read_png(windowed.screenshot), fresh.read_frame());
  checks.check(posted && status == 0 && frame_zero,
               prefix + "Esc pressed in a window of 1000 frames: run() ended after frame 0",
               !posted       ? "no window titled '" + title + "' to post Esc to"
               : !shot       ? "no screenshot written"
               : !frame_zero ? "its screenshot is not frame 0"
                             : "");
}

// In a window with the panel: the API's ImGui backend made its pipeline and font; what the window shows
// outside the panel's rectangle (ImGui's window "interop-lab") is the headless frame byte for byte; inside,
// the panel shows. Under Wine, Direct3D 12's panel may draw nothing visible (vkd3d reads zeros through the
// descriptor table ImGui samples its font with): said, not failed. Then F1 hides the panel: the whole window
// is the frame.
template <class App>
void check_panel(lab::GraphicsApi api, Checks& checks) {
  const std::string prefix = std::string(lab::to_string(api)) + ": ";
  lab::Options options = headless(api, lab::SceneId::Wave);
  options.headless = false;
  options.width = 320;
  options.height = 240;
  App window(options, {lab::d3d::dxgi_doctor_source()});
  // ImGui hides a new auto-sized window for its first frame, while it measures it.
  for (long long frame = 0; frame < 3; ++frame) window.render_frame(frame);
  // The panel's doctor section: --doctor's report, made beside the app with its sources (here DXGI's).
  const std::optional<lab::DoctorReport>& report = window.doctor_report();
  const std::string report_text = report ? lab::format_doctor_report(*report) : "";
  const bool has_dxgi = report_text.find(lab::kDxgiSectionTitle) != std::string::npos;
  checks.check(has_dxgi, prefix + "the panel has the doctor's report with its DXGI section",
               has_dxgi ? ""
               : report ? "no section '" + std::string(lab::kDxgiSectionTitle) + "' in:\n" + report_text
                        : "no report");
  const lab::Image shown = window.read_window();
  lab::Options fresh_options = headless(api, lab::SceneId::Wave);
  fresh_options.width = shown.width;
  fresh_options.height = shown.height;
  App fresh(fresh_options);
  checks.check(!fresh.doctor_report(), prefix + "headless with no desk: no doctor's report is made");
  fresh.render_frame(2);
  const lab::Image frame = fresh.read_frame();
  const ImGuiWindow* panel = ImGui::FindWindowByName("interop-lab");
  if (panel == nullptr || shown.width != frame.width || shown.height != frame.height) {
    checks.check(
        false, prefix + "the panel in a window",
        panel == nullptr ? "ImGui has no window 'interop-lab'" : "the window and the frame differ in size");
    return;
  }
  const int left = static_cast<int>(std::floor(panel->Pos.x));
  const int top = static_cast<int>(std::floor(panel->Pos.y));
  const int right = static_cast<int>(std::ceil(panel->Pos.x + panel->Size.x));
  const int bottom = static_cast<int>(std::ceil(panel->Pos.y + panel->Size.y));
  long long changed_inside = 0, changed_outside = 0;
  for (int y = 0; y < shown.height; ++y)
    for (int x = 0; x < shown.width; ++x) {
      const size_t at = (static_cast<size_t>(y) * shown.width + x) * 4;
      if (std::equal(&shown.rgba[at], &shown.rgba[at] + 4, &frame.rgba[at])) continue;
      const bool inside = x >= left && x < right && y >= top && y < bottom;
      ++(inside ? changed_inside : changed_outside);
    }
  const std::string rectangle = std::to_string(right - left) + "x" + std::to_string(bottom - top) + " at " +
                                std::to_string(left) + "," + std::to_string(top);
  // The API's ImGui backend made its pipeline and font texture (the font's id is set last), so it drew.
  const bool backend_ready = ImGui::GetIO().Fonts->TexID != nullptr;
  checks.check(backend_ready, prefix + "ImGui's backend made its pipeline and font texture");
  const bool may_be_invisible = api == lab::GraphicsApi::D3d12 && under_wine() && backend_ready;
  checks.check(changed_outside == 0 && (changed_inside > 0 || may_be_invisible),
               prefix + "the panel (" + rectangle +
                   ") over the window's frame, which is the headless frame outside it",
               std::to_string(changed_inside) + " pixels of the panel's rectangle differ from the frame, " +
                   std::to_string(changed_outside) + " outside it" +
                   (changed_inside == 0 ? " (nothing of the panel visible)" : ""));
  window.handle_hotkey(lab::Hotkey::TogglePanel);
  window.render_frame(3);
  fresh.render_frame(3);
  checks.check(same_image(window.read_window(), fresh.read_frame()),
               prefix + "F1 hid the panel: the window shows the headless frame");

  // V: off (--frames runs as fast as it can), on, off again; headless there is nothing to switch.
  const bool vsync_before = window.vsync();
  window.handle_hotkey(lab::Hotkey::ToggleVsync);
  const bool vsync_after = window.vsync();
  window.handle_hotkey(lab::Hotkey::ToggleVsync);
  fresh.handle_hotkey(lab::Hotkey::ToggleVsync);
  checks.check(!vsync_before && vsync_after && !window.vsync() && !fresh.vsync(),
               prefix + "V switched the window's vsync on and off again (headless: no vsync to switch)");

  // F11: the window fills the monitor (Xvfb's screen under Wine) and shows the headless frame at that size,
  // then comes back to its size.
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor != nullptr ? glfwGetVideoMode(monitor) : nullptr;
  if (mode == nullptr) {
    std::printf("     no monitor to fill: F11 not checked\n");
    return;
  }
  const lab::Extent windowed = window.extent(), screen{mode->width, mode->height};
  window.handle_hotkey(lab::Hotkey::Fullscreen);
  // The window manager (Wine's, in Xvfb) may take a few events to apply it.
  long long index = 4;
  for (; index < 24 && window.extent() != screen; ++index) window.render_frame(index);
  window.render_frame(index);
  lab::Options screen_options = headless(api, lab::SceneId::Wave);
  screen_options.width = screen.width;
  screen_options.height = screen.height;
  App screen_fresh(screen_options);
  screen_fresh.render_frame(index);
  const lab::Extent filled = window.extent();
  checks.check(filled == screen && same_image(window.read_window(), screen_fresh.read_frame()),
               prefix + "F11 filled the " + lab::size_text(screen.width, screen.height) +
                   " monitor with the headless frame at its size",
               lab::size_text(filled.width, filled.height));
  window.handle_hotkey(lab::Hotkey::Fullscreen);
  for (++index; index < 48 && window.extent() != windowed; ++index) window.render_frame(index);
  checks.check(window.extent() == windowed,
               prefix + "F11 again: the window is back at " + lab::size_text(windowed.width, windowed.height),
               lab::size_text(window.extent().width, window.extent().height));
}
// Everything above for one API.
template <class App>
void check_app(lab::GraphicsApi api, Checks& checks) {
  check_switches<App>(api, checks);
  check_hotkeys<App>(api, checks);
  check_panel<App>(api, checks);
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
  // Every window here is a GLFW init and terminate of its own, and GLFW's terminate unloads its joystick
  // libraries (DirectInput, XInput) while the process goes on. Wine 8.0's leave a thread that, on a busy
  // machine, runs after its code is gone: "Unhandled page fault on execute access", after the check that
  // closed the window had passed. Holding them loaded for the whole run keeps their code there (released
  // with the process); the app itself terminates GLFW only at exit.
  for (const char* library : {"dinput8.dll", "xinput1_4.dll", "xinput1_3.dll", "xinput9_1_0.dll"})
    LoadLibraryA(library);
  Checks checks;
  const bool d3d11 = run_where_there_is_a_device(lab::GraphicsApi::D3d11, lab::d3d11::create_device,
                                                 check_app<lab::d3d11::App>, checks);
  const bool d3d12 = run_where_there_is_a_device(lab::GraphicsApi::D3d12, lab::d3d12::create_device,
                                                 check_app<lab::d3d12::App>, checks);
  std::printf("d3d_app_check: %s (%d failed)\n", checks.failed == 0 ? "passed" : "FAILED", checks.failed);
  if (checks.failed != 0) return 1;
  return d3d11 && d3d12 ? 0 : 77;
}
