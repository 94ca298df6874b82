// app/d3d11/mode_cpu.cpp — the Direct3D 11 cpu mode (app/core/cpu_mode.hpp) over this API's renderer.
#include "app/core/cpu_mode.hpp"
#include "app/d3d11/modes.hpp"

namespace lab::d3d11 {

std::unique_ptr<Mode> create_cpu_mode() {
  return std::make_unique<CpuMode<Renderer>>();
}

}  // namespace lab::d3d11
