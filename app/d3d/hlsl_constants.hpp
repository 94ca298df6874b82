// app/d3d/hlsl_constants.hpp — lit.hlsl's constant block (assets/shaders/hlsl/lit.hlsl's CubeConstants, the
// cubes pass) as both Direct3D renderers fill it for each cube: Direct3D 11 updates a constant buffer with
// it, Direct3D 12 sets it as root constants. Windows only (app/d3d/dxgi.hpp's copy_matrix).
#pragma once

#include "app/d3d/dxgi.hpp"
#include "app/scene/scene_compute.hpp"

#include <cstring>

namespace lab::d3d {

struct CubeConstants {
  float view_projection[16];
  float model[16];
  float color[3];
  float padding0;
  float eye[3];
  float padding1;
};
static_assert(sizeof(CubeConstants) % 16 == 0, "constant buffers are whole 16-byte registers");

// The constants that draw `cube` of `view`.
inline CubeConstants cube_constants(const CubesView& view, const CubeInstance& cube) {
  CubeConstants constants{};
  copy_matrix(constants.view_projection, view.view_projection);
  copy_matrix(constants.model, cube.model);
  std::memcpy(constants.color, &cube.color[0], sizeof constants.color);
  std::memcpy(constants.eye, &view.eye[0], sizeof constants.eye);
  return constants;
}

}  // namespace lab::d3d
