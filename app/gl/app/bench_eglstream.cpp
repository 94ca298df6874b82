// app/gl/app/bench_eglstream.cpp — the eglstream mode's own loop (bench_loops.hpp), written flat with raw
// EGL, CUDA and GL calls, as app/gl/mode_eglstream.cpp does its frame but with none of its classes: per image
// a FIFO stream (eglCreateStreamKHR, EGL_STREAM_FIFO_LENGTH_KHR 1) whose consumer is a
// GL_TEXTURE_EXTERNAL_OES texture and whose producer is CUDA, and two pitched frames taking turns. Each
// frame: the kernels write the frame not in the stream -> cudaEGLStreamProducerPresentFrame ->
// eglStreamConsumerAcquireKHR -> one draw of the external texture into the scene's texture ->
// eglStreamConsumerReleaseKHR -> cudaEGLStreamProducerReturnFrame of the frame before it (the consumer holds
// the last one acquired) -> the show pass, all finished. Setup sends one test frame to learn which memory row
// the external texture samples at t = 0, as the mode does. Everything is released by hand, in reverse order,
// after the stream is idle.
#include "app/gl/app/bench_loops.hpp"

#include "app/gl/app/app.hpp"
#include "app/gl/gl_objects.hpp"
#include "app/timing/bench_timing.hpp"
#include "interop/error.hpp"
#include "kernels/common.hpp"

#include <glad/egl.h>
// glad's egl.h declares every EGL type and function cuda_egl_interop.h needs (as mode_eglstream.cpp).
#define __egl_h_ 1
#define __eglext_h_ 1
#include <cuda_egl_interop.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace lab::gl {
namespace {

constexpr GLenum kTextureExternal = 0x8D65;  // GL_TEXTURE_EXTERNAL_OES
constexpr EGLint kAcquireTimeoutUs = 2'000'000;

[[noreturn]] void throw_egl(const char* call) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(eglGetError()));
  throw std::runtime_error(std::string("eglstream ref: ") + call + " failed (EGL error 0x" + hex + ")");
}

// One image's stream and what hangs off it, all raw handles.
struct RawStream {
  int width = 0, height = 0;
  EGLStreamKHR stream = EGL_NO_STREAM_KHR;
  GLuint texture = 0;      // GL_TEXTURE_EXTERNAL_OES, the stream's consumer
  GLuint framebuffer = 0;  // the scene's texture, drawn into
  cudaEglStreamConnection producer{};
  bool connected = false;
  void* frames[2] = {nullptr, nullptr};
  size_t pitch = 0;
  int next = 0;       // the frame the kernels write next
  int in_stream = 0;  // presented and not yet taken back
};

// Every stream and the draw's program, released by hand in reverse order once CUDA's stream is idle.
struct RawStreams {
  EGLDisplay display = EGL_NO_DISPLAY;
  cudaStream_t cuda = nullptr;
  std::vector<RawStream> streams;
  GlProgram program;  // the draw's shaders (compiled from the assets as the mode compiles them)
  GLuint vertex_array = 0;

  RawStreams() = default;
  RawStreams(const RawStreams&) = delete;
  RawStreams& operator=(const RawStreams&) = delete;
  ~RawStreams() {
    if (cuda) cudaStreamSynchronize(cuda);
    for (auto it = streams.rbegin(); it != streams.rend(); ++it) {
      if (it->connected) cudaEGLStreamProducerDisconnect(&it->producer);
      for (void* frame : it->frames)
        if (frame) cudaFree(frame);
      if (it->framebuffer) glDeleteFramebuffers(1, &it->framebuffer);
      if (it->texture) glDeleteTextures(1, &it->texture);
      if (it->stream != EGL_NO_STREAM_KHR) eglDestroyStreamKHR(display, it->stream);
    }
    if (vertex_array) glDeleteVertexArrays(1, &vertex_array);
  }
};

cudaEglFrame pitched_frame(const RawStream& s, void* memory) {
  cudaEglFrame frame{};
  frame.frame.pPitch[0] =
      make_cudaPitchedPtr(memory, s.pitch, static_cast<size_t>(s.width), static_cast<size_t>(s.height));
  cudaEglPlaneDesc& plane = frame.planeDesc[0];
  plane.width = static_cast<unsigned>(s.width);
  plane.height = static_cast<unsigned>(s.height);
  plane.depth = 1;
  plane.pitch = static_cast<unsigned>(s.pitch);
  plane.numChannels = 4;
  plane.channelDesc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  frame.planeCount = 1;
  frame.frameType = cudaEglFrameTypePitch;
  frame.eglColorFormat = cudaEglColorFormatABGR;  // RGBA8 in memory order
  return frame;
}

// The kernels' frame into the stream and out to GL: present, acquire, one draw, release, and the frame
// before it back to CUDA (cudaErrorLaunchTimeout while the consumer still holds it).
void carry(RawStreams& raw, RawStream& s, bool flip_rows) {
  cudaEglFrame frame = pitched_frame(s, s.frames[s.next]);
  INTEROP_CUDA_CHECK(cudaEGLStreamProducerPresentFrame(&s.producer, frame, &raw.cuda));
  s.next ^= 1;
  ++s.in_stream;
  if (!eglStreamConsumerAcquireKHR(raw.display, s.stream)) throw_egl("eglStreamConsumerAcquireKHR");
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, s.framebuffer);
  glViewport(0, 0, s.width, s.height);
  glUseProgram(raw.program.get());
  glUniform2i(0, s.width, s.height);
  glUniform1i(1, flip_rows ? 1 : 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(kTextureExternal, s.texture);
  glBindVertexArray(raw.vertex_array);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindTexture(kTextureExternal, 0);
  glBindVertexArray(0);
  glUseProgram(0);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  if (!eglStreamConsumerReleaseKHR(raw.display, s.stream)) throw_egl("eglStreamConsumerReleaseKHR");
  if (s.in_stream < 2) return;
  cudaEglFrame returned{};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (;;) {
    const cudaError_t result = cudaEGLStreamProducerReturnFrame(&s.producer, &returned, &raw.cuda);
    if (result == cudaSuccess) break;
    if (result != cudaErrorLaunchTimeout || std::chrono::steady_clock::now() > deadline) {
      INTEROP_CUDA_CHECK(result);
      break;
    }
    std::this_thread::yield();
  }
  --s.in_stream;
}

}  // namespace

std::optional<Measurement> eglstream_loop(App& app, std::optional<long long> frames, long long* last_index) {
  park(app);
  FrameSource& scene = app.scene();
  const std::vector<gl::Resource> specs = app.renderer().resources();
  RawStreams raw;
  raw.cuda = app.cuda_stream();
  raw.display = eglGetCurrentDisplay();
  if (!eglInitialize(raw.display, nullptr, nullptr)) throw_egl("eglInitialize");
  for (const auto& [vertex, fragment] :
       {std::pair{"eglstream.vert", "eglstream.frag"}, std::pair{"fullscreen.vert", "eglstream_core.frag"}}) {
    try {
      raw.program = create_program(vertex, fragment);
      break;
    } catch (const std::runtime_error&) {
      // the core form next, as the mode tries it
    }
  }
  if (!raw.program) throw std::runtime_error("eglstream ref: no shader of the external texture compiles");
  glCreateVertexArrays(1, &raw.vertex_array);
  for (const gl::Resource& spec : specs) {
    RawStream& s = raw.streams.emplace_back();
    s.width = spec.desc.width;
    s.height = spec.desc.height;
    const EGLint attributes[] = {EGL_STREAM_FIFO_LENGTH_KHR, 1, EGL_CONSUMER_ACQUIRE_TIMEOUT_USEC_KHR,
                                 kAcquireTimeoutUs, EGL_NONE};
    s.stream = eglCreateStreamKHR(raw.display, attributes);
    if (s.stream == EGL_NO_STREAM_KHR) throw_egl("eglCreateStreamKHR (FIFO)");
    glGenTextures(1, &s.texture);
    glBindTexture(kTextureExternal, s.texture);
    glTexParameteri(kTextureExternal, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(kTextureExternal, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(kTextureExternal, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(kTextureExternal, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    if (!eglStreamConsumerGLTextureExternalKHR(raw.display, s.stream))
      throw_egl("eglStreamConsumerGLTextureExternalKHR");
    glBindTexture(kTextureExternal, 0);
    glCreateFramebuffers(1, &s.framebuffer);
    glNamedFramebufferTexture(s.framebuffer, GL_COLOR_ATTACHMENT0, spec.gl_name, 0);
    for (void*& frame : s.frames)
      INTEROP_CUDA_CHECK(cudaMallocPitch(&frame, &s.pitch, static_cast<size_t>(s.width) * 4, s.height));
    INTEROP_CUDA_CHECK(cudaEGLStreamProducerConnect(&s.producer, s.stream, s.width, s.height));
    s.connected = true;
  }
  // Where the stream puts memory row 0: a test frame whose row 0 alone is white, read back.
  RawStream& first = raw.streams.front();
  INTEROP_CUDA_CHECK(cudaMemset2DAsync(first.frames[first.next], first.pitch, 0,
                                       static_cast<size_t>(first.width) * 4, first.height, raw.cuda));
  INTEROP_CUDA_CHECK(
      cudaMemsetAsync(first.frames[first.next], 0xFF, static_cast<size_t>(first.width) * 4, raw.cuda));
  carry(raw, first, false);
  uint32_t bottom = 0;
  glGetTextureSubImage(specs.front().gl_name, 0, 0, 0, 0, 1, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, sizeof bottom,
                       &bottom);
  const bool flip_rows = first.height > 1 && bottom != 0xFFFFFFFFu;

  const Extent extent = app.platform().framebuffer_extent();
  std::vector<CudaResourceView> views(raw.streams.size());
  const std::vector<double> wall = time_frames(frames, [&](long long index) {
    const FrameInfo frame{index, kernels::time_of_frame(index), extent};
    if (last_index) *last_index = index;
    for (size_t i = 0; i < raw.streams.size(); ++i) {
      const RawStream& s = raw.streams[i];
      views[i].pointer = s.frames[s.next];
      views[i].bytes = s.pitch * static_cast<size_t>(s.height);
      views[i].pitch = s.pitch;
    }
    scene.compute_cuda(frame, views, raw.cuda);
    for (RawStream& s : raw.streams) carry(raw, s, flip_rows);
    app.show(frame);
    finish_frame(app);
  });
  return summarize("eglstream ref", bench::Role::Own, wall);
}

}  // namespace lab::gl
