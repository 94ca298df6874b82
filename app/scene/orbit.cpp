// app/scene/orbit.cpp — the points' orbit camera (app/scene/orbit.hpp).
#include "app/scene/orbit.hpp"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>

namespace lab::orbit {

namespace {

double aspect_of(int width, int height) {
  return width > 0 && height > 0 ? static_cast<double>(width) / height : 1.0;
}

}  // namespace

Orbit framing(const Bounds& bounds, int width, int height, const Orbit& from) {
  Orbit camera = from;
  const glm::vec3 low = bounds.empty ? glm::vec3(-1.0f) : bounds.low;
  const glm::vec3 high = bounds.empty ? glm::vec3(1.0f) : bounds.high;
  camera.target = (low + high) * 0.5f;
  // The sphere about the box: whatever the yaw and pitch, the box stays inside it.
  const float half_diagonal = glm::length(high - low) * 0.5f;
  camera.radius = half_diagonal > 0.0f ? half_diagonal : 1.0f;  // one point: a unit sphere about it
  // The narrower of the two fields of view must hold the sphere: sin(half angle) = radius / distance.
  const double half_y = camera.fov_y / 2.0;
  const double half_x = std::atan(std::tan(half_y) * aspect_of(width, height));
  camera.distance = camera.radius / std::sin(std::min(half_x, half_y));
  return camera;
}

Orbit orbit(const Orbit& camera, double dx, double dy) {
  Orbit turned = camera;
  const double turn = 2.0 * 3.14159265358979323846;
  turned.yaw = std::fmod(camera.yaw - dx * kRadiansPerPixel, turn);
  turned.pitch = std::clamp(camera.pitch + dy * kRadiansPerPixel, -kMaxPitch, kMaxPitch);
  return turned;
}

Orbit zoom(const Orbit& camera, double factor) {
  Orbit moved = camera;
  if (!(factor > 0.0) || !std::isfinite(factor)) return moved;
  moved.distance = std::clamp(camera.distance / factor, camera.radius * kMinDistanceOfRadius,
                              camera.radius * kMaxDistanceOfRadius);
  return moved;
}

glm::vec3 eye(const Orbit& camera) {
  const double across = std::cos(camera.pitch) * camera.distance;
  const glm::dvec3 offset(std::sin(camera.yaw) * across, std::sin(camera.pitch) * camera.distance,
                          std::cos(camera.yaw) * across);
  return camera.target + glm::vec3(offset);
}

glm::mat4 view_projection(const Orbit& camera, int width, int height) {
  // Near and far hug the framed sphere, for the depth buffer's precision; nearer than its edge when the
  // camera is inside it.
  const float distance = static_cast<float>(camera.distance);
  const float near_plane = std::max(distance - 2.0f * camera.radius, distance * 0.01f);
  const float far_plane = distance + 2.0f * camera.radius;
  const glm::mat4 projection = glm::perspective(
      static_cast<float>(camera.fov_y), static_cast<float>(aspect_of(width, height)), near_plane, far_plane);
  return projection * glm::lookAt(eye(camera), camera.target, glm::vec3(0.0f, 1.0f, 0.0f));
}

}  // namespace lab::orbit
