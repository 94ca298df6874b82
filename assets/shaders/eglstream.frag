#version 450 compatibility
#extension GL_OES_EGL_image_external : require
// The eglstream mode's draw: the frame CUDA presented into an EGLStream, acquired as an external texture,
// drawn pixel for pixel into the scene's texture (viewport = the image). The compatibility profile and
// texture2D: what NVIDIA's driver compiles for samplerExternalOES (core 450's texture() it refuses).
// u_flip_rows: the stream's texture samples memory row 0 at its top (the mode finds out at attach).
layout(binding = 0) uniform samplerExternalOES u_frame;
layout(location = 0) uniform ivec2 u_size;
layout(location = 1) uniform int u_flip_rows;

void main() {
  vec2 pixel = gl_FragCoord.xy;  // pixel centres, (x + 0.5, y + 0.5): nearest filtering hits texel (x, y)
  if (u_flip_rows != 0) pixel.y = float(u_size.y) - pixel.y;
  gl_FragColor = texture2D(u_frame, pixel / vec2(u_size));
}
