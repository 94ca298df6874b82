// app/scene/frame_graph.hpp — one frame's CUDA work launched as an instantiated CUDA graph (--graph): the
// work (a scene's kernels, and in the external modes the semaphore wait before them and the signal after)
// is captured from its stream each frame, the executable graph is updated from the capture
// (cudaGraphExecUpdate: this frame's kernel parameters and semaphore values), and one cudaGraphLaunch
// issues it all. It is instantiated once, and again only when the work's shape changes (a new scene size
// or scene). What a graph buys is host time: one launch instead of a launch per kernel.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

namespace lab {

class FrameGraph {
 public:
  FrameGraph() = default;
  ~FrameGraph();
  FrameGraph(const FrameGraph&) = delete;
  FrameGraph& operator=(const FrameGraph&) = delete;

  // Captures what `work` queues on `stream` (relaxed capture: host-side calls such as a first cudaMalloc
  // of scratch memory still run), brings the executable graph up to date and launches it on `stream`.
  // A failure inside `work` ends the capture first and is rethrown.
  void launch(cudaStream_t stream, const std::function<void()>& work);
  // How often the graph was instantiated: once while only parameters change.
  int instantiations() const { return m_instantiations; }

 private:
  cudaGraphExec_t m_exec = nullptr;
  int m_instantiations = 0;
};

}  // namespace lab
