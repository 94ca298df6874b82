// tests/unit/test_d3d11_desc.cpp — which Direct3D 11 resources CUDA can register, judged from their desc's
// integers (interop/d3d11.hpp): the check runs without Direct3D, so it is tested here on Linux; the
// mingw-w64 build (scripts/windows-cross.sh) checks the integers against Direct3D's own headers.
#include "interop/d3d11.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace {

constexpr uint32_t kR8G8B8A8Unorm = 28;  // DXGI_FORMAT values
constexpr uint32_t kR32G32B32Float = 6;
constexpr uint32_t kR8G8B8A8UnormSrgb = 29;
constexpr uint32_t kD24UnormS8Uint = 45;
constexpr uint32_t kBindShaderResource = 0x8, kBindRenderTarget = 0x20, kBindDepthStencil = 0x40;
constexpr uint32_t kUsageStaging = 3;
constexpr uint32_t kMiscShared = 0x2, kMiscSharedNtHandle = 0x800;

// The postprocess scene's render target: what the D3D11 backend registers.
interop::D3d11ResourceFacts rgba8_render_target() {
  interop::D3d11ResourceFacts facts;
  facts.dimension = interop::D3d11Dimension::Texture2D;
  facts.format = kR8G8B8A8Unorm;
  facts.bind_flags = kBindShaderResource | kBindRenderTarget;
  return facts;
}

interop::D3d11ResourceFacts vertex_buffer(uint64_t bytes) {
  interop::D3d11ResourceFacts facts;
  facts.dimension = interop::D3d11Dimension::Buffer;
  facts.bind_flags = 0x1;  // D3D11_BIND_VERTEX_BUFFER
  facts.byte_width = bytes;
  return facts;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(D3d11DescTest, Rgba8RenderTargetAndVertexBufferAreRegistrable) {
  interop::D3d11RegistrationUse write;
  write.access = interop::Access::WriteDiscard;
  write.surface_load_store = true;
  EXPECT_EQ(interop::validate(rgba8_render_target(), write), "");
  EXPECT_EQ(interop::validate(vertex_buffer(256 * 256 * 24), {}), "");
}

TEST(D3d11DescTest, ThreeChannelAndSrgbFormatsAreRefusedWithTheFormatToUse) {
  interop::D3d11ResourceFacts facts = rgba8_render_target();
  facts.format = kR32G32B32Float;
  std::string message = interop::validate(facts, {});
  EXPECT_TRUE(
      contains(message, "D3d11ResourceFacts.format: DXGI_FORMAT_R32G32B32_FLOAT cannot be registered"))
      << message;
  EXPECT_TRUE(contains(message, "use DXGI_FORMAT_R32G32B32A32_FLOAT")) << message;
  facts.format = kR8G8B8A8UnormSrgb;
  message = interop::validate(facts, {});
  EXPECT_TRUE(contains(message, "DXGI_FORMAT_R8G8B8A8_UNORM_SRGB")) << message;
  EXPECT_TRUE(contains(message, "use DXGI_FORMAT_R8G8B8A8_UNORM")) << message;
}

TEST(D3d11DescTest, DepthStencilIsRefusedByBindFlagAndFormat) {
  interop::D3d11ResourceFacts facts = rgba8_render_target();
  facts.bind_flags = kBindDepthStencil;
  EXPECT_TRUE(
      contains(interop::validate(facts, {}), "D3d11ResourceFacts.bind_flags: a D3D11_BIND_DEPTH_STENCIL"));
  facts.bind_flags = kBindShaderResource;
  facts.format = kD24UnormS8Uint;
  const std::string message = interop::validate(facts, {});
  EXPECT_TRUE(contains(message, "DXGI_FORMAT_D24_UNORM_S8_UINT")) << message;
  EXPECT_TRUE(contains(message, "DXGI_FORMAT_R32_FLOAT")) << message;
}

TEST(D3d11DescTest, StagingSharedAndMultisampledResourcesAreRefusedWithTheFix) {
  interop::D3d11ResourceFacts facts = vertex_buffer(64);
  facts.usage = kUsageStaging;
  const std::string staging = interop::validate(facts, {});
  EXPECT_TRUE(contains(staging, "D3d11ResourceFacts.usage: a buffer of D3D11_USAGE_STAGING")) << staging;
  EXPECT_TRUE(contains(staging, "create it with D3D11_USAGE_DEFAULT")) << staging;
  facts = rgba8_render_target();
  facts.misc_flags = kMiscShared;
  EXPECT_TRUE(contains(interop::validate(facts, {}), "cudaImportExternalMemory"));
  facts.misc_flags = kMiscSharedNtHandle;
  EXPECT_TRUE(contains(interop::validate(facts, {}), "D3d11ResourceFacts.misc_flags"));
  facts = rgba8_render_target();
  facts.sample_count = 4;
  EXPECT_TRUE(contains(interop::validate(facts, {}), "ResolveSubresource"));
}

TEST(D3d11DescTest, EmptyBuffersAndTextureHintsOnBuffersAreRefused) {
  EXPECT_TRUE(contains(interop::validate(vertex_buffer(0), {}), "D3d11ResourceFacts.byte_width is 0"));
  interop::D3d11RegistrationUse surface;
  surface.surface_load_store = true;
  EXPECT_TRUE(contains(interop::validate(vertex_buffer(64), surface), "a buffer is mapped as a pointer"));
}

TEST(D3d11DescTest, UseThatContradictsItsAccessIsRefused) {
  interop::D3d11RegistrationUse use;
  use.surface_load_store = true;
  use.access = interop::Access::ReadOnly;
  EXPECT_TRUE(contains(interop::validate(rgba8_render_target(), use),
                       "surface writes need ReadWrite or WriteDiscard"));
  use = {};
  use.texture_gather = true;
  use.access = interop::Access::WriteDiscard;
  EXPECT_TRUE(contains(interop::validate(rgba8_render_target(), use), "a gathered texture is read"));
}

// cudaGraphicsD3D11RegisterResource takes the hints only; the access goes to the map flags instead.
TEST(D3d11DescTest, RegisterFlagsAreCudasHintsWithoutTheAccess) {
  interop::D3d11RegistrationUse use;
  EXPECT_EQ(interop::register_flags(use), static_cast<unsigned>(cudaGraphicsRegisterFlagsNone));
  use.access = interop::Access::ReadOnly;
  use.texture_gather = true;
  EXPECT_EQ(interop::register_flags(use), static_cast<unsigned>(cudaGraphicsRegisterFlagsTextureGather));
  use.access = interop::Access::WriteDiscard;
  use.texture_gather = false;
  use.surface_load_store = true;
  EXPECT_EQ(interop::register_flags(use), static_cast<unsigned>(cudaGraphicsRegisterFlagsSurfaceLoadStore));
}

TEST(D3d11DescTest, FormatNamesAndTheRegistrableSet) {
  EXPECT_EQ(interop::dxgi_format_name(kR8G8B8A8Unorm), "DXGI_FORMAT_R8G8B8A8_UNORM");
  EXPECT_EQ(interop::dxgi_format_name(130), "DXGI_FORMAT 0x82");
  EXPECT_TRUE(interop::dxgi_format_registrable(kR8G8B8A8Unorm));
  EXPECT_FALSE(interop::dxgi_format_registrable(kR32G32B32Float));
  EXPECT_FALSE(interop::dxgi_format_registrable(130));
}

}  // namespace
