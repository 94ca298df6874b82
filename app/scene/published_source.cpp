#include "app/scene/published_source.hpp"

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

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>
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

// A bound as the status says it: up to 7 significant digits (10 where the range is computed in float64).
std::string bound_text(double value, bool wide) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", wide ? 10 : 7, value);
  return text;
}

class PublishedSource final : public FrameSource {
 public:
  PublishedSource(std::string name, std::string directory)
      : m_name(std::move(name)), m_directory(std::move(directory)) {
    attach();
  }
  ~PublishedSource() override { release_scratch(); }

  SourceKind kind() const override { return SourceKind::Published; }
  std::string name() const override { return "published '" + m_name + "'"; }
  std::string status() const override {
    std::string text =
        format_text(m_format) + ", " + interop::to_string(m_memory) + " slots, " + range_text();
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
    take_newest();
    const kernels::ImageTarget target = cuda_target(views[0], frame.extent);
    kernels::BlitParams params = picture();
    if (!m_kept.empty()) {
      params.pixels = device_copy(m_kept.data(), m_kept.size(), stream);
    } else if (m_frame && m_memory == interop::SlotMemory::Host) {
      params.pixels = device_copy(static_cast<const uint8_t*>(m_frame->data),
                                  m_format.pitch_or_packed() * m_format.height, stream);
    } else if (m_frame) {
      params.pixels = static_cast<const uint8_t*>(imported(m_frame->slot));
    }
    if (params.pixels == nullptr) {
      params = blank(params);
      params.pixels = device_copy(m_blank.data(), m_blank.size(), stream);
    } else if (converts()) {
      params = converted_on_device(params, stream);
    }
    kernels::blit_cuda(target, params, stream);
    INTEROP_CUDA_CHECK(cudaGetLastError());
    if (!m_copied) INTEROP_CUDA_CHECK(cudaEventCreateWithFlags(&m_copied, cudaEventDisableTiming));
    INTEROP_CUDA_CHECK(cudaEventRecord(m_copied, stream));
    m_copy_pending = true;
  }

  void compute_cpu(const FrameInfo& frame, const std::vector<HostResourceView>& views) override {
    take_newest();
    const kernels::ImageTarget target = linear_image(views[0].pointer, views[0].pitch, frame.extent);
    kernels::BlitParams params = picture();
    if (!m_kept.empty()) {
      params.pixels = m_kept.data();
      params.pitch = m_kept_pitch;
    } else if (m_frame && m_memory == interop::SlotMemory::Host) {
      params.pixels = static_cast<const uint8_t*>(m_frame->data);
    } else if (m_frame) {
      // Device slots in cpu mode: the slot copied to host memory first (this needs CUDA here).
      m_host_copy.resize(m_format.pitch_or_packed() * m_format.height);
      INTEROP_CUDA_CHECK(cudaMemcpy(m_host_copy.data(), imported(m_frame->slot), m_host_copy.size(),
                                    cudaMemcpyDeviceToHost));
      params.pixels = m_host_copy.data();
    }
    if (params.pixels == nullptr) {
      params = blank(params);
      params.pixels = m_blank.data();
    } else if (converts()) {
      params = converted_on_host(params);
    }
    kernels::blit_cpu(target, params);
  }

  void release_scratch() override {
    if (m_copied) {
      cudaEventSynchronize(m_copied);
      cudaEventDestroy(m_copied);
      m_copied = nullptr;
    }
    m_copy_pending = false;
    m_imports.clear();
    if (m_device_copy) cudaFree(m_device_copy);
    m_device_copy = nullptr;
    m_device_copy_bytes = 0;
    m_device_rgba = {};
    m_device_colormap = {};
    m_device_bounds = {};
  }

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
  std::optional<interop::Subscriber::Frame> m_frame;  // claimed until a newer one has been copied
  bool m_gone = false;
  std::string m_gone_reason;
  Clock::time_point m_next_attempt;
  std::vector<uint8_t> m_kept;  // the last picture, kept when the publisher went
  size_t m_kept_pitch = 0;
  std::vector<uint8_t> m_blank;                  // black, before any frame came
  std::vector<uint8_t> m_host_copy;              // a device slot, for cpu mode
  std::vector<std::optional<Import>> m_imports;  // device slots, imported on first use
  void* m_device_copy = nullptr;                 // a host picture, for the CUDA modes
  size_t m_device_copy_bytes = 0;
  cudaEvent_t m_copied = nullptr;  // after the last copy out of m_frame's slot
  bool m_copy_pending = false;
  // Frames other than uint8 become RGBA8 first (kernels/convert.hpp), then blit as uint8x4 frames do.
  kernels::ElementType m_type = kernels::ElementType::U8;
  std::optional<kernels::ValueRange> m_range;  // floats: 0..1; other integers: the first frame's, kept
  std::vector<uint8_t> m_rgba;                 // the converted picture, cpu mode
  std::vector<uint8_t> m_colormap;             // gray, for one channel (host)
  interop::DeviceBuffer m_device_rgba;         // the converted picture, the CUDA modes
  interop::DeviceBuffer m_device_colormap;     // gray, for one channel (device)
  interop::DeviceBuffer m_device_bounds;  // "auto": the first frame's bounds (kernels::find_value_bounds)

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
    // The range holds while the values are the same kind: a publisher back with another dtype or channel
    // count gets a range of its own.
    if (m_subscriber->format().dtype != m_format.dtype ||
        m_subscriber->format().channels != m_format.channels)
      m_range.reset();
    m_format = m_subscriber->format();
    m_type = *element_type(m_format.dtype);
    if (!m_range && (m_type == kernels::ElementType::F16 || m_type == kernels::ElementType::F32))
      m_range = kernels::fixed_range(m_type, 0.0, 1.0);
    m_memory = m_subscriber->memory();
    m_pid = m_subscriber->publisher_pid();
    m_imports.clear();
    m_imports.resize(m_subscriber->slots().size());
    m_gone = false;
    m_gone_reason.clear();
  }

  kernels::BlitParams picture() const {
    kernels::BlitParams params;
    params.pitch = m_format.pitch_or_packed();
    params.width = static_cast<int>(m_format.width);
    params.height = static_cast<int>(m_format.height);
    params.channels = static_cast<int>(m_format.channels);
    return params;
  }

  // One black RGBA pixel, stretched over the frame.
  kernels::BlitParams blank(kernels::BlitParams params) {
    m_blank.assign(4, 0);
    m_blank[3] = 255;
    params.width = params.height = 1;
    params.channels = 4;
    params.pitch = 4;
    return params;
  }

  bool converts() const { return m_type != kernels::ElementType::U8; }

  // ", range 0..1" (floats), ", range 3..1020 (auto: the first frame's)" or ", range auto (from the first
  // frame)" before it came; "" for uint8, whose bytes are shown as they are.
  std::string range_text() const {
    if (!converts()) return "";
    if (!m_range) return "range auto (from the first frame), ";
    const bool automatic = m_type != kernels::ElementType::F16 && m_type != kernels::ElementType::F32;
    return "range " + bound_text(m_range->shown_low, m_range->wide) + ".." +
           bound_text(m_range->shown_high, m_range->wide) + (automatic ? " (auto: the first frame's)" : "") +
           ", ";
  }

  // How kernels/convert.hpp reads the published picture at `pixels` (host or device memory).
  kernels::ConvertDesc convert_desc(const void* pixels, const uint8_t* colormap) const {
    kernels::ConvertDesc desc;
    desc.source = pixels;
    desc.width = static_cast<int>(m_format.width);
    desc.height = static_cast<int>(m_format.height);
    desc.channels = static_cast<int>(m_format.channels);
    desc.channel_stride = static_cast<long long>(interop::dtype_size(m_format.dtype));
    desc.column_stride = desc.channel_stride * desc.channels;
    desc.row_stride = static_cast<long long>(m_format.pitch_or_packed());
    desc.type = m_type;
    desc.colormap = colormap;
    if (m_range) {
      desc.low = m_range->low;
      desc.range = m_range->range;
      desc.wide = m_range->wide || kernels::always_wide(m_type);
    }
    return desc;
  }

  // The picture `params` points at (host memory) converted to RGBA8 by the CPU reference; the range found on
  // the first frame that comes here when it is "auto".
  kernels::BlitParams converted_on_host(kernels::BlitParams params) {
    if (m_colormap.empty()) {
      m_colormap.resize(256 * 4);
      kernels::gray_colormap(m_colormap.data());
    }
    kernels::ConvertDesc desc = convert_desc(params.pixels, m_colormap.data());
    if (!m_range) {
      double low = 0.0, high = 0.0;
      long long finite = 0;
      kernels::find_value_bounds_cpu(desc, &low, &high, &finite);
      m_range = kernels::range_from_bounds(m_type, low, high, finite);
      desc = convert_desc(params.pixels, m_colormap.data());
    }
    m_rgba.resize(static_cast<size_t>(desc.width) * desc.height * 4);
    kernels::convert_to_rgba8_cpu(desc, m_rgba.data(), static_cast<size_t>(desc.width) * 4);
    return as_rgba(params, m_rgba.data());
  }

  // The same on the device, by the CUDA launchers on `stream`; an "auto" range waits for the bounds once.
  kernels::BlitParams converted_on_device(kernels::BlitParams params, cudaStream_t stream) {
    if (!m_device_colormap.data()) {
      uint8_t gray[256 * 4];
      kernels::gray_colormap(gray);
      m_device_colormap = interop::DeviceBuffer(sizeof gray);
      INTEROP_CUDA_CHECK(cudaMemcpy(m_device_colormap.data(), gray, sizeof gray, cudaMemcpyHostToDevice));
    }
    const auto* colormap = static_cast<const uint8_t*>(m_device_colormap.data());
    kernels::ConvertDesc desc = convert_desc(params.pixels, colormap);
    if (!m_range) {
      if (!m_device_bounds.data()) m_device_bounds = interop::DeviceBuffer(kernels::kValueBoundsBytes);
      INTEROP_CUDA_CHECK(kernels::find_value_bounds(desc, m_device_bounds.data(), stream));
      unsigned char bounds[kernels::kValueBoundsBytes];
      INTEROP_CUDA_CHECK(
          cudaMemcpyAsync(bounds, m_device_bounds.data(), sizeof bounds, cudaMemcpyDeviceToHost, stream));
      INTEROP_CUDA_CHECK(cudaStreamSynchronize(stream));
      double low = 0.0, high = 0.0;
      long long finite = 0;
      kernels::read_value_bounds(bounds, &low, &high, &finite);
      m_range = kernels::range_from_bounds(m_type, low, high, finite);
      desc = convert_desc(params.pixels, colormap);
    }
    const size_t bytes = static_cast<size_t>(desc.width) * desc.height * 4;
    if (m_device_rgba.size() < bytes) m_device_rgba = interop::DeviceBuffer(bytes);
    INTEROP_CUDA_CHECK(
        kernels::convert_to_rgba8(desc, m_device_rgba.data(), static_cast<size_t>(desc.width) * 4, stream));
    return as_rgba(params, static_cast<const uint8_t*>(m_device_rgba.data()));
  }

  static kernels::BlitParams as_rgba(kernels::BlitParams params, const uint8_t* rgba) {
    params.pixels = rgba;
    params.pitch = static_cast<size_t>(params.width) * 4;
    params.channels = 4;
    return params;
  }

  // The copy out of the claimed slot has finished (the next frame's copy was queued after it).
  void wait_for_copy() {
    if (m_copy_pending) INTEROP_CUDA_CHECK(cudaEventSynchronize(m_copied));
    m_copy_pending = false;
  }

  // The newest frame announced since the last call, claimed; the one before given back. When the
  // publisher has gone, its last picture is kept and a new publisher of the name is looked for.
  void take_newest() {
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
            before.pitch_or_packed() != m_format.pitch_or_packed())
          m_kept.clear();
        std::fprintf(
            stderr, "interop-lab: attached to '%s' again (pid %d)%s\n", m_name.c_str(), m_pid,
            before.width == m_format.width && before.height == m_format.height ? "" : ": a new size");
      } catch (const interop::Error&) {
        return;  // not back yet
      }
    }
    std::optional<interop::Subscriber::Frame> next = m_subscriber->next(std::chrono::milliseconds(0));
    if (next) {
      wait_for_copy();
      if (m_frame && m_frame->slot != next->slot) m_subscriber->release(m_frame->slot);
      m_frame = next;
      m_kept.clear();
      return;
    }
    if (m_subscriber->status() == interop::Subscriber::Status::PublisherGone) {
      m_gone = true;
      m_gone_reason = m_subscriber->gone_reason();
      m_next_attempt = Clock::now() + kReattachEvery;
      keep_last_picture();
      std::fprintf(stderr,
                   "interop-lab: publisher gone: %s; the last frame stays, and '%s' is attached again "
                   "when it returns\n",
                   m_gone_reason.c_str(), m_name.c_str());
    }
  }

  // The claimed frame copied out of its slot, which goes with the old publisher.
  void keep_last_picture() {
    if (!m_frame) return;
    wait_for_copy();
    m_kept_pitch = m_format.pitch_or_packed();
    m_kept.resize(m_kept_pitch * m_format.height);
    if (m_memory == interop::SlotMemory::Host)
      std::memcpy(m_kept.data(), m_frame->data, m_kept.size());
    else
      INTEROP_CUDA_CHECK(
          cudaMemcpy(m_kept.data(), imported(m_frame->slot), m_kept.size(), cudaMemcpyDeviceToHost));
    m_frame.reset();
    m_imports.clear();
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

  // `bytes` of host memory at `pixels` in device memory, for the blit kernel.
  const uint8_t* device_copy(const uint8_t* pixels, size_t bytes, cudaStream_t stream) {
    if (bytes > m_device_copy_bytes) {
      if (m_device_copy) INTEROP_CUDA_CHECK(cudaFree(m_device_copy));
      m_device_copy = nullptr;
      INTEROP_CUDA_CHECK(cudaMalloc(&m_device_copy, bytes));
      m_device_copy_bytes = bytes;
    }
    INTEROP_CUDA_CHECK(cudaMemcpyAsync(m_device_copy, pixels, bytes, cudaMemcpyHostToDevice, stream));
    return static_cast<const uint8_t*>(m_device_copy);
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
