// tests/gpu/test_raii.cpp — the interop library's lifetimes on a real GPU: registrations and mappings
// end with their owners, nothing leaks over many attach/detach cycles, map flags switch between
// frames, and misuse becomes an interop::Error that says what to do.
#include "tests/support/app_fixture.hpp"

#include "app/gl/gl_objects.hpp"
#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "interop/mapping.hpp"
#include "interop/memory.hpp"
#include "interop/stream.hpp"
#include "interop/surface.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace {

class InteropRaii : public ::testing::Test {
 protected:
  void SetUp() override {
    m_app = std::make_unique<lab::gl::App>(
        labtest::app_options(lab::SceneId::Pattern, lab::ModeId::Cpu, 256, 256));
    if (!m_app->interop_support().usable)
      LABTEST_NEEDS_GPUS(1,
                         "needs a CUDA device whose GL interop works: " << m_app->interop_support().reason);
    ASSERT_EQ(interop::live_registrations(), 0);
    m_stream.emplace();
  }

  cudaStream_t stream() const { return m_stream->get(); }

  std::unique_ptr<lab::gl::App> m_app;
  std::optional<interop::Stream> m_stream;  // created only once a device is known to exist
};

TEST_F(InteropRaii, RegistrationsEndWithTheirOwnersAndMovesTransferOwnership) {
  const lab::gl::GlBuffer buffer = lab::gl::create_buffer(1 << 20, nullptr, 0);
  const lab::gl::GlTexture texture = lab::gl::create_texture_2d(GL_RGBA8, 64, 64);
  {
    interop::GlBufferRegistration a({buffer.get(), interop::Access::WriteDiscard});
    interop::TextureRegistrationDesc desc;
    desc.texture = texture.get();
    desc.surface_load_store = true;
    interop::GlTextureRegistration t(desc);
    EXPECT_EQ(interop::live_registrations(), 2);
    interop::GlBufferRegistration b = std::move(a);
    EXPECT_FALSE(a) << "a moved-from registration is empty";
    EXPECT_TRUE(b);
    EXPECT_EQ(interop::live_registrations(), 2);
  }
  EXPECT_EQ(interop::live_registrations(), 0);
  // Unregistered for real: the same objects register again.
  interop::GlBufferRegistration again({buffer.get(), interop::Access::ReadWrite});
  EXPECT_EQ(interop::live_registrations(), 1);
}

TEST_F(InteropRaii, ScopedMapUnmapsAndHandsOutPointersAndArrays) {
  const size_t bytes = 4096;
  const lab::gl::GlBuffer buffer = lab::gl::create_buffer(bytes, nullptr, 0);
  const lab::gl::GlTexture texture = lab::gl::create_texture_2d(GL_RGBA8, 32, 16);
  interop::GlBufferRegistration buffer_registration({buffer.get(), interop::Access::WriteDiscard});
  interop::TextureRegistrationDesc desc;
  desc.texture = texture.get();
  desc.surface_load_store = true;
  interop::GlTextureRegistration texture_registration(desc);
  {
    interop::ScopedMap mapped({buffer_registration.resource(), texture_registration.resource()}, stream());
    EXPECT_EQ(interop::live_mappings(), 2);
    const interop::MappedPointer pointer = mapped.pointer(0);
    EXPECT_NE(pointer.data, nullptr);
    EXPECT_EQ(pointer.size, bytes);
    cudaArray_t array = mapped.array(1);
    ASSERT_NE(array, nullptr);
    cudaChannelFormatDesc format{};
    cudaExtent extent{};
    unsigned int flags = 0;
    ASSERT_EQ(cudaArrayGetInfo(&format, &extent, &flags, array), cudaSuccess);
    EXPECT_EQ(extent.width, 32u);
    EXPECT_EQ(extent.height, 16u);
    EXPECT_EQ(format.x, 8);
    EXPECT_NE(flags & cudaArraySurfaceLoadStore, 0u);
    const interop::SurfaceObject surface(array);
    EXPECT_NE(surface.get(), 0u);
    // Buffers give pointers, textures arrays: asking the wrong way is an error with advice.
    EXPECT_THROW(mapped.array(0), interop::Error);
  }
  EXPECT_EQ(interop::live_mappings(), 0);
}

TEST_F(InteropRaii, MappingAMappedResourceIsRefusedWithAdvice) {
  const lab::gl::GlBuffer buffer = lab::gl::create_buffer(256, nullptr, 0);
  interop::GlBufferRegistration registration({buffer.get(), interop::Access::ReadWrite});
  interop::ScopedMap first({registration.resource()}, stream());
  try {
    interop::ScopedMap second({registration.resource()}, stream());
    FAIL() << "mapped twice";
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.error_name(), "cudaErrorAlreadyMapped");
    EXPECT_NE(error.advice().find("already mapped"), std::string::npos) << error.what();
  }
  EXPECT_EQ(interop::live_mappings(), 1);
}

TEST_F(InteropRaii, MapFlagsChangeBetweenFrames) {
  const lab::gl::GlBuffer buffer = lab::gl::create_buffer(1024, nullptr, GL_DYNAMIC_STORAGE_BIT);
  interop::GlBufferRegistration registration({buffer.get(), interop::Access::ReadWrite});
  for (const interop::Access access :
       {interop::Access::ReadOnly, interop::Access::WriteDiscard, interop::Access::ReadWrite}) {
    registration.set_map_access(access);
    EXPECT_EQ(registration.map_access(), access);
    interop::ScopedMap mapped({registration.resource()}, stream());
    EXPECT_NE(mapped.pointer(0).data, nullptr);
  }
  // Flags cannot change while mapped.
  interop::ScopedMap mapped({registration.resource()}, stream());
  EXPECT_THROW(registration.set_map_access(interop::Access::ReadOnly), interop::Error);
}

// Every mode owns what it registers and allocates: cycling through all of them (and sizes, headless)
// a hundred times leaves no registration, no mapping and no device memory behind.
TEST_F(InteropRaii, AHundredModeSwitchesLeaveNothingBehind) {
  m_app->request_scene(lab::SceneId::Postprocess);  // an input and an output texture, and scratch memory
  // GL's modes but external, whose memory is Vulkan's (these counts see only what CUDA allocates),
  // exported, whose every attach makes a Vulkan device for its semaphores (its allocations' counts are
  // tests/gpu/test_vmm.cpp's), and eglstream, which carries CUDA's images only and so refuses this scene
  // (tests/gpu/test_eglstream.cpp).
  std::vector<lab::ModeId> modes;
  for (const lab::ModeId mode : lab::modes_of(lab::GraphicsApi::Gl))
    if (mode != lab::ModeId::External && mode != lab::ModeId::Exported && mode != lab::ModeId::Eglstream)
      modes.push_back(mode);
  for (const lab::ModeId mode : modes) {  // first use allocates CUDA's own working memory
    ASSERT_TRUE(m_app->request_mode(mode).available) << lab::to_string(mode);
    labtest::render(*m_app, 0);
  }
  ASSERT_EQ(m_app->mode_id(), lab::ModeId::Cpu);
  // What this process holds, not the device's free memory, which other processes on the GPU move too.
  const size_t device_before = interop::live_device_bytes();
  const size_t pinned_before = interop::live_pinned_host_bytes();
  for (int i = 0; i < 100; ++i) {
    m_app->request_mode(modes[static_cast<size_t>(i) % modes.size()]);
    if (i % 10 == 0 && !m_app->platform().is_window()) m_app->resize({256 + i, 256 - i});
    labtest::render(*m_app, i);
    EXPECT_EQ(interop::live_mappings(), 0) << "nothing stays mapped after a frame";
  }
  // Back at the first size, a CUDA mode brings the postprocess scratch to that size again, then cpu.
  if (!m_app->platform().is_window()) m_app->resize({256, 256});
  m_app->request_mode(modes.front());
  labtest::render(*m_app, 100);
  m_app->request_mode(lab::ModeId::Cpu);
  labtest::render(*m_app, 101);
  EXPECT_EQ(interop::live_registrations(), 0);
  EXPECT_EQ(interop::live_device_bytes(), device_before) << "device memory the modes allocated and kept";
  EXPECT_EQ(interop::live_pinned_host_bytes(), pinned_before)
      << "pinned host memory the modes allocated and kept";
}

TEST_F(InteropRaii, DeviceAndPinnedMemoryAreCountedUntilTheirOwnersGo) {
  const size_t device_before = interop::live_device_bytes();
  const size_t pinned_before = interop::live_pinned_host_bytes();
  {
    interop::DeviceBuffer device(3 << 20);
    interop::PinnedHostBuffer pinned(1 << 20);
    EXPECT_EQ(interop::live_device_bytes(), device_before + (3 << 20));
    EXPECT_EQ(interop::live_pinned_host_bytes(), pinned_before + (1 << 20));
    interop::DeviceBuffer moved = std::move(device);
    EXPECT_EQ(interop::live_device_bytes(), device_before + (3 << 20))
        << "a move transfers, it counts nothing";
  }
  EXPECT_EQ(interop::live_device_bytes(), device_before);
  EXPECT_EQ(interop::live_pinned_host_bytes(), pinned_before);
}

TEST_F(InteropRaii, AppTeardownLeavesNoRegistration) {
  ASSERT_TRUE(m_app->request_mode(lab::ModeId::Interop).available);
  labtest::render(*m_app, 0);
  EXPECT_EQ(interop::live_registrations(), 1);
  m_app.reset();
  EXPECT_EQ(interop::live_registrations(), 0);
}

// Switching the CUDA device re-creates every registration, the stream and the timers on it; with one
// GPU the switch goes to the same device, which exercises the same teardown and rebuild.
TEST_F(InteropRaii, SwitchingDeviceRecreatesEveryRegistration) {
  m_app->request_scene(lab::SceneId::Postprocess);
  ASSERT_TRUE(m_app->request_mode(lab::ModeId::Interop).available);
  labtest::render(*m_app, 0);
  EXPECT_EQ(interop::live_registrations(), 2);
  ASSERT_EQ(m_app->request_device(m_app->cuda_device()), "");
  const lab::Image frame = labtest::render(*m_app, 9);
  EXPECT_EQ(m_app->mode_id(), lab::ModeId::Interop);
  EXPECT_EQ(interop::live_registrations(), 2);
  const lab::ImageDifference d =
      lab::compare_images(frame, labtest::expected_postprocess_frame(*m_app, kernels::Filter::Sobel), 1);
  EXPECT_EQ(d.pixels_over, 0u) << lab::to_string(d, 1);
  EXPECT_NE(m_app->request_device(99), "") << "a device that does not exist is refused";
  EXPECT_NE(m_app->request_compute_device(99).find("0 to "), std::string::npos)
      << "and so is such a compute device";
}

}  // namespace
