// tests/support/cuda_device.hpp — the fixture of the tests that run CUDA kernels alone (no graphics API):
// device 0 current for each test, or the test skipped with what it needs (failed where
// INTEROP_LAB_REQUIRE_GPUS says the machine must have a GPU).
#pragma once

#include "tests/support/app_fixture.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace labtest {

class CudaDeviceTest : public ::testing::Test {
 protected:
  // `needs`: what the tests need a device for, e.g. "run the conversion kernel".
  explicit CudaDeviceTest(std::string needs) : m_needs(std::move(needs)) {}

  void SetUp() override {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      cudaGetLastError();
      LABTEST_NEEDS_GPUS(1, "needs a CUDA device to " << m_needs << ": none is visible");
      return;
    }
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  }

 private:
  std::string m_needs;
};

}  // namespace labtest
