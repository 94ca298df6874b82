// ShowImage, Direct3D 11: an image shown as it is, over a viewport of its size (fullscreen.vert +
// textured.frag in GL). One triangle that covers the viewport (its three corners come from a vertex
// buffer); each pixel loads the texel with its own coordinates, so texel (x, y) lands on pixel (x, y)
// exactly, in memory order: the image keeps GL's rows, as the frame target does (renderer.hpp).
Texture2D<float4> image : register(t0);

float4 vertex_main(float2 corner : POSITION) : SV_Position {
  return float4(corner, 0.0, 1.0);
}

float4 pixel_main(float4 position : SV_Position) : SV_Target {
  return image.Load(int3(int2(position.xy), 0));
}
