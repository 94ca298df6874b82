// Present, Direct3D: the frame target onto a window's back buffer (app/d3d11/presenter.cpp). The frame
// target keeps GL's rows (row 0 is the bottom of the picture, app/d3d11/renderer.hpp); a back buffer's row 0
// is the top of the window, so each pixel loads the texel of the mirrored row: the window shows the picture
// upright, texel for pixel, and a read back of the back buffer is the screenshot's row order already.
// One triangle from the vertex index covers the viewport (no vertex buffer, no input layout). The frame's
// height comes as a constant: Wine's HLSL compiler (vkd3d-shader) has no Texture2D.GetDimensions.
Texture2D<float4> frame : register(t0);
cbuffer Present : register(b0) {
  int frame_height;
};

float4 vertex_main(uint index : SV_VertexID) : SV_Position {
  const float2 corner = float2((index << 1) & 2, index & 2);
  return float4(corner * 2.0 - 1.0, 0.0, 1.0);
}

float4 pixel_main(float4 position : SV_Position) : SV_Target {
  const int2 pixel = int2(position.xy);
  return frame.Load(int3(pixel.x, frame_height - 1 - pixel.y, 0));
}
