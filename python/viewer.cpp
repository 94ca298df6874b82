// python/viewer.cpp — the C ABI of interop_lab.Viewer (python/interop_lab/viewer.py): shows the caller's
// arrays in a GLFW window, or headless through EGL, on the app's GL platform layer (app/gl/platform.hpp).
//
// Three paths take a picture from the caller's memory to what GL draws, chosen at open:
//   interop  the picture lives in a GL buffer registered with CUDA; a fragment shader reads its pixels
//            straight from it (an SSBO). A CUDA array costs one kernel (or copy) into the mapped buffer, on
//            the caller's stream, and nothing waits on the host; frame_begin hands out the mapped buffer
//            itself (zero copy).
//   staging  CUDA is there but cannot share with this GL context (Mesa, GL on another GPU, WSL): CUDA
//            converts into device memory, copies to pinned host memory, GL uploads it into a texture.
//   cpu      no CUDA: the caller's host pixels go into a texture (glTextureSubImage2D).
// Every call makes the viewer's context current and gives the caller's back (python/gl_context.hpp);
// functions return 0, or -1 with the reason in ilab_last_error(), as bridge.cpp's do.
//
// Looking at the caller's data: the picture lies in the frame as app/scene/view.hpp says (a fit, or a
// zoomed and panned free view); a window's input (wheel, drag, keys), collected by its ImGui, moves that
// view, pauses and steps; the panel's readout reads one element of the caller's array under the cursor
// (app/scene/readout.hpp), and draws the colorbar, the stack's slider and the caller's controls as the app's
// panel does (app/panel/panel.hpp's draw_caller_tools; app/scene/caller_controls.hpp). Python acts on what
// the panel asked (another frame of a stack, the controls' callbacks) at poll().
//
// Served (ilab_viewer_serve, Viewer(serve=...)): the browser desk's serve::Desk (app/serve/desk.hpp) gets
// each frame presented, read back on the viewer's thread right after it is drawn (the panel not in it), with
// a state that says it is a viewer: its path, its phases (upload or copy, draw, and the desk's read-back,
// encode, send) and no scene or mode controls; the desk refuses the page's commands but pause and step,
// which present() applies as Space and period would.
#include "app/gl/gl_objects.hpp"
#include "app/gl/platform.hpp"
#include "app/image/image_io.hpp"
#include "app/loop/commands.hpp"
#include "app/panel/panel.hpp"
#include "app/scene/caller_controls.hpp"
#include "app/scene/orbit.hpp"
#include "app/scene/picture.hpp"
#include "app/scene/readout.hpp"
#include "app/scene/view.hpp"
#include "app/serve/desk.hpp"
#include "app/timing/timing.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "interop/mapping.hpp"
#include "interop/memory.hpp"
#include "kernels/convert.hpp"
#include "python/errors.hpp"
#include "python/gl_context.hpp"
#include "python/protocol_abi.hpp"
#include "python/viewer_points.hpp"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <cuda_runtime_api.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using ilab::guarded;

using Clock = std::chrono::steady_clock;

enum class Path { Interop, Staging, Cpu };

const char* path_name(Path path) {
  switch (path) {
    case Path::Interop:
      return "interop";
    case Path::Staging:
      return "staging";
    default:
      return "cpu";
  }
}

// The app's mode of the same name: a path is named as the mode that takes that way.
lab::ModeId path_mode(Path path) {
  return lab::mode_named(path_name(path));
}

constexpr const char* kViewer = "this interop_lab.Viewer";

// A full-screen triangle; both fragment shaders pick the image pixel a framebuffer pixel shows the same way
// (app/scene/view.hpp's pixel_at: a fit's integer rule, or a free view's floored transform, nearest
// either way; row 0 of the image at the top), so the two paths draw the same frame. Outside the picture:
// black, the letterbox.
constexpr const char* kVertexShader = R"(#version 450
void main() {
  const vec2 corners[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
  gl_Position = vec4(corners[gl_VertexID], 0.0, 1.0);
})";

constexpr const char* kPixelPicker = R"(#version 450
layout(location = 0) uniform ivec2 image_size;
layout(location = 1) uniform ivec2 viewport_size;
layout(location = 2) uniform ivec4 fit_rect;   // the integer rule's rectangle: x, bottom row (GL's), w, h
layout(location = 3) uniform vec4 free_view;   // otherwise: origin x, y (rows top-down), scale x, y
layout(location = 4) uniform int integer_rule;
out vec4 colour;
// The image pixel (row 0 at the top) this fragment shows, or -1 outside the picture.
ivec2 image_pixel() {
  if (integer_rule == 0) {
    const vec2 point = vec2(gl_FragCoord.x, float(viewport_size.y) - gl_FragCoord.y);
    const vec2 at = floor((point - free_view.xy) / free_view.zw);
    if (any(lessThan(at, vec2(0.0))) || any(greaterThanEqual(at, vec2(image_size)))) return ivec2(-1);
    return ivec2(at);
  }
  const ivec2 from = ivec2(gl_FragCoord.xy) - fit_rect.xy;
  if (any(lessThan(from, ivec2(0))) || any(greaterThanEqual(from, fit_rect.zw))) return ivec2(-1);
  const ivec2 at = from * image_size / fit_rect.zw;
  return ivec2(at.x, image_size.y - 1 - at.y);
}
)";

constexpr const char* kTextureShader = R"(
layout(binding = 0) uniform sampler2D image;
void main() {
  const ivec2 at = image_pixel();
  colour = at.x < 0 ? vec4(0.0, 0.0, 0.0, 1.0) : texelFetch(image, at, 0);
})";

constexpr const char* kBufferShader = R"(
layout(std430, binding = 0) readonly buffer Pixels { uint pixels[]; };
void main() {
  const ivec2 at = image_pixel();
  colour = at.x < 0 ? vec4(0.0, 0.0, 0.0, 1.0) : unpackUnorm4x8(pixels[at.y * image_size.x + at.x]);
})";

GLuint compile(GLenum stage, const char* source, const char* body = "") {
  const GLuint shader = glCreateShader(stage);
  const char* sources[2] = {source, body};
  glShaderSource(shader, 2, sources, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    char log[2048] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    throw std::runtime_error(std::string("the viewer's shader does not compile: ") + log);
  }
  return shader;
}

// The picture's programs: the full-frame triangle and the pixel picker with `fragment_source`'s main.
lab::gl::GlProgram link_program(const char* fragment_source) {
  const GLuint vertex = compile(GL_VERTEX_SHADER, kVertexShader);
  GLuint fragment = 0;
  try {
    fragment = compile(GL_FRAGMENT_SHADER, kPixelPicker, fragment_source);
  } catch (...) {
    glDeleteShader(vertex);
    throw;
  }
  lab::gl::GlProgram program(glCreateProgram());
  glAttachShader(program.get(), vertex);
  glAttachShader(program.get(), fragment);
  glLinkProgram(program.get());
  glDeleteShader(vertex);  // freed with the program
  glDeleteShader(fragment);
  GLint ok = GL_FALSE;
  glGetProgramiv(program.get(), GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    char log[2048] = {};
    glGetProgramInfoLog(program.get(), sizeof log, nullptr, log);
    throw std::runtime_error(std::string("the viewer's shaders do not link: ") + log);
  }
  return program;
}

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument(message);
}

// Input handed in through ilab_viewer_inject as GLFW would hand it to ImGui: it reaches ImGui's IO after
// the GLFW backend wrote the frame's (so a test's cursor is not overwritten by the real one) and before
// ImGui::NewFrame, then takes the same way as the user's. Window coordinates, as GLFW's.
struct InjectedInput {
  bool has_cursor = false;
  float x = 0.0f, y = 0.0f;
  int button = -1;  // the left button held (1) or not (0) from now on; -1: as the real mouse says
  float wheel = 0.0f;
  std::vector<int> keys;           // GLFW key codes pressed for the next frame
  std::vector<int> keys_released;  // pressed in the last frame: released in this one
};

// The window's ImGui (own context per viewer, made current around each use): the panel, when asked for,
// and in any case the viewer's input (wheel, drag, keys), which ImGui collects from GLFW's callbacks.
class Panel {
 public:
  Panel(GLFWwindow* window, bool visible) : m_context(ImGui::CreateContext()), m_visible(visible) {
    ImGui::SetCurrentContext(m_context);
    ImGui::GetIO().IniFilename = nullptr;  // a viewer keeps no layout file in the caller's folder
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 450");
  }
  ~Panel() {
    ImGui::SetCurrentContext(m_context);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext(m_context);
  }
  Panel(const Panel&) = delete;
  Panel& operator=(const Panel&) = delete;

  bool visible() const { return m_visible; }

  // GLFW's callbacks, which ImGui's backend installed, write into the current ImGui context: it must be this
  // one whenever glfwPollEvents may run them.
  void make_current() { ImGui::SetCurrentContext(m_context); }

  // Starts ImGui's frame: the input since the last one is in ImGui::GetIO() after this.
  void begin(InjectedInput& injected) {
    ImGui::SetCurrentContext(m_context);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGuiIO& io = ImGui::GetIO();
    if (injected.has_cursor) io.MousePos = ImVec2(injected.x, injected.y);
    if (injected.button >= 0) io.MouseDown[0] = injected.button == 1;
    io.MouseWheel += std::exchange(injected.wheel, 0.0f);
    for (const int key : injected.keys_released) io.KeysDown[key] = false;
    injected.keys_released = std::exchange(injected.keys, {});
    for (const int key : injected.keys_released) io.KeysDown[key] = true;
    ImGui::NewFrame();
  }

  // The panel's window around `body` (when visible), then ImGui's frame drawn.
  template <class Body>
  void end(Body&& body) {
    ImGui::SetCurrentContext(m_context);
    if (m_visible) {
      ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
      ImGui::Begin("interop_lab", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
      body();
      ImGui::End();
    }
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  }

 private:
  ImGuiContext* m_context;
  bool m_visible;
};

struct Stats {
  double update_ms = 0.0;  // host time of the last update (show / frame end), not GPU time
  double draw_ms = 0.0;    // host time of the last draw and present
  double fps = 0.0;        // presented frames a second, smoothed
  long long frames = 0;
  Clock::time_point last_present{};
};

struct Viewer {
  std::unique_ptr<lab::gl::Platform> platform;
  ilab::GlContext context;
  ilab::OwnerThread owner;
  Path path = Path::Cpu;
  std::string path_reason;  // why this path and not interop ("" when interop, or when asked for)
  int cuda_device = -1;

  lab::gl::GlProgram texture_program;
  lab::gl::GlProgram buffer_program;
  lab::gl::GlVertexArray vertex_array;

  lab::Extent content;         // the picture's size; empty before the first update
  lab::gl::GlTexture texture;  // staging, cpu
  lab::gl::GlBuffer buffer;    // interop
  std::optional<interop::GlBufferRegistration> registration;  // of `buffer`; dies before it
  interop::DeviceBuffer staging_device;                       // staging: the converted picture
  interop::PinnedHostBuffer staging_host;                     // staging: on its way to GL
  std::vector<uint8_t> host_frame;                            // cpu: what frame_begin hands out
  lab::PictureBlit blit;                  // converts a CUDA array into what GL draws (app/scene/picture.hpp)
  interop::DeviceBuffer colormap_device;  // 256 x RGBA8, for the points' one value a point
  interop::DeviceBuffer bounds_device;    // range="auto": kernels::find_value_bounds's
  std::array<uint8_t, 1024> colormap_host{};  // what colormap_device holds
  std::string value_range;  // what the picture's values were mapped through, as Python says it ("" none)

  std::optional<interop::ScopedMap> frame_map;  // interop: mapped between frame_begin and frame_end
  cudaStream_t frame_stream = nullptr;
  bool in_frame = false;
  Clock::time_point frame_started{};

  std::unique_ptr<Panel> panel;
  InjectedInput injected;
  Stats stats;

  // Looking closely: the fit or free view, the array the readout reads (the frame shown), the frames of a
  // stack, the readout's line and the colorbar's table and range (one-channel pictures).
  lab::view::View view;
  lab::readout::Source source;

  // Points (Viewer.points): shown instead of the picture from their first update until the next picture.
  std::unique_ptr<ilab::points::Cloud> points;
  bool showing_points = false;
  lab::orbit::Orbit camera;
  bool camera_framed = false;  // the camera framed the points' bounds once; later sets keep it where it is
  float point_size = 3.0f;
  Clock::time_point points_started;
  cudaStream_t points_stream = nullptr;
  lab::caller::Stack stack;                // the stack's frame shown, or asked for (Python shows it at poll)
  lab::panel::FramePointer pointer;        // the window's pointer over the frame, and a drag begun on it
  std::optional<lab::view::Pixel> cursor;  // the image pixel under the cursor
  std::string readout;
  long long updates = 0;  // pictures shown and sources set: the readout reads a pixel once per picture
  std::array<long long, 3> readout_of{-1, -1, -1};  // the pixel and picture `readout` says (x, y, updates)
  std::array<uint8_t, 1024> colorbar{};
  bool has_colorbar = false;
  double colorbar_low = 0.0, colorbar_high = 1.0;
  // The served page's cursor (frame pixels; nullopt: off the frame), the image pixel under it and its
  // readout, read as the window's is (once per pixel and picture).
  std::optional<std::array<double, 2>> page_hover;
  std::optional<lab::view::Pixel> page_cursor;
  std::string page_readout;
  std::array<long long, 3> page_readout_of{-1, -1, -1};

  // Time: paused by the caller's Python, Space or the panel; steps asked for (period, the panel's button).
  bool paused = false;
  int steps = 0;

  // The caller's own controls, and where the panel drew each (window pixels: x0, y0, x1, y1).
  lab::caller::Registry controls;
  std::vector<std::array<float, 4>> control_rects;

  bool capture = false;  // the next present keeps what the window shows (panel and all) in `captured`
  lab::Image captured;

  // Serving to a browser: the desk, and the phases its state reports (host milliseconds).
  std::unique_ptr<lab::serve::Desk> desk;
  lab::PhaseWindow upload_ms;  // host pixels into GL (show of a NumPy array, the cpu path's frame())
  lab::PhaseWindow copy_ms;    // CUDA pixels into GL's memory (queued on the interop path)
  lab::PhaseWindow draw_ms;    // the picture drawn, finished
  lab::PhaseWindow frame_ms;   // the whole frame served: from the present's start to the read-back's end
};

using lab::readout::kOffPicture;  // the readout's line off the picture, in the panel and on the page

constexpr const char* kServedUntimed =
    "a viewer's phases are host milliseconds: on the interop path a copy is queued on your stream and "
    "returns before the GPU runs it";

// The stream's device must be the viewer's: the legacy default stream (0) belongs to whichever is current.
void require_stream_device(const Viewer& viewer, cudaStream_t stream) {
  if (stream == nullptr) return;
  int device = -1;
  INTEROP_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
  require(device == viewer.cuda_device, "the stream is on CUDA device " + std::to_string(device) +
                                            ", the viewer on device " + std::to_string(viewer.cuda_device) +
                                            ": create the stream there");
}

void require_open(const Viewer& viewer) {
  require(!viewer.in_frame, "the viewer is inside a `with viewer.frame()` block: finish it first");
}

// A picture's size as the C ABI takes it: each edge from 1 to lab::kMaxImageEdge, so that width * height * 4
// bytes fits every count computed from it.
void require_image_size(int width, int height) {
  require(width >= 1 && height >= 1 && width <= lab::kMaxImageEdge && height <= lab::kMaxImageEdge,
          "an image of " + std::to_string(width) + "x" + std::to_string(height) + ": each edge from 1 to " +
              std::to_string(lab::kMaxImageEdge));
}

// The caller's byte count of a width x height RGBA8 picture must be exactly what is read from its memory.
void require_rgba_bytes(int width, int height, uint64_t bytes) {
  const uint64_t needed = static_cast<uint64_t>(width) * static_cast<uint64_t>(height) * 4;
  require(bytes == needed, "an image of " + std::to_string(width) + "x" + std::to_string(height) + " needs " +
                               std::to_string(needed) + " bytes (width * height * 4), not " +
                               std::to_string(bytes));
}

// (Re)creates what holds the picture when its size changes.
void ensure_content(Viewer& viewer, lab::Extent extent) {
  require_image_size(extent.width, extent.height);
  viewer.showing_points = false;  // a picture takes the frame back from the points
  if (extent == viewer.content) return;
  // CUDA registers and allocates on its current device: the viewer's, whatever the caller's is.
  std::optional<interop::ScopedDevice> on_device;
  if (viewer.cuda_device >= 0) on_device.emplace(viewer.cuda_device);
  const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  viewer.content = {};
  if (viewer.path == Path::Interop) {
    viewer.registration.reset();  // before the buffer it registers
    viewer.buffer = lab::gl::create_buffer(bytes, nullptr, GL_DYNAMIC_STORAGE_BIT, "viewer pixels");
    INTEROP_GL_CHECK("creating the viewer's pixel buffer");
    interop::BufferRegistrationDesc desc;
    desc.buffer = viewer.buffer.get();
    // Not WriteDiscard: a frame() block may write part of the picture and keep the rest as shown.
    desc.access = interop::Access::ReadWrite;
    viewer.registration.emplace(desc);
  } else {
    viewer.texture = lab::gl::create_texture_2d(GL_RGBA8, extent.width, extent.height, "viewer picture");
    INTEROP_GL_CHECK("creating the viewer's texture");
    if (viewer.path == Path::Staging) {
      viewer.staging_device = interop::DeviceBuffer(bytes);
      viewer.staging_host = interop::PinnedHostBuffer(bytes);
    }
  }
  viewer.content = extent;
}

// Host RGBA8 rows, top row first, into what GL draws.
void upload_host(Viewer& viewer, const void* rgba) {
  const size_t bytes = static_cast<size_t>(viewer.content.width) * viewer.content.height * 4;
  if (viewer.path == Path::Interop) {
    glNamedBufferSubData(viewer.buffer.get(), 0, static_cast<GLsizeiptr>(bytes), rgba);
  } else {
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTextureSubImage2D(viewer.texture.get(), 0, 0, 0, viewer.content.width, viewer.content.height, GL_RGBA,
                        GL_UNSIGNED_BYTE, rgba);
  }
  INTEROP_GL_CHECK("uploading the picture");
}

// Staging: the converted picture (device) -> pinned host memory -> the texture. The host waits here:
// without interop, GL can only take host memory.
void upload_staged(Viewer& viewer, cudaStream_t stream) {
  INTEROP_CUDA_CHECK(cudaMemcpyAsync(viewer.staging_host.data(), viewer.staging_device.data(),
                                     viewer.staging_device.size(), cudaMemcpyDeviceToHost, stream));
  INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
  upload_host(viewer, viewer.staging_host.data());
}

void draw_picture(Viewer& viewer, lab::Extent extent) {
  if (viewer.showing_points) {
    std::optional<interop::ScopedDevice> on_cuda;
    if (viewer.path != Path::Cpu) on_cuda.emplace(viewer.cuda_device);
    viewer.points->draw(lab::orbit::view_projection(viewer.camera, extent.width, extent.height),
                        viewer.point_size, extent.width, extent.height, viewer.platform->framebuffer());
    return;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, viewer.platform->framebuffer());
  glViewport(0, 0, extent.width, extent.height);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (viewer.content.empty()) return;
  const bool from_buffer = viewer.path == Path::Interop;
  const GLuint program = from_buffer ? viewer.buffer_program.get() : viewer.texture_program.get();
  glUseProgram(program);
  glUniform2i(0, viewer.content.width, viewer.content.height);
  glUniform2i(1, extent.width, extent.height);
  // The sampling the app's blit and the readout take (kernels/view.hpp), as the shaders' uniforms.
  const kernels::ViewSampling s = lab::view::sampling_of(
      viewer.view, {viewer.content.width, viewer.content.height}, {extent.width, extent.height});
  if (s.integer_rule)
    glUniform4i(2, static_cast<GLint>(s.rect_x),
                static_cast<GLint>(extent.height - (s.rect_y + s.rect_height)),
                static_cast<GLint>(s.rect_width), static_cast<GLint>(s.rect_height));
  else
    glUniform4f(3, static_cast<float>(s.origin_x), static_cast<float>(s.origin_y),
                static_cast<float>(s.scale_x), static_cast<float>(s.scale_y));
  glUniform1i(4, s.integer_rule ? 1 : 0);
  if (from_buffer)
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, viewer.buffer.get());
  else
    glBindTextureUnit(0, viewer.texture.get());
  glBindVertexArray(viewer.vertex_array.get());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
  INTEROP_GL_CHECK("drawing the picture");
}

// The framebuffer just drawn, top row first (a window's back buffer, before its swap).
lab::Image read_drawn(Viewer& viewer, lab::Extent extent) {
  if (viewer.platform->is_window()) glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glPixelStorei(GL_PACK_ROW_LENGTH, 0);
  const size_t row = static_cast<size_t>(extent.width) * 4;
  std::vector<uint8_t> bottom_up(row * extent.height);
  glReadPixels(0, 0, extent.width, extent.height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  INTEROP_GL_CHECK("reading the frame");
  lab::Image image;
  image.width = extent.width;
  image.height = extent.height;
  image.rgba.resize(bottom_up.size());
  for (int y = 0; y < extent.height; ++y)
    std::memcpy(image.rgba.data() + static_cast<size_t>(y) * row,
                bottom_up.data() + (extent.height - 1 - y) * row, row);
  return image;
}

lab::serve::PhaseLine phase_line(const char* name, const lab::PhaseWindow& window) {
  const lab::PhaseStats& stats = window.stats();
  return {name, "cpu", stats.last_ms, stats.median_ms, stats.p90_ms, stats.samples, stats.measured};
}

// What the served page shows beside the frame (below serve_frame).
lab::serve::ViewerTools page_tools(Viewer& viewer, lab::Extent extent);
std::string colormap_hex(const Viewer& viewer);

// The state the page is sent about the frame shown at `extent` (its tools read the page's cursor), and what
// Python's viewer.state reads: a viewer's source, path, phases and picture tools, with no scene or mode to
// switch.
lab::serve::AppState viewer_state(Viewer& viewer, lab::Extent extent) {
  lab::serve::AppState state;
  state.api = lab::GraphicsApi::Gl;
  state.adapter = viewer.platform->description();
  state.cuda_device = viewer.cuda_device;
  state.mode = path_mode(viewer.path);
  state.modes = {{state.mode, true, viewer.path_reason}};
  state.size = extent;
  state.frame = viewer.stats.frames;
  state.phases.push_back(phase_line("frame", viewer.frame_ms));
  if (viewer.upload_ms.stats().samples > 0) state.phases.push_back(phase_line("upload", viewer.upload_ms));
  if (viewer.copy_ms.stats().samples > 0) state.phases.push_back(phase_line("copy", viewer.copy_ms));
  state.phases.push_back(phase_line("draw", viewer.draw_ms));
  state.untimed = kServedUntimed;
  state.source = "viewer";
  state.controls = {"screenshot", "pause", "step"};
  for (const lab::Control& control : lab::all_controls())
    if (lab::viewer_command(control.kind)) state.controls.push_back(control.key);
  state.settings.states[static_cast<size_t>(lab::Command::Kind::Pause)] = lab::switch_state(viewer.paused);
  state.settings.states[static_cast<size_t>(lab::Command::Kind::PictureFit)] =
      lab::choice_state(lab::view::fit_name(viewer.view.fit));
  state.settings.colormap = colormap_hex(viewer);
  state.viewer = page_tools(viewer, extent);
  state.path = path_name(viewer.path);
  state.path_reason = viewer.path_reason;
  return state;
}

// Serving: the picture just drawn (draw_started: before it) read back and handed to the desk with the state;
// the frame (its "frame" phase, the timeline's span) from `started`, where present() began it on the desk.
void serve_frame(Viewer& viewer, lab::Extent extent, Clock::time_point started,
                 Clock::time_point draw_started) {
  glFinish();  // the draw's own time, apart from the read-back's
  const Clock::time_point drawn = Clock::now();
  viewer.draw_ms.push(
      static_cast<float>(std::chrono::duration<double, std::milli>(drawn - draw_started).count()));
  lab::Image frame = read_drawn(viewer, extent);
  const Clock::time_point read = Clock::now();
  const double read_back_ms = std::chrono::duration<double, std::milli>(read - drawn).count();
  viewer.frame_ms.push(static_cast<float>(std::chrono::duration<double, std::milli>(read - started).count()));
  viewer.desk->end_frame(std::move(frame), viewer_state(viewer, extent), read_back_ms);
}

lab::view::Size image_size_of(const Viewer& viewer) {
  return {viewer.content.width, viewer.content.height};
}

// A step of time (period, the panel's button, viewer.step()): one frame for the caller's loop, paused after.
void step(Viewer& viewer) {
  viewer.paused = true;
  ++viewer.steps;
}

// The view's four moves, the one seam for the window's input, its panel, Python's calls and the served page's
// commands: points and offsets in framebuffer pixels (row 0 at the top). Nothing shown: nothing moves.
lab::view::Size frame_size_of(const Viewer& viewer) {
  const lab::Extent extent = viewer.platform->framebuffer_extent();
  return {extent.width, extent.height};
}

// The points' bounds, found where they are (the GPU's reductions, or the host's for the cpu path).
lab::orbit::Bounds points_bounds(Viewer& viewer, cudaStream_t stream) {
  std::optional<interop::ScopedDevice> on_device;
  if (viewer.cuda_device >= 0) on_device.emplace(viewer.cuda_device);
  return viewer.points->bounds(stream);
}

// Moves the picture by (dx, dy), as a drag does; turns the points' camera about its target.
void view_drag(Viewer& viewer, double dx, double dy) {
  if (viewer.showing_points) {
    viewer.camera = lab::orbit::orbit(viewer.camera, dx, dy);
    return;
  }
  if (viewer.content.empty() || (dx == 0.0 && dy == 0.0)) return;
  viewer.view = lab::view::pan_by(viewer.view, image_size_of(viewer), frame_size_of(viewer), dx, dy);
}

// Zooms by `factor` about (x, y): the image point there stays there (the wheel); the points' camera moves
// towards its target by `factor`.
void view_zoom(Viewer& viewer, double x, double y, double factor) {
  if (viewer.showing_points) {
    viewer.camera = lab::orbit::zoom(viewer.camera, factor);
    return;
  }
  if (viewer.content.empty() || factor == 1.0) return;
  viewer.view = lab::view::zoom_at(viewer.view, image_size_of(viewer), frame_size_of(viewer), x, y, factor);
}

// Back to the fit (F, the panel's and the page's fit button); the points' camera back to its first view of
// their bounds.
void view_fit(Viewer& viewer) {
  if (viewer.showing_points) {
    const lab::view::Size frame = frame_size_of(viewer);
    viewer.camera = lab::orbit::framing(points_bounds(viewer, nullptr), frame.width, frame.height);
    return;
  }
  viewer.view = lab::view::fitted(viewer.view);
}

// One image pixel per framebuffer pixel, keeping the image point at (x, y) there (1, the 1:1 buttons).
void view_actual(Viewer& viewer, double x, double y) {
  if (viewer.content.empty() || viewer.showing_points) return;
  viewer.view = lab::view::actual_size_at(viewer.view, image_size_of(viewer), frame_size_of(viewer), x, y);
}

std::string apply_page_commands(Viewer& viewer, const std::vector<lab::Command>& commands, bool& moved);

// The frame's input, as ImGui collected it (the panel takes what is over it), as the commands of the one
// vocabulary that the app's window gives for the same input (panel::frame_pointer: the wheel zooms at the
// cursor, a drag pans), and the keys: Space pauses, period steps, 1 shows the picture 1:1 at the cursor, F
// fits it again, the arrows pick a stack's frame. They take the page's path (apply_page_commands); then the
// image pixel under the cursor.
void apply_input(Viewer& viewer, lab::Extent extent) {
  std::vector<lab::Command> commands = lab::panel::frame_pointer(viewer.pointer, extent);
  const auto add = [&commands](lab::Command::Kind kind) -> lab::Command& {
    commands.emplace_back();
    commands.back().kind = kind;
    return commands.back();
  };
  if (!ImGui::GetIO().WantCaptureKeyboard) {
    using Kind = lab::Command::Kind;
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) add(Kind::Pause).on = !viewer.paused;
    if (ImGui::IsKeyPressed(GLFW_KEY_PERIOD)) add(Kind::Step);
    if (ImGui::IsKeyPressed(GLFW_KEY_1, false)) {
      lab::Command& actual = add(Kind::ActualSize);
      actual.x = viewer.pointer.at ? (*viewer.pointer.at)[0] : extent.width / 2.0;
      actual.y = viewer.pointer.at ? (*viewer.pointer.at)[1] : extent.height / 2.0;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_F, false)) add(Kind::Fit);
    const int index = viewer.stack.index + (ImGui::IsKeyPressed(GLFW_KEY_RIGHT) ? 1 : 0) -
                      (ImGui::IsKeyPressed(GLFW_KEY_LEFT) ? 1 : 0);
    if (index != viewer.stack.index && index >= 0 && index < viewer.stack.frames)
      add(Kind::Index).index = index;
  }
  bool moved = false;
  apply_page_commands(viewer, commands, moved);
  viewer.cursor = std::nullopt;
  if (viewer.pointer.at && !viewer.showing_points)
    viewer.cursor = lab::view::pixel_at(viewer.view, image_size_of(viewer), {extent.width, extent.height},
                                        static_cast<int>(std::floor((*viewer.pointer.at)[0])),
                                        static_cast<int>(std::floor((*viewer.pointer.at)[1])));
}

// The values of pixel (x, y) of the array shown, as doubles (exact for every dtype shown): one copy of the
// pixel's elements from host or CUDA memory, never the array's (app/scene/readout.hpp).
std::array<double, 4> values_at(const Viewer& viewer, int x, int y) {
  require(viewer.source.data != nullptr,
          "the picture shown came from a frame() block: it has no array to read");
  std::optional<interop::ScopedDevice> on_device;  // a device array is read on the viewer's device
  if (viewer.source.on_device) on_device.emplace(viewer.cuda_device);
  return lab::readout::read_values(viewer.source, 0, x, y);
}

// The readout's line for the pixel under the cursor ("" off the picture); a failed read is said in it, and
// the frame goes on.
// The readout's `line` for image pixel `cursor` ("" off the picture), where `of` says which pixel and picture
// the line is of: the window's cursor and the served page's each keep their own.
void read_out(const Viewer& viewer, const std::optional<lab::view::Pixel>& cursor, std::string& line,
              std::array<long long, 3>& of) {
  if (!cursor) {
    line.clear();
    of = {-1, -1, -1};
    return;
  }
  const lab::view::Pixel at = *cursor;
  const std::array<long long, 3> key{at.x, at.y, viewer.updates};
  if (key == of) return;  // the same pixel of the same picture: read once, not every frame
  of = key;
  std::optional<interop::ScopedDevice> on_device;  // a device array is read on the viewer's device
  if (viewer.source.on_device) on_device.emplace(viewer.cuda_device);
  line = lab::readout::read_out(viewer.source, 0, at.x, at.y);
}

// The points' line where the picture's readout goes: how many, and where the camera is.
std::string points_line(const Viewer& viewer) {
  char line[200];
  constexpr double kDegrees = 57.29577951308232;
  std::snprintf(line, sizeof line,
                "%lld points  yaw %.0f  pitch %.0f  distance %.4g (drag turns, wheel zooms, F frames)",
                viewer.points->count(), viewer.camera.yaw * kDegrees, viewer.camera.pitch * kDegrees,
                viewer.camera.distance);
  return line;
}

void update_readout(Viewer& viewer) {
  if (viewer.showing_points) {
    viewer.readout = points_line(viewer);
    viewer.readout_of = {-1, -1, -1};
    return;
  }
  read_out(viewer, viewer.cursor, viewer.readout, viewer.readout_of);
}

lab::serve::ViewerTools page_tools(Viewer& viewer, lab::Extent extent) {
  const lab::view::Size image = image_size_of(viewer), frame{extent.width, extent.height};
  viewer.page_cursor = std::nullopt;
  if (viewer.page_hover && !viewer.content.empty() && !viewer.showing_points) {
    const double x = (*viewer.page_hover)[0], y = (*viewer.page_hover)[1];
    if (x >= 0 && y >= 0 && x < extent.width && y < extent.height)
      viewer.page_cursor = lab::view::pixel_at(viewer.view, image, frame, static_cast<int>(std::floor(x)),
                                               static_cast<int>(std::floor(y)));
  }
  if (viewer.showing_points) {
    viewer.page_cursor = std::nullopt;
    viewer.page_readout = points_line(viewer);
    viewer.page_readout_of = {-1, -1, -1};
  } else {
    read_out(viewer, viewer.page_cursor, viewer.page_readout, viewer.page_readout_of);
  }
  lab::serve::ViewerTools tools;
  const lab::view::Transform t = lab::view::transform_of(viewer.view, image, frame);
  tools.fit = lab::view::fit_name(viewer.view.fit);
  tools.free = viewer.view.free;
  tools.origin_x = t.origin_x;
  tools.origin_y = t.origin_y;
  tools.scale_x = t.scale_x;
  tools.scale_y = t.scale_y;
  tools.image = viewer.content;
  if (viewer.page_cursor) tools.cursor = std::array<int, 2>{viewer.page_cursor->x, viewer.page_cursor->y};
  tools.readout = viewer.page_readout.empty() ? kOffPicture : viewer.page_readout;
  if (viewer.has_colorbar) tools.colorbar = std::array<double, 2>{viewer.colorbar_low, viewer.colorbar_high};
  tools.index = viewer.stack.index;
  tools.frames = viewer.stack.frames;
  tools.controls = lab::serve::control_states(viewer.controls);
  return tools;
}

// The colorbar's 256 colours as "rrggbb" each, for the page; "" without a colorbar.
std::string colormap_hex(const Viewer& viewer) {
  return viewer.has_colorbar ? lab::serve::colormap_hex(viewer.colorbar.data()) : "";
}

// The page's commands since the last frame, applied as the window's input is: "" or why the last refused one
// was refused. `moved`: set when one changed what the page shows (all but a refused one do).
std::string apply_page_commands(Viewer& viewer, const std::vector<lab::Command>& commands, bool& moved) {
  using Kind = lab::Command::Kind;
  std::string refused;
  for (const lab::Command& command : commands) {
    std::string problem;
    switch (command.kind) {
      case Kind::Pause:
        viewer.paused = command.on;
        break;
      case Kind::Step:
        step(viewer);
        break;
      case Kind::Zoom:
        view_zoom(viewer, command.x, command.y, command.factor);
        break;
      case Kind::Pan:
        view_drag(viewer, command.x, command.y);
        break;
      case Kind::ActualSize:
        view_actual(viewer, command.x, command.y);
        break;
      case Kind::Fit:
        view_fit(viewer);
        break;
      case Kind::PictureFit:
        if (const std::optional<lab::view::Fit> fit = lab::view::fit_named(command.text)) {
          viewer.view.fit = *fit;
          view_fit(viewer);
        }
        break;
      case Kind::Hover:
        viewer.page_hover =
            command.on ? std::optional<std::array<double, 2>>({command.x, command.y}) : std::nullopt;
        break;
      case Kind::Index:
        problem = lab::loop::pick_stack_frame(viewer.stack, command);  // Python shows it at poll()
        break;
      case Kind::Control:
        problem = lab::loop::apply_caller_control(viewer.controls, command, "the viewer");
        break;
      default:
        problem = std::string(lab::control_of(command.kind).key) +
                  " refused: a viewer's frames are its caller's, with no scene, mode, size or frame-rate cap "
                  "to switch";
        break;
    }
    if (problem.empty())
      moved = true;
    else
      refused = problem;
  }
  return refused;
}

// Starts the served frame on the desk's clock and applies the page's commands; returns whether any came. The
// desk's notice says the last refusal; a command taken clears it, but a hover alone leaves it (the cursor
// moves on while the page shows why a value was refused).
bool take_page_commands(Viewer& viewer) {
  const std::vector<lab::Command> commands = viewer.desk->begin_frame().commands;
  bool moved = false;
  const std::string refused = apply_page_commands(viewer, commands, moved);
  const bool only_hovers = std::all_of(commands.begin(), commands.end(), [](const lab::Command& command) {
    return command.kind == lab::Command::Kind::Hover;
  });
  if (!commands.empty() && (!refused.empty() || !only_hovers)) viewer.desk->commands_applied(refused);
  return !commands.empty();
}

// The panel's stack and control commands (draw_caller_tools'), taken as the page's are. The panel's widgets
// give only what they may, so nothing is refused here.
void apply_caller_tools(Viewer& viewer, const std::vector<lab::Command>& commands) {
  for (const lab::Command& command : commands)
    if (command.kind == lab::Command::Kind::Index)
      lab::loop::pick_stack_frame(viewer.stack, command);
    else
      lab::loop::apply_caller_control(viewer.controls, command, "the viewer");
}

void draw_panel(Viewer& viewer, lab::Extent extent) {
  ImGui::Text("path: %s", path_name(viewer.path));
  if (!viewer.path_reason.empty()) ImGui::TextWrapped("(%s)", viewer.path_reason.c_str());
  ImGui::Text("%s", viewer.platform->description().c_str());
  ImGui::Text("image %dx%d", viewer.content.width, viewer.content.height);
  if (!viewer.value_range.empty()) ImGui::Text("range %s", viewer.value_range.c_str());
  ImGui::Text("update %.3f ms   draw %.3f ms", viewer.stats.update_ms, viewer.stats.draw_ms);
  ImGui::Text("%.1f frames/s", viewer.stats.fps);
  ImGui::Checkbox("paused (Space)", &viewer.paused);
  ImGui::SameLine();
  if (ImGui::Button("step (.)")) step(viewer);
  const lab::view::Size image = image_size_of(viewer), frame{extent.width, extent.height};
  if (ImGui::Button("fit (F)")) view_fit(viewer);
  ImGui::SameLine();
  if (ImGui::Button("1:1 (1)")) view_actual(viewer, extent.width / 2.0, extent.height / 2.0);
  ImGui::SameLine();
  ImGui::Text("%s, zoom %.3gx", viewer.view.free ? "free" : lab::view::fit_name(viewer.view.fit),
              lab::view::transform_of(viewer.view, image, frame).scale_x);
  // The stack's slider and the caller's controls as the app's panel draws them; their commands applied here.
  apply_caller_tools(viewer, lab::panel::draw_caller_tools(viewer.stack, nullptr));
  ImGui::TextUnformatted(viewer.readout.empty() ? kOffPicture : viewer.readout.c_str());
  if (viewer.has_colorbar)
    lab::panel::draw_colorbar(viewer.colorbar.data(), viewer.colorbar_low, viewer.colorbar_high);
  apply_caller_tools(viewer,
                     lab::panel::draw_caller_tools(std::nullopt, &viewer.controls, &viewer.control_rects));
}

// Draws and shows the picture (a window: with the panel, then swaps); a minimised window draws nothing.
void present(Viewer& viewer) {
  const Clock::time_point start = Clock::now();
  // The frame starts on the desk's clock here: its timeline is in ms from this, as the app's is from its
  // frame's start. The page's commands are applied as the window's input is (the desk refused the app's).
  if (viewer.desk) take_page_commands(viewer);
  if (viewer.panel) viewer.panel->make_current();
  if (viewer.platform->is_window()) glfwPollEvents();
  const lab::Extent extent = viewer.platform->framebuffer_extent();
  if (!extent.empty()) {
    if (viewer.panel) {
      viewer.panel->begin(viewer.injected);
      apply_input(viewer, extent);
      update_readout(viewer);
    }
    const Clock::time_point draw_started = Clock::now();
    draw_picture(viewer, extent);
    if (viewer.desk) serve_frame(viewer, extent, start, draw_started);
    if (viewer.panel) viewer.panel->end([&viewer, extent] { draw_panel(viewer, extent); });
    if (viewer.capture) {
      viewer.captured = read_drawn(viewer, extent);
      viewer.capture = false;
    }
    viewer.platform->present();
  }
  const Clock::time_point end = Clock::now();
  Stats& stats = viewer.stats;
  stats.draw_ms = std::chrono::duration<double, std::milli>(end - start).count();
  if (stats.frames > 0) {
    const double seconds = std::chrono::duration<double>(end - stats.last_present).count();
    if (seconds > 0.0) stats.fps = stats.fps == 0.0 ? 1.0 / seconds : 0.9 * stats.fps + 0.1 / seconds;
  }
  stats.last_present = end;
  ++stats.frames;
}

// from_host: the pixels came from host memory (the served state's "upload"), else from CUDA ("copy").
void finish_update(Viewer& viewer, Clock::time_point started, bool from_host) {
  ++viewer.updates;
  viewer.stats.update_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  (from_host ? viewer.upload_ms : viewer.copy_ms).push(static_cast<float>(viewer.stats.update_ms));
  present(viewer);
}

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

struct ilab_viewer_info {
  char path[16];
  char reason[512];
  char description[256];
  int cuda_device;
  int window;
};

struct ilab_viewer_stats {
  double update_ms, draw_ms, fps;
  long long frames;
};

// What show_device converts: a CUDA array's memory and layout (kernels/convert.hpp). low and range are
// float32 values unless wide (computed in float64), which float64, int32 and uint32 arrays always are.
struct ilab_convert {
  uintptr_t data;
  int height, width, channels, type;
  long long row_stride, column_stride, channel_stride;  // bytes
  double low, range;
  int wide;
};

}  // extern "C"

namespace {

const char* const kTypeNames =
    "0 uint8, 1 float16, 2 float32, 3 float64, 4 bfloat16, 5 int8, 6 int16, 7 int32, 8 uint16, 9 uint32, 10 "
    "bool";

// A CUDA array handed to show_device or value_bounds, checked: its layout, its element type, and that it is
// device memory on the viewer's device (which is current, on a path with CUDA), as is the stream. A picture
// is an image of at most kMaxImageEdge a side; the points' values are one row of `width` (any length).
kernels::ConvertDesc device_array(const Viewer& viewer, const ilab_convert& array, cudaStream_t stream,
                                  bool picture = true) {
  require(array.channels == 1 || array.channels == 3 || array.channels == 4, "channels: 1, 3 or 4");
  require(array.type >= 0 && array.type < kernels::kElementTypeCount,
          "type " + std::to_string(array.type) + ": " + kTypeNames);
  if (picture)
    require_image_size(array.width, array.height);
  else
    require(array.width >= 1 && array.height >= 1, "an array of at least one element");
  require_stream_device(viewer, stream);
  cudaPointerAttributes attributes{};
  INTEROP_CUDA_CHECK(cudaPointerGetAttributes(&attributes, reinterpret_cast<void*>(array.data)));
  const bool device_memory =
      attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  require(device_memory && attributes.device == viewer.cuda_device,
          device_memory ? "the array is on CUDA device " + std::to_string(attributes.device) +
                              ", the viewer on device " + std::to_string(viewer.cuda_device) +
                              ": move it there (e.g. x.to('cuda:" + std::to_string(viewer.cuda_device) + "'))"
                        : std::string("the array is not CUDA device memory: pass it as a NumPy array"));
  kernels::ConvertDesc desc;
  desc.source = reinterpret_cast<const void*>(array.data);
  desc.height = array.height;
  desc.width = array.width;
  desc.channels = array.channels;
  desc.row_stride = array.row_stride;
  desc.column_stride = array.column_stride;
  desc.channel_stride = array.channel_stride;
  desc.type = static_cast<kernels::ElementType>(array.type);
  desc.low = array.low;
  desc.range = array.range;
  // Values float32 cannot hold are always computed in float64 (kernels/convert.hpp).
  desc.wide = array.wide != 0 || kernels::always_wide(desc.type);
  return desc;
}

}  // namespace

extern "C" {

// window: 1 a GLFW window, 0 headless (EGL). mode: "auto" (interop where it works, else staging with
// CUDA, else cpu), or "interop" / "staging" / "cpu" forced (refused, with the reason, where impossible).
int ilab_viewer_open(int width, int height, const char* title, int window, const char* mode, int panel,
                     void** out) {
  return guarded([&] {
    *out = nullptr;
    const std::string mode_name = mode ? mode : "";
    require(mode_name == "auto" || mode_name == "interop" || mode_name == "staging" || mode_name == "cpu",
            "mode '" + mode_name + "': use auto, interop, staging or cpu");
    require(width >= 1 && height >= 1 && width <= lab::kMaxImageEdge && height <= lab::kMaxImageEdge,
            "size " + std::to_string(width) + "x" + std::to_string(height) + ": each edge from 1 to " +
                std::to_string(lab::kMaxImageEdge));
    // CUDA first: headless EGL renders on the chosen CUDA device's GPU.
    interop::CudaDevices cuda;
    if (mode_name != "cpu") cuda = interop::enumerate_cuda_devices();
    const bool have_cuda = !cuda.devices.empty();
    require(have_cuda || mode_name == "auto" || mode_name == "cpu",
            "mode='" + mode_name + "' needs a CUDA device: " + cuda.error + "; use mode='cpu' (or 'auto')");
    int device = -1;
    if (have_cuda) INTEROP_CUDA_CHECK(cudaGetDevice(&device));

    const ilab::GlContext previous = ilab::GlContext::current();
    ilab::GlContext mine;
    const ilab::RestoreOnExit restore_on_exit(previous, mine);  // declared before the object it guards
    auto viewer = std::make_unique<Viewer>();
    if (window) {
      lab::gl::WindowDesc desc;
      desc.extent = {width, height};
      desc.title = title ? title : "interop_lab";
      desc.vsync = false;  // show() returns without waiting for the display
      viewer->platform = lab::gl::create_window_platform(desc);
      mine = viewer->context = ilab::GlContext{EGL_NO_DISPLAY, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT,
                                               viewer->platform->glfw_window()};
    } else {
      lab::gl::HeadlessDesc desc;
      desc.extent = {width, height};
      desc.cuda_device = device;
      viewer->platform = lab::gl::create_headless_platform(desc);
      mine = viewer->context = ilab::GlContext::current();
    }

    if (mode_name == "cpu") {
      viewer->path = Path::Cpu;
    } else if (!have_cuda) {
      viewer->path = Path::Cpu;
      viewer->path_reason = "no CUDA device: " + cuda.error;
    } else {
      viewer->cuda_device = device;
      const interop::InteropSupport support = interop::probe_gl_interop(device);
      require(
          support.usable || mode_name != "interop",
          "CUDA-GL interop is unavailable here: " + support.reason + "; use mode='staging' or mode='cpu'");
      viewer->path = support.usable && mode_name != "staging" ? Path::Interop : Path::Staging;
      if (!support.usable) viewer->path_reason = "CUDA-GL interop is unavailable: " + support.reason;
    }
    viewer->texture_program = link_program(kTextureShader);
    viewer->buffer_program = link_program(kBufferShader);
    viewer->vertex_array = lab::gl::create_vertex_array("viewer triangle");
    if (window) viewer->panel = std::make_unique<Panel>(viewer->platform->glfw_window(), panel != 0);
    present(*viewer);  // the first frame: black, so a new window shows no garbage
    *out = viewer.release();
  });
}

int ilab_viewer_describe(void* handle, ilab_viewer_info* info) {
  return guarded([&] {
    const Viewer& viewer = *static_cast<Viewer*>(handle);
    std::memset(info, 0, sizeof *info);
    std::snprintf(info->path, sizeof info->path, "%s", path_name(viewer.path));
    std::snprintf(info->reason, sizeof info->reason, "%s", viewer.path_reason.c_str());
    std::snprintf(info->description, sizeof info->description, "%s", viewer.platform->description().c_str());
    info->cuda_device = viewer.cuda_device;
    info->window = viewer.platform->is_window() ? 1 : 0;
  });
}

// Destroys the viewer with its context current (registration, then GL objects, then the context).
// From another thread it refuses and keeps the viewer, as ilab_close does.
int ilab_viewer_close(void* handle) {
  auto* viewer = static_cast<Viewer*>(handle);
  if (viewer == nullptr) return 0;
  return guarded([&] {
    {
      ilab::ScopedContext current(viewer->context, viewer->owner, kViewer);
      if (viewer->frame_map) {
        viewer->frame_map->unmap();
        viewer->frame_map.reset();
      }
      std::optional<interop::ScopedDevice> on_device;
      if (viewer->cuda_device >= 0) {
        on_device.emplace(viewer->cuda_device);
        cudaDeviceSynchronize();  // no queued update may outlive the memory it writes
        viewer->blit.release();   // its device memory, with its device current
      }
      viewer->desk.reset();  // its threads joined, its port free
      viewer->panel.reset();
      viewer->points.reset();  // its registrations go while the context and the device are current
      viewer->registration.reset();
      viewer->buffer = {};
      viewer->texture = {};
      viewer->texture_program = {};
      viewer->buffer_program = {};
      viewer->vertex_array = {};
      current.forget_mine();
      viewer->platform.reset();
    }
    delete viewer;
  });
}

// Handles window events; *closed is 1 once the user closed the window (never headless).
int ilab_viewer_poll(void* handle, int* closed) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    if (viewer.panel) viewer.panel->make_current();
    if (viewer.platform->is_window()) glfwPollEvents();
    *closed = viewer.platform->keep_running() ? 0 : 1;
  });
}

// Draws and presents again (the blocking show() loop; a resized window redrawn).
int ilab_viewer_render(void* handle) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    present(viewer);
  });
}

// Host RGBA8, `width` x `height`, rows top first and tightly packed: `bytes` (width * height * 4) of them.
int ilab_viewer_show_host(void* handle, const uint8_t* rgba, uint64_t bytes, int width, int height) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require_image_size(width, height);
    require_rgba_bytes(width, height, bytes);
    const Clock::time_point started = Clock::now();
    ensure_content(viewer, {width, height});
    upload_host(viewer, rgba);
    finish_update(viewer, started, true);
  });
}

// A CUDA array, converted on `stream` into what GL draws. colormap: 256 x RGBA8 host bytes, for one
// channel. Interop: queued on the stream, nothing waits on the host; staging waits for the copy back.
int ilab_viewer_show_device(void* handle, const ilab_convert* array, const uint8_t* colormap,
                            uintptr_t stream) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(viewer.path != Path::Cpu, "this viewer has no CUDA (path cpu: " + viewer.path_reason +
                                          "): pass a NumPy array (e.g. cupy.asnumpy(x) / x.cpu().numpy())");
    const Clock::time_point started = Clock::now();
    const interop::ScopedDevice on_device(viewer.cuda_device);
    auto* on = reinterpret_cast<cudaStream_t>(stream);
    const kernels::ConvertDesc desc = device_array(viewer, *array, on);
    const lab::PictureDesc picture = lab::PictureDesc::mapped(desc, true, colormap);
    lab::PictureBlit::check_mapping(picture);
    ensure_content(viewer, {array->width, array->height});
    require(desc.channels != 1 || colormap != nullptr, "a one-channel array needs a colormap");
    // The app's picture conversion (app/scene/picture.hpp): packed RGBA8 in one 2D copy, else one kernel.
    const size_t pitch = static_cast<size_t>(desc.width) * 4;
    if (viewer.path == Path::Interop) {
      interop::ScopedMap mapped({viewer.registration->resource()}, on);
      viewer.blit.convert_cuda(picture, mapped.pointer(0).data, pitch, on);
      mapped.unmap();  // queued after the conversion: GL draws once it is done
    } else {
      viewer.blit.convert_cuda(picture, viewer.staging_device.data(), pitch, on);
      upload_staged(viewer, on);
    }
    finish_update(viewer, started, false);
  });
}

// The range the next picture's values are mapped through, for the panel ("0..1 (auto)"; "" says none).
int ilab_viewer_set_range_text(void* handle, const char* text) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    viewer.value_range = text ? text : "";
  });
}

// range="auto" of a CUDA array: the smallest and largest finite value of its every channel, and how many are
// finite (0: *low and *high are 0), found on `stream` by a reduction kernel; the host waits for those 24
// bytes only, never copies the array.
int ilab_viewer_value_bounds(void* handle, const ilab_convert* array, uintptr_t stream, double* low,
                             double* high, long long* finite) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(viewer.path != Path::Cpu, "this viewer has no CUDA (path cpu: " + viewer.path_reason + ")");
    const interop::ScopedDevice on_device(viewer.cuda_device);
    auto* on = reinterpret_cast<cudaStream_t>(stream);
    const kernels::ConvertDesc desc = device_array(viewer, *array, on, false);  // a picture's, or points'
    if (viewer.bounds_device.size() == 0)
      viewer.bounds_device = interop::DeviceBuffer(kernels::kValueBoundsBytes);
    INTEROP_CUDA_CHECK(kernels::find_value_bounds(desc, viewer.bounds_device.data(), on));
    std::array<unsigned char, kernels::kValueBoundsBytes> bounds{};
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(bounds.data(), viewer.bounds_device.data(), bounds.size(),
                                       cudaMemcpyDeviceToHost, on));
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(on));
    kernels::read_value_bounds(bounds.data(), low, high, finite);
  });
}

// `with viewer.frame()`: the memory the next frame is drawn from, width x height RGBA8, `pitch` bytes a row.
// Interop: the registered GL buffer itself, mapped on `stream` (*on_device 1); staging: device memory;
// cpu: host memory (*on_device 0). ilab_viewer_frame_end shows it.
int ilab_viewer_frame_begin(void* handle, int width, int height, uintptr_t stream, uintptr_t* pointer,
                            uint64_t* pitch, int* on_device) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    viewer.frame_started = Clock::now();
    ensure_content(viewer, {width, height});
    *pitch = static_cast<uint64_t>(width) * 4;
    auto* on = reinterpret_cast<cudaStream_t>(stream);
    if (viewer.path == Path::Interop) {
      const interop::ScopedDevice on_cuda(viewer.cuda_device);
      require_stream_device(viewer, on);
      viewer.frame_map.emplace(std::vector<cudaGraphicsResource_t>{viewer.registration->resource()}, on);
      *pointer = reinterpret_cast<uintptr_t>(viewer.frame_map->pointer(0).data);
      *on_device = 1;
    } else if (viewer.path == Path::Staging) {
      const interop::ScopedDevice on_cuda(viewer.cuda_device);
      require_stream_device(viewer, on);
      *pointer = reinterpret_cast<uintptr_t>(viewer.staging_device.data());
      *on_device = 1;
    } else {
      viewer.host_frame.assign(static_cast<size_t>(width) * height * 4, 0);
      *pointer = reinterpret_cast<uintptr_t>(viewer.host_frame.data());
      *on_device = 0;
    }
    viewer.frame_stream = on;
    viewer.in_frame = true;
  });
}

int ilab_viewer_frame_end(void* handle) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require(viewer.in_frame, "frame_end without frame_begin");
    viewer.in_frame = false;
    if (viewer.path == Path::Interop) {
      const interop::ScopedDevice on_cuda(viewer.cuda_device);
      viewer.frame_map->unmap();  // on the frame's stream, after what the caller queued there
      viewer.frame_map.reset();
    } else if (viewer.path == Path::Staging) {
      const interop::ScopedDevice on_cuda(viewer.cuda_device);
      upload_staged(viewer, viewer.frame_stream);
    } else {
      upload_host(viewer, viewer.host_frame.data());
    }
    finish_update(viewer, viewer.frame_started, viewer.path == Path::Cpu);
  });
}

// The frame as drawn now, without the panel (top row first, RGBA8); rgba null: a size query.
int ilab_viewer_read_frame(void* handle, uint8_t* rgba, uint64_t bytes, int* width, int* height) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    const lab::Extent extent = viewer.platform->framebuffer_extent();
    require(!extent.empty(), "the window is minimised: there is no frame to read; restore it first");
    *width = extent.width;
    *height = extent.height;
    if (rgba == nullptr) return;
    require(bytes == static_cast<size_t>(extent.width) * 4 * extent.height,
            "the frame needs width * height * 4 bytes");
    draw_picture(viewer, extent);
    const lab::Image frame = read_drawn(viewer, extent);
    std::memcpy(rgba, frame.rgba.data(), frame.rgba.size());
  });
}

// Headless: a new offscreen size; a window: asks the window manager (0x0 minimises it).
int ilab_viewer_resize(void* handle, int width, int height) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(width >= 0 && height >= 0 && width <= lab::kMaxImageEdge && height <= lab::kMaxImageEdge,
            "size " + std::to_string(width) + "x" + std::to_string(height) + ": each edge from 0 to " +
                std::to_string(lab::kMaxImageEdge));
    viewer.platform->resize({width, height});
    present(viewer);
  });
}

// Judges a serve address as the command line's --serve does (app/core/serve_address.hpp), port 0 allowed
// (any free port): 0 with "HOST:PORT" in `authority`, or -1 with what is wrong (Python's ValueError).
int ilab_check_serve_address(const char* text, char* authority, uint64_t bytes) {
  return guarded([&] {
    lab::ServeAddress address;
    const std::string problem = lab::parse_serve_address(text ? text : "", address, true);
    require(problem.empty(), problem);
    std::snprintf(authority, bytes, "%s", address.authority().c_str());
  });
}

// Starts serving every frame presented to the browser desk at `address` (as ilab_check_serve_address takes
// it); `url` gets the page's URL with its token (port 0: the port picked). Fails (-1) where it cannot listen.
int ilab_viewer_serve(void* handle, const char* address_text, char* url, uint64_t bytes) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    if (viewer.desk)
      throw std::invalid_argument("this viewer serves already, at " + viewer.desk->server().url());
    lab::ServeAddress address;
    const std::string problem = lab::parse_serve_address(address_text ? address_text : "", address, true);
    require(problem.empty(), problem);
    lab::serve::ServerOptions options;
    options.refuse_commands =
        "this desk shows an interop_lab.Viewer's frames: they are its caller's, with no scene, mode, size or "
        "frame-rate cap to switch; the page may pause and step them (viewer.paused, viewer.poll()), zoom, "
        "pan, read the value under its cursor, pick a stack's frame and set the caller's controls";
    options.accept_commands = {lab::Command::Kind::Pause, lab::Command::Kind::Step};
    for (const lab::Control& control : lab::all_controls())
      if (lab::viewer_command(control.kind)) options.accept_commands.push_back(control.kind);
    viewer.desk = std::make_unique<lab::serve::Desk>(address, std::move(options));
    viewer.desk->set_fps_cap(0.0);  // every frame shown is served: the caller paces them
    std::snprintf(url, bytes, "%s", viewer.desk->server().url().c_str());
    present(viewer);  // what the viewer shows now, for a page opened before the next show
  });
}

// The largest edge of a picture, window or frame the library takes: what Python checks a size against
// before it computes or copies anything of that size.
int ilab_max_image_edge() {
  return lab::kMaxImageEdge;
}

int ilab_viewer_get_stats(void* handle, ilab_viewer_stats* stats) {
  return guarded([&] {
    const Stats& kept = static_cast<Viewer*>(handle)->stats;
    stats->update_ms = kept.update_ms;
    stats->draw_ms = kept.draw_ms;
    stats->fps = kept.fps;
    stats->frames = kept.frames;
  });
}

// RGBA8 rows (top first), `bytes` (width * height * 4) of them, as a PNG, written atomically as the app's
// screenshots are.
int ilab_write_rgba_png(const char* path, const uint8_t* rgba, uint64_t bytes, int width, int height) {
  return guarded([&] {
    require_image_size(width, height);
    require_rgba_bytes(width, height, bytes);
    lab::Image image;
    image.width = width;
    image.height = height;
    image.rgba.assign(rgba, rgba + static_cast<size_t>(width) * height * 4);
    lab::write_png(path ? path : "", image);
  });
}

// A PNG as RGBA8 rows (top first); rgba null: a size query.
int ilab_read_rgba_png(const char* path, uint8_t* rgba, uint64_t bytes, int* width, int* height) {
  return guarded([&] {
    const lab::Image image = lab::read_png(path ? path : "");
    *width = image.width;
    *height = image.height;
    if (rgba == nullptr) return;
    require(bytes == image.rgba.size(), "the image needs width * height * 4 bytes");
    std::memcpy(rgba, image.rgba.data(), image.rgba.size());
  });
}

}  // extern "C"

namespace {

// The viewer of `handle`, on the thread that opened it: the panel reads and writes what these calls do there,
// so another thread is refused as the other calls refuse it.
Viewer& on_owner_thread(void* handle) {
  Viewer& viewer = *static_cast<Viewer*>(handle);
  viewer.owner.check(kViewer);
  return viewer;
}

}  // namespace

extern "C" {

struct ilab_viewer_view {
  char fit[16];
  int free;                                     // zoomed or panned away from the fit
  double origin_x, origin_y, scale_x, scale_y;  // image point = (framebuffer point - origin) / scale
};

// The fit ("contain", "stretch", "cover", "actual"): the view goes back to it, and the frame is drawn again.
int ilab_viewer_set_fit(void* handle, const char* fit) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    const std::string name = fit ? fit : "";
    const std::optional<lab::view::Fit> chosen = lab::view::fit_named(name);
    require(chosen.has_value(), "fit '" + name + "': use contain, stretch, cover or actual");
    viewer.view = {*chosen, false, {}};
    present(viewer);
  });
}

int ilab_viewer_get_view(void* handle, ilab_viewer_view* out) {
  return guarded([&] {
    const Viewer& viewer = on_owner_thread(handle);
    const lab::Extent extent = viewer.platform->framebuffer_extent();
    const lab::view::Transform t =
        lab::view::transform_of(viewer.view, image_size_of(viewer), {extent.width, extent.height});
    std::snprintf(out->fit, sizeof out->fit, "%s", lab::view::fit_name(viewer.view.fit));
    out->free = viewer.view.free ? 1 : 0;
    out->origin_x = t.origin_x;
    out->origin_y = t.origin_y;
    out->scale_x = t.scale_x;
    out->scale_y = t.scale_y;
  });
}

// Zooms by `factor` about framebuffer point (x, y) (top row 0), as the wheel does, or, factor 0, shows the
// picture 1:1 there (the 1 key); then pans by (dx, dy) as a drag does; and draws the frame again.
int ilab_viewer_move_view(void* handle, double x, double y, double factor, double dx, double dy) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(!viewer.content.empty() || viewer.showing_points, "nothing is shown yet: show() a picture first");
    require(std::isfinite(factor) && factor >= 0.0 && std::isfinite(x) && std::isfinite(y) &&
                std::isfinite(dx) && std::isfinite(dy),
            "zoom: a finite factor above 0, and a finite point and offset");
    if (factor == 0.0)
      view_actual(viewer, x, y);
    else
      view_zoom(viewer, x, y, factor);
    view_drag(viewer, dx, dy);
    present(viewer);
  });
}

// The caller's array the picture shows (the frame of a stack shown), for the readout and value_at: its
// memory (host or CUDA, kept alive by the caller until the next call) and layout in bytes; data 0: none (a
// frame() block's pixels). frame_index of frame_count: the stack's frame shown.
struct ilab_source {
  uintptr_t data;
  int on_device, type, height, width, channels;
  long long row_stride, column_stride, channel_stride;
  int frame_index, frame_count;
};

int ilab_viewer_set_source(void* handle, const ilab_source* source) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    require(source->type >= 0 && source->type < kernels::kElementTypeCount,
            "type " + std::to_string(source->type) + ": " + kTypeNames);
    require(source->data == 0 || (source->channels >= 1 && source->channels <= 4), "channels: 1 to 4");
    require(source->frame_count >= 1 && source->frame_index >= 0 && source->frame_index < source->frame_count,
            "frame " + std::to_string(source->frame_index) + " of " + std::to_string(source->frame_count));
    lab::readout::Source kept;
    kept.data = reinterpret_cast<const unsigned char*>(source->data);
    kept.on_device = source->on_device != 0;
    kept.type = static_cast<kernels::ElementType>(source->type);
    kept.height = source->height;
    kept.width = source->width;
    kept.channels = source->channels;
    kept.row_stride = source->row_stride;
    kept.column_stride = source->column_stride;
    kept.channel_stride = source->channel_stride;
    viewer.source = kept;
    ++viewer.updates;
    viewer.stack = {source->frame_index, source->frame_count};
  });
}

// The values of pixel (x, y) of the array shown, as doubles (exact for every dtype shown): a copy of that
// pixel's elements alone.
int ilab_viewer_value_at(void* handle, int x, int y, double* values, int* channels) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    const std::array<double, 4> read = values_at(viewer, x, y);
    std::copy(read.begin(), read.end(), values);
    *channels = viewer.source.channels;
  });
}

// The colorbar of a one-channel picture: its 256 x RGBA8 colormap and the range its ends stand for; table
// null: none (three or four channels, a frame() block's pixels).
int ilab_viewer_set_colorbar(void* handle, const uint8_t* table, double low, double high) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    viewer.has_colorbar = table != nullptr;
    if (table != nullptr) std::memcpy(viewer.colorbar.data(), table, viewer.colorbar.size());
    viewer.colorbar_low = low;
    viewer.colorbar_high = high;
  });
}

struct ilab_viewer_state {
  int paused;
  int steps;  // asked for and not yet taken
  int frame_index, frame_count;
  int has_cursor, cursor_x, cursor_y;  // the image pixel under the cursor (a window's)
  char readout[256];
};

int ilab_viewer_get_state(void* handle, ilab_viewer_state* state) {
  return guarded([&] {
    const Viewer& viewer = on_owner_thread(handle);
    std::memset(state, 0, sizeof *state);
    state->paused = viewer.paused ? 1 : 0;
    state->steps = viewer.steps;
    state->frame_index = viewer.stack.index;
    state->frame_count = viewer.stack.frames;
    state->has_cursor = viewer.cursor ? 1 : 0;
    if (viewer.cursor) {
      state->cursor_x = viewer.cursor->x;
      state->cursor_y = viewer.cursor->y;
    }
    std::snprintf(state->readout, sizeof state->readout, "%s", viewer.readout.c_str());
  });
}

// paused: 0 or 1 sets it (-1 keeps it); step: 1 asks for a step (as period does); take: 1 takes one asked
// for, *taken saying whether there was one.
int ilab_viewer_time(void* handle, int paused, int step_once, int take, int* taken) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    if (paused >= 0) viewer.paused = paused != 0;
    if (step_once) step(viewer);
    *taken = 0;
    if (take && viewer.steps > 0) {
      --viewer.steps;
      *taken = 1;
    }
  });
}

// Input as GLFW hands it to the window, for tests and scripted sessions: kind 0 moves the cursor to window
// point (x, y); 1 presses the left button, 2 releases it; 3 turns the wheel by y notches; 4 presses the key
// of GLFW key code x for one frame. It takes effect at the next frame drawn; a window's only.
int ilab_viewer_inject(void* handle, int kind, double x, double y) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    require(viewer.panel != nullptr, "input goes to a window: this viewer is headless");
    InjectedInput& input = viewer.injected;
    switch (kind) {
      case 0:
        input.has_cursor = true;
        input.x = static_cast<float>(x);
        input.y = static_cast<float>(y);
        break;
      case 1:
      case 2:
        input.button = kind == 1 ? 1 : 0;
        break;
      case 3:
        input.wheel += static_cast<float>(y);
        break;
      case 4:
        require(x >= 0 && x < 512, "key code " + std::to_string(x) + ": GLFW's, 0 to 511");
        input.keys.push_back(static_cast<int>(x));
        break;
      default:
        throw std::invalid_argument("input kind " + std::to_string(kind) +
                                    ": 0 move, 1 press, 2 release, 3 wheel, 4 key");
    }
  });
}

// What the window shows (picture, panel and all, top row first, RGBA8), drawn now; rgba null: a size query.
int ilab_viewer_read_window(void* handle, uint8_t* rgba, uint64_t bytes, int* width, int* height) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    require(viewer.platform->is_window(), "read_window: this viewer is headless: use read_frame");
    const lab::Extent extent = viewer.platform->framebuffer_extent();
    require(!extent.empty(), "the window is minimised: there is no frame to read; restore it first");
    *width = extent.width;
    *height = extent.height;
    if (rgba == nullptr) return;
    require(bytes == static_cast<size_t>(extent.width) * 4 * extent.height,
            "the frame needs width * height * 4 bytes");
    viewer.capture = true;
    present(viewer);
    require(viewer.captured.width == extent.width && viewer.captured.height == extent.height,
            "the window changed size while it was read: read it again");
    std::memcpy(rgba, viewer.captured.rgba.data(), viewer.captured.rgba.size());
  });
}

// The caller's controls (app/scene/caller_controls.hpp). kind: 0 slider, 1 checkbox, 2 button, 3 choice;
// options: a choice's, one a line.
int ilab_viewer_control_add(void* handle, int kind, const char* name, double low, double high, double value,
                            const char* options, int* id) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    require(kind >= 0 && kind <= 3,
            "control kind " + std::to_string(kind) + ": 0 slider, 1 checkbox, 2 button, 3 choice");
    lab::caller::Control control;
    control.kind = static_cast<lab::caller::Kind>(kind);
    control.name = name ? name : "";
    control.low = low;
    control.high = high;
    control.value = value;
    if (options != nullptr && *options != '\0') {
      const std::string all = options;
      for (size_t from = 0;;) {
        const size_t end = all.find('\n', from);
        control.options.push_back(
            all.substr(from, end == std::string::npos ? std::string::npos : end - from));
        if (end == std::string::npos) break;
        from = end + 1;
      }
    }
    *id = viewer.controls.add(std::move(control));
  });
}

// value: the control's; changes: the user's changes so far (a button's presses).
int ilab_viewer_control_get(void* handle, int id, double* value, long long* changes) {
  return guarded([&] {
    const lab::caller::Control& control = on_owner_thread(handle).controls.at(id);
    *value = control.value;
    *changes = control.changes;
  });
}

// user 0: the program sets the value (no change counted); 1: the user's change, as the panel makes it.
int ilab_viewer_control_set(void* handle, int id, double value, int user) {
  return guarded([&] {
    Viewer& viewer = on_owner_thread(handle);
    if (user)
      viewer.controls.change(id, value);
    else
      viewer.controls.set(id, value);
    // A served page shows the new value now, not at the next picture shown.
    if (viewer.desk && !viewer.in_frame) {
      const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
      present(viewer);
    }
  });
}

// A served viewer's page commands since the last frame (viewer.poll(), show(serve=)'s wait): when any came,
// they are applied and the frame is drawn and served again, its state saying what they changed (*taken 1);
// else nothing is drawn (*taken 0). Not served, or inside a frame() block: nothing.
int ilab_viewer_take_page_commands(void* handle, int* taken) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    *taken = 0;
    if (!viewer.desk || viewer.in_frame || !take_page_commands(viewer)) return;
    *taken = 1;
    present(viewer);
  });
}

// One message of the page's protocol ({"zoom": [x, y, 1.25]}, {"hover": [x, y]}, {"index": 2}, {"control":
// {"name": "gain", "value": 0.5}}, {"pause": true}), applied as a served page's are, and the frame drawn
// again where it changed what is shown. 0: taken, `refused` saying why the last refused one was refused (""
// when none was); 1: a message the protocol does not take (what is wrong in ilab_last_error()), nothing
// applied; -1: another failure (inside a frame() block).
int ilab_viewer_command(void* handle, const char* message, char* refused, uint64_t refused_size) {
  return ilab::protocol_command(message, refused, refused_size,
                                [&](const std::vector<lab::Command>& commands) {
                                  Viewer& viewer = *static_cast<Viewer*>(handle);
                                  const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
                                  require_open(viewer);
                                  bool moved = false;
                                  std::string why = apply_page_commands(viewer, commands, moved);
                                  if (moved) present(viewer);
                                  return why;
                                });
}

// The state a served page is sent about the frame shown now (app/serve/protocol.hpp's state_json, the desk's
// own numbers aside), its tools reading the cursor a {"hover": ...} command put there: *size gets its bytes
// plus one; `out` null asks for the size alone.
int ilab_viewer_page_state(void* handle, char* out, uint64_t out_size, uint64_t* size) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    ilab::protocol_state(lab::serve::state_json(viewer_state(viewer, viewer.platform->framebuffer_extent()),
                                                lab::serve::DeskStats{}),
                         out, out_size, size);
  });
}

// Where the panel drew the control last (window coordinates: x0, y0, x1, y1); all 0 before it did.
int ilab_viewer_control_rect(void* handle, int id, float* rect) {
  return guarded([&] {
    const Viewer& viewer = on_owner_thread(handle);
    viewer.controls.at(id);
    const std::array<float, 4> kept = static_cast<size_t>(id) < viewer.control_rects.size()
                                          ? viewer.control_rects[static_cast<size_t>(id)]
                                          : std::array<float, 4>{};
    std::copy(kept.begin(), kept.end(), rect);
  });
}

// Points (Viewer.points, Viewer.points_frame): begin hands out where the next n points go (*xyz: n x 3
// float32; *rgba: n x RGBA8): on the interop path the two registered GL buffers themselves, mapped on
// `stream` (*on_device 1); staging: device memory; cpu: host memory (*on_device 0). xyz and colours fill
// them from the caller's arrays; end shows them (or, show 0, gives the update up).
int ilab_viewer_points_begin(void* handle, long long n, uintptr_t stream, uintptr_t* xyz, uintptr_t* rgba,
                             int* on_device) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require_open(viewer);
    auto* on = reinterpret_cast<cudaStream_t>(stream);
    std::optional<interop::ScopedDevice> on_cuda;
    if (viewer.path != Path::Cpu) {
      on_cuda.emplace(viewer.cuda_device);
      require_stream_device(viewer, on);
    }
    if (!viewer.points) {
      const ilab::points::Memory memory = viewer.path == Path::Interop   ? ilab::points::Memory::Interop
                                          : viewer.path == Path::Staging ? ilab::points::Memory::Staging
                                                                         : ilab::points::Memory::Host;
      viewer.points = std::make_unique<ilab::points::Cloud>(memory);
    }
    viewer.points_started = Clock::now();
    const ilab::points::Targets targets = viewer.points->begin(n, on);
    viewer.points_stream = on;
    *xyz = reinterpret_cast<uintptr_t>(targets.xyz);
    *rgba = reinterpret_cast<uintptr_t>(targets.rgba);
    *on_device = targets.on_device ? 1 : 0;
  });
}

}  // extern "C"

namespace {

ilab::points::Cloud& open_points(Viewer& viewer) {
  require(viewer.points && viewer.points->in_update(), "no points update is open: call points_begin first");
  return *viewer.points;
}

// `width` bytes a row, `rows` rows, from `source` (CUDA memory where source_on_device, else the host's; rows
// `source_pitch` bytes apart) into `target` (the update's memory, device or host; packed), on the update's
// stream.
void copy_into(Viewer& viewer, void* target, const void* source, bool source_on_device, size_t width,
               size_t source_pitch, size_t rows) {
  const bool target_on_device = viewer.path != Path::Cpu;
  if (!target_on_device && !source_on_device) {
    if (source_pitch == width) {
      std::memcpy(target, source, width * rows);
      return;
    }
    for (size_t row = 0; row < rows; ++row)
      std::memcpy(static_cast<unsigned char*>(target) + row * width,
                  static_cast<const unsigned char*>(source) + row * source_pitch, width);
    return;
  }
  require(target_on_device, "CUDA memory, and this viewer runs the cpu path: pass a NumPy array");
  const interop::ScopedDevice on_cuda(viewer.cuda_device);
  const cudaMemcpyKind kind = source_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
  if (source_pitch == width)  // packed: one copy, not a row per point
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(target, source, width * rows, kind, viewer.points_stream));
  else
    INTEROP_CUDA_CHECK(
        cudaMemcpy2DAsync(target, width, source, source_pitch, width, rows, kind, viewer.points_stream));
}

}  // namespace

extern "C" {

// The positions: the update's n rows of x, y, z float32 (12 bytes, packed within a row) from `source`, rows
// `row_stride` bytes apart (CUDA memory where on_device, else host memory).
int ilab_viewer_points_xyz(void* handle, uintptr_t source, int on_device, long long row_stride) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    ilab::points::Cloud& cloud = open_points(viewer);
    require(row_stride >= 12, "the positions' rows: at least 12 bytes apart (x, y, z float32)");
    copy_into(viewer, cloud.targets().xyz, reinterpret_cast<const void*>(source), on_device != 0, 12,
              static_cast<size_t>(row_stride), static_cast<size_t>(cloud.count()));
  });
}

// The colours: host RGBA8 (n x 4 bytes, packed) where host_rgba is given, else `array` (a CUDA array of one
// row of n points, 1, 3 or 4 channels) converted on the GPU as show() converts a picture (colormap: 256 x
// RGBA8 for one channel).
int ilab_viewer_points_colours(void* handle, const ilab_convert* array, const uint8_t* colormap,
                               const uint8_t* host_rgba) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    ilab::points::Cloud& cloud = open_points(viewer);
    const ilab::points::Targets targets = cloud.targets();
    const auto n = static_cast<size_t>(cloud.count());
    if (host_rgba != nullptr) {
      copy_into(viewer, targets.rgba, host_rgba, false, n * 4, n * 4, 1);
      return;
    }
    require(viewer.path != Path::Cpu, "this viewer has no CUDA (path cpu): pass NumPy colours");
    const interop::ScopedDevice on_cuda(viewer.cuda_device);
    kernels::ConvertDesc desc = device_array(viewer, *array, viewer.points_stream, false);
    require(desc.height == 1 && static_cast<size_t>(desc.width) == n,
            "the colours are of " + std::to_string(desc.width) + " points, the positions of " +
                std::to_string(n));
    if (desc.channels == 1) {
      require(colormap != nullptr, "one value a point needs a colormap");
      if (viewer.colormap_device.size() == 0) viewer.colormap_device = interop::DeviceBuffer(1024);
      std::memcpy(viewer.colormap_host.data(), colormap, 1024);
      INTEROP_CUDA_CHECK(cudaMemcpyAsync(viewer.colormap_device.data(), viewer.colormap_host.data(), 1024,
                                         cudaMemcpyHostToDevice, viewer.points_stream));
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(viewer.points_stream));  // the host table may change next
      desc.colormap = static_cast<const uint8_t*>(viewer.colormap_device.data());
    }
    INTEROP_CUDA_CHECK(kernels::convert_to_rgba8(desc, targets.rgba, n * 4, viewer.points_stream));
  });
}

// The finite bounds, per axis, of the positions held (inside an update: the ones written so far).
int ilab_viewer_points_bounds(void* handle, double* low, double* high, int* empty) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    require(viewer.points != nullptr, "no points were shown");
    const lab::orbit::Bounds bounds =
        points_bounds(viewer, viewer.points->in_update() ? viewer.points_stream : nullptr);
    for (int axis = 0; axis < 3; ++axis) {
      low[axis] = bounds.low[axis];
      high[axis] = bounds.high[axis];
    }
    *empty = bounds.empty ? 1 : 0;
  });
}

// Ends the update: show 1 draws the points as squares of `size` frame pixels (the camera frames their bounds
// on the first set); show 0 gives the update up (an error in the caller's block) and draws nothing new.
int ilab_viewer_points_end(void* handle, int show, double size) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    ilab::points::Cloud& cloud = open_points(viewer);
    std::optional<interop::ScopedDevice> on_cuda;
    if (viewer.path != Path::Cpu) on_cuda.emplace(viewer.cuda_device);
    if (!show) {
      cloud.abandon();
      viewer.showing_points = false;
      return;
    }
    if (!(size >= ilab::points::kMinSize && size <= ilab::points::kMaxSize)) {
      cloud.abandon();
      require(false, "size " + std::to_string(size) + ": a point's edge from 1 to 64 frame pixels");
    }
    if (!viewer.camera_framed) {
      const lab::view::Size frame = frame_size_of(viewer);
      viewer.camera = lab::orbit::framing(cloud.bounds(viewer.points_stream), frame.width, frame.height);
      viewer.camera_framed = true;
    }
    cloud.end();
    viewer.point_size = static_cast<float>(size);
    viewer.showing_points = true;
    viewer.source = {};  // no array to read under the cursor
    finish_update(viewer, viewer.points_started, viewer.path == Path::Cpu);
  });
}

struct ilab_points_camera {
  double target[3];
  double yaw, pitch, distance, radius, fov_y;
};

// The points' camera: reset 1 frames the points' bounds again (F); set 1 takes *camera (refused unless
// finite, distance and radius above 0, fov_y in (0, pi), pitch within +-kMaxPitch). Then *camera and, where
// matrix is given, its view_projection for the frame now (16 floats, column-major) come back.
int ilab_viewer_points_camera(void* handle, ilab_points_camera* camera, int set, int reset, float* matrix) {
  return guarded([&] {
    Viewer& viewer = *static_cast<Viewer*>(handle);
    const ilab::ScopedContext current(viewer.context, viewer.owner, kViewer);
    lab::orbit::Orbit& orbit = viewer.camera;
    if (reset) {
      require(viewer.points != nullptr, "no points were shown: there are no bounds to frame");
      const lab::view::Size frame = frame_size_of(viewer);
      orbit = lab::orbit::framing(points_bounds(viewer, nullptr), frame.width, frame.height);
      viewer.camera_framed = true;
    }
    if (set) {
      const ilab_points_camera& c = *camera;
      bool finite = std::isfinite(c.yaw) && std::isfinite(c.pitch) && std::isfinite(c.distance) &&
                    std::isfinite(c.radius) && std::isfinite(c.fov_y);
      for (double t : c.target) finite = finite && std::isfinite(t);
      require(finite, "camera: every number finite");
      require(c.distance > 0.0 && c.radius > 0.0, "camera: distance and radius above 0");
      require(c.fov_y > 0.0 && c.fov_y < 3.14159, "camera: fov_y (radians) between 0 and pi");
      require(std::abs(c.pitch) <= lab::orbit::kMaxPitch,
              "camera: pitch within +-" + std::to_string(lab::orbit::kMaxPitch) + " radians");
      orbit.target = glm::vec3(static_cast<float>(c.target[0]), static_cast<float>(c.target[1]),
                               static_cast<float>(c.target[2]));
      orbit.yaw = c.yaw;
      orbit.pitch = c.pitch;
      orbit.distance = c.distance;
      orbit.radius = static_cast<float>(c.radius);
      orbit.fov_y = c.fov_y;
      viewer.camera_framed = true;
    }
    for (int axis = 0; axis < 3; ++axis) camera->target[axis] = orbit.target[axis];
    camera->yaw = orbit.yaw;
    camera->pitch = orbit.pitch;
    camera->distance = orbit.distance;
    camera->radius = orbit.radius;
    camera->fov_y = orbit.fov_y;
    if (matrix != nullptr) {
      const lab::Extent extent = viewer.platform->framebuffer_extent();
      const glm::mat4 m = lab::orbit::view_projection(orbit, extent.width, extent.height);
      std::memcpy(matrix, &m[0][0], 16 * sizeof(float));
    }
  });
}

}  // extern "C"
#pragma GCC visibility pop
