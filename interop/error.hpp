// interop/error.hpp — CUDA and OpenGL failures as exceptions that say what failed and what to do.
//
// Three tiers, as in nvpro's NVVK_CHECK / NVVK_FAIL_RETURN / NVVK_FAIL_REPORT:
//   INTEROP_CUDA_CHECK(call)   throws interop::Error on failure (the default);
//   INTEROP_CUDA_PROPAGATE(call) returns the cudaError_t from the enclosing function on failure;
//   INTEROP_CUDA_REPORT(call)  logs to stderr and continues (destructors: they must not throw).
// INTEROP_GL_CHECK(what) drains glGetError() after a GL call. No helper ever calls exit().
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace interop {

// An error from CUDA or OpenGL with the call text, where it happened and, where known, a remedy.
class Error : public std::runtime_error {
 public:
  Error(std::string call, std::string file, int line, std::string error_name, std::string advice,
        bool sticky = false);

  const std::string& call() const { return m_call; }
  const std::string& error_name() const { return m_error_name; }
  const std::string& advice() const { return m_advice; }
  // True for CUDA errors that leave the context unusable: the process must restart.
  bool sticky() const { return m_sticky; }

 private:
  std::string m_call;
  std::string m_error_name;
  std::string m_advice;
  bool m_sticky = false;
};

// "cudaErrorInvalidValue" for cudaErrorInvalidValue.
std::string cuda_error_name(cudaError_t error);

// What to do about `error` returned by `call` (the call's text), or "" when there is nothing to add.
// Interop registration and mapping errors get sentences of their own: a bare error 999 helps nobody.
std::string cuda_error_advice(cudaError_t error, const std::string& call);

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
void check_gl_errors(const char* what, const char* file, int line);
}  // namespace detail

}  // namespace interop

#define INTEROP_CUDA_CHECK(call)                                                              \
  do {                                                                                        \
    const cudaError_t interop_error_ = (call);                                                \
    if (interop_error_ != cudaSuccess)                                                        \
      ::interop::detail::throw_cuda_error(interop_error_, #call, __FILE__, __LINE__);         \
  } while (0)

#define INTEROP_CUDA_PROPAGATE(call)                                                          \
  do {                                                                                        \
    const cudaError_t interop_error_ = (call);                                                \
    if (interop_error_ != cudaSuccess) return interop_error_;                                 \
  } while (0)

#define INTEROP_CUDA_REPORT(call)                                                             \
  do {                                                                                        \
    const cudaError_t interop_error_ = (call);                                                \
    if (interop_error_ != cudaSuccess)                                                        \
      ::interop::detail::report_cuda_error(interop_error_, #call, __FILE__, __LINE__);        \
  } while (0)

#define INTEROP_GL_CHECK(what) ::interop::detail::check_gl_errors((what), __FILE__, __LINE__)
