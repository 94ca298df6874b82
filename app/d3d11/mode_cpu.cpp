// app/d3d11/mode_cpu.cpp — the Direct3D 11 cpu mode (app/d3d11/mode_cpu.hpp): the CPU reference's results
// uploaded with UpdateSubresource, the rendered cubes read back through a staging texture.
#include "app/d3d11/mode_cpu.hpp"
#include "app/d3d11/modes.hpp"

namespace lab::d3d11 {

std::unique_ptr<Mode> create_cpu_mode() {
  return std::make_unique<d3d::CpuMode<Mode, Renderer>>();
}

}  // namespace lab::d3d11
