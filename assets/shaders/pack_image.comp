#version 450 core
// Copies an RGBA8 texture into a buffer, texel (x, y) to word y * width + x (row 0 first, as the texture
// holds it and as buffer_image.frag reads it back). The renderer packs an image the kernels read into
// memory GL imported from CUDA this way: GL's copy paths into such memory (a pixel-pack buffer whose rows
// are not a multiple of 256 bytes, a buffer-to-buffer copy) left most of it unwritten as CUDA saw it on an
// H200, while shader stores arrive at every size.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D u_image;
layout(std430, binding = 0) writeonly buffer Image { uint u_texels[]; };
layout(location = 0) uniform ivec2 u_size;  // the image's width and height

void main() {
  ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
  if (texel.x >= u_size.x || texel.y >= u_size.y) return;
  u_texels[texel.y * u_size.x + texel.x] = packUnorm4x8(texelFetch(u_image, texel, 0));
}
