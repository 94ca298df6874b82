#version 450 core
// wave scene: the same lighting as kernels::wave_shade (kernels/wave.hpp); the GL tests compare
// rendered pixels with that function, so change both together.
in vec3 v_normal;
in float v_height;
out vec4 o_color;

void main() {
  const vec3 light = normalize(vec3(0.4, 1.0, 0.3));
  const vec3 deep = vec3(0.05, 0.20, 0.45);
  const vec3 crest = vec3(0.55, 0.85, 0.95);
  vec3 base = mix(deep, crest, clamp(v_height * 4.0 + 0.5, 0.0, 1.0));
  float diffuse = max(dot(normalize(v_normal), light), 0.0);
  o_color = vec4(base * (0.25 + 0.75 * diffuse), 1.0);
}
