// tests/unit/test_registration_desc.cpp — registration desc validation and the CUDA flags a desc asks for.
// validate() never touches GL or CUDA when internal_format is given, so these need no GPU and no context.
#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "interop/gl_context.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

// A texture desc that passes: the names only need to be non-zero, since nothing is registered.
interop::TextureRegistrationDesc valid_rgba8_texture() {
  interop::TextureRegistrationDesc desc;
  desc.texture = 7;
  desc.target = GL_TEXTURE_2D;
  desc.internal_format = GL_RGBA8;
  return desc;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BufferRegistrationDescTest, NamedBufferIsValid) {
  interop::BufferRegistrationDesc desc;
  desc.buffer = 3;
  EXPECT_EQ(interop::validate(desc), "");
  desc.access = interop::Access::WriteDiscard;
  EXPECT_EQ(interop::validate(desc), "");
}

TEST(BufferRegistrationDescTest, BufferZeroIsRefusedWithTheFix) {
  const std::string message = interop::validate(interop::BufferRegistrationDesc{});
  EXPECT_TRUE(contains(message, "BufferRegistrationDesc.buffer")) << message;
  EXPECT_TRUE(contains(message, "glCreateBuffers")) << message;
}

TEST(TextureRegistrationDescTest, Rgba8TextureIsValid) {
  EXPECT_EQ(interop::validate(valid_rgba8_texture()), "");
}

TEST(TextureRegistrationDescTest, UnknownFormatIsLeftToRegistration) {
  // internal_format 0 means "query the texture when registering": nothing to refuse yet.
  interop::TextureRegistrationDesc desc = valid_rgba8_texture();
  desc.internal_format = 0;
  EXPECT_EQ(interop::validate(desc), "");
}

TEST(TextureRegistrationDescTest, TextureZeroIsRefused) {
  interop::TextureRegistrationDesc desc = valid_rgba8_texture();
  desc.texture = 0;
  const std::string message = interop::validate(desc);
  EXPECT_TRUE(contains(message, "TextureRegistrationDesc.texture")) << message;
  EXPECT_TRUE(contains(message, "glTextureStorage2D")) << message;
}

TEST(TextureRegistrationDescTest, Rgb8IsRefusedInFavourOfRgba8) {
  interop::TextureRegistrationDesc desc = valid_rgba8_texture();
  desc.internal_format = GL_RGB8;
  const std::string message = interop::validate(desc);
  EXPECT_TRUE(contains(message, "TextureRegistrationDesc.internal_format")) << message;
  EXPECT_TRUE(contains(message, "GL_RGB8 cannot be registered")) << message;
  EXPECT_TRUE(contains(message, "use GL_RGBA8")) << message;
}

TEST(TextureRegistrationDescTest, UnregistrableFormatsSuggestTheirNearestFormat) {
  const struct {
    GLenum format;
    const char* name;
    const char* suggestion;
  } cases[] = {
      {GL_SRGB8_ALPHA8, "GL_SRGB8_ALPHA8", "GL_RGBA8"},
      {GL_RGB16F, "GL_RGB16F", "GL_RGBA16F"},
      {GL_R11F_G11F_B10F, "GL_R11F_G11F_B10F", "GL_RGBA16F"},
      {GL_RGB32F, "GL_RGB32F", "GL_RGBA32F"},
      {GL_DEPTH_COMPONENT32F, "GL_DEPTH_COMPONENT32F", "GL_R32F"},
      {GL_DEPTH24_STENCIL8, "GL_DEPTH24_STENCIL8", "GL_R32F"},
  };
  for (const auto& entry : cases) {
    SCOPED_TRACE(entry.name);
    interop::TextureRegistrationDesc desc = valid_rgba8_texture();
    desc.internal_format = entry.format;
    const std::string message = interop::validate(desc);
    EXPECT_TRUE(contains(message, std::string(entry.name) + " cannot be registered")) << message;
    EXPECT_TRUE(contains(message, std::string("use ") + entry.suggestion)) << message;
  }
}

TEST(TextureRegistrationDescTest, FormatNobodyKnowsIsRefusedByHex) {
  interop::TextureRegistrationDesc desc = valid_rgba8_texture();
  desc.internal_format = 0x1234;
  const std::string message = interop::validate(desc);
  EXPECT_TRUE(contains(message, "TextureRegistrationDesc.internal_format: 0x1234")) << message;
}

TEST(TextureRegistrationDescTest, EveryRegistrableFormatFamilyIsAccepted) {
  for (GLenum format : {GL_R8, GL_RG8, GL_RGBA8, GL_RGBA16, GL_R16F, GL_RGBA16F, GL_R32F, GL_RG32F,
                        GL_RGBA32F, GL_R8UI, GL_RGBA32UI, GL_R8I, GL_RGBA32I}) {
    SCOPED_TRACE(interop::gl_format_name(format));
    interop::TextureRegistrationDesc desc = valid_rgba8_texture();
    desc.internal_format = format;
    EXPECT_EQ(interop::validate(desc), "");
  }
}

TEST(TextureRegistrationDescTest, EveryRegistrableTargetIsAccepted) {
  for (GLenum target : {GL_TEXTURE_2D, GL_TEXTURE_RECTANGLE, GL_TEXTURE_CUBE_MAP, GL_TEXTURE_3D,
                        GL_TEXTURE_2D_ARRAY, GL_RENDERBUFFER}) {
    interop::TextureRegistrationDesc desc = valid_rgba8_texture();
    desc.target = target;
    EXPECT_EQ(interop::validate(desc), "") << "target 0x" << std::hex << target;
  }
}

TEST(TextureRegistrationDescTest, OtherTargetsAreRefusedWithTheAcceptedList) {
  for (GLenum target : {GL_TEXTURE_1D, GL_TEXTURE_BUFFER, GL_TEXTURE_2D_MULTISAMPLE, GL_ARRAY_BUFFER}) {
    interop::TextureRegistrationDesc desc = valid_rgba8_texture();
    desc.target = target;
    const std::string message = interop::validate(desc);
    EXPECT_TRUE(contains(message, "TextureRegistrationDesc.target")) << message;
    EXPECT_TRUE(contains(message, "GL_TEXTURE_2D")) << message;
  }
}

TEST(TextureRegistrationDescTest, SurfaceWritesNeedWriteAccess) {
  interop::TextureRegistrationDesc desc = valid_rgba8_texture();
  desc.surface_load_store = true;
  desc.access = interop::Access::ReadOnly;
  const std::string message = interop::validate(desc);
  EXPECT_TRUE(contains(message, "TextureRegistrationDesc.surface_load_store")) << message;
  EXPECT_TRUE(contains(message, "ReadOnly")) << message;

  desc.access = interop::Access::WriteDiscard;
  EXPECT_EQ(interop::validate(desc), "");
  desc.access = interop::Access::ReadWrite;
  EXPECT_EQ(interop::validate(desc), "");
}

TEST(TextureRegistrationDescTest, RenderbufferCannotBeASurface) {
  interop::TextureRegistrationDesc desc = valid_rgba8_texture();
  desc.target = GL_RENDERBUFFER;
  desc.surface_load_store = true;
  const std::string message = interop::validate(desc);
  EXPECT_TRUE(contains(message, "TextureRegistrationDesc.surface_load_store")) << message;
  EXPECT_TRUE(contains(message, "renderbuffer")) << message;
}

TEST(TextureRegistrationDescTest, GatherIsARead) {
  interop::TextureRegistrationDesc desc = valid_rgba8_texture();
  desc.texture_gather = true;
  desc.access = interop::Access::WriteDiscard;
  EXPECT_TRUE(contains(interop::validate(desc), "TextureRegistrationDesc.texture_gather"));
  desc.access = interop::Access::ReadOnly;
  EXPECT_EQ(interop::validate(desc), "");
}

TEST(RegisterFlagsTest, BufferAccessMapsOntoRegisterFlags) {
  interop::BufferRegistrationDesc desc;
  desc.buffer = 1;
  EXPECT_EQ(interop::register_flags(desc), static_cast<unsigned int>(cudaGraphicsRegisterFlagsNone));
  desc.access = interop::Access::ReadOnly;
  EXPECT_EQ(interop::register_flags(desc), static_cast<unsigned int>(cudaGraphicsRegisterFlagsReadOnly));
  desc.access = interop::Access::WriteDiscard;
  EXPECT_EQ(interop::register_flags(desc), static_cast<unsigned int>(cudaGraphicsRegisterFlagsWriteDiscard));
}

TEST(RegisterFlagsTest, TextureFlagsCombine) {
  interop::TextureRegistrationDesc desc = valid_rgba8_texture();
  EXPECT_EQ(interop::register_flags(desc), static_cast<unsigned int>(cudaGraphicsRegisterFlagsNone));

  desc.surface_load_store = true;
  desc.access = interop::Access::WriteDiscard;
  EXPECT_EQ(interop::register_flags(desc),
            static_cast<unsigned int>(cudaGraphicsRegisterFlagsSurfaceLoadStore) |
                static_cast<unsigned int>(cudaGraphicsRegisterFlagsWriteDiscard));

  desc = valid_rgba8_texture();
  desc.texture_gather = true;
  desc.access = interop::Access::ReadOnly;
  EXPECT_EQ(interop::register_flags(desc), static_cast<unsigned int>(cudaGraphicsRegisterFlagsTextureGather) |
                                               static_cast<unsigned int>(cudaGraphicsRegisterFlagsReadOnly));
}

TEST(MapFlagsTest, AccessMapsOntoMapFlags) {
  EXPECT_EQ(interop::map_flags(interop::Access::ReadWrite),
            static_cast<unsigned int>(cudaGraphicsMapFlagsNone));
  EXPECT_EQ(interop::map_flags(interop::Access::ReadOnly),
            static_cast<unsigned int>(cudaGraphicsMapFlagsReadOnly));
  EXPECT_EQ(interop::map_flags(interop::Access::WriteDiscard),
            static_cast<unsigned int>(cudaGraphicsMapFlagsWriteDiscard));
}

TEST(AccessTest, NamesAreThePanelsMapFlagNames) {
  EXPECT_STREQ(interop::to_string(interop::Access::ReadWrite), "none");
  EXPECT_STREQ(interop::to_string(interop::Access::ReadOnly), "read-only");
  EXPECT_STREQ(interop::to_string(interop::Access::WriteDiscard), "write-discard");
}

TEST(GlFormatNameTest, KnownFormatsByNameOthersByHex) {
  EXPECT_EQ(interop::gl_format_name(GL_RGBA8), "GL_RGBA8");
  EXPECT_EQ(interop::gl_format_name(GL_RGB8), "GL_RGB8");
  EXPECT_EQ(interop::gl_format_name(GL_R32F), "GL_R32F");
  EXPECT_EQ(interop::gl_format_name(GL_DEPTH24_STENCIL8), "GL_DEPTH24_STENCIL8");
  EXPECT_EQ(interop::gl_format_name(0x1234), "0x1234");
}

// A texture's format is read with glGetTextureLevelParameteriv, OpenGL 4.5's: asked of older contexts
// and of OpenGL ES it would not be answered, so the version decides before the call.
TEST(TextureFormatQueryTest, NeedsDesktopOpenGl45) {
  EXPECT_TRUE(interop::detail::is_gl_at_least("4.5 (Core Profile) Mesa 22.3.6", 4, 5));
  EXPECT_TRUE(interop::detail::is_gl_at_least("4.6.0 NVIDIA 580.95.05", 4, 5));
  EXPECT_TRUE(interop::detail::is_gl_at_least("5.0", 4, 5));
  EXPECT_FALSE(interop::detail::is_gl_at_least("4.4.0 NVIDIA", 4, 5));
  EXPECT_FALSE(interop::detail::is_gl_at_least("3.3 (Core Profile) Mesa 22.3.6", 4, 5));
  EXPECT_FALSE(interop::detail::is_gl_at_least("OpenGL ES 3.2 Mesa 22.3.6", 4, 5));
  EXPECT_FALSE(interop::detail::is_gl_at_least("", 4, 5));  // no current context
}

// Without a context (none in this binary) a texture whose format is to be read is refused with the
// library's error, before CUDA is called; a given format needs no GL.
TEST(TextureFormatQueryTest, WithoutAContextTheRegistrationThrowsTheLibrarysError) {
  interop::TextureRegistrationDesc desc = valid_rgba8_texture();
  desc.internal_format = 0;
  try {
    interop::GlTextureRegistration registration(desc);
    FAIL() << "a texture was registered without a GL context";
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.source(), interop::ErrorSource::Gl) << error.what();
    EXPECT_EQ(error.code(), 0);
    EXPECT_EQ(error.cuda_error(), cudaSuccess);
    EXPECT_EQ(error.condition(), interop::Condition::NoCurrentGlContext) << error.what();
    EXPECT_TRUE(contains(error.what(),
                         "glGetTextureLevelParameteriv(GL_TEXTURE_INTERNAL_FORMAT): no GL context "
                         "current on this thread"))
        << error.what();
  }
}

}  // namespace
