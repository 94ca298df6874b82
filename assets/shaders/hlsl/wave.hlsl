// wave scene, Direct3D 11: wave.vert + wave.frag in HLSL (shader model 5.0), the same lighting as
// kernels::wave_shade. The matrix is GL's (column-major, GL clip space); the vertex shader turns its output into
// Direct3D's clip space the way app/d3d11/renderer.hpp explains (y flipped so memory rows are GL's; depth
// -w..w remapped to 0..w).
cbuffer WaveConstants : register(b0) {
  float4x4 view_projection;
};

struct VertexIn {
  float3 position : POSITION;
  float3 normal : NORMAL;
};

struct VertexOut {
  float4 position : SV_Position;
  float3 normal : NORMAL;
  float height : HEIGHT;
};

VertexOut vertex_main(VertexIn input) {
  VertexOut output;
  output.normal = input.normal;
  output.height = input.position.y;
  // GL clip space to Direct3D's: y negated (memory rows stay GL's), depth -w..w to 0..w. Written out
  // rather than as a function: Wine's HLSL compiler (vkd3d-shader 1.6) cannot call user functions yet.
  float4 gl_clip = mul(view_projection, float4(input.position, 1.0));
  output.position = float4(gl_clip.x, -gl_clip.y, 0.5 * (gl_clip.z + gl_clip.w), gl_clip.w);
  return output;
}

float4 pixel_main(VertexOut input) : SV_Target {
  const float3 light = normalize(float3(0.4, 1.0, 0.3));
  const float3 deep = float3(0.05, 0.20, 0.45);
  const float3 crest = float3(0.55, 0.85, 0.95);
  float3 base = lerp(deep, crest, saturate(input.height * 4.0 + 0.5));
  float diffuse = max(dot(normalize(input.normal), light), 0.0);
  return float4(base * (0.25 + 0.75 * diffuse), 1.0);
}
