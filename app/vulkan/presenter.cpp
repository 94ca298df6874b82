// app/vulkan/presenter.cpp — a GLFW window's surface and FIFO swapchain, Renderer::show into its images, and
// Dear ImGui's Vulkan backend in an overlay render pass that leaves each image ready to present.
//
// Per frame: acquire an image (signals one of kFramesInFlight binary semaphores), one renderer pass that
// waits for it, blits the frame, draws the panel and signals the image's own "rendered" semaphore (and the
// presenter's timeline, so a slot's acquire semaphore is reused only after the pass that waited on it)
// (draw); then, after a read-back of the image if one is asked for, vkQueuePresentKHR waiting for
// "rendered" (present).
#include "app/vulkan/presenter.hpp"

#include "app/vulkan/builders.hpp"

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_vulkan.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace lab::vulkan {
namespace {

constexpr uint32_t kFramesInFlight = 2;

using UniqueSwapchain = Unique<VkSwapchainKHR, vkDestroySwapchainKHR>;

// The window's surface; a surface belongs to the instance, not the device, so Unique does not fit.
class Surface {
 public:
  Surface(VkInstance instance, GLFWwindow* window) : m_instance(instance) {
    check(glfwCreateWindowSurface(instance, window, nullptr, &m_surface), "glfwCreateWindowSurface");
  }
  ~Surface() { vkDestroySurfaceKHR(m_instance, m_surface, nullptr); }
  Surface(const Surface&) = delete;
  Surface& operator=(const Surface&) = delete;
  VkSurfaceKHR get() const { return m_surface; }

 private:
  VkInstance m_instance;
  VkSurfaceKHR m_surface = VK_NULL_HANDLE;
};

// 8-bit UNORM, as the frames are: they hold display values already (GL's default framebuffer is not sRGB).
VkSurfaceFormatKHR choose_format(const Context& context, VkSurfaceKHR surface) {
  uint32_t count = 0;
  check(vkGetPhysicalDeviceSurfaceFormatsKHR(context.physical_device(), surface, &count, nullptr),
        "vkGetPhysicalDeviceSurfaceFormatsKHR");
  std::vector<VkSurfaceFormatKHR> formats(count);
  check(vkGetPhysicalDeviceSurfaceFormatsKHR(context.physical_device(), surface, &count, formats.data()),
        "vkGetPhysicalDeviceSurfaceFormatsKHR");
  for (VkFormat wanted : {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM})
    for (const VkSurfaceFormatKHR& format : formats)
      if (format.format == wanted && format.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return format;
  throw std::runtime_error("Vulkan: the window's surface offers no B8G8R8A8_UNORM or R8G8B8A8_UNORM format");
}

UniqueSemaphore create_owned_semaphore(VkDevice device, VkSemaphoreType type) {
  return UniqueSemaphore(device, create_semaphore(device, type, /*exportable=*/false, "vkCreateSemaphore"));
}

// The panel's pass: it keeps the blitted frame (LOAD) and leaves the image ready to present.
UniqueRenderPass create_overlay_pass(VkDevice device, VkFormat format) {
  ColorPassDesc desc;
  desc.load_op = VK_ATTACHMENT_LOAD_OP_LOAD;
  // From where Renderer::show leaves it, to presentation.
  desc.layouts = {VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                  VK_IMAGE_LAYOUT_PRESENT_SRC_KHR};
  // In: the blit's writes, before the panel blends over them.
  desc.in = {{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT},
             {VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
              VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT}};
  // Out: presentation waits on the pass's semaphore, which covers every stage.
  desc.out = {{VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT},
              {VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0}};
  return create_color_pass(device, format, desc, "vkCreateRenderPass (overlay)");
}

// ImGui's backend reports its own Vulkan failures here: logged, as it cannot unwind through ImGui's frame.
void report_imgui_result(VkResult result) {
  if (result != VK_SUCCESS)
    std::fprintf(stderr, "interop-lab: ImGui's Vulkan backend: VkResult %d\n", result);
}

}  // namespace

std::vector<std::string> surface_extensions() {
  if (glfwVulkanSupported() != GLFW_TRUE)
    throw std::runtime_error("GLFW finds no Vulkan loader (Debian: libvulkan1) or no window surface support");
  uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
  return std::vector<std::string>(names, names + count);
}

struct Presenter::State {
  State(Renderer& renderer, GLFWwindow* window, bool ui, bool vsync);
  ~State();
  void create_swapchain(Extent extent);
  // `call`'s result: a driver that cannot present to this display at all (NVIDIA's Vulkan under an X
  // server without its GLX, as Xvfb on a GPU server: VK_ERROR_UNKNOWN or VK_ERROR_INITIALIZATION_FAILED
  // from the surface's present modes or the swapchain) says so; any other failure as check() does.
  void check_presents(VkResult result, const char* call) const {
    if (result == VK_ERROR_UNKNOWN || result == VK_ERROR_INITIALIZATION_FAILED)
      throw std::runtime_error("Vulkan: " + context.info().name + " cannot present to this display (" + call +
                               ": VkResult " + std::to_string(static_cast<int>(result)) + "); run headless");
    check(result, call);
  }

  Context& context;
  VkDevice device;
  GLFWwindow* window;
  Surface surface;
  VkSurfaceFormatKHR format{};
  UniqueRenderPass overlay_pass;

  // The swapchain and what exists per image.
  Extent extent;
  uint32_t min_image_count = 0;
  UniqueSwapchain swapchain;
  std::vector<VkImage> images;  // the swapchain's own
  std::vector<UniqueImageView> views;
  std::vector<UniqueFramebuffer> framebuffers;
  std::vector<UniqueSemaphore> rendered;  // signalled by the pass into image i, waited on by its present
  bool out_of_date = false;
  bool vsync = true;
  VkPresentModeKHR present_mode = VK_PRESENT_MODE_FIFO_KHR;

  bool readable = false;  // the images were made transfer sources (the surface allows it): read_back_buffer
  // The image draw() rendered and present() has still to show, with what its acquire said.
  std::optional<uint32_t> pending;
  VkResult pending_acquire = VK_SUCCESS;

  std::array<UniqueSemaphore, kFramesInFlight> acquired;  // signalled by vkAcquireNextImageKHR
  UniqueSemaphore shown;                                  // timeline: value n once frame n's pass is done
  uint64_t frames = 0;

  UniqueDescriptorPool ui_pool;
  bool ui = false;
};

Presenter::State::State(Renderer& renderer, GLFWwindow* window_, bool with_ui, bool vsync_)
    : context(renderer.context()),
      device(renderer.context().device()),
      window(window_),
      surface(renderer.context().instance(), window_),
      vsync(vsync_) {
  if (!context.presentation())
    throw std::logic_error(
        "Presenter: the Context was made without ContextOptions::surface_extensions; pass "
        "lab::vulkan::surface_extensions() there");
  VkBool32 supported = VK_FALSE;
  check(vkGetPhysicalDeviceSurfaceSupportKHR(context.physical_device(), context.queue_family(), surface.get(),
                                             &supported),
        "vkGetPhysicalDeviceSurfaceSupportKHR");
  if (supported != VK_TRUE)
    throw std::runtime_error("Vulkan: " + context.info().name +
                             "'s queue cannot present to this window; run headless");
  format = choose_format(context, surface.get());
  overlay_pass = create_overlay_pass(device, format.format);
  for (UniqueSemaphore& semaphore : acquired)
    semaphore = create_owned_semaphore(device, VK_SEMAPHORE_TYPE_BINARY);
  shown = create_owned_semaphore(device, VK_SEMAPHORE_TYPE_TIMELINE);
  int width = 0, height = 0;
  glfwGetFramebufferSize(window, &width, &height);
  create_swapchain({std::max(width, 1), std::max(height, 1)});

  if (!with_ui) return;
  // ImGui's backend allocates one descriptor set: its font atlas.
  const VkDescriptorPoolSize font{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
  auto pool_info =
      lab::vulkan::make<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &font;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  check(vkCreateDescriptorPool(device, &pool_info, nullptr, &pool), "vkCreateDescriptorPool (ImGui)");
  ui_pool = UniqueDescriptorPool(device, pool);
  ImGui_ImplVulkan_InitInfo init{};
  init.Instance = context.instance();
  init.PhysicalDevice = context.physical_device();
  init.Device = device;
  init.QueueFamily = context.queue_family();
  init.Queue = context.queue();
  init.DescriptorPool = pool;
  init.MinImageCount = std::max(min_image_count, 2u);
  init.ImageCount = std::max(static_cast<uint32_t>(images.size()), init.MinImageCount);
  init.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  init.CheckVkResultFn = &report_imgui_result;
  if (!ImGui_ImplVulkan_Init(&init, overlay_pass.get()))
    throw std::runtime_error("ImGui_ImplVulkan_Init failed (was ImGui::CreateContext called?)");
  try {
    renderer.wait_idle();  // the font upload runs on the same queue, outside the renderer's passes
    context.submit([](VkCommandBuffer commands) { ImGui_ImplVulkan_CreateFontsTexture(commands); },
                   VK_NULL_HANDLE, 0, 0, true);
  } catch (...) {
    ImGui_ImplVulkan_Shutdown();  // ~State does not run for a constructor that throws
    throw;
  }
  ImGui_ImplVulkan_DestroyFontUploadObjects();
  ui = true;
}

Presenter::State::~State() {
  vkDeviceWaitIdle(device);
  if (ui) ImGui_ImplVulkan_Shutdown();
}

void Presenter::State::create_swapchain(Extent wanted) {
  VkSurfaceCapabilitiesKHR capabilities;
  check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(context.physical_device(), surface.get(), &capabilities),
        "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
  if (!(capabilities.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
    throw std::runtime_error(
        "Vulkan: the window's swapchain images cannot be copied into (no TRANSFER_DST usage)");
  VkExtent2D size = capabilities.currentExtent;
  if (size.width == UINT32_MAX) {  // the surface takes the swapchain's size
    size.width = std::clamp(static_cast<uint32_t>(wanted.width), capabilities.minImageExtent.width,
                            capabilities.maxImageExtent.width);
    size.height = std::clamp(static_cast<uint32_t>(wanted.height), capabilities.minImageExtent.height,
                             capabilities.maxImageExtent.height);
  }
  min_image_count = capabilities.minImageCount;
  uint32_t image_count = capabilities.minImageCount + 1;  // one to draw while the others are shown
  if (capabilities.maxImageCount > 0) image_count = std::min(image_count, capabilities.maxImageCount);
  VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  for (VkCompositeAlphaFlagBitsKHR option :
       {VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR, VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR,
        VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR, VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR})
    if (capabilities.supportedCompositeAlpha & option) {
      alpha = option;
      break;
    }

  present_mode = VK_PRESENT_MODE_FIFO_KHR;  // every surface has it; frames pace to the display
  if (!vsync) {
    uint32_t mode_count = 0;
    check_presents(vkGetPhysicalDeviceSurfacePresentModesKHR(context.physical_device(), surface.get(),
                                                             &mode_count, nullptr),
                   "vkGetPhysicalDeviceSurfacePresentModesKHR");
    std::vector<VkPresentModeKHR> modes(mode_count);
    check_presents(vkGetPhysicalDeviceSurfacePresentModesKHR(context.physical_device(), surface.get(),
                                                             &mode_count, modes.data()),
                   "vkGetPhysicalDeviceSurfacePresentModesKHR");
    // MAILBOX first: as fast as IMMEDIATE without tearing.
    for (VkPresentModeKHR unpaced : {VK_PRESENT_MODE_IMMEDIATE_KHR, VK_PRESENT_MODE_MAILBOX_KHR})
      if (std::find(modes.begin(), modes.end(), unpaced) != modes.end()) present_mode = unpaced;
  }

  auto create = lab::vulkan::make<VkSwapchainCreateInfoKHR>(VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR);
  create.surface = surface.get();
  create.minImageCount = image_count;
  create.imageFormat = format.format;
  create.imageColorSpace = format.colorSpace;
  create.imageExtent = size;
  create.imageArrayLayers = 1;
  // Transfer sources too where the surface allows it, so --screenshot can write what the window shows.
  readable = (capabilities.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
  create.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                      (readable ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0);
  create.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  create.preTransform = capabilities.currentTransform;
  create.compositeAlpha = alpha;
  create.presentMode = present_mode;
  create.clipped = VK_TRUE;
  create.oldSwapchain = swapchain.get();
  VkSwapchainKHR handle = VK_NULL_HANDLE;
  // A driver whose window system integration does not reach this X server (NVIDIA's Vulkan on an Xvfb
  // that runs Mesa's GLX, as on a GPU server without a display) says yes to surface support and then fails
  // here with VK_ERROR_UNKNOWN or VK_ERROR_INITIALIZATION_FAILED.
  check_presents(vkCreateSwapchainKHR(device, &create, nullptr, &handle), "vkCreateSwapchainKHR");
  // The old swapchain's objects go first (the caller waited for the device), then the old swapchain itself.
  framebuffers.clear();
  views.clear();
  rendered.clear();
  swapchain = UniqueSwapchain(device, handle);
  extent = {static_cast<int>(size.width), static_cast<int>(size.height)};
  out_of_date = false;

  uint32_t count = 0;
  check(vkGetSwapchainImagesKHR(device, handle, &count, nullptr), "vkGetSwapchainImagesKHR");
  images.resize(count);
  check(vkGetSwapchainImagesKHR(device, handle, &count, images.data()), "vkGetSwapchainImagesKHR");
  for (VkImage image : images) {
    views.push_back(create_image_view(device, image, format.format, VK_IMAGE_ASPECT_COLOR_BIT,
                                      "vkCreateImageView (swapchain)"));
    framebuffers.push_back(create_framebuffer(device, overlay_pass.get(), {views.back().get()}, extent,
                                              "vkCreateFramebuffer (swapchain)"));
    rendered.push_back(create_owned_semaphore(device, VK_SEMAPHORE_TYPE_BINARY));
  }
  if (ui) ImGui_ImplVulkan_SetMinImageCount(std::max(min_image_count, 2u));
}

// ---- Presenter

Presenter::Presenter(Renderer& renderer, GLFWwindow* window, bool ui, bool vsync)
    : m_renderer(renderer), m_state(std::make_unique<State>(renderer, window, ui, vsync)) {}

Presenter::~Presenter() = default;

Extent Presenter::extent() const {
  return m_state->extent;
}

void Presenter::set_vsync(bool vsync) {
  if (vsync == m_state->vsync) return;
  m_state->vsync = vsync;
  m_state->out_of_date = true;
}

bool Presenter::vsync() const {
  return m_state->vsync;
}

const char* Presenter::present_mode() const {
  switch (m_state->present_mode) {
    case VK_PRESENT_MODE_MAILBOX_KHR:
      return "mailbox";
    case VK_PRESENT_MODE_IMMEDIATE_KHR:
      return "immediate";
    default:
      return "fifo";
  }
}

void Presenter::begin_ui_frame() {
  if (!m_state->ui)
    throw std::logic_error("Presenter::begin_ui_frame: this presenter was made without ui; pass ui = true");
  ImGui_ImplVulkan_NewFrame();
}

bool Presenter::draw(const DrawPlan& plan, ImDrawData* ui) {
  // Checked before an image is acquired: an acquired image must be presented.
  const std::string missing = m_renderer.missing_frame(plan);
  if (!missing.empty()) throw std::logic_error("Presenter::draw: " + missing);
  present();  // the image drawn last, where nobody presented it: the swapchain needs it back
  State& state = *m_state;
  int width = 0, height = 0;
  glfwGetFramebufferSize(state.window, &width, &height);
  if (width == 0 || height == 0) return false;  // minimised: no swapchain image can have that size
  if (state.out_of_date || Extent{width, height} != state.extent) {
    vkDeviceWaitIdle(state.device);
    state.create_swapchain({width, height});
  }

  // The acquire semaphore of this slot was waited on by the pass of frame (frames - kFramesInFlight + 1).
  const size_t slot = static_cast<size_t>(state.frames % kFramesInFlight);
  if (state.frames >= kFramesInFlight) {
    wait_semaphore(state.device, state.shown.get(), state.frames - kFramesInFlight + 1);
  }
  VkSemaphore acquired = state.acquired[slot].get();
  uint32_t index = 0;
  const VkResult acquire = vkAcquireNextImageKHR(state.device, state.swapchain.get(), UINT64_MAX, acquired,
                                                 VK_NULL_HANDLE, &index);
  if (acquire == VK_ERROR_OUT_OF_DATE_KHR) {  // nothing was signalled: try again at the next present
    state.out_of_date = true;
    return false;
  }
  if (acquire != VK_SUBOPTIMAL_KHR) check(acquire, "vkAcquireNextImageKHR");

  const uint64_t frame = ++state.frames;
  PassSync sync;
  sync.wait.push_back({acquired, 0});
  sync.signal.push_back({state.rendered[index].get(), 0});
  sync.signal.push_back({state.shown.get(), frame});
  m_renderer.show(
      plan, state.images[index], state.extent,
      [&](VkCommandBuffer commands) {
        const VkRenderPassBeginInfo begin =
            render_pass_begin_info(state.overlay_pass.get(), state.framebuffers[index].get(), state.extent);
        vkCmdBeginRenderPass(commands, &begin, VK_SUBPASS_CONTENTS_INLINE);
        if (ui != nullptr && state.ui) ImGui_ImplVulkan_RenderDrawData(ui, commands);
        vkCmdEndRenderPass(commands);
      },
      sync);

  state.pending = index;
  state.pending_acquire = acquire;
  return true;
}

void Presenter::present() {
  State& state = *m_state;
  if (!state.pending) return;
  const uint32_t index = *state.pending;
  state.pending.reset();
  VkSemaphore rendered = state.rendered[index].get();
  VkSwapchainKHR swapchain = state.swapchain.get();
  auto present = lab::vulkan::make<VkPresentInfoKHR>(VK_STRUCTURE_TYPE_PRESENT_INFO_KHR);
  present.waitSemaphoreCount = 1;
  present.pWaitSemaphores = &rendered;
  present.swapchainCount = 1;
  present.pSwapchains = &swapchain;
  present.pImageIndices = &index;
  const VkResult presented = vkQueuePresentKHR(state.context.queue(), &present);
  if (presented == VK_ERROR_OUT_OF_DATE_KHR || presented == VK_SUBOPTIMAL_KHR ||
      state.pending_acquire == VK_SUBOPTIMAL_KHR)
    state.out_of_date = true;
  else
    check(presented, "vkQueuePresentKHR");
}

Image Presenter::read_back_buffer() {
  State& state = *m_state;
  if (!state.pending || !state.readable) return {};
  const VkImage image = state.images[*state.pending];
  const Extent extent = state.extent;
  const VkDeviceSize bytes = static_cast<VkDeviceSize>(extent.width) * extent.height * 4;

  // A host-visible buffer for this one copy (a screenshot is rare: nothing is kept for it).
  const VkBufferCreateInfo buffer_info = buffer_create_info(bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  VkBuffer buffer_handle = VK_NULL_HANDLE;
  check(vkCreateBuffer(state.device, &buffer_info, nullptr, &buffer_handle),
        "vkCreateBuffer (window read-back)");
  const UniqueBuffer buffer(state.device, buffer_handle);
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(state.device, buffer.get(), &requirements);
  const VkMemoryPropertyFlags host =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  std::optional<uint32_t> type =
      state.context.find_memory_type(requirements.memoryTypeBits, host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (!type) type = state.context.find_memory_type(requirements.memoryTypeBits, host);
  if (!type) throw std::runtime_error("Vulkan: no host-visible memory to read the window back into");
  auto allocate = lab::vulkan::make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = *type;
  VkDeviceMemory memory_handle = VK_NULL_HANDLE;
  check(vkAllocateMemory(state.device, &allocate, nullptr, &memory_handle),
        "vkAllocateMemory (window read-back)");
  const UniqueMemory memory(state.device, memory_handle);
  check(vkBindBufferMemory(state.device, buffer.get(), memory.get(), 0), "vkBindBufferMemory");

  // After the frame's pass (the presenter's timeline says so), before the present that waits on it: the
  // image goes from PRESENT_SRC to TRANSFER_SRC for the copy and back.
  state.context.submit(
      [&](VkCommandBuffer commands) {
        const VkImageMemoryBarrier to_copy =
            image_barrier(image, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                             VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, 1, &to_copy);
        const VkBufferImageCopy region = whole_image_copy(extent);
        vkCmdCopyImageToBuffer(commands, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer.get(), 1,
                               &region);
        const VkImageMemoryBarrier back =
            image_barrier(image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                          VK_ACCESS_TRANSFER_READ_BIT, 0);
        vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                             0, 0, nullptr, 0, nullptr, 1, &back);
        const VkBufferMemoryBarrier to_host =
            buffer_barrier(buffer.get(), VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT);
        vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0,
                             nullptr, 1, &to_host, 0, nullptr);
      },
      state.shown.get(), state.frames, 0, true);

  void* mapped = nullptr;
  check(vkMapMemory(state.device, memory.get(), 0, VK_WHOLE_SIZE, 0, &mapped),
        "vkMapMemory (window read-back)");
  Image shown;
  shown.width = extent.width;
  shown.height = extent.height;
  shown.rgba.resize(static_cast<size_t>(bytes));
  const auto* texels = static_cast<const uint8_t*>(mapped);
  const bool bgra = state.format.format == VK_FORMAT_B8G8R8A8_UNORM;
  // A swapchain's row 0 is the top of the window, as an Image's; the window shows no alpha.
  for (size_t i = 0; i < shown.rgba.size(); i += 4) {
    shown.rgba[i + 0] = texels[i + (bgra ? 2 : 0)];
    shown.rgba[i + 1] = texels[i + 1];
    shown.rgba[i + 2] = texels[i + (bgra ? 0 : 2)];
    shown.rgba[i + 3] = 255;
  }
  vkUnmapMemory(state.device, memory.get());
  return shown;
}

}  // namespace lab::vulkan
