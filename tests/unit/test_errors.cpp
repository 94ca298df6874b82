// tests/unit/test_errors.cpp — CUDA/GL error names, remedies and the three error macros. Needs no CUDA
// device and no GL context: cudaGetErrorName works without a driver, and no GL function is loaded.
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

TEST(CudaErrorAdviceTest, ForeignGlContextNamesTheRendererAndTheFallbackModes) {
  const std::string advice = interop::cuda_error_advice(
      cudaErrorOperatingSystem, "cudaGraphicsGLRegisterImage(&resource, texture, GL_TEXTURE_2D, flags)");
  EXPECT_TRUE(contains(advice, "renderer")) << advice;
  EXPECT_TRUE(contains(advice, "--mode")) << advice;
  // No context is current in a unit test, and the advice says so rather than crashing on glGetString.
  EXPECT_TRUE(contains(advice, "no GL context")) << advice;
}

TEST(CudaErrorAdviceTest, OperatingSystemErrorOutsideInteropGetsNoGuess) {
  EXPECT_EQ(interop::cuda_error_advice(cudaErrorOperatingSystem, "cudaMalloc(&pointer, bytes)"), "");
}

TEST(CudaErrorAdviceTest, DoubleMapSaysAlreadyMapped) {
  const std::string advice =
      interop::cuda_error_advice(cudaErrorAlreadyMapped, "cudaGraphicsMapResources(1, &resource, stream)");
  EXPECT_TRUE(contains(advice, "already mapped")) << advice;
}

TEST(CudaErrorAdviceTest, RegisteringWithoutStorageSaysToAllocateFirst) {
  const std::string advice =
      interop::cuda_error_advice(cudaErrorInvalidValue, "cudaGraphicsGLRegisterBuffer(&resource, buffer, 0)");
  EXPECT_TRUE(contains(advice, "glNamedBufferStorage")) << advice;
  EXPECT_EQ(interop::cuda_error_advice(cudaErrorInvalidValue, "cudaMemcpy(dst, src, n, kind)"), "");
}

TEST(CudaErrorAdviceTest, NoDeviceSuggestsCpuMode) {
  EXPECT_TRUE(contains(interop::cuda_error_advice(cudaErrorNoDevice, "cudaSetDevice(0)"), "--mode cpu"));
}

TEST(CudaErrorStickyTest, CorruptingErrorsAreSticky) {
  EXPECT_TRUE(interop::cuda_error_is_sticky(cudaErrorIllegalAddress));
  EXPECT_TRUE(interop::cuda_error_is_sticky(cudaErrorLaunchFailure));
  EXPECT_FALSE(interop::cuda_error_is_sticky(cudaErrorInvalidValue));
  EXPECT_FALSE(interop::cuda_error_is_sticky(cudaErrorAlreadyMapped));
  EXPECT_TRUE(contains(interop::cuda_error_advice(cudaErrorIllegalAddress, "kernel<<<...>>>"), "restart"));
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

TEST(ErrorTest, MessageCarriesCallPlaceNameAndAdvice) {
  const interop::Error error("cudaMalloc(&p, n)", "buffers.cpp", 42, "cudaErrorMemoryAllocation",
                             "free something", false);
  const std::string what = error.what();
  EXPECT_TRUE(contains(what, "cudaMalloc(&p, n)")) << what;
  EXPECT_TRUE(contains(what, "buffers.cpp:42")) << what;
  EXPECT_TRUE(contains(what, "cudaErrorMemoryAllocation")) << what;
  EXPECT_TRUE(contains(what, "free something")) << what;
  EXPECT_EQ(error.call(), "cudaMalloc(&p, n)");
  EXPECT_EQ(error.error_name(), "cudaErrorMemoryAllocation");
  EXPECT_EQ(error.advice(), "free something");
  EXPECT_FALSE(error.sticky());
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
