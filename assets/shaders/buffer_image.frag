#version 450 core
// Shows an RGBA8 image that lives in a buffer (the buffer mode: what CUDA wrote through a plain pointer),
// read straight from it as a shader storage buffer: texel (x, y) is word y * width + x, row 0 at the
// bottom as in a texture, so with the viewport the image's size pixel (x, y) is texel (x, y) exactly.
layout(std430, binding = 0) readonly buffer Image { uint u_texels[]; };
layout(location = 0) uniform ivec2 u_size;  // the image's width and height
out vec4 o_color;

void main() {
  ivec2 pixel = ivec2(gl_FragCoord.xy);
  // A viewport larger than the image (a window between its resize and the frame that follows) shows black.
  if (pixel.x >= u_size.x || pixel.y >= u_size.y) {
    o_color = vec4(0.0, 0.0, 0.0, 1.0);
    return;
  }
  o_color = unpackUnorm4x8(u_texels[pixel.y * u_size.x + pixel.x]);
}
