// app/vulkan/presenter.hpp — shows the Vulkan renderer's frames in a GLFW window: a VkSurfaceKHR of the
// window (made with GLFW_NO_API), a swapchain (FIFO with vsync, else MAILBOX or IMMEDIATE where the
// surface has one) re-created when the window's size or the vsync choice changes, each frame
// blitted right way up by Renderer::show, and Dear ImGui's Vulkan backend (Debian's libimgui.a) drawing
// the panel over it. Needs a Context made with surface_extensions() (ContextOptions), on a device that
// can present to the window.
#pragma once

#include "app/vulkan/renderer.hpp"

#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;
struct ImDrawData;

namespace lab::vulkan {

// The instance extensions GLFW needs for window surfaces (call after glfwInit); throws std::runtime_error
// when GLFW finds no Vulkan loader.
std::vector<std::string> surface_extensions();

class Presenter {
 public:
  // Presents `renderer`'s frames in `window`; both are borrowed and must outlive the presenter. With `ui`
  // it initialises ImGui's Vulkan backend for this swapchain (the caller has made the ImGui context and
  // initialised its GLFW backend with ImGui_ImplGlfw_InitForVulkan) and shuts it down again.
  // `vsync`: frames pace to the display (FIFO); off, they are shown as they come (MAILBOX, else IMMEDIATE,
  // else FIFO where the surface has neither).
  Presenter(Renderer& renderer, GLFWwindow* window, bool ui, bool vsync = true);
  ~Presenter();  // waits for the device, then destroys the swapchain and the surface
  Presenter(const Presenter&) = delete;
  Presenter& operator=(const Presenter&) = delete;

  // With `ui`: the Vulkan backend's share of a new ImGui frame; call it before ImGui_ImplGlfw_NewFrame
  // and ImGui::NewFrame.
  void begin_ui_frame();
  // Draws what Renderer::read_frame(plan) would read, scaled to the window, with `ui` (ImGui::GetDrawData(),
  // or null) drawn over it, into the next swapchain image; present() shows it. Re-creates the swapchain first
  // when the window's size changed. Returns false when nothing was shown: the window is minimised (0 x 0).
  // Throws std::logic_error when the renderer has no frame for `plan` (Renderer::missing_frame).
  bool draw(const DrawPlan& plan, ImDrawData* ui);
  // Shows the image draw() rendered (once). A draw() before it presents the image drawn before first.
  void present();
  // What the window shows, top row first: the image draw() rendered, panel included, before present() shows
  // it. Empty when nothing is waiting to be shown or the surface's images cannot be copied from.
  Image read_back_buffer();
  // The swapchain follows the window's framebuffer at the next draw().
  void resize(Extent) {}
  // The swapchain's size: the window's framebuffer at the last present.
  Extent extent() const;
  // Takes effect at the next present (the swapchain is re-created).
  void set_vsync(bool vsync);
  bool vsync() const;
  // The swapchain's present mode: "fifo", "mailbox", "immediate".
  const char* present_mode() const;

 private:
  struct State;
  Renderer& m_renderer;
  std::unique_ptr<State> m_state;
};

}  // namespace lab::vulkan
