#version 450
// postprocess scene (Vulkan): assets/shaders/lit.frag — one directional light, a rim term so
// silhouettes read well after filtering.
layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec3 v_world;
layout(set = 0, binding = 0) uniform Camera {
  mat4 view_projection;
  vec3 eye;
} camera;
layout(push_constant) uniform Push {
  mat4 model;
  vec3 color;
} u;
layout(location = 0) out vec4 o_color;

void main() {
  vec3 n = normalize(v_normal);
  vec3 light = normalize(vec3(0.5, 1.0, 0.35));
  vec3 view = normalize(camera.eye - v_world);
  float diffuse = max(dot(n, light), 0.0);
  float rim = pow(1.0 - max(dot(n, view), 0.0), 3.0);
  o_color = vec4(u.color * (0.2 + 0.8 * diffuse) + vec3(0.25) * rim, 1.0);
}
