// app/vulkan/app/app.cpp — what the one frame loop (app/loop/app.hpp) needs of Vulkan: the device on the CUDA
// device's GPU, the window's surface extensions, and the panel's present mode and validation count.
#include "app/vulkan/app/app.hpp"

#include "app/vulkan/cuda_link.hpp"

namespace lab::vulkan {

std::unique_ptr<Context> Vulkan::create_device(const CudaContext& cuda, const glfw::Window* window,
                                               const Options& /*options: none are Vulkan's own*/) {
  ContextOptions options;
  if (window != nullptr) options.surface_extensions = surface_extensions();
  if (cuda.device < 0) return std::make_unique<Context>(nullptr, options);
  const Uuid uuid = cuda_device_uuid(cuda.device);
  return std::make_unique<Context>(&uuid, options);
}

std::vector<std::pair<std::string, std::string>> Vulkan::status_lines(const Context& context,
                                                                      const Presenter* presenter) {
  std::vector<std::pair<std::string, std::string>> lines;
  if (presenter != nullptr)
    lines.emplace_back("present",
                       std::string(presenter->present_mode()) + (presenter->vsync() ? " (vsync)" : ""));
  lines.emplace_back("validation", std::to_string(context.validation_messages()) + " messages");
  return lines;
}

std::unique_ptr<Presenter> Vulkan::create_presenter(Renderer& renderer, Context& /*context: the renderer's*/,
                                                    glfw::Window& window, Extent /*extent: the window's*/,
                                                    bool with_ui, bool vsync) {
  return std::make_unique<Presenter>(renderer, window.handle(), with_ui, vsync);
}

glfw::WindowDesc Vulkan::window_desc(Extent extent) {
  glfw::WindowDesc desc;
  desc.extent = extent;
  desc.title = "interop-lab (Vulkan)";
  desc.no_display_remedy = ". Without a display, run under Xvfb (xvfb-run) or use --headless";
  desc.vulkan = true;
  return desc;
}

}  // namespace lab::vulkan
