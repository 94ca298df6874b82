// interop/error.cpp — error names, conditions, advice and the throw/report paths behind the macros.
#include "interop/error.hpp"

#include "interop/gl_context.hpp"

#include <cstdio>
#include <sstream>

namespace interop {

namespace {

bool contains(const std::string& text, const char* word) {
  return text.find(word) != std::string::npos;
}

bool is_interop_call(const std::string& call) {
  return contains(call, "cudaGraphicsGL") || contains(call, "cudaGLGetDevices") ||
         contains(call, "cudaGraphicsMap") || contains(call, "cudaGraphicsUnmap") ||
         contains(call, "cudaGraphicsUnregister") || contains(call, "cudaGraphicsResource") ||
         contains(call, "cudaGraphicsSubResource");
}

std::string message_of(const ErrorInfo& info) {
  std::ostringstream message;
  message << info.call << ": " << info.error_name << " (" << info.file << ":" << info.line << ")";
  const std::string condition = to_string(info.condition);
  if (!condition.empty() && condition != info.error_name) message << ": " << condition;
  if (!info.advice.empty()) message << ": " << info.advice;
  return message.str();
}

}  // namespace

const char* to_string(Condition condition) {
  switch (condition) {
    case Condition::None:
      return "";
    case Condition::NoCudaDevice:
      return "no CUDA device";
    case Condition::CudaDriverMissing:
      return "no NVIDIA driver for this CUDA runtime";
    case Condition::InvalidCudaDevice:
      return "no such CUDA device";
    case Condition::GlNotOnCudaDevice:
      return "GL context not on a CUDA device";
    case Condition::GlOnAnotherCudaDevice:
      return "GL context on another CUDA device";
    case Condition::GlInteropOnOtherWindowSystem:
      return "CUDA-GL interop taken by the other window system";
    case Condition::NoCurrentGlContext:
      return "no current GL context on a CUDA device";
    case Condition::NotRegistrable:
      return "GL object not registrable";
    case Condition::NoStorage:
      return "GL object without storage";
    case Condition::AlreadyMapped:
      return "resource already mapped";
    case Condition::WrongMappedView:
      return "wrong view of a mapped resource";
    case Condition::UnregisterOrder:
      return "unregistered out of order";
    case Condition::ContextCorrupt:
      return "CUDA context corrupt";
    case Condition::OutOfMemory:
      return "out of memory";
    case Condition::InvalidDesc:
      return "invalid desc";
  }
  return "";
}

Error::Error(ErrorInfo info) : std::runtime_error(message_of(info)), m_info(std::move(info)) {}

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
  // Null without a current context.
  const detail::GlGetString get_string = detail::current_gl_functions().get_string;
  const GLubyte* renderer = get_string != nullptr ? get_string(GL_RENDERER) : nullptr;
  return renderer != nullptr ? reinterpret_cast<const char*>(renderer) : "no GL context";
}

Condition cuda_error_condition(cudaError_t error, const std::string& call) {
  const bool interop = is_interop_call(call);
  const bool registering = contains(call, "Register") && !contains(call, "Unregister");
  switch (error) {
    case cudaErrorNoDevice:
      return Condition::NoCudaDevice;
    case cudaErrorInsufficientDriver:
      return Condition::CudaDriverMissing;
    case cudaErrorInvalidDevice:
      return Condition::InvalidCudaDevice;
    case cudaErrorOperatingSystem:
    case cudaErrorUnknown:
      return interop ? Condition::GlNotOnCudaDevice : Condition::None;
    case cudaErrorInvalidGraphicsContext:
      return Condition::NoCurrentGlContext;
    case cudaErrorDeviceUninitialized:
      return interop ? Condition::GlInteropOnOtherWindowSystem : Condition::None;
    case cudaErrorNotSupported:
      return interop ? Condition::NotRegistrable : Condition::None;
    case cudaErrorInvalidValue:
      return registering ? Condition::NoStorage : Condition::None;
    case cudaErrorAlreadyMapped:
      return Condition::AlreadyMapped;
    case cudaErrorNotMapped:
    case cudaErrorNotMappedAsArray:
    case cudaErrorNotMappedAsPointer:
      return Condition::WrongMappedView;
    case cudaErrorMemoryAllocation:
      return Condition::OutOfMemory;
    default:
      break;
  }
  if (cuda_error_is_sticky(error)) return Condition::ContextCorrupt;
  if (interop && contains(call, "Unregister")) return Condition::UnregisterOrder;
  return Condition::None;
}

std::string cuda_error_advice(cudaError_t error, const std::string& call) {
  switch (cuda_error_condition(error, call)) {
    case Condition::NoCudaDevice:
      return "none is visible to this process: check nvidia-smi and CUDA_VISIBLE_DEVICES";
    case Condition::CudaDriverMissing:
      return "libcuda.so is missing or older than this CUDA runtime: install or update the NVIDIA driver";
    case Condition::InvalidCudaDevice:
      return "use an ordinal below cudaGetDeviceCount (interop::enumerate_cuda_devices lists them)";
    case Condition::GlNotOnCudaDevice:
      return "GL renders on " + current_gl_renderer() +
             ", not on an NVIDIA GPU that CUDA can use: create the context on the NVIDIA driver "
             "(GLX with __GLX_VENDOR_LIBRARY_NAME=nvidia, or EGL on the NVIDIA EGL device), or hand results "
             "to GL through host memory instead of interop";
    case Condition::GlInteropOnOtherWindowSystem:
      return "this process already used CUDA-GL interop through the other window system (EGL for headless "
             "contexts, GLX for windows on X11), and the NVIDIA driver serves it through one of them per "
             "process, the first it met: create every GL context that shares CUDA resources the same way, "
             "or the other kind in a separate process";
    case Condition::NoCurrentGlContext:
      return "no GL context is current on this thread, or it belongs to another GPU (renderer: " +
             current_gl_renderer() + "); make the context current before registering or mapping";
    case Condition::NotRegistrable:
      return "use an RGBA/RG/R texture format (not RGB, sRGB or depth) and a supported target";
    case Condition::NoStorage:
      return "the GL name is not a buffer/texture of that target, or the object has no storage yet "
             "(glNamedBufferStorage / glTextureStorage2D first)";
    case Condition::AlreadyMapped:
      return "the resource is already mapped: unmap it (end the ScopedMap) before mapping it again";
    case Condition::WrongMappedView:
      return "ask a mapped resource for the view its registration provides: buffers give pointers, "
             "textures give arrays";
    case Condition::UnregisterOrder:
      return "a resource must be unmapped before it is unregistered, and unregistered before its GL object "
             "and context are destroyed";
    case Condition::ContextCorrupt:
      return "the CUDA context is corrupt after this error; the process must restart to use CUDA again";
    case Condition::OutOfMemory:
      return "the device has too little free memory for this allocation: allocate less, or free memory "
             "(other GPU programs)";
    case Condition::GlOnAnotherCudaDevice:
    case Condition::InvalidDesc:
    case Condition::None:
      break;
  }
  return "";
}

std::string describe_cuda_error(cudaError_t error, const std::string& call) {
  const std::string condition = to_string(cuda_error_condition(error, call));
  const std::string advice = cuda_error_advice(error, call);
  return call + ": " + cuda_error_name(error) + (condition.empty() ? "" : ": " + condition) +
         (advice.empty() ? "" : ": " + advice);
}

std::string gl_error_name(unsigned int gl_error) {
  switch (gl_error) {
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW:
      return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW:
      return "GL_STACK_OVERFLOW";
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
  ErrorInfo info;
  info.source = ErrorSource::Cuda;
  info.call = call;
  info.file = file;
  info.line = line;
  info.code = static_cast<int>(error);
  info.error_name = cuda_error_name(error);
  info.condition = cuda_error_condition(error, call);
  info.advice = cuda_error_advice(error, call);
  info.sticky = cuda_error_is_sticky(error);
  throw Error(std::move(info));
}

void report_cuda_error(cudaError_t error, const char* call, const char* file, int line) {
  cudaGetLastError();
  std::fprintf(stderr, "interop: %s (%s:%d)\n", describe_cuda_error(error, call).c_str(), file, line);
}

void check_gl_errors(const char* what, const char* file, int line) {
  // Without a current context GL queues no errors (and glGetError answers GL_NO_ERROR).
  const GlGetError get_error = current_gl_functions().get_error;
  if (get_error == nullptr) return;
  GLenum error = get_error();
  if (error == GL_NO_ERROR) return;
  ErrorInfo info;
  info.source = ErrorSource::Gl;
  info.call = what;
  info.file = file;
  info.line = line;
  info.code = static_cast<int>(error);
  info.error_name = gl_error_name(error);
  bool out_of_memory = error == GL_OUT_OF_MEMORY;
  // GL queues errors; drain them so the next check reports only its own.
  for (int i = 0; i < 16 && (error = get_error()) != GL_NO_ERROR; ++i) {
    info.error_name += ", " + gl_error_name(error);
    out_of_memory = out_of_memory || error == GL_OUT_OF_MEMORY;
  }
  if (out_of_memory) {
    info.condition = Condition::OutOfMemory;
    info.advice =
        "GL could not allocate objects of this size: create smaller ones, or free memory (other GPU "
        "programs, ulimit -v)";
  }
  throw Error(std::move(info));
}

void throw_gl_unavailable(const char* call, const std::string& problem, Condition condition,
                          const std::string& advice, const char* file, int line) {
  ErrorInfo info;
  info.source = ErrorSource::Gl;
  info.call = call;
  info.file = file;
  info.line = line;
  info.error_name = problem;
  info.condition = condition;
  info.advice = advice;
  throw Error(std::move(info));
}

void throw_invalid_desc(const char* call, const std::string& message, const char* file, int line) {
  ErrorInfo info;
  info.source = ErrorSource::Desc;
  info.call = call;
  info.file = file;
  info.line = line;
  info.error_name = "invalid desc";
  info.condition = Condition::InvalidDesc;
  info.advice = message;
  throw Error(std::move(info));
}

}  // namespace detail

}  // namespace interop
