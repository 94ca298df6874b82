#version 450
// One triangle that covers the viewport, no vertex input: the buffer mode's show pass
// (buffer_image.frag) runs its fragment shader once per pixel of the image it fills.
void main() {
  vec2 corner = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
