// app/gl/app/app.hpp — GL's app: the one frame loop (app/loop/app.hpp) on GL's backend (app/gl/backend.hpp),
// headless or in a window, with what the benchmark, the Python bridge and the tests ask of GL in GL's terms:
// the platform (the GL context), the interop probe's verdict, the CUDA devices that drive GL, the show pass
// alone, and the window's input handled before a frame.
#pragma once

#include "app/gl/backend.hpp"
#include "app/gl/mode.hpp"
#include "app/gl/platform.hpp"
#include "app/gl/renderer.hpp"
#include "app/loop/app.hpp"

#include <vector>

namespace lab::gl {

class App : public loop::App<gl::Backend> {
 public:
  using loop::App<gl::Backend>::App;

  // The GL context: headless EGL or the window's.
  Platform& platform() { return device(); }
  // Whether CUDA-GL interop works with the GL context on the CUDA device (interop::probe_gl_interop).
  const interop::InteropSupport& interop_support() const { return cuda_probe().interop; }
  // The CUDA devices that drive the GL context (cudaGLGetDevices), as probed at start.
  const std::vector<int>& gl_devices() const { return driving_devices(); }
  // The frame pass alone (gl::Renderer::draw_frame): a ShowImage scene's image shown by one full-screen
  // pass in a window and by nothing headless (the image is the frame); the wave mesh drawn. The benchmark's
  // reference loop shows its frames through this.
  void show(const FrameInfo& frame) {
    renderer().draw_frame(plan(), wave_view_projection(frame.extent), frame.extent);
  }
  // The window's events and the keys pressed since the last call, handled now (render_frame does the same
  // at its start); nothing headless.
  void process_input() {
    platform().poll_events();
    for (const Hotkey hotkey : platform().take_hotkeys()) handle_hotkey(hotkey);
  }
};

}  // namespace lab::gl
