// interop/error.cpp — error names, remedies and the throw/report paths behind the macros.
#include "interop/error.hpp"

#include <glad/gl.h>

#include <cstdio>
#include <sstream>

namespace interop {

namespace {

bool contains(const std::string& text, const char* word) { return text.find(word) != std::string::npos; }

bool is_interop_call(const std::string& call) {
  return contains(call, "cudaGraphicsGL") || contains(call, "cudaGLGetDevices") ||
         contains(call, "cudaGraphicsMap") || contains(call, "cudaGraphicsUnmap") ||
         contains(call, "cudaGraphicsUnregister") || contains(call, "cudaGraphicsResource") ||
         contains(call, "cudaGraphicsSubResource");
}

}  // namespace

Error::Error(std::string call, std::string file, int line, std::string error_name, std::string advice,
             bool sticky)
    : std::runtime_error([&] {
        std::ostringstream message;
        message << call << ": " << error_name << " (" << file << ":" << line << ")";
        if (!advice.empty()) message << ": " << advice;
        return message.str();
      }()),
      m_call(std::move(call)),
      m_error_name(std::move(error_name)),
      m_advice(std::move(advice)),
      m_sticky(sticky) {}

std::string cuda_error_name(cudaError_t error) {
  const char* name = cudaGetErrorName(error);
  return name ? name : "cudaError " + std::to_string(static_cast<int>(error));
}

bool cuda_error_is_sticky(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

std::string current_gl_renderer() {
  if (glad_glGetString == nullptr) return "no GL context";
  const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return renderer ? renderer : "no GL context";
}

std::string cuda_error_advice(cudaError_t error, const std::string& call) {
  const bool interop = is_interop_call(call);
  const bool registering = contains(call, "Register") && !contains(call, "Unregister");
  switch (error) {
    case cudaErrorNoDevice:
      return "no CUDA device is visible to this process (check nvidia-smi and CUDA_VISIBLE_DEVICES); "
             "use --mode cpu";
    case cudaErrorInsufficientDriver:
      return "no NVIDIA driver new enough for this CUDA runtime is loaded (libcuda.so missing or old); "
             "install or update the NVIDIA driver, or use --mode cpu";
    case cudaErrorInvalidDevice:
      return "that CUDA device ordinal does not exist: --list or --doctor shows the devices";
    case cudaErrorOperatingSystem:
    case cudaErrorUnknown:
      if (interop)
        return "the GL context is not on an NVIDIA GPU that CUDA can use (renderer: " + current_gl_renderer() +
               "). Run GL on the NVIDIA driver (__GLX_VENDOR_LIBRARY_NAME=nvidia, or --headless on the EGL "
               "device platform), or use --mode staging/cpu";
      return "";
    case cudaErrorInvalidGraphicsContext:
      return "no GL context is current on this thread, or it belongs to another GPU (renderer: " +
             current_gl_renderer() + "); make the context current before registering or mapping";
    case cudaErrorNotSupported:
      if (interop)
        return "this GL object cannot be registered with CUDA: use an RGBA/RG/R texture format (not RGB, "
               "sRGB or depth) and a supported target";
      return "";
    case cudaErrorInvalidValue:
      if (registering)
        return "the GL name is not a buffer/texture of that target, or the object has no storage yet "
               "(glNamedBufferStorage / glTextureStorage2D first)";
      return "";
    case cudaErrorAlreadyMapped:
      return "the resource is already mapped: unmap it (end the ScopedMap) before mapping it again";
    case cudaErrorNotMapped:
    case cudaErrorNotMappedAsArray:
    case cudaErrorNotMappedAsPointer:
      return "ask a mapped resource for the view its registration provides: buffers give pointers, "
             "textures give arrays";
    default:
      break;
  }
  if (cuda_error_is_sticky(error))
    return "the CUDA context is corrupt after this error; the process must restart";
  if (interop && contains(call, "Unregister"))
    return "a resource must be unmapped before it is unregistered, and unregistered before its GL object "
           "and context are destroyed";
  return "";
}

std::string gl_error_name(unsigned int gl_error) {
  switch (gl_error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    default: {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%04X", gl_error);
      return std::string("GL error ") + hex;
    }
  }
}

namespace detail {

void throw_cuda_error(cudaError_t error, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
  throw Error(call, file, line, cuda_error_name(error), cuda_error_advice(error, call),
              cuda_error_is_sticky(error));
}

void report_cuda_error(cudaError_t error, const char* call, const char* file, int line) {
  cudaGetLastError();
  const std::string advice = cuda_error_advice(error, call);
  std::fprintf(stderr, "interop: %s: %s (%s:%d)%s%s\n", call, cuda_error_name(error).c_str(), file, line,
               advice.empty() ? "" : ": ", advice.c_str());
}

void check_gl_errors(const char* what, const char* file, int line) {
  GLenum error = glGetError();
  if (error == GL_NO_ERROR) return;
  std::string names = gl_error_name(error);
  bool out_of_memory = error == GL_OUT_OF_MEMORY;
  // GL queues errors; drain them so the next check reports only its own.
  for (int i = 0; i < 16 && (error = glGetError()) != GL_NO_ERROR; ++i) {
    names += ", " + gl_error_name(error);
    out_of_memory = out_of_memory || error == GL_OUT_OF_MEMORY;
  }
  // Textures and buffers are the size of the image, so the size is what to change.
  throw Error(what, file, line, names,
              out_of_memory ? "GL is out of memory for objects of this size; use a smaller --size, or free "
                              "memory (other GPU programs, ulimit -v)"
                            : "");
}

}  // namespace detail
}  // namespace interop
