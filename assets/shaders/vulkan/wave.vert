#version 450
// wave scene (Vulkan): assets/shaders/wave.vert with the camera in push constants. The matrix is GL's
// (clip z in -w..w); the last line remaps z to Vulkan's 0..w, so depth tests order fragments as in GL.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(push_constant) uniform Push {
  mat4 view_projection;
} u;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out float v_height;

void main() {
  v_normal = a_normal;
  v_height = a_position.y;
  gl_Position = u.view_projection * vec4(a_position, 1.0);
  gl_Position.z = (gl_Position.z + gl_Position.w) * 0.5;
}
