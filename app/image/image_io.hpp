// app/image/image_io.hpp — RGBA8 images in memory and as PNG files (libpng). Writes are atomic: a failed
// write leaves nothing behind, and an existing file is replaced only by a complete one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {

// Largest image edge the app renders (--size) and reads: the GL_MAX_TEXTURE_SIZE every GL 4.5 driver of
// note supports.
constexpr int kMaxImageEdge = 16384;
// Largest pixel count read_png accepts: every image the app can write (16384 x 16384, 1 GiB as RGBA8).
constexpr size_t kMaxImagePixels = static_cast<size_t>(kMaxImageEdge) * kMaxImageEdge;

// RGBA8, rows top to bottom (file order). GL reads back bottom row first: see flip_rows.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4 bytes

  const uint8_t* pixel(int x, int y) const { return &rgba[(static_cast<size_t>(y) * width + x) * 4]; }
};

class ImageError : public std::runtime_error {
 public:
  enum class Kind { NotFound, Unreadable, Corrupt, TooLarge, Unwritable };
  ImageError(Kind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
  Kind kind() const { return m_kind; }

 private:
  Kind m_kind;
};

// Throws ImageError (Unwritable) naming the path and the reason.
void write_png(const std::string& path, const Image& image);
// The PNG file write_png would write, in memory (the browser desk's screenshot download). Throws
// ImageError (Unwritable) for an image whose size and pixel count disagree.
std::vector<uint8_t> encode_png(const Image& image);
// Throws ImageError: NotFound, Unreadable (permissions, anything but a regular file: a directory, a FIFO,
// a device), Corrupt (not a PNG, truncated), TooLarge. Any PNG colour type / bit depth is converted to RGBA8.
// The header is judged before any pixel memory is allocated: an edge over kMaxImageEdge, more than
// `max_pixels`, or more pixels than the file's size can hold even at deflate's best ratio is refused.
Image read_png(const std::string& path, size_t max_pixels = kMaxImagePixels);
// read_png's decoder on an open stream of `file_bytes` bytes (`name` in messages); the fuzz target feeds
// it memory through fmemopen.
Image read_png_stream(FILE* file, size_t file_bytes, const std::string& name,
                      size_t max_pixels = kMaxImagePixels);

// Writes a text file (JSON, SVG) the same atomic way; throws ImageError (Unwritable).
void write_text_file(const std::string& path, const std::string& contents);

// "" when a file ending in `extension` (".json") could be written at `path` later, else what is wrong.
std::string check_output_path(const std::string& path, const std::string& extension);

// "" when a PNG could be written at `path` later (its directory exists and is writable, the name ends
// in .png), else a message saying what is wrong. Used before rendering, so bad paths fail early.
std::string check_png_output_path(const std::string& path);

// Reverses the row order in place (GL's bottom-up readback <-> top-down files).
void flip_rows(Image& image);

}  // namespace lab
