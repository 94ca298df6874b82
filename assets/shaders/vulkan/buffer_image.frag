#version 450
// The buffer mode's show pass (Vulkan): an RGBA8 image that lives in a storage buffer (what CUDA wrote
// through a plain pointer, or the CPU reference through a mapped one) drawn into the image the frame
// shows. Texel (x, y) is word y * width + x, row 0 first; the pass's positive-height viewport puts
// framebuffer row 0 at memory row 0, so pixel (x, y) is texel (x, y) exactly (GL's buffer_image.frag).
layout(std430, set = 0, binding = 0) readonly buffer Image { uint u_texels[]; };
layout(push_constant) uniform Size { ivec2 u_size; };  // the image's width and height
layout(location = 0) out vec4 o_color;

void main() {
  ivec2 pixel = ivec2(gl_FragCoord.xy);
  o_color = unpackUnorm4x8(u_texels[pixel.y * u_size.x + pixel.x]);
}
