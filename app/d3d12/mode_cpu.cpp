// app/d3d12/mode_cpu.cpp — the Direct3D 12 cpu mode (app/d3d11/mode_cpu.hpp): the CPU reference's results
// uploaded through an upload-heap buffer, the rendered cubes read back through a readback-heap buffer.
#include "app/d3d11/mode_cpu.hpp"
#include "app/d3d12/modes.hpp"

namespace lab::d3d12 {

std::unique_ptr<Mode> create_cpu_mode() {
  return std::make_unique<d3d::CpuMode<Mode, Renderer>>();
}

}  // namespace lab::d3d12
