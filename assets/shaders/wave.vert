#version 450 core
// wave scene: positions and normals come straight from the buffer CUDA (or the CPU path) wrote.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 0) uniform mat4 u_view_projection;
out vec3 v_normal;
out float v_height;

void main() {
  v_normal = a_normal;
  v_height = a_position.y;
  gl_Position = u_view_projection * vec4(a_position, 1.0);
}
