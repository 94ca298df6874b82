// app/gl/mode_eglstream.cpp — the `eglstream` mode: CUDA produces frames into an EGLStream, GL consumes
// them. At attach, each of the scene's images gets a stream on the GL context's EGL display
// (EGL_KHR_stream, FIFO mode: EGL_KHR_stream_fifo) whose consumer is a GL_TEXTURE_EXTERNAL_OES texture
// (eglStreamConsumerGLTextureExternalKHR) and whose producer is CUDA (cudaEGLStreamProducerConnect), and
// a pitched frame in CUDA memory. Every frame the kernels write the frame (kernels/image.hpp writes linear
// memory at any pitch), CUDA presents it (cudaEGLStreamProducerPresentFrame, cudaEglColorFormatABGR: RGBA8
// bytes as they are; ARGB swaps red and blue), GL acquires it (eglStreamConsumerAcquireKHR), draws the
// external texture into the scene's texture (the frame the renderer shows and reads), releases it, and
// CUDA takes the frame back (cudaEGLStreamProducerReturnFrame) before the kernels write it again.
//
// Only images travel in a stream, and only CUDA's way: the wave scene (a vertex buffer) and the postprocess
// scene (an image GL renders for the kernels to read) are refused (eglstream_scene_availability). The
// external texture is drawn with a compatibility-profile shader (assets/shaders/eglstream.frag: the H200's
// driver compiles samplerExternalOES with texture2D there and refuses core 450's texture()); where that
// does not compile, the core form with GL_OES_EGL_image_external_essl3 is tried.
//
// EGL_KHR_stream does not say which memory row a GL_TEXTURE_EXTERNAL_OES texture samples at t = 0, so
// attach sends one frame whose row 0 alone is white and reads where it lands: the draw then keeps
// memory row 0 at the bottom, as every other mode does.
#include "app/cli/remedy.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/gl/mode.hpp"
#include "interop/error.hpp"

#include <glad/egl.h>
// glad's egl.h declares every EGL type and function cuda_egl_interop.h needs; Khronos' own headers, which
// it includes, would declare the functions again as prototypes of glad's names.
#define __egl_h_ 1
#define __eglext_h_ 1
#include <cuda_egl_interop.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace lab::gl {

namespace {

constexpr GLenum kTextureExternal = 0x8D65;  // GL_TEXTURE_EXTERNAL_OES (GL_OES_EGL_image_external)
constexpr const char* kDisplayExtensions[] = {"EGL_KHR_stream", "EGL_KHR_stream_fifo",
                                              "EGL_KHR_stream_consumer_gltexture"};
constexpr EGLint kAcquireTimeoutUs = 2'000'000;  // a frame that has not arrived in 2 s never will
// cudaEGLStreamProducerReturnFrame answers cudaErrorLaunchTimeout while the consumer still holds the frame;
// a frame the consumer let go comes back within this.
constexpr auto kReturnTimeout = std::chrono::seconds(2);

bool has_word(const char* list, const std::string& word) {
  if (list == nullptr) return false;
  const std::string text = std::string(" ") + list + " ";
  return text.find(" " + word + " ") != std::string::npos;
}

std::string egl_error(const char* call) {
  return std::string(call) + " failed (EGL error 0x" + [] {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "%04X", static_cast<unsigned>(eglGetError()));
    return std::string(hex);
  }() + ")";
}

// The GL state the stream's draw changes, put back when it ends: the renderer's draws assume their own.
class SavedDrawState {
 public:
  SavedDrawState() {
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &m_framebuffer);
    glGetIntegerv(GL_VIEWPORT, m_viewport);
    glGetIntegerv(GL_CURRENT_PROGRAM, &m_program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &m_vertex_array);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &m_active_texture);
    for (size_t i = 0; i < std::size(kCapabilities); ++i) m_enabled[i] = glIsEnabled(kCapabilities[i]);
  }
  ~SavedDrawState() {
    for (size_t i = 0; i < std::size(kCapabilities); ++i)
      (m_enabled[i] ? glEnable : glDisable)(kCapabilities[i]);
    glActiveTexture(static_cast<GLenum>(m_active_texture));
    glBindVertexArray(static_cast<GLuint>(m_vertex_array));
    glUseProgram(static_cast<GLuint>(m_program));
    glViewport(m_viewport[0], m_viewport[1], m_viewport[2], m_viewport[3]);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(m_framebuffer));
  }
  SavedDrawState(const SavedDrawState&) = delete;
  SavedDrawState& operator=(const SavedDrawState&) = delete;

  static constexpr GLenum kCapabilities[] = {GL_BLEND, GL_DEPTH_TEST, GL_CULL_FACE, GL_SCISSOR_TEST};

 private:
  GLint m_framebuffer = 0, m_program = 0, m_vertex_array = 0, m_active_texture = GL_TEXTURE0;
  GLint m_viewport[4] = {};
  GLboolean m_enabled[std::size(kCapabilities)] = {};
};

// An EGLStreamKHR of `display`, destroyed with it.
class EglStream {
 public:
  EglStream(EGLDisplay display, EGLStreamKHR stream) : m_display(display), m_stream(stream) {}
  ~EglStream() {
    if (m_stream != EGL_NO_STREAM_KHR) eglDestroyStreamKHR(m_display, m_stream);
  }
  EglStream(const EglStream&) = delete;
  EglStream& operator=(const EglStream&) = delete;
  EGLStreamKHR get() const { return m_stream; }

 private:
  EGLDisplay m_display;
  EGLStreamKHR m_stream;
};

// CUDA's producer end of a stream, disconnected with it.
class ProducerConnection {
 public:
  ProducerConnection(EGLStreamKHR stream, int width, int height) {
    INTEROP_CUDA_CHECK(cudaEGLStreamProducerConnect(&m_connection, stream, static_cast<EGLint>(width),
                                                    static_cast<EGLint>(height)));
    m_connected = true;
  }
  ~ProducerConnection() {
    if (m_connected) INTEROP_CUDA_REPORT(cudaEGLStreamProducerDisconnect(&m_connection));
  }
  ProducerConnection(const ProducerConnection&) = delete;
  ProducerConnection& operator=(const ProducerConnection&) = delete;
  cudaEglStreamConnection* get() { return &m_connection; }

 private:
  cudaEglStreamConnection m_connection{};
  bool m_connected = false;
};

// Pitched device memory, freed with it.
class PitchedFrame {
 public:
  PitchedFrame(int width, int height) {
    INTEROP_CUDA_CHECK(cudaMallocPitch(&m_data, &m_pitch, static_cast<size_t>(width) * 4, height));
  }
  ~PitchedFrame() {
    if (m_data != nullptr) INTEROP_CUDA_REPORT(cudaFree(m_data));
  }
  PitchedFrame(const PitchedFrame&) = delete;
  PitchedFrame& operator=(const PitchedFrame&) = delete;
  void* data() const { return m_data; }
  size_t pitch() const { return m_pitch; }

 private:
  void* m_data = nullptr;
  size_t m_pitch = 0;
};

// One image's stream: CUDA's pitched frame -> the stream -> the external texture -> drawn into the
// scene's texture. Two frames take turns: the consumer keeps the frame it acquired last as its texture's
// image until it acquires the next, so a frame comes back to CUDA only once the next one has reached GL
// (on an H200 the frame just released never returned while it was the last one acquired). Members in
// teardown order reversed: the producer disconnects first, then the frames' memory goes, then GL's
// objects, then the stream.
class ImageStream {
 public:
  ImageStream(EGLDisplay display, const gl::Resource& target)
      : m_display(display),
        m_width(target.desc.width),
        m_height(target.desc.height),
        m_stream(display, create_stream(display)),
        m_texture(create_external_texture()),
        m_framebuffer(create_target_framebuffer(target.gl_name)),
        m_frames{PitchedFrame(m_width, m_height), PitchedFrame(m_width, m_height)} {
    if (!eglStreamConsumerGLTextureExternalKHR(display, m_stream.get()))
      throw std::runtime_error(egl_error("eglStreamConsumerGLTextureExternalKHR"));
    glBindTexture(kTextureExternal, 0);
    m_producer = std::make_unique<ProducerConnection>(m_stream.get(), m_width, m_height);
  }
  ~ImageStream() { m_producer.reset(); }  // before the memory it may still hold
  ImageStream(const ImageStream&) = delete;
  ImageStream& operator=(const ImageStream&) = delete;

  // The frame the kernels write next: the one not held by the stream.
  CudaResourceView view() const {
    CudaResourceView view;
    view.pointer = next().data();
    view.bytes = next().pitch() * static_cast<size_t>(m_height);
    view.pitch = next().pitch();
    return view;
  }
  void* data() const { return next().data(); }
  size_t pitch() const { return next().pitch(); }

  void present(cudaStream_t stream) {
    cudaEglFrame frame = describe_frame(next());
    INTEROP_CUDA_CHECK(cudaEGLStreamProducerPresentFrame(m_producer->get(), frame, &stream));
    m_next ^= 1;
    ++m_in_stream;
  }
  void acquire() {
    if (!eglStreamConsumerAcquireKHR(m_display, m_stream.get()))
      throw std::runtime_error(egl_error("eglStreamConsumerAcquireKHR") +
                               ": the frame CUDA presented did not reach GL");
  }
  // The acquired frame into the scene's texture, one full-screen draw with `program`.
  void draw(GLuint program, GLuint vertex_array, bool flip_rows) {
    const SavedDrawState saved;
    for (const GLenum capability : SavedDrawState::kCapabilities) glDisable(capability);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, m_framebuffer.get());
    glViewport(0, 0, m_width, m_height);
    glUseProgram(program);
    glUniform2i(0, m_width, m_height);
    glUniform1i(1, flip_rows ? 1 : 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(kTextureExternal, m_texture.get());
    glBindVertexArray(vertex_array);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindTexture(kTextureExternal, 0);
  }
  void release() {
    if (!eglStreamConsumerReleaseKHR(m_display, m_stream.get()))
      throw std::runtime_error(egl_error("eglStreamConsumerReleaseKHR"));
  }
  // After GL acquired the frame just presented: takes the one before it back, so the kernels may write
  // it in the next frame. The first frame has none before it.
  void take_back(cudaStream_t stream) {
    if (m_in_stream < 2) return;
    cudaEglFrame frame{};
    const auto deadline = std::chrono::steady_clock::now() + kReturnTimeout;
    for (;;) {
      const cudaError_t result = cudaEGLStreamProducerReturnFrame(m_producer->get(), &frame, &stream);
      if (result == cudaSuccess) break;
      if (result != cudaErrorLaunchTimeout || std::chrono::steady_clock::now() > deadline) {
        INTEROP_CUDA_CHECK(result);
        break;
      }
      std::this_thread::yield();
    }
    --m_in_stream;
  }

 private:
  static EGLStreamKHR create_stream(EGLDisplay display) {
    const EGLint attributes[] = {EGL_STREAM_FIFO_LENGTH_KHR, 1, EGL_CONSUMER_ACQUIRE_TIMEOUT_USEC_KHR,
                                 kAcquireTimeoutUs, EGL_NONE};
    const EGLStreamKHR stream = eglCreateStreamKHR(display, attributes);
    if (stream == EGL_NO_STREAM_KHR) throw std::runtime_error(egl_error("eglCreateStreamKHR (FIFO)"));
    return stream;
  }
  // Bound to GL_TEXTURE_EXTERNAL_OES, as eglStreamConsumerGLTextureExternalKHR takes it.
  static GlTexture create_external_texture() {
    GLuint name = 0;
    glGenTextures(1, &name);
    GlTexture texture(name);
    glBindTexture(kTextureExternal, name);
    glTexParameteri(kTextureExternal, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(kTextureExternal, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(kTextureExternal, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(kTextureExternal, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    return texture;
  }
  static GlFramebuffer create_target_framebuffer(GLuint texture) {
    GLuint name = 0;
    glCreateFramebuffers(1, &name);
    GlFramebuffer framebuffer(name);
    glNamedFramebufferTexture(name, GL_COLOR_ATTACHMENT0, texture, 0);
    if (glCheckNamedFramebufferStatus(name, GL_DRAW_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      throw std::runtime_error(
          "eglstream: the scene's texture is no complete framebuffer to draw the stream into");
    return framebuffer;
  }
  const PitchedFrame& next() const { return m_frames[m_next]; }
  cudaEglFrame describe_frame(const PitchedFrame& memory) const {
    cudaEglFrame frame{};
    frame.frame.pPitch[0] = make_cudaPitchedPtr(memory.data(), memory.pitch(), static_cast<size_t>(m_width),
                                                static_cast<size_t>(m_height));
    cudaEglPlaneDesc& plane = frame.planeDesc[0];
    plane.width = static_cast<unsigned>(m_width);
    plane.height = static_cast<unsigned>(m_height);
    plane.depth = 1;
    plane.pitch = static_cast<unsigned>(memory.pitch());
    plane.numChannels = 4;
    plane.channelDesc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    frame.planeCount = 1;
    frame.frameType = cudaEglFrameTypePitch;
    frame.eglColorFormat = cudaEglColorFormatABGR;  // RGBA8 in memory order (ARGB swaps red and blue)
    return frame;
  }

  EGLDisplay m_display;
  int m_width, m_height;
  EglStream m_stream;
  GlTexture m_texture;
  GlFramebuffer m_framebuffer;
  PitchedFrame m_frames[2];
  int m_next = 0;       // the frame the kernels write next
  int m_in_stream = 0;  // frames presented and not yet taken back
  std::unique_ptr<ProducerConnection> m_producer;
};

// The stream's draw: the compatibility form the H200's driver compiles, else the core form.
GlProgram create_stream_program() {
  std::string errors;
  for (const auto& [vertex, fragment] :
       {std::pair{"eglstream.vert", "eglstream.frag"}, std::pair{"fullscreen.vert", "eglstream_core.frag"}}) {
    try {
      return create_program(vertex, fragment);
    } catch (const std::runtime_error& error) {
      errors += std::string("\n") + error.what();
    }
  }
  throw std::runtime_error("eglstream: no shader of the external texture compiles on this GL:" + errors);
}

class EglStreamMode final : public gl::Mode {
 public:
  explicit EglStreamMode(const CudaContext& cuda) : m_cuda(cuda) {}
  ~EglStreamMode() override { detach(); }
  EglStreamMode(const EglStreamMode&) = delete;
  EglStreamMode& operator=(const EglStreamMode&) = delete;

  ModeId id() const override { return ModeId::Eglstream; }

  void attach(gl::Renderer& renderer) override {
    detach();
    const ModeAvailability support = eglstream_support();
    if (!support.available) throw std::runtime_error("--mode eglstream is unavailable: " + support.reason);
    const ModeAvailability scene = eglstream_scene_availability(gl::descs_of(renderer.resources()));
    if (!scene.available) throw std::runtime_error("--mode eglstream is unavailable: " + scene.reason);
    try {
      const EGLDisplay display = eglGetCurrentDisplay();
      // After a Vulkan instance came and went in this process (the external and exported modes, the
      // doctor), the display of the current context refused streams on an H200 (EGL_NOT_INITIALIZED) while
      // GL went on working; initialising an initialised display does nothing else (EGL 1.5, 3.2).
      if (!eglInitialize(display, nullptr, nullptr)) throw std::runtime_error(egl_error("eglInitialize"));
      m_program = create_stream_program();
      m_vertex_array = create_vertex_array("eglstream draw");
      for (const gl::Resource& resource : renderer.resources()) {
        m_streams.push_back(std::make_unique<ImageStream>(display, resource));
        m_views.push_back(m_streams.back()->view());
      }
      m_flip_rows = find_row_order(renderer.resources().front());
    } catch (...) {
      detach();
      throw;
    }
  }

  void detach() override {
    if (!m_streams.empty()) INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_cuda.stream));
    m_views.clear();
    m_streams.clear();  // each disconnects CUDA before its stream goes
    m_vertex_array = GlVertexArray();
    m_program = GlProgram();
  }

  void produce(gl::Renderer&, FrameSource& scene, const FrameInfo& frame, FrameTimers& timers) override {
    for (size_t i = 0; i < m_streams.size(); ++i) m_views[i] = m_streams[i]->view();
    {
      CudaPhase phase(timers, Phase::Kernel, m_cuda.stream);
      scene.compute_cuda(frame, m_views, m_cuda.stream);
      INTEROP_CUDA_CHECK(cudaGetLastError());
    }
    {
      CpuPhase phase(timers, Phase::Signal);
      for (const auto& stream : m_streams) stream->present(m_cuda.stream);
    }
    {
      CpuPhase phase(timers, Phase::Wait);
      for (const auto& stream : m_streams) stream->acquire();
    }
    {
      GraphicsPhase phase(timers, Phase::GlCopy);
      for (const auto& stream : m_streams) stream->draw(m_program.get(), m_vertex_array.get(), m_flip_rows);
    }
    for (const auto& stream : m_streams) {
      stream->release();
      stream->take_back(m_cuda.stream);
    }
  }

  std::string transfer() const override {
    return "CUDA presents each frame into an EGLStream (FIFO), GL acquires it as a GL_TEXTURE_EXTERNAL_OES "
           "texture and draws it into the scene's texture";
  }

 private:
  // One frame whose memory row 0 alone is white, through the stream: where GL puts it.
  bool find_row_order(const gl::Resource& target) {
    ImageStream& stream = *m_streams.front();
    const int width = target.desc.width, height = target.desc.height;
    INTEROP_CUDA_CHECK(cudaMemset2DAsync(stream.data(), stream.pitch(), 0, static_cast<size_t>(width) * 4,
                                         static_cast<size_t>(height), m_cuda.stream));
    INTEROP_CUDA_CHECK(cudaMemsetAsync(stream.data(), 0xFF, static_cast<size_t>(width) * 4, m_cuda.stream));
    stream.present(m_cuda.stream);
    stream.acquire();
    stream.draw(m_program.get(), m_vertex_array.get(), false);
    stream.release();
    stream.take_back(m_cuda.stream);
    uint32_t bottom = 0, top = 0;
    glGetTextureSubImage(target.gl_name, 0, 0, 0, 0, 1, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, sizeof(bottom),
                         &bottom);
    glGetTextureSubImage(target.gl_name, 0, 0, height - 1, 0, 1, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, sizeof(top),
                         &top);
    if (height == 1 || (bottom == 0xFFFFFFFFu && top == 0)) return false;
    if (bottom == 0 && top == 0xFFFFFFFFu) return true;
    throw std::runtime_error(
        "eglstream: a test frame through the stream arrived as neither row order (row 0 "
        "read back " +
        std::to_string(bottom) + ", the last row " + std::to_string(top) +
        "); the stream does not carry CUDA's frames intact here; use --mode interop");
  }

  CudaContext m_cuda;
  GlProgram m_program;
  GlVertexArray m_vertex_array;
  std::vector<std::unique_ptr<ImageStream>> m_streams;
  std::vector<CudaResourceView> m_views;
  bool m_flip_rows = false;  // the external texture samples memory row 0 at its top
};

}  // namespace

ModeAvailability eglstream_support() {
  // glad loads EGL where the EGL platform made the context; a GLFW window's GLX context never did. Loaded
  // without a display, glad has EGL 1.0's functions only: eglGetCurrentDisplay, which is EGL_NO_DISPLAY
  // unless an EGL context is current, says enough.
  if (glad_eglGetCurrentDisplay == nullptr && gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0)
    return {false,
            "libEGL cannot be loaded (libegl1): EGLStreams are EGL's; run --headless on an NVIDIA GPU"};
  const EGLDisplay display = glad_eglGetCurrentDisplay != nullptr ? eglGetCurrentDisplay() : EGL_NO_DISPLAY;
  if (display == EGL_NO_DISPLAY)
    return {false,
            "the GL context is not an EGL context (a GLFW window's is GLX's), and an EGLStream's consumer "
            "must be one: run --headless (EGL) for --mode eglstream"};
  const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
  const char* vendor = eglQueryString(display, EGL_VENDOR);
  for (const char* extension : kDisplayExtensions)
    if (!has_word(extensions, extension))
      return {false, std::string("the EGL display (") + (vendor != nullptr ? vendor : "unknown vendor") +
                         ") lacks " + extension +
                         ", which --mode eglstream needs (NVIDIA's EGL device platform has it); use --mode "
                         "interop, staging or cpu"};
  // GL's side (samplerExternalOES) is judged by the shader compiler at attach, which says what it refuses:
  // a driver may compile GL_OES_EGL_image_external's shaders without listing it among a core context's
  // extensions.
  return {true, ""};
}

ModeAvailability eglstream_scene_availability(const std::vector<ResourceDesc>& resources) {
  for (const ResourceDesc& desc : resources) {
    if (desc.kind != ResourceKind::Texture2D)
      return {false, std::string("an EGLStream carries images, and the scene's ") + desc.label +
                         " is a buffer: use --scene pattern, or --mode interop or buffer"};
    if (desc.role != ResourceRole::Output)
      return {false, std::string("an EGLStream carries CUDA's images to GL, and the scene's ") + desc.label +
                         " goes the other way (GL renders it for the kernels): use --scene pattern, or "
                         "--mode interop or buffer"};
  }
  return {true, ""};
}

std::unique_ptr<gl::Mode> create_eglstream_mode(const CudaContext& cuda) {
  return std::make_unique<EglStreamMode>(cuda);
}

}  // namespace lab::gl
