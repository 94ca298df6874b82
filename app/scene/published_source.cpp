#include "app/scene/published_source.hpp"

#include "app/scene/picture.hpp"

#include "kernels/blit.hpp"
#include "kernels/convert.hpp"

#ifndef _WIN32
#include "interop/error.hpp"
#include "interop/external.hpp"
#include "interop/memory.hpp"
#include "interop/publish.hpp"
#endif

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace lab {

#ifndef _WIN32
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kReattachEvery = std::chrono::milliseconds(500);

// "1920x1080 uint8x4"
std::string format_text(const interop::FrameFormat& format) {
  return std::to_string(format.width) + "x" + std::to_string(format.height) + " " +
         interop::to_string(format.dtype) + "x" + std::to_string(format.channels);
}

// The element type kernels/convert.hpp reads a published dtype as; nullopt for a dtype this build does not
// know (a publisher built from a newer protocol).
std::optional<kernels::ElementType> element_type(interop::DType dtype) {
  switch (dtype) {
    case interop::DType::UInt8:
      return kernels::ElementType::U8;
    case interop::DType::UInt16:
      return kernels::ElementType::U16;
    case interop::DType::Int32:
      return kernels::ElementType::I32;
    case interop::DType::Float16:
      return kernels::ElementType::F16;
    case interop::DType::Float32:
      return kernels::ElementType::F32;
  }
  return std::nullopt;
}

void refuse_unless_shown(const std::string& name, const interop::FrameFormat& format) {
  if (element_type(format.dtype) && (format.channels == 1 || format.channels == 3 || format.channels == 4))
    return;
  throw std::runtime_error("--attach " + name + ": it publishes " + format_text(format) +
                           " frames; interop-lab shows 1, 3 or 4 channels of uint8, uint16, int32, float16 "
                           "or float32");
}

class PublishedSource final : public FrameSource {
 public:
  PublishedSource(std::string name, std::string directory)
      : m_name(std::move(name)), m_directory(std::move(directory)) {
    attach();
  }
  ~PublishedSource() override {  // nothing thrown here: errors of a dying context are not looked at
    if (m_draw_pending) cudaEventSynchronize(m_drawn);
    if (m_drawn) cudaEventDestroy(m_drawn);
    free_device_copy();
    if (m_copy_stream) cudaStreamDestroy(m_copy_stream);
  }

  SourceKind kind() const override { return SourceKind::Published; }
  std::string name() const override { return "published '" + m_name + "'"; }
  std::string status() const override {
    std::string text =
        format_text(m_format) + ", " + interop::to_string(m_memory) + " slots, " + m_blit.range_text();
    if (m_gone) return text + "publisher gone (" + m_gone_reason + "): the last frame stays until it returns";
    if (!m_frame) return text + "waiting for the first frame of pid " + std::to_string(m_pid);
    return text + "frame " + std::to_string(m_frame->index) + " of pid " + std::to_string(m_pid) + ", " +
           std::to_string(m_subscriber->frames_skipped()) + " skipped";
  }
  std::optional<Extent> natural_extent() const override {
    return Extent{static_cast<int>(m_format.width), static_cast<int>(m_format.height)};
  }
  std::vector<ResourceDesc> resources(Extent extent) const override {
    return {frame_sized_texture("published frame", ResourceRole::Output, extent)};
  }
  bool resize_recreates_resources() const override { return true; }
  DrawPlan draw_plan() const override { return show_image_plan(0); }

  void compute_cuda(const FrameInfo& frame, const std::vector<CudaResourceView>& views,
                    cudaStream_t stream) override {
    take_newest(true);
    const kernels::ImageTarget target = cuda_target(views[0], frame.extent);
    if (const std::optional<PictureDesc> shown = picture())
      m_blit.blit_cuda(*shown, target, stream);
    else
      m_blit.blank_cuda(target, stream);
    if (!m_drawn) INTEROP_CUDA_CHECK(cudaEventCreateWithFlags(&m_drawn, cudaEventDisableTiming));
    INTEROP_CUDA_CHECK(cudaEventRecord(m_drawn, stream));
    m_draw_pending = true;
  }

  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override {
    take_newest(false);
    const kernels::ImageTarget target = linear_image(views[0].pointer, views[0].pitch, frame.extent);
    if (const std::optional<PictureDesc> shown = picture())
      m_blit.blit_cpu(*shown, target);
    else
      m_blit.blank_cpu(target);
  }

  // The loop is about to draw again and the publisher has sent nothing since the frame shown (or nothing
  // yet): wait for its next frame, up to `most`, rather than draw the same picture again (a loop faster than
  // its publisher). A publisher that went is looked for again by take_newest, on its own clock.
  void wait_for_frame(std::chrono::milliseconds most) override {
    if (m_gone) {
      // Nothing comes before a publisher of the name is back: wait as for a frame, until the next look for
      // one at the latest, so that a viewer whose publisher went does not spin through frames of one picture
      // (one with no graphics API, --api none, draws thousands a second).
      std::this_thread::sleep_until(std::min(Clock::now() + most, m_next_attempt));
      return;
    }
    if (m_arrived) return;
    m_arrived = m_subscriber->next(most);
  }

  // The kept picture goes to host memory (it outlives the device), and what was made on the device goes.
  void release_scratch() override {
    wait_for_draw();
    if (m_drawn) cudaEventDestroy(m_drawn);
    m_drawn = nullptr;
    if (m_kept_on_device) {
      m_kept.resize(kept_bytes());
      INTEROP_CUDA_CHECK(cudaMemcpy(m_kept.data(), m_kept_on_device, m_kept.size(), cudaMemcpyDeviceToHost));
      free_device_copy();
    }
    if (m_copy_stream) cudaStreamDestroy(m_copy_stream);
    m_copy_stream = nullptr;
    m_imports.clear();
    m_blit.release();
  }

  view::View* picture_view() override { return &m_blit.view(); }
  std::optional<readout::Source> picture_values() const override {
    const std::optional<PictureDesc> shown = picture();
    return shown ? std::optional(shown->values()) : std::nullopt;
  }
  std::optional<std::array<double, 2>> picture_colorbar() const override { return m_blit.colorbar(); }
  const uint8_t* picture_colormap() const override { return m_blit.colormap(); }

 private:
  struct Import {
    interop::ExternalMemory memory;
    interop::ExternalBuffer buffer;
  };

  std::string m_name;
  std::string m_directory;
  std::unique_ptr<interop::Subscriber> m_subscriber;
  interop::FrameFormat m_format;
  interop::SlotMemory m_memory = interop::SlotMemory::Host;
  int m_pid = 0;
  std::optional<interop::Subscriber::Frame> m_frame;    // the newest frame taken (its slot given back)
  std::optional<interop::Subscriber::Frame> m_arrived;  // claimed by wait_for_frame, taken next
  bool m_gone = false;
  std::string m_gone_reason;
  Clock::time_point m_next_attempt;
  // The picture shown, the source's own copy of m_frame (its slot went back once copied): in device memory
  // when a CUDA mode took it, else in host memory; the format's pitch, as the slot's.
  void* m_kept_on_device = nullptr;
  std::vector<uint8_t> m_kept;
  std::vector<std::optional<Import>> m_imports;  // device slots, imported on first use
  cudaStream_t m_copy_stream = nullptr;          // the copy out of a device slot, waited for at once
  cudaEvent_t m_drawn = nullptr;                 // after the last blit out of the kept picture
  bool m_draw_pending = false;
  PictureBlit m_blit;  // the picture into the frame: converted to RGBA8 first where it is not uint8

  void attach() {
    interop::SubscriberDesc desc;
    desc.directory = m_directory;
    m_subscriber = std::make_unique<interop::Subscriber>(m_name, desc);
    take_publisher();
  }

  // What the publisher just attached to (first, or again after it went) publishes, refused unless shown;
  // its slots are imported afresh on first use.
  void take_publisher() {
    refuse_unless_shown(m_name, m_subscriber->format());
    m_format = m_subscriber->format();
    m_blit.expect(*element_type(m_format.dtype), static_cast<int>(m_format.channels));
    m_memory = m_subscriber->memory();
    m_pid = m_subscriber->publisher_pid();
    m_imports.clear();
    m_imports.resize(m_subscriber->slots().size());
    m_gone = false;
    m_gone_reason.clear();
  }

  // The picture to show, the source's own copy: in device memory (read there by the CUDA modes) or in host
  // memory; nullopt before any frame came.
  std::optional<PictureDesc> picture() const {
    const kernels::ElementType type = *element_type(m_format.dtype);
    const auto at = [&](const void* pixels, bool in_device) {
      return PictureDesc::packed(pixels, in_device, static_cast<int>(m_format.width),
                                 static_cast<int>(m_format.height), static_cast<int>(m_format.channels), type,
                                 static_cast<long long>(interop::dtype_size(m_format.dtype)),
                                 static_cast<long long>(m_format.pitch_or_packed()));
    };
    if (m_kept_on_device) return at(m_kept_on_device, true);
    if (!m_kept.empty()) return at(m_kept.data(), false);
    return std::nullopt;
  }

  size_t kept_bytes() const { return m_format.pitch_or_packed() * m_format.height; }

  // The last blit out of the kept picture has finished: it may be written again.
  void wait_for_draw() {
    if (m_draw_pending) INTEROP_CUDA_CHECK(cudaEventSynchronize(m_drawn));
    m_draw_pending = false;
  }

  void free_device_copy() {
    if (m_kept_on_device) cudaFree(m_kept_on_device);
    m_kept_on_device = nullptr;
  }

  // The frame just claimed, copied into the source's own picture (device memory for a CUDA mode, `on_device`,
  // else host memory), then its slot given back at once: a viewer holds a slot only while it copies, so
  // several viewers never hold every slot of the ring and the publisher's frames are not dropped for them.
  void keep(const interop::Subscriber::Frame& frame, bool on_device) {
    wait_for_draw();
    const size_t bytes = kept_bytes();
    if (m_memory == interop::SlotMemory::Host && !on_device) {
      free_device_copy();
      m_kept.resize(bytes);
      std::memcpy(m_kept.data(), frame.data, bytes);
    } else {
      const void* from = m_memory == interop::SlotMemory::Host ? frame.data : imported(frame.slot);
      if (!m_copy_stream)
        INTEROP_CUDA_CHECK(cudaStreamCreateWithFlags(&m_copy_stream, cudaStreamNonBlocking));
      if (on_device) {
        if (!m_kept_on_device) INTEROP_CUDA_CHECK(cudaMalloc(&m_kept_on_device, bytes));
        m_kept.clear();
        INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_kept_on_device, from, bytes, cudaMemcpyDefault, m_copy_stream));
      } else {
        free_device_copy();
        m_kept.resize(bytes);
        INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_kept.data(), from, bytes, cudaMemcpyDefault, m_copy_stream));
      }
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_copy_stream));
    }
    m_subscriber->release(frame.slot);
  }

  // The newest frame announced since the last call, taken into the kept picture. When the publisher has
  // gone, the kept picture stays and a new publisher of the name is looked for.
  void take_newest(bool on_device) {
    if (m_gone) {
      if (Clock::now() < m_next_attempt) return;
      m_next_attempt = Clock::now() + kReattachEvery;
      try {
        m_subscriber->reconnect();
        const interop::FrameFormat before = m_format;
        take_publisher();
        // The kept picture is the old format's: black until the first frame of a new one.
        if (before.width != m_format.width || before.height != m_format.height ||
            before.channels != m_format.channels || before.dtype != m_format.dtype ||
            before.pitch_or_packed() != m_format.pitch_or_packed()) {
          wait_for_draw();
          free_device_copy();
          m_kept.clear();
        }
        std::fprintf(
            stderr, "interop-lab: attached to '%s' again (pid %d)%s\n", m_name.c_str(), m_pid,
            before.width == m_format.width && before.height == m_format.height ? "" : ": a new size");
      } catch (const interop::Error&) {
        return;  // not back yet
      }
    }
    std::optional<interop::Subscriber::Frame> next = std::exchange(m_arrived, std::nullopt);
    if (!next) next = m_subscriber->next(std::chrono::milliseconds(0));
    if (next) {
      keep(*next, on_device);
      m_frame = next;
      return;
    }
    if (m_subscriber->status() == interop::Subscriber::Status::PublisherGone) {
      m_gone = true;
      m_gone_reason = m_subscriber->gone_reason();
      m_next_attempt = Clock::now() + kReattachEvery;
      m_frame.reset();
      m_imports.clear();  // the slots go with the old publisher; the kept picture stays
      std::fprintf(stderr,
                   "interop-lab: publisher gone: %s; the last frame stays, and '%s' is attached again "
                   "when it returns\n",
                   m_gone_reason.c_str(), m_name.c_str());
    }
  }

  // Device slot `slot` as a device pointer, imported on first use.
  const void* imported(int slot) {
    std::optional<Import>& import = m_imports.at(static_cast<size_t>(slot));
    if (!import) {
      const interop::Subscriber::SlotHandle& handle = m_subscriber->slots().at(static_cast<size_t>(slot));
      interop::ExternalMemoryDesc desc;
      desc.type = interop::ExternalHandleType::OpaqueFd;
      desc.fd = ::dup(handle.fd);  // the import takes the descriptor over
      desc.size = handle.size;
      Import made;
      made.memory = interop::ExternalMemory(desc);
      made.buffer = made.memory.map_buffer();
      import = std::move(made);
    }
    return import->buffer.data();
  }
};

}  // namespace

std::unique_ptr<FrameSource> create_published_source(const std::string& name, const std::string& directory) {
  try {
    return std::make_unique<PublishedSource>(name, directory);
  } catch (const interop::Error& error) {
    // A refusal of what was asked (nothing of that name, another user's, another GPU): said in the command
    // line's words, without the library's file and line.
    if (error.source() != interop::ErrorSource::Desc) throw;
    throw std::runtime_error("--attach " + name + ": " + error.error_name() +
                             (error.advice().empty() ? "" : "; " + error.advice()));
  }
}

std::string published_list_text(const std::string& directory) {
  std::ostringstream text;
  for (const interop::PublishedInfo& info : interop::list_published(directory)) {
    text << "  " << std::left << std::setw(16) << info.name << " " << std::setw(18)
         << format_text(info.format) << " " << interop::to_string(info.memory) << " slots  pid "
         << info.publisher_pid << "  " << std::fixed << std::setprecision(1) << info.stats.frames_per_second
         << " frames/s  " << info.stats.viewers << (info.stats.viewers == 1 ? " viewer" : " viewers") << "\n";
  }
  return text.str();
}

std::vector<std::string> published_names(const std::string& directory) {
  std::vector<std::string> names;
  for (const interop::PublishedInfo& info : interop::list_published(directory)) names.push_back(info.name);
  return names;  // by name, as list_published lists them
}

std::string publication_directory() {
  return interop::default_publication_directory();
}
#else
std::unique_ptr<FrameSource> create_published_source(const std::string&, const std::string&) {
  throw std::runtime_error("--attach: published frames need Linux (Unix sockets and POSIX FDs)");
}

std::string published_list_text(const std::string&) {
  return "";
}

std::vector<std::string> published_names(const std::string&) {
  return {};
}

std::string publication_directory() {
  return "";
}
#endif

}  // namespace lab
