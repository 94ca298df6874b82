// interop/error.hpp — CUDA and OpenGL failures as exceptions that say what failed, where, what it
// means (a Condition) and what a program using the library can do about it.
//
// Three tiers, as in nvpro's NVVK_CHECK / NVVK_FAIL_RETURN / NVVK_FAIL_REPORT:
//   INTEROP_CUDA_CHECK(call)   throws interop::Error on failure (the default);
//   INTEROP_CUDA_PROPAGATE(call) returns the cudaError_t from the enclosing function on failure;
//   INTEROP_CUDA_REPORT(call)  logs to stderr and continues (destructors: they must not throw).
// INTEROP_GL_CHECK(what) drains glGetError() after a GL call (the current context's, which the library
// resolves itself: it needs no GL loader to be loaded). No helper ever calls exit().
//
// The advice is the library's: it speaks of CUDA, GL, drivers and this API, never of a program's
// options. A program adds its own remedies by looking at Error::condition() (interop-lab's app maps
// them to its command line).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace interop {

// Which API reported the error.
enum class ErrorSource {
  Cuda,        // a CUDA runtime call; Error::code() is its cudaError_t
  CudaDriver,  // a CUDA driver API call (interop/vmm.hpp's cuMem*); Error::code() is its CUresult
  Gl,          // glGetError(); Error::code() is the (first) GLenum
  Desc,        // a desc refused by validate() before any API was called; code() is 0
};

// What an error means, whatever call reported it: what a program decides its remedy by.
enum class Condition {
  None,                   // nothing is known beyond the error itself
  NoCudaDevice,           // no CUDA device is visible to this process
  CudaDriverMissing,      // no NVIDIA driver new enough for this CUDA runtime
  InvalidCudaDevice,      // a CUDA device ordinal that does not exist
  GlNotOnCudaDevice,      // the GL context renders on a GPU that CUDA cannot use (or on the CPU)
  GlOnAnotherCudaDevice,  // GL renders on a CUDA device, but not on the one asked about
  NoCurrentGlContext,     // no GL context is current on this thread, or it belongs to another GPU
  NotRegistrable,         // a GL object whose format or target CUDA cannot register
  NoStorage,              // the GL name is no object of that target, or it has no storage yet
  AlreadyMapped,          // mapping a resource that is mapped
  WrongMappedView,        // a pointer asked of a texture, or an array of a buffer
  UnregisterOrder,        // unregistering a mapped resource, or one whose GL object or context is gone
  ContextCorrupt,         // a sticky CUDA error: the process must restart to use CUDA again
  OutOfMemory,            // CUDA or GL could not allocate
  InvalidDesc,            // a registration desc that validate() refuses
  // This process's CUDA-GL interop already went through the other window system: the NVIDIA driver serves
  // it through one of EGL and GLX per process, the first one it met (measured on the H200: after a headless
  // EGL context's interop a GLX window's cudaGLGetDevices answers cudaErrorDeviceUninitialized, and the
  // other way round).
  GlInteropOnOtherWindowSystem,
};

// A few words for the condition ("GL context not on a CUDA device"); "" for Condition::None.
const char* to_string(Condition condition);

// The facts of one failure.
struct ErrorInfo {
  ErrorSource source = ErrorSource::Cuda;
  std::string call;  // the call's text, "cudaGraphicsGLRegisterImage(&resource, ...)"
  std::string file;  // where it was made
  int line = 0;
  int code = 0;            // the cudaError_t or GLenum
  std::string error_name;  // "cudaErrorOperatingSystem", "GL_OUT_OF_MEMORY", "invalid desc"
  Condition condition = Condition::None;
  std::string advice;   // what a program using the library can do; "" when there is nothing to add
  bool sticky = false;  // the CUDA context is unusable: the process must restart
};

// An error from CUDA or OpenGL. what() reads "call: error_name (file:line): condition: advice".
class Error : public std::runtime_error {
 public:
  explicit Error(ErrorInfo info);

  const ErrorInfo& info() const { return m_info; }
  ErrorSource source() const { return m_info.source; }
  const std::string& call() const { return m_info.call; }
  const std::string& file() const { return m_info.file; }
  int line() const { return m_info.line; }
  int code() const { return m_info.code; }
  // The CUDA runtime error, or cudaSuccess when the driver API, GL or a desc reported it.
  cudaError_t cuda_error() const {
    return m_info.source == ErrorSource::Cuda ? static_cast<cudaError_t>(m_info.code) : cudaSuccess;
  }
  const std::string& error_name() const { return m_info.error_name; }
  Condition condition() const { return m_info.condition; }
  const std::string& advice() const { return m_info.advice; }
  // True for CUDA errors that leave the context unusable: the process must restart.
  bool sticky() const { return m_info.sticky; }

 private:
  ErrorInfo m_info;
};

// "cudaErrorInvalidValue" for cudaErrorInvalidValue.
std::string cuda_error_name(cudaError_t error);

// What `error` returned by `call` (the call's text) means. Interop registration and mapping errors get
// conditions of their own: a bare error 999 helps nobody.
Condition cuda_error_condition(cudaError_t error, const std::string& call);

// What to do about `error` returned by `call`, or "" when there is nothing to add.
std::string cuda_error_advice(cudaError_t error, const std::string& call);

// "call: cudaErrorName: condition: advice", for answers that carry the failure as text (device probes).
std::string describe_cuda_error(cudaError_t error, const std::string& call);

// True for errors after which the CUDA context is corrupt (illegal address, launch failure, ...).
bool cuda_error_is_sticky(cudaError_t error);

// "GL_INVALID_OPERATION" for GL_INVALID_OPERATION (0x0502).
std::string gl_error_name(unsigned int gl_error);

// The renderer string of the current GL context ("llvmpipe (LLVM 15.0.6, 256 bits)"), or "no GL context".
// Interop advice names it, since the usual cause of a failed registration is GL on another GPU.
std::string current_gl_renderer();

namespace detail {
[[noreturn]] void throw_cuda_error(cudaError_t error, const char* call, const char* file, int line);
void report_cuda_error(cudaError_t error, const char* call, const char* file, int line);
// After a GL call: throws the errors GL queued, if any, read through the current context (none: no check).
void check_gl_errors(const char* what, const char* file, int line);
// A GL call the library could not make (no current context, or one without the function): source Gl,
// code 0, `problem` as the error name.
[[noreturn]] void throw_gl_unavailable(const char* call, const std::string& problem, Condition condition,
                                       const std::string& advice, const char* file, int line);
// A desc refused before any CUDA or GL call: Condition::InvalidDesc, validate()'s message as the advice.
[[noreturn]] void throw_invalid_desc(const char* call, const std::string& message, const char* file,
                                     int line);
}  // namespace detail

}  // namespace interop

#define INTEROP_CUDA_CHECK(call)                                                      \
  do {                                                                                \
    const cudaError_t interop_error_ = (call);                                        \
    if (interop_error_ != cudaSuccess)                                                \
      ::interop::detail::throw_cuda_error(interop_error_, #call, __FILE__, __LINE__); \
  } while (0)

#define INTEROP_CUDA_PROPAGATE(call)                          \
  do {                                                        \
    const cudaError_t interop_error_ = (call);                \
    if (interop_error_ != cudaSuccess) return interop_error_; \
  } while (0)

#define INTEROP_CUDA_REPORT(call)                                                      \
  do {                                                                                 \
    const cudaError_t interop_error_ = (call);                                         \
    if (interop_error_ != cudaSuccess)                                                 \
      ::interop::detail::report_cuda_error(interop_error_, #call, __FILE__, __LINE__); \
  } while (0)

#define INTEROP_GL_CHECK(what) ::interop::detail::check_gl_errors((what), __FILE__, __LINE__)
