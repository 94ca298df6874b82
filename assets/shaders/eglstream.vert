#version 450 compatibility
// fullscreen.vert in the compatibility profile, the profile of eglstream.frag: one triangle that covers
// the viewport.
void main() {
  vec2 corner = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
