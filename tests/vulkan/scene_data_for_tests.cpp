// tests/vulkan/scene_data_for_tests.cpp — STAND-IN, to delete once app/scene_compute.cpp exists: it defines
// the scene data app/scene_compute.hpp declares (wave_mesh_indices, cube_mesh, cubes_view) with bodies
// copied from app/scene_wave.cpp and app/scene_postprocess.cpp, so vulkan_tests can draw the scenes before
// the scenes themselves move onto scene_compute.hpp. wave_view_projection is not here: app/scene_wave.cpp
// (in labapp, which the tests link) defines it with the same declaration today.
#include "app/scene_compute.hpp"

#include <glm/gtc/constants.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <array>
#include <cmath>
#include <utility>

namespace lab {

// Two triangles per grid cell, counter-clockwise seen from above.
std::vector<uint32_t> wave_mesh_indices() {
  std::vector<uint32_t> indices;
  indices.reserve(static_cast<size_t>(kWaveGrid - 1) * (kWaveGrid - 1) * 6);
  for (int j = 0; j + 1 < kWaveGrid; ++j) {
    for (int i = 0; i + 1 < kWaveGrid; ++i) {
      const uint32_t a = static_cast<uint32_t>(j * kWaveGrid + i);
      const uint32_t b = a + 1;
      const uint32_t c = a + static_cast<uint32_t>(kWaveGrid);
      const uint32_t d = c + 1;
      indices.insert(indices.end(), {a, c, b, b, c, d});
    }
  }
  return indices;
}

// A unit cube, four vertices per face so each face has its own normal.
CubeMesh cube_mesh() {
  CubeMesh mesh;
  const std::array<std::array<float, 3>, 6> normals = {
      {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}};
  for (const auto& n : normals) {
    // Two axes spanning the face, chosen so (u x v) == n keeps the winding counter-clockwise.
    const glm::vec3 normal(n[0], n[1], n[2]);
    const glm::vec3 u =
        std::abs(normal.y) > 0.5f ? glm::vec3(0, 0, normal.y) : glm::vec3(-normal.z, 0, normal.x);
    const glm::vec3 v = glm::cross(normal, u);
    const uint32_t base = static_cast<uint32_t>(mesh.vertices.size());
    for (const auto& [a, b] :
         {std::pair{-1.f, -1.f}, std::pair{1.f, -1.f}, std::pair{1.f, 1.f}, std::pair{-1.f, 1.f}}) {
      const glm::vec3 p = 0.5f * (normal + a * u + b * v);
      mesh.vertices.push_back({{p.x, p.y, p.z}, {normal.x, normal.y, normal.z}});
    }
    mesh.indices.insert(mesh.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  return mesh;
}

CubesView cubes_view(Extent extent, float time) {
  constexpr glm::vec3 kEye(0.0f, 2.2f, 4.2f);
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  CubesView view;
  view.view_projection = glm::perspective(glm::radians(45.0f), aspect, 0.1f, 50.0f) *
                         glm::lookAt(kEye, glm::vec3(0.0f, 0.3f, 0.0f), glm::vec3(0.0f, 1.0f, 0.0f));
  view.eye = kEye;
  // The floor: a flat, wide cube.
  view.cubes.push_back({glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, -0.55f, 0.0f)),
                                   glm::vec3(8.0f, 0.1f, 8.0f)),
                        glm::vec3(0.35f, 0.37f, 0.40f)});
  constexpr int kCubes = 7;
  for (int i = 0; i < kCubes; ++i) {
    const float angle = time * 0.6f + static_cast<float>(i) * glm::two_pi<float>() / kCubes;
    glm::mat4 model =
        glm::translate(glm::mat4(1.0f), glm::vec3(1.6f * std::cos(angle), 0.0f, 1.6f * std::sin(angle)));
    model = glm::rotate(model, time * (0.8f + 0.15f * static_cast<float>(i)), glm::vec3(0.3f, 1.0f, 0.2f));
    model = glm::scale(model, glm::vec3(0.6f));
    const float hue = static_cast<float>(i) / kCubes;
    view.cubes.push_back({model, glm::vec3(0.5f + 0.5f * std::cos(6.2832f * hue),
                                           0.5f + 0.5f * std::cos(6.2832f * (hue - 0.33f)),
                                           0.5f + 0.5f * std::cos(6.2832f * (hue - 0.67f)))});
  }
  view.cubes.push_back(
      {glm::rotate(glm::scale(glm::mat4(1.0f), glm::vec3(0.9f)), time * 0.4f, glm::vec3(0, 1, 0)),
       glm::vec3(0.9f, 0.9f, 0.85f)});
  return view;
}

}  // namespace lab
