// tests/gpu/test_frame_graph.cpp — the frame's CUDA work as one CUDA graph (app/scene/frame_graph.hpp):
// each frame's capture updates the executable graph (new parameters, one instantiation while the work's
// shape stays), the launch does this frame's work, a new shape instantiates again, and work that throws
// ends the capture so the stream runs ordinary work afterwards. The modes' frames as graphs against the
// cpu frames are test_interop_frames.cpp's.
#include "app/scene/frame_graph.hpp"
#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "interop/stream.hpp"
#include "tests/support/app_fixture.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {

class FrameGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      cudaGetLastError();
      LABTEST_NEEDS_GPUS(1, "needs a CUDA device");
    }
  }

  static std::vector<uint8_t> read(const interop::DeviceBuffer& buffer, size_t bytes, cudaStream_t stream) {
    std::vector<uint8_t> host(bytes);
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(host.data(), buffer.data(), bytes, cudaMemcpyDeviceToHost, stream));
    INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
  }
};

TEST_F(FrameGraphTest, EachFrameRunsItsOwnParametersFromOneInstantiation) {
  interop::Stream stream;
  constexpr size_t kBytes = 4096;
  interop::DeviceBuffer buffer(kBytes);
  lab::FrameGraph graph;
  for (int frame = 1; frame <= 12; ++frame) {
    graph.launch(stream.get(),
                 [&] { INTEROP_CUDA_CHECK(cudaMemsetAsync(buffer.data(), frame, kBytes, stream.get())); });
    const std::vector<uint8_t> written = read(buffer, kBytes, stream.get());
    EXPECT_EQ(written.front(), frame);
    EXPECT_EQ(written.back(), frame);
  }
  EXPECT_EQ(graph.instantiations(), 1) << "parameters changed, the shape did not";

  // Two operations instead of one: another shape, instantiated again.
  graph.launch(stream.get(), [&] {
    INTEROP_CUDA_CHECK(cudaMemsetAsync(buffer.data(), 7, kBytes / 2, stream.get()));
    INTEROP_CUDA_CHECK(
        cudaMemsetAsync(static_cast<uint8_t*>(buffer.data()) + kBytes / 2, 9, kBytes / 2, stream.get()));
  });
  const std::vector<uint8_t> written = read(buffer, kBytes, stream.get());
  EXPECT_EQ(written.front(), 7);
  EXPECT_EQ(written.back(), 9);
  EXPECT_EQ(graph.instantiations(), 2);
}

TEST_F(FrameGraphTest, WorkThatThrowsEndsTheCaptureAndTheStreamRunsOn) {
  interop::Stream stream;
  interop::DeviceBuffer buffer(256);
  lab::FrameGraph graph;
  EXPECT_THROW(graph.launch(stream.get(), [] { throw std::runtime_error("a failure in the frame"); }),
               std::runtime_error);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  ASSERT_EQ(cudaStreamIsCapturing(stream.get(), &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  INTEROP_CUDA_CHECK(cudaMemsetAsync(buffer.data(), 3, 256, stream.get()));
  EXPECT_EQ(read(buffer, 256, stream.get()).back(), 3);
  EXPECT_EQ(graph.instantiations(), 0);
}

}  // namespace
