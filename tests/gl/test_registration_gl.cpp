// tests/gl/test_registration_gl.cpp — registration descs checked against real GL objects: the format
// is queried from the texture and refused before CUDA is called, so this runs on any GL 4.5 driver.
#include "tests/support/app_fixture.hpp"

#include "interop/error.hpp"
#include "interop/gl.hpp"

namespace {

TEST(TextureRegistration, QueriesTheFormatAndRefusesRgb8BeforeCallingCuda) {
  lab::gl::App app(labtest::app_options(lab::SceneId::Pattern, lab::ModeId::Cpu, 64, 64));
  const lab::gl::GlTexture texture = lab::gl::create_texture_2d(GL_RGB8, 16, 16);
  interop::TextureRegistrationDesc desc;
  desc.texture = texture.get();
  const int before = interop::live_registrations();
  try {
    interop::GlTextureRegistration registration(desc);
    FAIL() << "an RGB8 texture was registered";
  } catch (const interop::Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("TextureRegistrationDesc.internal_format: GL_RGB8"), std::string::npos) << message;
    EXPECT_NE(message.find("use GL_RGBA8"), std::string::npos) << message;
  }
  EXPECT_EQ(interop::live_registrations(), before);
}

TEST(GlErrors, BecomeExceptionsNamingTheError) {
  lab::gl::App app(labtest::app_options(lab::SceneId::Pattern, lab::ModeId::Cpu, 64, 64));
  glBindTexture(GL_TEXTURE_2D, 0xdeadbeef);  // not a texture name: GL_INVALID_OPERATION
  try {
    INTEROP_GL_CHECK("glBindTexture");
    FAIL() << "the GL error went unnoticed";
  } catch (const interop::Error& error) {
    EXPECT_NE(std::string(error.what()).find("GL_INVALID_OPERATION"), std::string::npos) << error.what();
  }
  INTEROP_GL_CHECK("after the drained error");  // the queue is empty again
}

}  // namespace
