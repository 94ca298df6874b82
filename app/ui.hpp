// app/ui.hpp — the Dear ImGui panel (GLFW + OpenGL3 backends from Debian's libimgui): scene, mode,
// size, renderer and frame time. It reads the app's state through PanelModel and reports what the
// user picked; it never changes the app itself.
#pragma once

#include "app/app.hpp"

#include <array>
#include <optional>
#include <string>

struct GLFWwindow;

namespace lab {

struct PanelModel {
  SceneId scene = SceneId::Wave;
  ModeId mode = ModeId::Cpu;
  std::array<ModeAvailability, 2> modes;  // indexed like all_modes()
  Extent extent;
  std::string platform;
  std::string renderer;
  std::string cuda;     // "CUDA device 0: NVIDIA H200" or why there is none
  std::string notice;   // the last fallback or refusal, "" when none
  float frame_ms = 0.0f;
};

struct PanelActions {
  std::optional<SceneId> scene;
  std::optional<ModeId> mode;
};

class Panel {
 public:
  explicit Panel(GLFWwindow* window);
  ~Panel();
  Panel(const Panel&) = delete;
  Panel& operator=(const Panel&) = delete;

  // Builds and draws the panel over the current framebuffer.
  PanelActions draw(const PanelModel& model);

 private:
  static constexpr int kHistory = 240;
  std::array<float, kHistory> m_frame_ms{};
  int m_next = 0;
  float m_average_ms = 0.0f;
};

}  // namespace lab
