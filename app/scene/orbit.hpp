// app/scene/orbit.hpp — the orbit camera of a caller's points (the array source's, Viewer.points): it looks
// at a target from a yaw, a pitch and a distance, and starts framing the points' bounds. Pure math, no GL:
// the points' kernels (kernels/points.hpp) take view_projection() as it is, and the tests project points with
// the same matrix.
//
// Input moves it as a user expects of an orbit camera: a drag turns it about the target (kRadiansPerPixel),
// the wheel moves it nearer or farther (zoom), and a reset frames the bounds again.
#pragma once

#include <glm/glm.hpp>

namespace lab::orbit {

struct Bounds {
  glm::vec3 low{0.0f}, high{0.0f};
  bool empty = true;  // no finite point: framing looks at the unit cube about the origin
};

struct Orbit {
  glm::vec3 target{0.0f};
  float radius = 1.0f;               // of the bounds framed: sets the near and far planes with the distance
  double yaw = 0.6;                  // radians about +y; 0 looks along -z
  double pitch = 0.35;               // radians above the target's horizon, within +-kMaxPitch
  double distance = 3.0;             // from the eye to the target
  double fov_y = 0.785398163397448;  // 45 degrees
};

constexpr double kRadiansPerPixel = 0.01;
constexpr double kMaxPitch = 1.55;  // just short of straight up or down, where yaw would lose its meaning
constexpr double kMinDistanceOfRadius = 1e-3;  // zoom stops this close to the target (times the radius)
constexpr double kMaxDistanceOfRadius = 1e4;

// The camera that shows every point of `bounds` in a width x height frame, keeping `from`'s yaw and pitch.
Orbit framing(const Bounds& bounds, int width, int height, const Orbit& from = Orbit{});

// Turned by a drag of (dx, dy) frame pixels: right turns the scene right, down tilts it towards the viewer.
Orbit orbit(const Orbit& camera, double dx, double dy);

// Moved towards the target by `factor` (> 1 nearer), within the distances above.
Orbit zoom(const Orbit& camera, double factor);

glm::vec3 eye(const Orbit& camera);

// Projection times view for a width x height frame (GL's clip space, column-major as glm keeps it).
glm::mat4 view_projection(const Orbit& camera, int width, int height);

}  // namespace lab::orbit
