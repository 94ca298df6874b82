// app/scene/frame_graph.cpp — the frame's CUDA work as an updated, relaunched graph (frame_graph.hpp).
#include "app/scene/frame_graph.hpp"

#include "interop/error.hpp"

#include <memory>
#include <utility>

namespace lab {

FrameGraph::~FrameGraph() {
  if (m_exec != nullptr) INTEROP_CUDA_REPORT(cudaGraphExecDestroy(m_exec));
}

void FrameGraph::launch(cudaStream_t stream, const std::function<void()>& work) {
  struct GraphDeleter {
    void operator()(CUgraph_st* graph) const { cudaGraphDestroy(graph); }
  };
  using OwnedGraph = std::unique_ptr<CUgraph_st, GraphDeleter>;
  INTEROP_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  try {
    work();
  } catch (...) {
    cudaGraph_t abandoned = nullptr;
    cudaStreamEndCapture(stream, &abandoned);  // ends the capture, so the stream is usable again
    if (abandoned != nullptr) cudaGraphDestroy(abandoned);
    throw;
  }
  cudaGraph_t captured = nullptr;
  INTEROP_CUDA_CHECK(cudaStreamEndCapture(stream, &captured));
  const OwnedGraph graph(captured);
  // The capture is this frame's: update the executable graph from it, or (the first frame, a new shape)
  // instantiate it afresh.
  if (m_exec != nullptr) {
    cudaGraphExecUpdateResultInfo result{};
    if (cudaGraphExecUpdate(m_exec, graph.get(), &result) != cudaSuccess) {
      cudaGetLastError();  // an update that cannot be made is no error of the frame's
      INTEROP_CUDA_REPORT(cudaGraphExecDestroy(std::exchange(m_exec, nullptr)));
    }
  }
  if (m_exec == nullptr) {
    INTEROP_CUDA_CHECK(cudaGraphInstantiate(&m_exec, graph.get(), 0));
    ++m_instantiations;
  }
  INTEROP_CUDA_CHECK(cudaGraphLaunch(m_exec, stream));
}

}  // namespace lab
