#version 450
// wave scene (Vulkan): the same lighting as kernels::wave_shade (kernels/wave.hpp) and
// assets/shaders/wave.frag; the Vulkan tests compare the frame with the GL golden, so change all three
// together.
layout(location = 0) in vec3 v_normal;
layout(location = 1) in float v_height;
layout(location = 0) out vec4 o_color;

void main() {
  const vec3 light = normalize(vec3(0.4, 1.0, 0.3));
  const vec3 deep = vec3(0.05, 0.20, 0.45);
  const vec3 crest = vec3(0.55, 0.85, 0.95);
  vec3 base = mix(deep, crest, clamp(v_height * 4.0 + 0.5, 0.0, 1.0));
  float diffuse = max(dot(normalize(v_normal), light), 0.0);
  o_color = vec4(base * (0.25 + 0.75 * diffuse), 1.0);
}
