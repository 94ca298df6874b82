// app/serve/jpeg.hpp — the browser desk's frames as JPEG, through libjpeg-turbo's TurboJPEG API (2.1:
// tjCompress2 / tjDecompress2): one encoder per thread, and StripEncoder, which cuts a frame into horizontal
// strips and encodes them on its worker threads at once (a 4K frame in about a quarter of the time on four
// cores). The strips tile the frame top to bottom (app/serve/protocol.hpp's frame message); the page draws
// each at its row. A strip may be encoded from its rows downscaled (box_downscale, on the worker that encodes
// it) for a slow link (app/serve/link.hpp). No GPU: the H200 has no NVENC and the CUDA toolkit here no
// nvJPEG.
#pragma once

#include "app/image/image_io.hpp"
#include "app/serve/protocol.hpp"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace lab::serve {

// A TurboJPEG compressor (its handle is the RAII member); one thread at a time.
class JpegEncoder {
 public:
  JpegEncoder();
  ~JpegEncoder();
  JpegEncoder(const JpegEncoder&) = delete;
  JpegEncoder& operator=(const JpegEncoder&) = delete;

  // `rows` rows of RGBA8 pixels, top row first, `width` * 4 bytes apart; quality 1..100, 4:2:0 chroma.
  // Throws std::runtime_error with TurboJPEG's message.
  std::vector<uint8_t> encode(const uint8_t* rgba, int width, int rows, int quality);

 private:
  void* m_handle = nullptr;  // tjhandle
};

// Decodes a JPEG to RGBA8 (tests and the loopback client); throws std::runtime_error for a corrupt one.
Image decode_jpeg(const uint8_t* data, size_t size);
// Rows [y, y + rows) of an RGBA8 `frame` (top row first) downscaled by `scale`: ceil(width / scale) x
// ceil(rows / scale) pixels, each the rounded average of its scale x scale box (a box cut by the frame's
// right edge or the rows' last row averages the pixels it has). Written into `scaled` (its buffer reused).
void box_downscale(const Image& frame, int y, int rows, int scale, Image& scaled);
// A frame message's strips decoded and drawn onto `picture` at their rows, the rest kept (as the page draws
// them; a strip of scale s drawn s times as large, each pixel an s x s block, the part past its rows
// dropped); a picture of another size becomes the frame's size, black. Throws std::runtime_error when a
// strip's size does not match its place.
void composite_frame(const FrameMessage& frame, Image& picture);
// A frame message's strips decoded and put together on black (the whole picture for a whole frame).
Image assemble_frame(const FrameMessage& frame);

// Rows per strip: multiples of 16 (a 4:2:0 JPEG's block rows, so the strips' edges fall on block edges and
// show no seam), at least kMinStripRows each, at most `workers` strips. Returns (y, rows) pairs.
constexpr int kMinStripRows = 128;
// The most encoder threads StripEncoder starts on its own: a 4K frame's strips.
constexpr int kMostEncodeThreads = 16;
std::vector<std::pair<int, int>> strip_layout(int height, int workers);

class StripEncoder {
 public:
  // `threads` encoders (0: one per hardware thread, at most kMostEncodeThreads); `quality` for every strip.
  explicit StripEncoder(int threads = 0, int quality = 85);
  ~StripEncoder();
  StripEncoder(const StripEncoder&) = delete;
  StripEncoder& operator=(const StripEncoder&) = delete;

  // Encodes `image` in strip_layout's strips on every worker, the calling thread included; returns when all
  // are done. One call at a time.
  std::vector<EncodedStrip> encode(const Image& image);
  // Rows [y, y + rows) of `image` at their own quality and scale each (scale 1, 2 or 4: the rows
  // box_downscale'd first, on the worker that encodes them), as many at once as there are workers.
  struct Part {
    int y = 0;
    int rows = 0;
    int quality = 85;
    int scale = 1;
  };
  std::vector<EncodedStrip> encode(const Image& image, const std::vector<Part>& parts);
  int threads() const { return static_cast<int>(m_encoders.size()); }

 private:
  void work(size_t worker);
  void encode_strips(size_t worker);

  int m_quality;
  std::vector<std::unique_ptr<JpegEncoder>> m_encoders;  // [0] is the caller's
  std::vector<Image> m_scaled;                           // per worker: the rows it downscaled last
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::condition_variable m_done;
  // The job, under m_mutex: a generation count wakes the workers, `m_next` hands out strips.
  unsigned long long m_generation = 0;
  const Image* m_image = nullptr;
  const std::vector<Part>* m_parts = nullptr;
  std::vector<EncodedStrip>* m_strips = nullptr;
  size_t m_next = 0;
  size_t m_unfinished = 0;
  std::string m_error;  // the first strip's failure, rethrown by encode()
  bool m_stopping = false;
  std::vector<std::thread> m_workers;  // last: they start once everything above exists
};

}  // namespace lab::serve
