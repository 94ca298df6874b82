// tests/vulkan/test_vulkan_presenter.cpp — the Vulkan presenter (app/vulkan/presenter.hpp) in a GLFW window
// (Xvfb with lavapipe in CI): frames of both plans shown with the ImGui panel over them, the swapchain
// following the window's size, what reaches the window read back through X11 and compared with the frame,
// and the validation layer (synchronization validation on) reporting nothing. Skips with the reason
// without a display, or where the Vulkan device cannot present to it.
#include "app/vulkan/presenter.hpp"
#include "kernels/pattern.hpp"
#include "kernels/wave.hpp"
#include "tests/support/vulkan_presentation.hpp"

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <gtest/gtest.h>
#include <imgui.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

// Last: Xlib's macros (None, Bool, Status) would break the headers above.
#include <X11/Xlib.h>
#include <X11/Xutil.h>

// GLFW's X11 accessors (glfw3native.h declares them, but needs Xrandr's headers for that).
extern "C" Display* glfwGetX11Display(void);
extern "C" Window glfwGetX11Window(GLFWwindow* window);

namespace {

using lab::vulkan::Context;
using lab::vulkan::Presenter;
using lab::vulkan::Renderer;

// GLFW, a 320x240 window without a GL context, and ImGui with its GLFW backend; torn down in reverse.
class TestWindow {
 public:
  TestWindow() {
    if (std::getenv("DISPLAY") == nullptr) {
      m_why = "needs a display (CI: xvfb-run)";
      return;
    }
    if (glfwInit() != GLFW_TRUE) {
      m_why = "glfwInit failed";
      return;
    }
    m_glfw = true;
    if (glfwVulkanSupported() != GLFW_TRUE) {
      m_why = "GLFW finds no Vulkan loader with window surfaces";
      return;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    m_window = glfwCreateWindow(320, 240, "interop-lab vulkan_tests", nullptr, nullptr);
    if (m_window == nullptr) {
      m_why = "glfwCreateWindow failed";
      return;
    }
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // a test never reads or writes the user's imgui.ini
    ImGui_ImplGlfw_InitForVulkan(m_window, true);
  }
  ~TestWindow() {
    if (m_window != nullptr) {
      ImGui_ImplGlfw_Shutdown();
      ImGui::DestroyContext();
      glfwDestroyWindow(m_window);
    }
    if (m_glfw) glfwTerminate();
  }
  GLFWwindow* get() const { return m_window; }
  const std::string& why_not() const { return m_why; }

 private:
  bool m_glfw = false;
  GLFWwindow* m_window = nullptr;
  std::string m_why;
};

// The window's pixels as X has them (lavapipe's swapchain puts each presented image there), top row first.
lab::Image capture(GLFWwindow* window, lab::Extent extent) {
  Display* display = glfwGetX11Display();
  XSync(display, False);
  XImage* image = XGetImage(display, glfwGetX11Window(window), 0, 0, static_cast<unsigned>(extent.width),
                            static_cast<unsigned>(extent.height), AllPlanes, ZPixmap);
  lab::Image captured;
  if (image == nullptr) return captured;
  captured.width = extent.width;
  captured.height = extent.height;
  captured.rgba.resize(static_cast<size_t>(extent.width) * extent.height * 4);
  for (int y = 0; y < extent.height; ++y)
    for (int x = 0; x < extent.width; ++x) {
      const unsigned long pixel = XGetPixel(image, x, y);
      uint8_t* out = &captured.rgba[(static_cast<size_t>(y) * extent.width + x) * 4];
      out[0] = static_cast<uint8_t>((pixel & image->red_mask) >> __builtin_ctzl(image->red_mask));
      out[1] = static_cast<uint8_t>((pixel & image->green_mask) >> __builtin_ctzl(image->green_mask));
      out[2] = static_cast<uint8_t>((pixel & image->blue_mask) >> __builtin_ctzl(image->blue_mask));
      out[3] = 255;
    }
  XDestroyImage(image);
  return captured;
}

// Waits (at most two seconds) until the window's framebuffer is `extent`.
bool wait_for_size(GLFWwindow* window, lab::Extent extent) {
  for (int tries = 0; tries < 200; ++tries) {
    glfwPollEvents();
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    if (lab::Extent{width, height} == extent) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(VulkanPresenter, ShowsBothPlansRightWayUpWithThePanelAndFollowsTheWindowSize) {
  TestWindow window;
  if (window.get() == nullptr) GTEST_SKIP() << window.why_not();
  lab::vulkan::ContextOptions options;
  options.validation = lab::vulkan::Validation::Synchronization;
  options.surface_extensions = lab::vulkan::surface_extensions();
  std::unique_ptr<Context> context;
  try {
    context = std::make_unique<Context>(nullptr, options);
  } catch (const std::runtime_error& error) {
    GTEST_SKIP() << "needs a Vulkan driver that presents to windows: " << error.what();
  }

  {
    // The pattern at half the window's size: the presenter scales it by exactly 2 (nearest).
    const lab::Extent frame{160, 120};
    Renderer renderer(*context, frame);
    lab::ResourceDesc texture;
    texture.label = "pattern texture";
    texture.kind = lab::ResourceKind::Texture2D;
    texture.width = frame.width;
    texture.height = frame.height;
    texture.bytes = static_cast<size_t>(frame.width) * frame.height * 4;
    lab::ResourceDesc vertices;
    vertices.label = "vertex buffer";
    vertices.bytes = sizeof(kernels::WaveVertex) * lab::kWaveGrid * lab::kWaveGrid;
    renderer.create_resources({texture, vertices}, false);
    std::vector<kernels::Rgba8> pixels(static_cast<size_t>(frame.width) * frame.height);
    kernels::pattern_cpu(kernels::linear_target(pixels.data(), static_cast<size_t>(frame.width) * 4,
                                                frame.width, frame.height),
                         {frame.width, frame.height, 0.5f});
    renderer.upload(0, pixels.data());
    kernels::WaveParams wave;
    wave.grid_x = wave.grid_z = lab::kWaveGrid;
    std::vector<kernels::WaveVertex> mesh(static_cast<size_t>(kernels::wave_vertex_count(wave)));
    kernels::wave_cpu(mesh.data(), wave);
    renderer.upload(1, mesh.data());

    std::unique_ptr<Presenter> presenter_owner;
    try {
      presenter_owner = std::make_unique<Presenter>(renderer, window.get(), true);
    } catch (const std::runtime_error& error) {
      if (!labtest::cannot_present_here(error.what())) throw;
      GTEST_SKIP() << "needs a Vulkan device that presents to this display: " << error.what();
    }
    Presenter& presenter = *presenter_owner;
    // Refused before a swapchain image is acquired, so the next present still works.
    EXPECT_THROW(presenter.draw(lab::lit_mesh_plan(1), nullptr), std::logic_error) << "no frame drawn yet";
    EXPECT_THROW(presenter.draw(lab::show_image_plan(1), nullptr), std::logic_error)
        << "resource 1 is a buffer";
    renderer.draw_frame(lab::lit_mesh_plan(1), lab::wave_view_projection(frame), {});
    for (int i = 0; i < 4; ++i) {
      glfwPollEvents();
      presenter.begin_ui_frame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      ImGui::SetNextWindowPos({4, 4});
      ImGui::Begin("panel");
      ImGui::Text("frame %d", i);
      ImGui::End();
      ImGui::Render();
      EXPECT_TRUE(
          presenter.draw(i % 2 == 0 ? lab::show_image_plan(0) : lab::lit_mesh_plan(1), ImGui::GetDrawData()));
    }
    EXPECT_EQ(presenter.extent(), (lab::Extent{320, 240}));

    // Without the panel, what reaches the window is the pattern, top row first, each texel 2x2; read back
    // before it is presented (what --screenshot writes in a window), the image holds just that.
    ASSERT_TRUE(presenter.draw(lab::show_image_plan(0), nullptr));
    renderer.wait_idle();
    const lab::Image expected = renderer.read_frame(lab::show_image_plan(0));
    const lab::Image back_buffer = presenter.read_back_buffer();
    ASSERT_EQ(back_buffer.width, 320) << "the swapchain's images could not be read back";
    ASSERT_EQ(back_buffer.height, 240);
    int back_buffer_mismatches = 0;
    for (int y = 0; y < back_buffer.height; ++y)
      for (int x = 0; x < back_buffer.width; ++x)
        for (int c = 0; c < 3; ++c)
          if (back_buffer.pixel(x, y)[c] != expected.pixel(x / 2, y / 2)[c]) ++back_buffer_mismatches;
    EXPECT_EQ(back_buffer_mismatches, 0) << "the back buffer read back differs from the frame";
    presenter.present();
    // The window system may take the image a moment after vkQueuePresentKHR returns: look again for up to
    // three seconds (a loaded machine took over one); a wrong picture never matches.
    lab::Image shown;
    int mismatches = -1;
    for (int tries = 0; tries < 150 && mismatches != 0; ++tries) {
      if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      shown = capture(window.get(), presenter.extent());
      ASSERT_EQ(shown.width, 320) << "XGetImage failed";
      mismatches = 0;
      for (int y = 0; y < shown.height; ++y)
        for (int x = 0; x < shown.width; ++x)
          for (int c = 0; c < 3; ++c)
            if (shown.pixel(x, y)[c] != expected.pixel(x / 2, y / 2)[c]) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0) << "the window's pixels differ from the frame (top-left red: window "
                             << int(shown.pixel(0, 0)[0]) << ", frame " << int(expected.pixel(0, 0)[0])
                             << ")";

    glfwSetWindowSize(window.get(), 400, 300);
    ASSERT_TRUE(wait_for_size(window.get(), {400, 300})) << "the window did not take its new size";
    EXPECT_TRUE(presenter.draw(lab::lit_mesh_plan(1), nullptr));
    presenter.present();
    EXPECT_EQ(presenter.extent(), (lab::Extent{400, 300}));
  }
  EXPECT_EQ(context->validation_messages(), 0) << "the validation layer's messages are printed above";
}

}  // namespace
