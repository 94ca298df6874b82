#version 450 core
// Shows a texture over the viewport; with nearest filtering and equal sizes, texel (x, y) lands on
// pixel (x, y) exactly.
in vec2 v_uv;
layout(binding = 0) uniform sampler2D u_image;
out vec4 o_color;

void main() { o_color = texture(u_image, v_uv); }
