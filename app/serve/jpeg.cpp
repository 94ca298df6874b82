// app/serve/jpeg.cpp — TurboJPEG encoding and decoding, and the strip encoder's worker threads
// (app/serve/jpeg.hpp).
#include "app/serve/jpeg.hpp"

#include "app/core/text.hpp"

#include <turbojpeg.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace lab::serve {

namespace {

std::string turbojpeg_error(void* handle, const char* call) {
  return std::string(call) + ": " + tjGetErrorStr2(static_cast<tjhandle>(handle));
}

// A TurboJPEG buffer, freed with tjFree.
struct TurboBuffer {
  unsigned char* data = nullptr;
  ~TurboBuffer() { tjFree(data); }
};

// A decompressor handle, destroyed on every way out.
struct Decompressor {
  tjhandle handle = tjInitDecompress();
  ~Decompressor() {
    if (handle) tjDestroy(handle);
  }
};

}  // namespace

JpegEncoder::JpegEncoder() : m_handle(tjInitCompress()) {
  if (!m_handle) throw std::runtime_error(std::string("tjInitCompress: ") + tjGetErrorStr2(nullptr));
}

JpegEncoder::~JpegEncoder() {
  tjDestroy(static_cast<tjhandle>(m_handle));
}

std::vector<uint8_t> JpegEncoder::encode(const uint8_t* rgba, int width, int rows, int quality) {
  TurboBuffer jpeg;
  unsigned long bytes = 0;
  if (tjCompress2(static_cast<tjhandle>(m_handle), rgba, width, width * 4, rows, TJPF_RGBA, &jpeg.data,
                  &bytes, TJSAMP_420, quality, TJFLAG_FASTDCT) != 0)
    throw std::runtime_error(turbojpeg_error(m_handle, "tjCompress2"));
  return std::vector<uint8_t>(jpeg.data, jpeg.data + bytes);
}

Image decode_jpeg(const uint8_t* data, size_t size) {
  Decompressor decompressor;
  if (!decompressor.handle)
    throw std::runtime_error(std::string("tjInitDecompress: ") + tjGetErrorStr2(nullptr));
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(decompressor.handle, data, static_cast<unsigned long>(size), &width, &height,
                          &subsampling, &colorspace) != 0)
    throw std::runtime_error(turbojpeg_error(decompressor.handle, "tjDecompressHeader3"));
  if (width < 1 || height < 1 || width > kMaxImageEdge || height > kMaxImageEdge)
    throw std::runtime_error("decode_jpeg: a " + size_text(width, height) + " JPEG is out of range");
  Image image;
  image.width = width;
  image.height = height;
  image.rgba.resize(static_cast<size_t>(width) * height * 4);
  if (tjDecompress2(decompressor.handle, data, static_cast<unsigned long>(size), image.rgba.data(), width,
                    width * 4, height, TJPF_RGBA, TJFLAG_FASTDCT) != 0)
    throw std::runtime_error(turbojpeg_error(decompressor.handle, "tjDecompress2"));
  return image;
}

void box_downscale(const Image& frame, int y, int rows, int scale, Image& scaled) {
  if (!valid_strip_scale(scale) || y < 0 || rows < 1 || y + rows > frame.height)
    throw std::invalid_argument("box_downscale: rows " + std::to_string(y) + "+" + std::to_string(rows) +
                                " of a " + size_text(frame.width, frame.height) + " frame at scale " +
                                std::to_string(scale) +
                                ": the rows must lie in the frame, the scale 1, 2 or 4");
  scaled.width = (frame.width + scale - 1) / scale;
  scaled.height = (rows + scale - 1) / scale;
  scaled.rgba.resize(static_cast<size_t>(scaled.width) * scaled.height * 4);
  for (int row = 0; row < scaled.height; ++row) {
    const int top = y + row * scale;
    const int box_rows = std::min(scale, y + rows - top);
    uint8_t* out = &scaled.rgba[static_cast<size_t>(row) * scaled.width * 4];
    for (int column = 0; column < scaled.width; ++column) {
      const int left = column * scale;
      const int box_columns = std::min(scale, frame.width - left);
      unsigned sum[4] = {0, 0, 0, 0};
      for (int dy = 0; dy < box_rows; ++dy) {
        const uint8_t* in = frame.pixel(left, top + dy);
        for (int dx = 0; dx < box_columns * 4; dx += 4)
          for (int channel = 0; channel < 4; ++channel) sum[channel] += in[dx + channel];
      }
      const unsigned count = static_cast<unsigned>(box_rows * box_columns);
      for (int channel = 0; channel < 4; ++channel)
        out[column * 4 + channel] = static_cast<uint8_t>((sum[channel] + count / 2) / count);
    }
  }
}

void composite_frame(const FrameMessage& frame, Image& image) {
  if (image.width != frame.width || image.height != frame.height) {
    image.width = frame.width;
    image.height = frame.height;
    image.rgba.assign(static_cast<size_t>(frame.width) * frame.height * 4, 0);
  }
  for (const EncodedStrip& strip : frame.strips) {
    const Image part = decode_jpeg(strip.jpeg.data(), strip.jpeg.size());
    const int scale = strip.scale;
    const int width = valid_strip_scale(scale) ? (frame.width + scale - 1) / scale : 0;
    const int rows = valid_strip_scale(scale) ? (strip.rows + scale - 1) / scale : 0;
    if (part.width != width || part.height != rows || strip.y + strip.rows > frame.height)
      throw std::runtime_error("assemble_frame: the strip at row " + std::to_string(strip.y) + " (scale " +
                               std::to_string(scale) + ") is " + size_text(part.width, part.height) +
                               ", not " + size_text(width, rows));
    for (int row = 0; row < strip.rows; ++row) {
      const uint8_t* in = part.pixel(0, row / scale);
      uint8_t* out = &image.rgba[static_cast<size_t>(strip.y + row) * frame.width * 4];
      if (scale == 1) {
        std::memcpy(out, in, static_cast<size_t>(frame.width) * 4);
        continue;
      }
      for (int x = 0; x < frame.width; ++x) std::memcpy(out + x * 4, in + (x / scale) * 4, 4);
    }
  }
}

Image assemble_frame(const FrameMessage& frame) {
  Image image;
  composite_frame(frame, image);
  return image;
}

std::vector<std::pair<int, int>> strip_layout(int height, int workers) {
  const int most_by_height = std::max(1, height / kMinStripRows);
  const int count = std::clamp(workers, 1, most_by_height);
  // Rows per strip rounded up to 16, so every strip but the last is whole block rows.
  const int rows = std::max(16, (height + count - 1) / count + 15) / 16 * 16;
  std::vector<std::pair<int, int>> strips;
  for (int y = 0; y < height; y += rows) strips.emplace_back(y, std::min(rows, height - y));
  return strips;
}

StripEncoder::StripEncoder(int threads, int quality) : m_quality(quality) {
  // As many as a 4K frame has strips of kMinStripRows (16); a 1080p frame has 8 whatever the count. On a
  // 16-core H100 server, 16 in place of 8 took a 4K encode from 6.9 to 4.5 ms (GL interop, --bench --serve).
  const int count =
      threads > 0 ? threads
                  : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMostEncodeThreads);
  for (int i = 0; i < count; ++i) m_encoders.push_back(std::make_unique<JpegEncoder>());
  m_scaled.resize(m_encoders.size());
  for (size_t worker = 1; worker < m_encoders.size(); ++worker)
    m_workers.emplace_back(&StripEncoder::work, this, worker);
}

StripEncoder::~StripEncoder() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  for (std::thread& worker : m_workers) worker.join();
}

std::vector<EncodedStrip> StripEncoder::encode(const Image& image) {
  std::vector<Part> parts;
  for (const auto& [y, rows] : strip_layout(image.height, threads())) parts.push_back({y, rows, m_quality});
  return encode(image, parts);
}

std::vector<EncodedStrip> StripEncoder::encode(const Image& image, const std::vector<Part>& parts) {
  std::vector<EncodedStrip> strips;
  for (const Part& part : parts) strips.push_back({part.y, part.rows, {}, part.scale});
  if (parts.empty()) return strips;
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_image = &image;
    m_parts = &parts;
    m_strips = &strips;
    m_next = 0;
    m_unfinished = strips.size();
    m_error.clear();
    ++m_generation;
  }
  m_wake.notify_all();
  encode_strips(0);
  std::unique_lock<std::mutex> lock(m_mutex);
  m_done.wait(lock, [this] { return m_unfinished == 0; });
  m_image = nullptr;
  m_parts = nullptr;
  m_strips = nullptr;
  if (!m_error.empty()) throw std::runtime_error(m_error);
  return strips;
}

void StripEncoder::work(size_t worker) {
  unsigned long long seen = 0;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_wake.wait(lock, [&] { return m_stopping || m_generation != seen; });
      if (m_stopping) return;
      seen = m_generation;
    }
    encode_strips(worker);
  }
}

void StripEncoder::encode_strips(size_t worker) {
  while (true) {
    EncodedStrip* strip = nullptr;
    const Image* image = nullptr;
    int quality = 0;
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      if (!m_strips || m_next >= m_strips->size()) return;
      quality = (*m_parts)[m_next].quality;
      strip = &(*m_strips)[m_next++];
      image = m_image;
    }
    std::string error;
    try {
      if (strip->scale == 1) {
        strip->jpeg =
            m_encoders[worker]->encode(image->pixel(0, strip->y), image->width, strip->rows, quality);
      } else {
        Image& scaled = m_scaled[worker];
        box_downscale(*image, strip->y, strip->rows, strip->scale, scaled);
        strip->jpeg = m_encoders[worker]->encode(scaled.rgba.data(), scaled.width, scaled.height, quality);
      }
    } catch (const std::exception& failure) {
      error = failure.what();
    }
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (!error.empty() && m_error.empty()) m_error = error;
    if (--m_unfinished == 0) m_done.notify_all();
  }
}

}  // namespace lab::serve
