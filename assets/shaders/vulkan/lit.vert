#version 450
// postprocess scene (Vulkan): assets/shaders/lit.vert. The camera is per pass (a uniform buffer), the
// model per cube (push constants): both matrices and the eye would not fit the 128 bytes of push
// constants every device has. GL's clip z is remapped to Vulkan's 0..w, as in wave.vert.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(set = 0, binding = 0) uniform Camera {
  mat4 view_projection;
  vec3 eye;
} camera;
layout(push_constant) uniform Push {
  mat4 model;
  vec3 color;
} u;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec3 v_world;

void main() {
  vec4 world = u.model * vec4(a_position, 1.0);
  v_world = world.xyz;
  v_normal = mat3(u.model) * a_normal;  // rotations and uniform scales only
  gl_Position = camera.view_projection * world;
  gl_Position.z = (gl_Position.z + gl_Position.w) * 0.5;
}
