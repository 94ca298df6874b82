#version 450 core
#extension GL_OES_EGL_image_external_essl3 : require
// eglstream.frag in the core profile, for a GL that compiles samplerExternalOES there (through
// GL_OES_EGL_image_external_essl3, with texture()); the mode tries it where eglstream.frag fails.
layout(binding = 0) uniform samplerExternalOES u_frame;
layout(location = 0) uniform ivec2 u_size;
layout(location = 1) uniform int u_flip_rows;
out vec4 o_color;

void main() {
  vec2 pixel = gl_FragCoord.xy;
  if (u_flip_rows != 0) pixel.y = float(u_size.y) - pixel.y;
  o_color = texture(u_frame, pixel / vec2(u_size));
}
