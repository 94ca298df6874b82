// postprocess scene, Direct3D 11: lit.vert + lit.frag in HLSL (shader model 5.0): one directional light and
// a rim term. Matrices are GL's (column-major, GL clip space), turned into Direct3D's as in wave.hlsl.
cbuffer CubeConstants : register(b0) {
  float4x4 view_projection;
  float4x4 model;
  float3 color;
  float padding0;
  float3 eye;
  float padding1;
};

struct VertexIn {
  float3 position : POSITION;
  float3 normal : NORMAL;
};

struct VertexOut {
  float4 position : SV_Position;
  float3 normal : NORMAL;
  float3 world : WORLD;
};

VertexOut vertex_main(VertexIn input) {
  VertexOut output;
  float4 world = mul(model, float4(input.position, 1.0));
  output.world = world.xyz;
  output.normal = mul((float3x3)model, input.normal);  // rotations and uniform scales only
  // GL clip space to Direct3D's: y negated (memory rows stay GL's), depth -w..w to 0..w. Written out
  // rather than as a function: Wine's HLSL compiler (vkd3d-shader 1.6) cannot call user functions yet.
  float4 gl_clip = mul(view_projection, world);
  output.position = float4(gl_clip.x, -gl_clip.y, 0.5 * (gl_clip.z + gl_clip.w), gl_clip.w);
  return output;
}

float4 pixel_main(VertexOut input) : SV_Target {
  float3 n = normalize(input.normal);
  float3 light = normalize(float3(0.5, 1.0, 0.35));
  float3 view = normalize(eye - input.world);
  float diffuse = max(dot(n, light), 0.0);
  float rim = pow(1.0 - max(dot(n, view), 0.0), 3.0);
  return float4(color * (0.2 + 0.8 * diffuse) + float3(0.25, 0.25, 0.25) * rim, 1.0);
}
