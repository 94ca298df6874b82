// tests/unit/test_errors.cpp — CUDA/GL error names, conditions and advice, the three error macros, and the
// app's command-line remedies on top of them (app/cli/remedy.hpp). Needs no CUDA
// device and no GL context: cudaGetErrorName works without a driver, and no GL function is loaded.
#include "app/cli/remedy.hpp"
#include "interop/error.hpp"

#include <glad/gl.h>
#include <gtest/gtest.h>

#include <string>

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Stands in for a CUDA call: the macros see an expression that yields an error.
cudaError_t cuda_call_failing_with(cudaError_t error) {
  return error;
}

TEST(CudaErrorNameTest, IsTheEnumeratorName) {
  EXPECT_EQ(interop::cuda_error_name(cudaErrorInvalidValue), "cudaErrorInvalidValue");
  EXPECT_EQ(interop::cuda_error_name(cudaErrorOperatingSystem), "cudaErrorOperatingSystem");
  EXPECT_EQ(interop::cuda_error_name(cudaSuccess), "cudaSuccess");
}

TEST(CudaErrorConditionTest, ForeignGlContextIsNamedAndTheAdviceNamesTheRenderer) {
  const std::string call = "cudaGraphicsGLRegisterImage(&resource, texture, GL_TEXTURE_2D, flags)";
  EXPECT_EQ(interop::cuda_error_condition(cudaErrorOperatingSystem, call),
            interop::Condition::GlNotOnCudaDevice);
  EXPECT_STREQ(interop::to_string(interop::Condition::GlNotOnCudaDevice), "GL context not on a CUDA device");
  const std::string advice = interop::cuda_error_advice(cudaErrorOperatingSystem, call);
  EXPECT_TRUE(contains(advice, "NVIDIA driver")) << advice;
  // No context is current in a unit test, and the advice says so rather than crashing on glGetString.
  EXPECT_TRUE(contains(advice, "no GL context")) << advice;
}

TEST(CudaErrorConditionTest, OperatingSystemErrorOutsideInteropGetsNoGuess) {
  EXPECT_EQ(interop::cuda_error_condition(cudaErrorOperatingSystem, "cudaMalloc(&pointer, bytes)"),
            interop::Condition::None);
  EXPECT_EQ(interop::cuda_error_advice(cudaErrorOperatingSystem, "cudaMalloc(&pointer, bytes)"), "");
}

TEST(CudaErrorConditionTest, InteropThroughTheOtherWindowSystemSaysTheDriverServesOnePerProcess) {
  // What cudaGLGetDevices answers a GLX window after this process's interop went through EGL, and the
  // other way round.
  EXPECT_EQ(interop::cuda_error_condition(cudaErrorDeviceUninitialized, "cudaGLGetDevices"),
            interop::Condition::GlInteropOnOtherWindowSystem);
  const std::string description =
      interop::describe_cuda_error(cudaErrorDeviceUninitialized, "cudaGLGetDevices");
  EXPECT_TRUE(contains(description, "cudaErrorDeviceUninitialized")) << description;
  EXPECT_TRUE(contains(description, "one of them per process")) << description;
  EXPECT_TRUE(contains(description, "separate process")) << description;
  // Outside GL interop the error means something else, and gets no guess.
  EXPECT_EQ(interop::cuda_error_condition(cudaErrorDeviceUninitialized, "cudaMalloc(&pointer, bytes)"),
            interop::Condition::None);
}

TEST(CudaErrorAdviceTest, DoubleMapSaysAlreadyMapped) {
  const std::string call = "cudaGraphicsMapResources(1, &resource, stream)";
  EXPECT_EQ(interop::cuda_error_condition(cudaErrorAlreadyMapped, call), interop::Condition::AlreadyMapped);
  EXPECT_TRUE(contains(interop::cuda_error_advice(cudaErrorAlreadyMapped, call), "already mapped"));
}

TEST(CudaErrorAdviceTest, RegisteringWithoutStorageSaysToAllocateFirst) {
  const std::string advice =
      interop::cuda_error_advice(cudaErrorInvalidValue, "cudaGraphicsGLRegisterBuffer(&resource, buffer, 0)");
  EXPECT_TRUE(contains(advice, "glNamedBufferStorage")) << advice;
  EXPECT_EQ(interop::cuda_error_advice(cudaErrorInvalidValue, "cudaMemcpy(dst, src, n, kind)"), "");
}

TEST(CudaErrorAdviceTest, NoDeviceSaysWhereToLook) {
  EXPECT_EQ(interop::cuda_error_condition(cudaErrorNoDevice, "cudaSetDevice(0)"),
            interop::Condition::NoCudaDevice);
  EXPECT_TRUE(
      contains(interop::cuda_error_advice(cudaErrorNoDevice, "cudaSetDevice(0)"), "CUDA_VISIBLE_DEVICES"));
}

// The library is used by programs with other command lines: its texts name none of interop-lab's options.
TEST(CudaErrorAdviceTest, NamesNoCommandLineOption) {
  const char* calls[] = {"cudaSetDevice(0)",
                         "cudaGetDeviceCount(&count)",
                         "cudaMalloc(&pointer, bytes)",
                         "cudaGraphicsGLRegisterImage(&resource, texture, GL_TEXTURE_2D, flags)",
                         "cudaGraphicsGLRegisterBuffer(&resource, buffer, 0)",
                         "cudaGLGetDevices(&n, d, 16, l)",
                         "cudaGraphicsMapResources(1, &resource, stream)",
                         "cudaGraphicsUnregisterResource(resource)"};
  for (int code = 0; code <= 1000; ++code)
    for (const char* call : calls) {
      const auto error = static_cast<cudaError_t>(code);
      const std::string text = interop::describe_cuda_error(error, call);
      EXPECT_FALSE(contains(text, "--")) << text;
    }
}

TEST(CudaErrorDescribeTest, SaysCallNameConditionAndAdvice) {
  const std::string text = interop::describe_cuda_error(cudaErrorNoDevice, "cudaGetDeviceCount");
  EXPECT_TRUE(contains(text, "cudaGetDeviceCount: cudaErrorNoDevice: no CUDA device: ")) << text;
  EXPECT_TRUE(contains(text, "nvidia-smi")) << text;
}

TEST(CudaErrorStickyTest, CorruptingErrorsAreSticky) {
  EXPECT_TRUE(interop::cuda_error_is_sticky(cudaErrorIllegalAddress));
  EXPECT_TRUE(interop::cuda_error_is_sticky(cudaErrorLaunchFailure));
  EXPECT_FALSE(interop::cuda_error_is_sticky(cudaErrorInvalidValue));
  EXPECT_FALSE(interop::cuda_error_is_sticky(cudaErrorAlreadyMapped));
  EXPECT_TRUE(contains(interop::cuda_error_advice(cudaErrorIllegalAddress, "kernel<<<...>>>"), "restart"));
  EXPECT_EQ(interop::cuda_error_condition(cudaErrorIllegalAddress, "kernel<<<...>>>"),
            interop::Condition::ContextCorrupt);
}

TEST(GlErrorNameTest, KnownErrorsByNameOthersByHex) {
  EXPECT_EQ(interop::gl_error_name(GL_INVALID_OPERATION), "GL_INVALID_OPERATION");
  EXPECT_EQ(interop::gl_error_name(GL_INVALID_ENUM), "GL_INVALID_ENUM");
  EXPECT_EQ(interop::gl_error_name(GL_OUT_OF_MEMORY), "GL_OUT_OF_MEMORY");
  EXPECT_TRUE(contains(interop::gl_error_name(0x1234), "0x1234"));
}

TEST(CurrentGlRendererTest, SaysWhenThereIsNoContext) {
  EXPECT_EQ(interop::current_gl_renderer(), "no GL context");
}

interop::ErrorInfo out_of_memory_info() {
  interop::ErrorInfo info;
  info.source = interop::ErrorSource::Cuda;
  info.call = "cudaMalloc(&p, n)";
  info.file = "buffers.cpp";
  info.line = 42;
  info.code = cudaErrorMemoryAllocation;
  info.error_name = "cudaErrorMemoryAllocation";
  info.condition = interop::Condition::OutOfMemory;
  info.advice = "free something";
  return info;
}

TEST(ErrorTest, MessageCarriesCallPlaceNameConditionAndAdvice) {
  const interop::Error error(out_of_memory_info());
  EXPECT_STREQ(
      error.what(),
      "cudaMalloc(&p, n): cudaErrorMemoryAllocation (buffers.cpp:42): out of memory: free something");
  EXPECT_EQ(error.call(), "cudaMalloc(&p, n)");
  EXPECT_EQ(error.file(), "buffers.cpp");
  EXPECT_EQ(error.line(), 42);
  EXPECT_EQ(error.source(), interop::ErrorSource::Cuda);
  EXPECT_EQ(error.cuda_error(), cudaErrorMemoryAllocation);
  EXPECT_EQ(error.error_name(), "cudaErrorMemoryAllocation");
  EXPECT_EQ(error.condition(), interop::Condition::OutOfMemory);
  EXPECT_EQ(error.advice(), "free something");
  EXPECT_FALSE(error.sticky());
}

TEST(ErrorTest, GlErrorsHaveNoCudaError) {
  interop::ErrorInfo info;
  info.source = interop::ErrorSource::Gl;
  info.call = "glTextureStorage2D";
  info.code = GL_OUT_OF_MEMORY;
  info.error_name = "GL_OUT_OF_MEMORY";
  const interop::Error error(info);
  EXPECT_EQ(error.cuda_error(), cudaSuccess);
  EXPECT_EQ(error.code(), GL_OUT_OF_MEMORY);
}

// The app adds its command line to what the library says (app/cli/remedy.hpp).
TEST(AppRemedyTest, AddsTheCommandLineToTheLibrarysMessage) {
  const interop::Error error(out_of_memory_info());
  const std::string message = lab::describe(error);
  EXPECT_EQ(message.find(error.what()), 0u) << message;
  EXPECT_TRUE(contains(message, "use a smaller --size")) << message;
}

TEST(AppRemedyTest, NamesTheOptionForEachCondition) {
  using interop::Condition;
  EXPECT_TRUE(contains(lab::command_line_remedy(Condition::NoCudaDevice), "--mode cpu"));
  EXPECT_TRUE(contains(lab::command_line_remedy(Condition::CudaDriverMissing), "--mode cpu"));
  EXPECT_TRUE(contains(lab::command_line_remedy(Condition::InvalidCudaDevice), "--doctor"));
  const std::string foreign_gl = lab::command_line_remedy(Condition::GlNotOnCudaDevice);
  EXPECT_TRUE(contains(foreign_gl, "--headless") && contains(foreign_gl, "--mode staging/cpu")) << foreign_gl;
  EXPECT_TRUE(contains(lab::command_line_remedy(Condition::GlOnAnotherCudaDevice, 1), "--device 1"));
  EXPECT_EQ(lab::command_line_remedy(Condition::None), "");
}

// A registration that fails as it does with GL on llvmpipe; the call's name is what classifies it.
cudaError_t fake_cudaGraphicsGLRegisterImage() {
  return cudaErrorOperatingSystem;
}

TEST(AppRemedyTest, ForeignGlRegistrationSaysWhatTheAppCanDo) {
  try {
    INTEROP_CUDA_CHECK(fake_cudaGraphicsGLRegisterImage());
    FAIL() << "INTEROP_CUDA_CHECK did not throw";
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.condition(), interop::Condition::GlNotOnCudaDevice);
    const std::string message = lab::describe(error);
    EXPECT_TRUE(contains(message, "GL context not on a CUDA device")) << message;
    EXPECT_TRUE(contains(message, "--mode staging/cpu")) << message;
  }
}

TEST(CudaCheckTest, ThrowsWithCallTextErrorNameAndFile) {
  try {
    INTEROP_CUDA_CHECK(cuda_call_failing_with(cudaErrorInvalidValue));
    FAIL() << "INTEROP_CUDA_CHECK did not throw";
  } catch (const interop::Error& error) {
    const std::string what = error.what();
    EXPECT_TRUE(contains(what, "cuda_call_failing_with(cudaErrorInvalidValue)")) << what;
    EXPECT_TRUE(contains(what, "cudaErrorInvalidValue")) << what;
    EXPECT_TRUE(contains(what, "test_errors.cpp")) << what;
    EXPECT_EQ(error.error_name(), "cudaErrorInvalidValue");
    EXPECT_EQ(error.cuda_error(), cudaErrorInvalidValue);
    EXPECT_FALSE(error.sticky());
  }
}

TEST(CudaCheckTest, MarksStickyErrors) {
  try {
    INTEROP_CUDA_CHECK(cuda_call_failing_with(cudaErrorIllegalAddress));
    FAIL() << "INTEROP_CUDA_CHECK did not throw";
  } catch (const interop::Error& error) {
    EXPECT_TRUE(error.sticky());
  }
}

TEST(CudaCheckTest, SuccessPassesAndTheCallRunsOnce) {
  int calls = 0;
  const auto counted_success = [&calls] {
    ++calls;
    return cudaSuccess;
  };
  EXPECT_NO_THROW(INTEROP_CUDA_CHECK(counted_success()));
  EXPECT_EQ(calls, 1);
}

TEST(CudaCheckTest, IsOneStatementInsideIfElse) {
  // do { } while (0): the macro and its semicolon must not capture the else.
  bool took_else = false;
  const bool check = false;
  if (check)
    INTEROP_CUDA_CHECK(cuda_call_failing_with(cudaErrorInvalidValue));
  else
    took_else = true;
  EXPECT_TRUE(took_else);
}

// The propagate tier, as a caller that returns cudaError_t would use it.
cudaError_t propagate_then_continue(cudaError_t first, bool& continued) {
  INTEROP_CUDA_PROPAGATE(cuda_call_failing_with(first));
  continued = true;
  return cudaSuccess;
}

TEST(CudaPropagateTest, ReturnsTheErrorFromTheEnclosingFunction) {
  bool continued = false;
  EXPECT_EQ(propagate_then_continue(cudaErrorAlreadyMapped, continued), cudaErrorAlreadyMapped);
  EXPECT_FALSE(continued);
}

TEST(CudaPropagateTest, ContinuesOnSuccess) {
  bool continued = false;
  EXPECT_EQ(propagate_then_continue(cudaSuccess, continued), cudaSuccess);
  EXPECT_TRUE(continued);
}

TEST(CudaReportTest, LogsAndContinues) {
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(INTEROP_CUDA_REPORT(cuda_call_failing_with(cudaErrorAlreadyMapped)));
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(log, "cudaErrorAlreadyMapped")) << log;
  EXPECT_TRUE(contains(log, "already mapped")) << log;
}

}  // namespace
