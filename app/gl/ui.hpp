// app/gl/ui.hpp — the Dear ImGui panel (GLFW + OpenGL3 backends from Debian's libimgui): scene, mode,
// map and register flags, per-phase timings with a mode comparison, and the system it runs on. It
// reads the app's state through PanelModel and reports what the user picked; it never changes the
// app itself.
#pragma once

#include "app/doctor/doctor.hpp"
#include "app/gl/mode.hpp"
#include "app/gl/platform.hpp"
#include "app/gl/timing.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

struct GLFWwindow;

namespace lab {

struct PanelModel {
  SceneId scene = SceneId::Wave;
  ModeId mode = ModeId::Cpu;
  std::vector<ModeAvailability> modes;  // indexed like all_modes()
  Extent extent;
  std::string platform;
  std::string renderer;
  std::string cuda;                  // "CUDA device 0: NVIDIA H200 (...)" or "CUDA: no device"
  std::string notice;                // the last fallback or refusal, "" when none
  std::vector<std::string> devices;  // "0: NVIDIA H200 (drives GL)", one per CUDA device
  int device = -1;
  int compute_device = -1;  // the split mode's
  SplitCopy split_copy = SplitCopy::Peer;
  std::string transfer;  // the split mode's path, "" in the other modes
  AccessSettings access;
  std::vector<RegisteredFlags> flags;  // what the mode registered, with the flags in force
  const FrameTimers* timers = nullptr;
  const DoctorReport* doctor = nullptr;
  bool timing = true;  // per-phase timing on (it costs about one GL/CUDA context switch a frame)
  bool vsync = true;
  double refresh_hz = 0.0;         // of the window's monitor; 0 when unknown
  std::string last_screenshot;     // the file the last screenshot went to, "" before the first
  std::function<void()> scene_ui;  // the scene's own controls
};

struct PanelActions {
  std::optional<SceneId> scene;
  std::optional<ModeId> mode;
  std::optional<int> device;
  std::optional<int> compute_device;
  std::optional<SplitCopy> split_copy;
  std::optional<bool> timing;
  // Outer optional: the user changed it; inner: the flags (unset = each resource's best).
  std::optional<std::optional<interop::Access>> map_access;
  std::optional<std::optional<interop::Access>> register_access;
  std::optional<bool> vsync;
  bool screenshot = false;  // the screenshot button
};

struct PanelDesc {
  // imgui.ini: read when the panel starts, written as ImGui saves (every few seconds of change) and when
  // it closes; its folder is created. "" keeps the layout in memory only.
  std::string layout_file;
  float content_scale = 1.0f;  // glfwGetWindowContentScale: fonts and sizes grow with it
};

class Panel {
 public:
  Panel(GLFWwindow* window, const PanelDesc& desc);
  ~Panel();
  Panel(const Panel&) = delete;
  Panel& operator=(const Panel&) = delete;

  // Builds and draws the panel over the current framebuffer.
  PanelActions draw(const PanelModel& model);

  // Where the panel's window was at the last draw (the layout file moves it), in pixels.
  float x() const { return m_x; }
  float y() const { return m_y; }

 private:
  std::string m_layout_file;  // ImGui keeps a pointer to it: it must outlive the context
  float m_x = 0.0f, m_y = 0.0f;
};

}  // namespace lab
