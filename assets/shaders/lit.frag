#version 450 core
// postprocess scene: one directional light, a rim term so silhouettes read well after filtering.
in vec3 v_normal;
in vec3 v_world;
layout(location = 2) uniform vec3 u_color;
layout(location = 3) uniform vec3 u_eye;
out vec4 o_color;

void main() {
  vec3 n = normalize(v_normal);
  vec3 light = normalize(vec3(0.5, 1.0, 0.35));
  vec3 view = normalize(u_eye - v_world);
  float diffuse = max(dot(n, light), 0.0);
  float rim = pow(1.0 - max(dot(n, view), 0.0), 3.0);
  o_color = vec4(u_color * (0.2 + 0.8 * diffuse) + vec3(0.25) * rim, 1.0);
}
