#version 450 core
// postprocess scene: lit geometry rendered into the texture that CUDA filters.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 0) uniform mat4 u_view_projection;
layout(location = 1) uniform mat4 u_model;
out vec3 v_normal;
out vec3 v_world;

void main() {
  vec4 world = u_model * vec4(a_position, 1.0);
  v_world = world.xyz;
  v_normal = mat3(u_model) * a_normal;  // rotations and uniform scales only
  gl_Position = u_view_projection * world;
}
