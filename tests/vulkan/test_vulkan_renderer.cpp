// tests/vulkan/test_vulkan_renderer.cpp — the Vulkan renderer (app/vulkan/renderer.hpp) on any Vulkan
// driver (lavapipe in CI): each scene's frame, with its data from the kernels' CPU reference, against the
// GL golden (tests/golden/<scene>.png) at the golden's tolerance for another renderer; exported memory;
// the buffer mode's show pass and its placement of images; passes ordered by the caller's semaphores; desc
// validation. The frames are drawn twice, once with
// resources in local memory and once exportable (the acquire / release to VK_QUEUE_FAMILY_EXTERNAL the
// external mode relies on). The Khronos validation layer, with synchronization validation, runs where it
// is installed, and every test ends with it having reported nothing. Without a Vulkan driver the tests
// skip with the reason.
#include "tests/support/app_fixture.hpp"

#include "app/image/golden.hpp"
#include "app/image/image_compare.hpp"
#include "app/vulkan/renderer.hpp"
#include "kernels/pattern.hpp"
#include "kernels/postprocess.hpp"
#include "kernels/wave.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#ifndef INTEROP_LAB_GOLDEN_DIR
#error "the vulkan_tests target defines INTEROP_LAB_GOLDEN_DIR (the source tree's tests/golden)"
#endif

namespace {

using lab::vulkan::Context;
using lab::vulkan::Renderer;

using labtest::Golden;

// tests/golden/<scene>.{json,png} through the fixtures' loader ($INTEROP_LAB_GOLDEN_DIR overrides the
// folder). A missing or invalid golden throws, which fails the test with the path.
Golden load_golden(lab::SceneId scene) {
  std::string problem;
  std::optional<Golden> golden =
      labtest::load_golden(labtest::golden_dir(INTEROP_LAB_GOLDEN_DIR), scene, problem);
  if (!golden) throw std::runtime_error(problem);
  return std::move(*golden);
}

lab::Extent extent_of(const Golden& golden) {
  return {golden.width, golden.height};
}

// The golden was rendered through GL; Vulkan is another renderer even on the same device (lavapipe and
// llvmpipe report the same name), so the golden's other-renderer tolerance applies.
void expect_matches_golden(const lab::Image& frame, const Golden& golden, const std::string& name,
                           const Context& context) {
  const std::string what = "the golden " + golden.png_path + " (rendered through GL by " + golden.renderer +
                           "; this frame through Vulkan by " + context.info().name +
                           ", so at the other-renderer tolerance)";
  const std::string problem = labtest::check_against(frame, golden.image, golden.other_renderer, name, what);
  EXPECT_TRUE(problem.empty()) << problem;
}

lab::ResourceDesc texture_desc(const char* label, lab::Extent extent, lab::ResourceRole role) {
  lab::ResourceDesc desc;
  desc.label = label;
  desc.kind = lab::ResourceKind::Texture2D;
  desc.role = role;
  desc.width = extent.width;
  desc.height = extent.height;
  desc.bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  return desc;
}

lab::ResourceDesc wave_vertices_desc() {
  lab::ResourceDesc desc;
  desc.label = "vertex buffer";
  desc.kind = lab::ResourceKind::Buffer;
  desc.bytes = sizeof(kernels::WaveVertex) * lab::kWaveGrid * lab::kWaveGrid;
  return desc;
}

// A context with the validation layer (synchronization validation on), or a skip with the reason; every
// test ends with the layer having reported nothing.
class VulkanRendererTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      lab::vulkan::ContextOptions options;
      options.validation = lab::vulkan::Validation::Synchronization;
      m_context = std::make_unique<Context>(nullptr, options);
    } catch (const std::runtime_error& error) {
      GTEST_SKIP() << "needs a Vulkan driver with external memory: " << error.what();
    }
    if (!m_context->validation_enabled())
      std::printf(
          "[   NOTE   ] the Khronos validation layer is not installed (Debian: vulkan-validationlayers): "
          "nothing validates these passes\n");
  }
  void TearDown() override {
    if (m_context) {
      EXPECT_EQ(m_context->validation_messages(), 0) << "the validation layer's messages are printed above";
    }
  }
  std::unique_ptr<Context> m_context;
};

// The scenes' frames, with resources in local memory (false) and exportable (true).
class VulkanRendererFrames : public VulkanRendererTest, public ::testing::WithParamInterface<bool> {
 protected:
  bool exportable() const { return GetParam(); }
  std::string name(const char* scene) const {
    return std::string("vulkan-") + scene + (exportable() ? "-exportable" : "-local");
  }
};

TEST_P(VulkanRendererFrames, WaveMatchesTheGlGolden) {
  const Golden golden = load_golden(lab::SceneId::Wave);
  Renderer renderer(*m_context, extent_of(golden));
  renderer.create_resources({wave_vertices_desc()}, exportable());
  const std::vector<kernels::WaveVertex> vertices = labtest::expected_wave_vertices(golden.frame);
  renderer.upload(0, vertices.data());
  renderer.draw_frame(lab::lit_mesh_plan(0), lab::wave_view_projection(extent_of(golden)), {});
  expect_matches_golden(renderer.read_frame(lab::lit_mesh_plan(0)), golden, name("wave"), *m_context);
}

TEST_P(VulkanRendererFrames, PatternMatchesTheGlGolden) {
  const Golden golden = load_golden(lab::SceneId::Pattern);
  const lab::Extent extent = extent_of(golden);
  Renderer renderer(*m_context, extent);
  renderer.create_resources({texture_desc("pattern texture", extent, lab::ResourceRole::Output)},
                            exportable());
  std::vector<kernels::Rgba8> pixels(static_cast<size_t>(extent.width) * extent.height);
  kernels::pattern_cpu(kernels::linear_target(pixels.data(), static_cast<size_t>(extent.width) * 4,
                                              extent.width, extent.height),
                       {extent.width, extent.height, kernels::time_of_frame(golden.frame)});
  renderer.upload(0, pixels.data());
  renderer.draw_frame(lab::show_image_plan(0), glm::mat4(1.0f), {});
  expect_matches_golden(renderer.read_frame(lab::show_image_plan(0)), golden, name("pattern"), *m_context);
}

// The postprocess scene as the copying modes run it: the cubes drawn into the input, downloaded, filtered
// by the CPU reference, uploaded into the output, which is the frame.
TEST_P(VulkanRendererFrames, PostprocessMatchesTheGlGolden) {
  const Golden golden = load_golden(lab::SceneId::Postprocess);
  const lab::Extent extent = extent_of(golden);
  Renderer renderer(*m_context, extent);
  renderer.create_resources({texture_desc("rendered scene", extent, lab::ResourceRole::Input),
                             texture_desc("filtered image", extent, lab::ResourceRole::Output)},
                            exportable());
  renderer.draw_cubes(0, lab::cubes_view(extent, kernels::time_of_frame(golden.frame)), {});
  const size_t pitch = static_cast<size_t>(extent.width) * 4;
  std::vector<kernels::Rgba8> rendered(static_cast<size_t>(extent.width) * extent.height);
  renderer.download(0, rendered.data());

  std::vector<kernels::Rgba8> filtered(rendered.size());
  kernels::PostprocessParams params;
  params.filter = golden.filter;
  std::vector<kernels::Vec4> scratch(kernels::postprocess_scratch_bytes(extent.width, extent.height) /
                                     sizeof(kernels::Vec4));
  kernels::postprocess_cpu(kernels::linear_source(rendered.data(), pitch, extent.width, extent.height),
                           kernels::linear_target(filtered.data(), pitch, extent.width, extent.height),
                           params, scratch.data());
  renderer.upload(1, filtered.data());
  renderer.draw_frame(lab::show_image_plan(1), glm::mat4(1.0f), {});
  expect_matches_golden(renderer.read_frame(lab::show_image_plan(1)), golden, name("postprocess"),
                        *m_context);
}

INSTANTIATE_TEST_SUITE_P(Memory, VulkanRendererFrames, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& exportable) {
                           return std::string(exportable.param ? "Exportable" : "Local");
                         });

TEST_F(VulkanRendererTest, ExportableResourcesExportTheirMemory) {
  const lab::Extent extent{64, 32};
  Renderer renderer(*m_context, extent);
  renderer.create_resources({wave_vertices_desc(), texture_desc("image", extent, lab::ResourceRole::Output)},
                            true);
  ASSERT_EQ(renderer.resources().size(), 2u);
  for (int index = 0; index < 2; ++index) {
    const lab::vulkan::Resource& resource = renderer.resources()[static_cast<size_t>(index)];
    SCOPED_TRACE(resource.desc.label);
    EXPECT_TRUE(resource.exportable);
    EXPECT_GE(resource.allocation_size, resource.desc.bytes) << "the importer is told this size";
    // Importers must be told (cudaExternalMemoryDedicated, GL_DEDICATED_MEMORY_OBJECT_EXT): NVIDIA's GL
    // reads an image it takes for a sub-allocation in another layout than the one Vulkan wrote.
    EXPECT_TRUE(resource.dedicated) << "every resource has an allocation of its own";
    const int fd = renderer.export_fd(index);
    ASSERT_GE(fd, 0);
    struct stat status {};
    EXPECT_EQ(fstat(fd, &status), 0) << "vkGetMemoryFdKHR returned " << fd << ", which is no open file";
    close(fd);  // nobody imported it: it is still ours to close
  }
  EXPECT_NE(renderer.resources()[0].buffer, VK_NULL_HANDLE);
  EXPECT_NE(renderer.resources()[1].image, VK_NULL_HANDLE);

  renderer.create_resources({wave_vertices_desc()}, false);
  EXPECT_THROW(renderer.export_fd(0), std::logic_error) << "local memory has nothing to export";
}

// The buffer mode's show pass loads nothing (LOAD_OP_DONT_CARE): its triangle must write every pixel of
// the image. The image holds another picture first (an upload), then the show pass draws the storage
// buffer's, and the frame is the buffer's at every pixel.
TEST_F(VulkanRendererTest, TheShowPassWritesEveryPixelOfTheImage) {
  const lab::Extent extent{67, 29};  // odd sides: no pixel row or column is spared by the triangle
  Renderer renderer(*m_context, extent);
  renderer.create_resources({texture_desc("image", extent, lab::ResourceRole::Output)}, false);
  const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  const std::vector<uint8_t> before(bytes, 0xab);
  renderer.upload(0, before.data());
  renderer.draw_frame(lab::show_image_plan(0), glm::mat4(1.0f), {});
  ASSERT_EQ(renderer.read_frame(lab::show_image_plan(0)).rgba, before) << "the upload is the image's picture";

  renderer.place_linear_images(false);
  const lab::vulkan::Resource& resource = renderer.resources()[0];
  ASSERT_TRUE(resource.shown_from_linear);
  ASSERT_NE(resource.linear_mapped, nullptr);
  std::vector<uint8_t> texels(bytes);
  for (size_t i = 0; i < bytes; ++i) texels[i] = static_cast<uint8_t>((i * 7 + i / 251) % 256);
  std::memcpy(resource.linear_mapped, texels.data(), bytes);  // no pass runs: the renderer waited idle
  renderer.draw_frame(lab::show_image_plan(0), glm::mat4(1.0f), {});
  const lab::Image frame = renderer.read_frame(lab::show_image_plan(0));
  // The buffer's rows are memory rows (row 0 first, as the kernels write them); the Image is top row first,
  // which read_frame flips from memory rows: so the frame is the buffer with its rows in reverse.
  ASSERT_EQ(frame.rgba.size(), bytes);
  const size_t row = static_cast<size_t>(extent.width) * 4;
  size_t differing = 0;
  for (int y = 0; y < extent.height; ++y)
    differing += std::memcmp(frame.rgba.data() + row * static_cast<size_t>(y),
                             texels.data() + row * static_cast<size_t>(extent.height - 1 - y), row) != 0;
  EXPECT_EQ(differing, 0u) << "rows of the frame that are not the storage buffer's";
}

// Placed exportable (the buffer mode's CUDA form), an image's texels reach CUDA through the linear buffer
// alone: the image itself is re-created plain, so no pass hands it to VK_QUEUE_FAMILY_EXTERNAL and back, and
// removing the placement makes it exportable again, as create_resources made it.
TEST_F(VulkanRendererTest, ImagesPlacedForCudaAreNotExportedThemselves) {
  const lab::Extent extent{64, 32};
  Renderer renderer(*m_context, extent);
  renderer.create_resources({texture_desc("image", extent, lab::ResourceRole::Output)}, true);
  ASSERT_TRUE(renderer.resources()[0].exportable);

  renderer.place_linear_images(true);
  {
    const lab::vulkan::Resource& resource = renderer.resources()[0];
    EXPECT_FALSE(resource.exportable) << "CUDA imports the linear buffer, not the image";
    EXPECT_TRUE(resource.shown_from_linear);
    EXPECT_TRUE(resource.linear_exportable);
    EXPECT_THROW(renderer.export_fd(0), std::logic_error) << "the placed image has nothing to export";
    const int fd = renderer.export_linear_fd(0);
    ASSERT_GE(fd, 0);
    close(fd);  // nobody imported it: it is still ours to close
  }
  // The placement zeroed the buffer; the show pass draws it (and the validation layer watches the
  // buffer's hand-over and the image's barriers).
  renderer.draw_frame(lab::show_image_plan(0), glm::mat4(1.0f), {});
  const lab::Image frame = renderer.read_frame(lab::show_image_plan(0));
  EXPECT_EQ(std::count(frame.rgba.begin(), frame.rgba.end(), uint8_t{0}),
            static_cast<std::ptrdiff_t>(frame.rgba.size()))
      << "the frame is the zeroed buffer's";

  renderer.remove_linear_images();
  const lab::vulkan::Resource& resource = renderer.resources()[0];
  EXPECT_TRUE(resource.exportable) << "the image is exportable again";
  EXPECT_FALSE(resource.shown_from_linear);
  const int fd = renderer.export_fd(0);
  ASSERT_GE(fd, 0);
  close(fd);
  // The read-back acquires the image from VK_QUEUE_FAMILY_EXTERNAL, where the removal released it.
  EXPECT_EQ(renderer.read_frame(lab::show_image_plan(0)).width, extent.width);
}

// The pass waits for the caller's timeline value before it runs, and signals the caller's value when done:
// what lets CUDA's external semaphores order its kernels against the passes.
TEST_F(VulkanRendererTest, APassWaitsForAndSignalsTheCallersSemaphores) {
  VkDevice device = m_context->device();
  auto type = lab::vulkan::make<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  auto create = lab::vulkan::make<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
  create.pNext = &type;
  VkSemaphore handle = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateSemaphore(device, &create, nullptr, &handle), VK_SUCCESS);
  const lab::vulkan::UniqueSemaphore timeline(device, handle);
  auto value = [&] {
    uint64_t current = 0;
    lab::vulkan::check(vkGetSemaphoreCounterValue(device, handle, &current), "vkGetSemaphoreCounterValue");
    return current;
  };

  const lab::Extent extent{64, 48};
  Renderer renderer(*m_context, extent);
  renderer.create_resources({wave_vertices_desc()}, false);
  const std::vector<kernels::WaveVertex> vertices = labtest::expected_wave_vertices(0);
  renderer.upload(0, vertices.data());
  lab::vulkan::PassSync sync;
  sync.wait.push_back({handle, 1});
  sync.signal.push_back({handle, 2});
  renderer.draw_frame(lab::lit_mesh_plan(0), lab::wave_view_projection(extent), sync);
  EXPECT_EQ(value(), 0u) << "the pass ran before the value it waits for was signalled";

  auto signal = lab::vulkan::make<VkSemaphoreSignalInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO);
  signal.semaphore = handle;
  signal.value = 1;
  ASSERT_EQ(vkSignalSemaphore(device, &signal), VK_SUCCESS);
  renderer.wait_idle();
  EXPECT_EQ(value(), 2u);
  const lab::Image frame = renderer.read_frame(lab::lit_mesh_plan(0));
  EXPECT_EQ(frame.width, 64);
  EXPECT_EQ(frame.height, 48);
}

TEST_F(VulkanRendererTest, ResizeDrawsAtTheNewExtent) {
  Renderer renderer(*m_context, {64, 48});
  renderer.create_resources({wave_vertices_desc()}, false);
  const std::vector<kernels::WaveVertex> vertices = labtest::expected_wave_vertices(3);
  renderer.upload(0, vertices.data());
  renderer.draw_frame(lab::lit_mesh_plan(0), lab::wave_view_projection({64, 48}), {});
  const lab::Image small = renderer.read_frame(lab::lit_mesh_plan(0));

  renderer.resize({96, 40});
  EXPECT_EQ(renderer.extent(), (lab::Extent{96, 40}));
  EXPECT_THROW(renderer.read_frame(lab::lit_mesh_plan(0)), std::logic_error)
      << "nothing drawn at the new extent yet";
  renderer.draw_frame(lab::lit_mesh_plan(0), lab::wave_view_projection({96, 40}), {});
  const lab::Image wide = renderer.read_frame(lab::lit_mesh_plan(0));
  EXPECT_EQ(small.width, 64);
  EXPECT_EQ(wide.width, 96);
  EXPECT_EQ(wide.height, 40);
  // The background corner is the clear colour, the centre the lit wave.
  EXPECT_EQ(wide.pixel(0, 0)[0], 20);
  EXPECT_EQ(wide.pixel(0, 0)[2], 26);
  EXPECT_NE(wide.pixel(48, 20)[2], 26);
}

// What upload() puts in comes back out of download() unchanged, for both kinds, local and exportable.
TEST_F(VulkanRendererTest, UploadsAndDownloadsRoundTrip) {
  const lab::Extent extent{37, 19};  // rows of 148 bytes: no padding hides in a 4-byte multiple
  for (const bool exportable : {false, true}) {
    SCOPED_TRACE(exportable ? "exportable" : "local");
    Renderer renderer(*m_context, extent);
    renderer.create_resources({wave_vertices_desc(), texture_desc("image", extent, lab::ResourceRole::Input)},
                              exportable);
    const std::vector<kernels::WaveVertex> vertices = labtest::expected_wave_vertices(11);
    std::vector<uint8_t> texels(static_cast<size_t>(extent.width) * extent.height * 4);
    for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<uint8_t>(i * 7 + i / 148);
    renderer.upload(0, vertices.data());
    renderer.upload(1, texels.data());
    std::vector<kernels::WaveVertex> vertices_back(vertices.size());
    std::vector<uint8_t> texels_back(texels.size());
    renderer.download(0, vertices_back.data());
    renderer.download(1, texels_back.data());
    EXPECT_EQ(std::memcmp(vertices_back.data(), vertices.data(), vertices.size() * sizeof(vertices[0])), 0);
    EXPECT_EQ(texels_back, texels);
  }
}

// More frames than the renderer keeps command buffers for, none waited for: a command buffer is recorded
// again only once its pass is done (the validation layer would report a reset of a pending one), and the
// last frame equals the same frame drawn alone.
TEST_F(VulkanRendererTest, FramesInFlightReuseNothingTooEarly) {
  const lab::Extent extent{96, 64};
  const glm::mat4 camera = lab::wave_view_projection(extent);
  Renderer renderer(*m_context, extent);
  renderer.create_resources({wave_vertices_desc()}, true);
  for (long long frame = 0; frame < 8; ++frame) {
    const std::vector<kernels::WaveVertex> vertices = labtest::expected_wave_vertices(frame * 10);
    renderer.upload(0, vertices.data());
    renderer.draw_frame(lab::lit_mesh_plan(0), camera, {});
  }
  const lab::Image last = renderer.read_frame(lab::lit_mesh_plan(0));

  Renderer alone(*m_context, extent);
  alone.create_resources({wave_vertices_desc()}, false);
  const std::vector<kernels::WaveVertex> vertices = labtest::expected_wave_vertices(70);
  alone.upload(0, vertices.data());
  alone.draw_frame(lab::lit_mesh_plan(0), camera, {});
  const lab::Image expected = alone.read_frame(lab::lit_mesh_plan(0));
  EXPECT_EQ(last.rgba, expected.rgba);
  const lab::Image first_frame_alone = [&] {
    const std::vector<kernels::WaveVertex> first = labtest::expected_wave_vertices(0);
    alone.upload(0, first.data());
    alone.draw_frame(lab::lit_mesh_plan(0), camera, {});
    return alone.read_frame(lab::lit_mesh_plan(0));
  }();
  EXPECT_NE(first_frame_alone.rgba, expected.rgba)
      << "frames 0 and 70 must differ for this test to mean anything";
}

// upload() writes a staging buffer the previous upload's pass may still have to copy: it waits for that
// pass. Here the pass is held back by the caller's semaphore until a thread signals it.
TEST_F(VulkanRendererTest, AnUploadWaitsForThePassStillReadingItsStagingBuffer) {
  VkDevice device = m_context->device();
  auto type = lab::vulkan::make<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  auto create = lab::vulkan::make<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
  create.pNext = &type;
  VkSemaphore handle = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateSemaphore(device, &create, nullptr, &handle), VK_SUCCESS);
  const lab::vulkan::UniqueSemaphore gate(device, handle);

  const lab::Extent extent{32, 32};
  Renderer renderer(*m_context, extent);
  renderer.create_resources({wave_vertices_desc()}, false);
  const std::vector<kernels::WaveVertex> first = labtest::expected_wave_vertices(0);
  const std::vector<kernels::WaveVertex> second = labtest::expected_wave_vertices(30);
  renderer.upload(0, first.data());
  lab::vulkan::PassSync held;
  held.wait.push_back({handle, 1});
  renderer.draw_frame(lab::lit_mesh_plan(0), lab::wave_view_projection(extent), held);

  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto signal = lab::vulkan::make<VkSemaphoreSignalInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO);
    signal.semaphore = handle;
    signal.value = 1;
    vkSignalSemaphore(device, &signal);
  });
  renderer.upload(0, second.data());  // returns once the held pass has copied `first`
  uint64_t value = 0;
  vkGetSemaphoreCounterValue(device, handle, &value);
  opener.join();
  EXPECT_EQ(value, 1u) << "upload() overwrote the staging buffer while a pass had still to copy it";
  renderer.draw_frame(lab::lit_mesh_plan(0), lab::wave_view_projection(extent), {});
  renderer.wait_idle();
}

// Memory exported as an opaque FD that the host can write and read: on a driver without CUDA (lavapipe),
// the stand-in for the exported mode's cuMemCreate allocation, whose bytes the test sets and checks as the
// kernels would. Of the memory type the renderer's import picks (the first device-local one); nullopt where
// that type is not host-visible and coherent.
struct HostExport {
  lab::vulkan::UniqueMemory memory;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
};
std::optional<HostExport> export_host_memory(const Context& context, size_t bytes) {
  const uint32_t type = context.memory_type(~0u, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VkPhysicalDeviceMemoryProperties properties{};
  vkGetPhysicalDeviceMemoryProperties(context.physical_device(), &properties);
  const VkMemoryPropertyFlags host =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if ((properties.memoryTypes[type].propertyFlags & host) != host) return std::nullopt;
  auto exportable =
      lab::vulkan::make<VkExportMemoryAllocateInfo>(VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO);
  exportable.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto allocate = lab::vulkan::make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  allocate.pNext = &exportable;
  allocate.allocationSize = (bytes + 65535) / 65536 * 65536;  // a granularity, as CUDA rounds to its own
  allocate.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  lab::vulkan::check(vkAllocateMemory(context.device(), &allocate, nullptr, &memory), "vkAllocateMemory");
  HostExport result;
  result.memory = lab::vulkan::UniqueMemory(context.device(), memory);
  result.size = allocate.allocationSize;
  lab::vulkan::check(vkMapMemory(context.device(), memory, 0, VK_WHOLE_SIZE, 0, &result.mapped),
                     "vkMapMemory");
  return result;
}

// The exported mode's side of the renderer: resources moved into imported memory (Renderer::import_memory).
// An Output image shows what was written into its memory once a frame pass ran; the cubes pass leaves its
// picture in an Input image's memory; a vertex buffer in imported memory draws the same frame as one
// uploaded. Synchronization validation checks the copies and the ownership transfers in between.
TEST_F(VulkanRendererTest, ImportedMemoryHoldsWhatThePassesShowAndDraw) {
  const lab::Extent extent{37, 19};  // rows of 148 bytes: no padding hides in a 4-byte multiple
  const std::vector<lab::ResourceDesc> descs = {
      texture_desc("rendered scene", extent, lab::ResourceRole::Input),
      texture_desc("image", extent, lab::ResourceRole::Output), wave_vertices_desc()};
  std::vector<HostExport> memories;
  for (const lab::ResourceDesc& desc : descs) {
    std::optional<HostExport> memory = export_host_memory(*m_context, desc.bytes);
    if (!memory) GTEST_SKIP() << m_context->info().name << "'s device-local memory is not host-visible";
    memories.push_back(std::move(*memory));
  }
  Renderer renderer(*m_context, extent);
  renderer.create_resources(descs, false);
  for (size_t i = 0; i < descs.size(); ++i)
    renderer.import_memory(
        static_cast<int>(i),
        interop::FileDescriptor(lab::vulkan::export_memory_fd(*m_context, memories[i].memory.get())),
        memories[i].size);
  for (const lab::vulkan::Resource& resource : renderer.resources()) {
    SCOPED_TRACE(resource.desc.label);
    EXPECT_TRUE(resource.imported);
    EXPECT_FALSE(resource.exportable);
    EXPECT_NE(resource.desc.kind == lab::ResourceKind::Buffer ? resource.buffer : resource.linear,
              VK_NULL_HANDLE);
  }

  // What "CUDA" wrote, rows tightly packed, is the frame once the frame pass copied it into the image.
  uint8_t* texels = static_cast<uint8_t*>(memories[1].mapped);
  for (size_t i = 0; i < descs[1].bytes; ++i) texels[i] = static_cast<uint8_t>(i * 7 + i / 148);
  renderer.draw_frame(lab::show_image_plan(1), glm::mat4(1.0f), {});
  lab::Image shown = renderer.read_frame(lab::show_image_plan(1));
  lab::flip_rows(shown);  // back to memory order, row 0 first
  ASSERT_EQ(shown.rgba.size(), descs[1].bytes);
  EXPECT_EQ(std::memcmp(shown.rgba.data(), texels, descs[1].bytes), 0);

  // The cubes pass leaves its picture where "CUDA" reads it.
  renderer.draw_cubes(0, lab::cubes_view(extent, 0.5f), {});
  std::vector<uint8_t> drawn(descs[0].bytes);
  renderer.download(0, drawn.data());  // waits for the device
  EXPECT_EQ(std::memcmp(memories[0].mapped, drawn.data(), drawn.size()), 0);
  EXPECT_NE(std::count(drawn.begin(), drawn.end(), uint8_t{0}), static_cast<long>(drawn.size())) << "drawn";

  // The wave drawn from imported memory is the wave drawn from an upload.
  const std::vector<kernels::WaveVertex> vertices = labtest::expected_wave_vertices(5);
  std::memcpy(memories[2].mapped, vertices.data(), descs[2].bytes);
  renderer.draw_frame(lab::lit_mesh_plan(2), lab::wave_view_projection(extent), {});
  const lab::Image imported = renderer.read_frame(lab::lit_mesh_plan(2));
  Renderer uploaded(*m_context, extent);
  uploaded.create_resources({wave_vertices_desc()}, false);
  uploaded.upload(0, vertices.data());
  uploaded.draw_frame(lab::lit_mesh_plan(0), lab::wave_view_projection(extent), {});
  EXPECT_TRUE(imported.rgba == uploaded.read_frame(lab::lit_mesh_plan(0)).rgba);
}

// A refused import leaves the FD to its FileDescriptor, which closes it; a resource is imported once.
TEST_F(VulkanRendererTest, ARefusedImportClosesTheFdAndSaysWhy) {
  const lab::Extent extent{16, 16};
  std::optional<HostExport> memory = export_host_memory(*m_context, 4096);
  if (!memory) GTEST_SKIP() << m_context->info().name << "'s device-local memory is not host-visible";
  Renderer renderer(*m_context, extent);
  renderer.create_resources({wave_vertices_desc()}, false);  // 1.5 MB: more than the 64 KiB exported
  const int fd = lab::vulkan::export_memory_fd(*m_context, memory->memory.get());
  try {
    renderer.import_memory(0, interop::FileDescriptor(fd), memory->size);
    FAIL() << "a buffer larger than the imported memory was bound to it";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("allocate at least that much"), std::string::npos)
        << error.what();
  }
  errno = 0;
  EXPECT_EQ(fcntl(fd, F_GETFD), -1) << "the refused FD was closed";
  EXPECT_EQ(errno, EBADF);
  EXPECT_FALSE(renderer.resources()[0].imported) << "the resource stays as it was";

  renderer.create_resources({wave_vertices_desc()}, true);
  const int exportable_fd = lab::vulkan::export_memory_fd(*m_context, memory->memory.get());
  EXPECT_THROW(renderer.import_memory(0, interop::FileDescriptor(exportable_fd), memory->size),
               std::logic_error)
      << "an exportable resource is the renderer's own memory";
}

TEST_F(VulkanRendererTest, ReadFrameSaysWhatIsMissing) {
  Renderer renderer(*m_context, {16, 16});
  renderer.create_resources({wave_vertices_desc()}, false);
  EXPECT_NE(renderer.missing_frame(lab::lit_mesh_plan(0)).find("call draw_frame first"), std::string::npos);
  EXPECT_NE(renderer.missing_frame(lab::show_image_plan(0)).find("names \"vertex buffer\", a buffer"),
            std::string::npos);
  EXPECT_NE(
      renderer.missing_frame(lab::show_image_plan(3)).find("image_resource is 3, but there are 1 resources"),
      std::string::npos);
  EXPECT_THROW(renderer.read_frame(lab::show_image_plan(0)), std::logic_error);
  const std::vector<kernels::WaveVertex> vertices = labtest::expected_wave_vertices(0);
  renderer.upload(0, vertices.data());
  renderer.draw_frame(lab::lit_mesh_plan(0), lab::wave_view_projection({16, 16}), {});
  EXPECT_EQ(renderer.missing_frame(lab::lit_mesh_plan(0)), "");
}

TEST_F(VulkanRendererTest, InvalidDescsAreRefusedNamingTheField) {
  Renderer renderer(*m_context, {16, 16});
  lab::ResourceDesc texture = texture_desc("pattern texture", {16, 16}, lab::ResourceRole::Output);
  texture.bytes = 100;
  try {
    renderer.create_resources({wave_vertices_desc(), texture}, false);
    FAIL() << "a texture whose bytes are not width * height * 4 was accepted";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("ResourceDesc[1] (\"pattern texture\").bytes is 100"), std::string::npos)
        << message;
    EXPECT_NE(message.find("width * height * 4 = 1024"), std::string::npos) << message;
  }
  EXPECT_TRUE(renderer.resources().empty());

  lab::ResourceDesc empty = wave_vertices_desc();
  empty.bytes = 0;
  EXPECT_THROW(renderer.create_resources({empty}, false), std::invalid_argument);
  EXPECT_THROW(Renderer(*m_context, {0, 16}), std::invalid_argument);

  lab::vulkan::PassSync sync;
  sync.signal.push_back({VK_NULL_HANDLE, 1});
  renderer.create_resources({wave_vertices_desc()}, false);
  try {
    renderer.draw_frame(lab::lit_mesh_plan(0), glm::mat4(1.0f), sync);
    FAIL() << "a null semaphore was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("PassSync.signal[0].semaphore is VK_NULL_HANDLE"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
