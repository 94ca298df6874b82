// app/image/image_io.cpp — PNG reading and atomic writing through libpng's simplified API (png_image), which
// keeps setjmp/longjmp inside libpng, away from C++ objects. Needs libpng 1.6.
#include "app/image/image_io.hpp"

#include "app/core/text.hpp"
#include "app/os/os.hpp"
#include "app/os/signals.hpp"

#include <png.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <system_error>

namespace lab {
namespace {

std::string errno_text(int error) {
  // EFBIG from a regular file means RLIMIT_FSIZE (SIGXFSZ is ignored so the write fails instead of the
  // process dying); strerror's "File too large" alone does not say which limit.
  if (error == EFBIG)
    return std::string(std::strerror(error)) +
           ": the file size limit (ulimit -f) was reached; raise it, or write a smaller file";
  return std::strerror(error);
}

// png_image_free is idempotent and the simplified calls free on their own error paths; this covers the
// exits (throws) between a successful begin_read and finish_read.
struct PngImageGuard {
  png_image& image;
  ~PngImageGuard() { png_image_free(&image); }
};

struct FileCloser {
  void operator()(FILE* file) const { std::fclose(file); }
};

// Temporary file beside `path`, so the final rename stays on one file system and is atomic. Exclusive
// creation rather than a process-wide counter makes the name unique across threads and processes; the
// umask decides the final file's permissions, as for any new file (app/os/os.hpp).
int create_temp_beside(const std::string& path, std::string& temp_path) {
  const std::string prefix = path + ".tmp-" + std::to_string(os::process_id()) + "-";
  constexpr int kAttempts = 1000;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    temp_path = prefix + std::to_string(attempt);
    const int fd = os::create_new_file(temp_path);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

[[noreturn]] void fail_write(const std::string& path, const std::string& reason) {
  throw ImageError(ImageError::Kind::Unwritable, "cannot write " + path + ": " + reason);
}

// Writes through `encode(file)` into the already created `temp_path` (taking ownership of `fd`); returns ""
// or the reason. `encode` returns "" or its own reason.
template <class Encode>
std::string write_temp(int fd, const std::string& temp_path, const Encode& encode) {
  FILE* file = os::stream_from(fd, "wb");
  if (!file) {
    const int error = errno;
    os::close_file(fd);
    return "cannot open temporary file " + temp_path + ": " + errno_text(error);
  }
  errno = 0;
  const std::string encode_failure = encode(file);
  // A failed fwrite leaves its reason (e.g. ENOSPC) in errno; libpng reports only "Write Error".
  const int write_error = std::ferror(file) ? errno : 0;
  // stdio buffers, so write errors may only surface at fflush/fclose, after the encoder has returned.
  const bool flushed = std::fflush(file) == 0;
  const int flush_error = errno;
  const bool closed = std::fclose(file) == 0;
  const int close_error = errno;
  // The system's reason (ENOSPC, EFBIG) says more than libpng's "Write Error" that follows from it.
  if (write_error != 0) return errno_text(write_error);
  if (!encode_failure.empty()) return "writing " + temp_path + ": " + encode_failure;
  if (!flushed) return "writing " + temp_path + ": " + errno_text(flush_error);
  if (!closed) return "closing " + temp_path + ": " + errno_text(close_error);
  return "";
}

// Temp file beside `path`, `encode` into it, rename over `path`; on any failure nothing is left behind.
// A stop signal (app/os/signals.hpp) removes the temporary file from its handler; the writer then stops
// with Interrupted rather than renaming a file that is gone or reporting the failure its removal caused.
template <class Encode>
void write_atomically(const std::string& path, const Encode& encode) {
  stop_if_requested();
  std::string temp_path;
  const int fd = create_temp_beside(path, temp_path);
  if (fd < 0) {
    const int error = errno;
    fail_write(path, "cannot create a temporary file beside it: " + errno_text(error));
  }
  const TemporaryFileGuard guard(temp_path);
  const auto remove_and_stop_if_requested = [&temp_path] {
    if (stop_signal() == 0) return;
    os::remove_file(temp_path.c_str());
    stop_if_requested();
  };
  // A signal between open() and the guard found no file to remove: look once it is guarded.
  if (stop_signal() != 0) {
    os::close_file(fd);
    remove_and_stop_if_requested();
  }
  const std::string write_failure = write_temp(fd, temp_path, encode);
  remove_and_stop_if_requested();
  if (!write_failure.empty()) {
    os::remove_file(temp_path.c_str());
    fail_write(path, write_failure);
  }
  if (const std::string replace_failure = os::replace_file(temp_path, path); !replace_failure.empty()) {
    os::remove_file(temp_path.c_str());
    remove_and_stop_if_requested();  // the handler removed it just before the rename
    fail_write(path, "cannot replace it with " + temp_path + ": " + replace_failure);
  }
}

// Why no file can be created in `dir` (errno `error` from creating `probe` beside `path`), in the words
// of the limit that was hit and what to do.
std::string creation_problem(int error, const std::string& dir, const std::string& name,
                             const std::string& probe) {
  const std::string reason = std::strerror(error);
  if (error == ENAMETOOLONG) {
    const long name_max = os::max_file_name_bytes(dir);
    const std::string limit = std::to_string(name_max);
    if (name.size() > static_cast<size_t>(name_max))
      return "the file name is " + std::to_string(name.size()) + " bytes, more than the " + limit +
             " this file system allows (" + reason + "); use a shorter name";
    return "the file name is too long to write atomically: with the temporary suffix it is written under (" +
           probe.substr(probe.rfind(".tmp-")) + ") it exceeds the " + limit +
           " bytes this file system allows (" + reason + "); use a name a few characters shorter";
  }
  if (error == ENOENT)  // the directory exists (checked before), yet refuses the name: /proc, /sys
    return "directory " + dir + " accepts no new files (" + reason +
           "; a virtual file system such as /proc or /sys?); choose another directory";
  return "cannot create a file in directory " + dir + ": " + reason + "; choose another directory";
}

bool ends_with(const std::string& name, const std::string& extension) {
  if (name.size() < extension.size()) return false;
  std::string suffix = name.substr(name.size() - extension.size());
  std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return suffix == extension;
}

// Deflate shrinks at best about 1032:1, and a PNG row holds a filter byte plus at least one bit per pixel:
// a file smaller than this cannot hold a width x height image, whatever its header claims.
size_t smallest_possible_png(png_uint_32 width, png_uint_32 height) {
  constexpr size_t kDeflateBestRatio = 1032;
  const size_t raw_bytes = static_cast<size_t>(height) * (1 + (static_cast<size_t>(width) + 7) / 8);
  return raw_bytes / kDeflateBestRatio;
}

}  // namespace

void write_png(const std::string& path, const Image& image) {
  if (image.width <= 0 || image.height <= 0) {
    fail_write(path, "invalid image size " + size_text(image.width, image.height) +
                         " (width and height must be positive)");
  }
  const size_t expected = static_cast<size_t>(image.width) * static_cast<size_t>(image.height) * 4;
  if (image.rgba.size() != expected) {
    fail_write(path, "Image.rgba holds " + std::to_string(image.rgba.size()) + " bytes; a " +
                         size_text(image.width, image.height) +
                         " RGBA8 image needs width*height*4 = " + std::to_string(expected));
  }
  write_atomically(path, [&image](FILE* file) -> std::string {
    png_image png{};
    png.version = PNG_IMAGE_VERSION;
    png.width = static_cast<png_uint_32>(image.width);
    png.height = static_cast<png_uint_32>(image.height);
    png.format = PNG_FORMAT_RGBA;
    if (png_image_write_to_stdio(&png, file, 0, image.rgba.data(), 0, nullptr) != 0) return "";
    return std::string("libpng: ") + png.message;
  });
}

std::vector<uint8_t> encode_png(const Image& image) {
  const size_t expected = static_cast<size_t>(image.width) * static_cast<size_t>(image.height) * 4;
  if (image.width <= 0 || image.height <= 0 || image.rgba.size() != expected)
    throw ImageError(ImageError::Kind::Unwritable, "encode_png: a " + size_text(image.width, image.height) +
                                                       " image with " + std::to_string(image.rgba.size()) +
                                                       " bytes is not RGBA8 of that size");
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGBA;
  // The first call measures, the second writes.
  png_alloc_size_t size = 0;
  if (png_image_write_to_memory(&png, nullptr, &size, 0, image.rgba.data(), 0, nullptr) == 0)
    throw ImageError(ImageError::Kind::Unwritable, std::string("encode_png: libpng: ") + png.message);
  std::vector<uint8_t> file(size);
  if (png_image_write_to_memory(&png, file.data(), &size, 0, image.rgba.data(), 0, nullptr) == 0)
    throw ImageError(ImageError::Kind::Unwritable, std::string("encode_png: libpng: ") + png.message);
  file.resize(size);
  return file;
}

void write_text_file(const std::string& path, const std::string& contents) {
  write_atomically(path, [&contents](FILE* file) -> std::string {
    return std::fwrite(contents.data(), 1, contents.size(), file) == contents.size() ? "" : "short write";
  });
}

Image read_png(const std::string& path, size_t max_pixels) {
  // Never waiting: opening a FIFO for reading would otherwise wait for a writer, forever. The status of
  // the open descriptor (not of the path before) judges the very file that is then read.
  const int fd = os::open_for_reading(path);
  if (fd < 0) {
    const int error = errno;
    const auto kind =
        (error == ENOENT || error == ENOTDIR) ? ImageError::Kind::NotFound : ImageError::Kind::Unreadable;
    throw ImageError(kind, "cannot read " + path + ": " + errno_text(error));
  }
  os::FileStatus status;
  if (const int error = os::file_status(fd, status); error != 0) {
    os::close_file(fd);
    throw ImageError(ImageError::Kind::Unreadable, "cannot read " + path + ": " + errno_text(error));
  }
  if (!status.regular) {
    os::close_file(fd);
    throw ImageError(ImageError::Kind::Unreadable,
                     "cannot read " + path + ": it is " + status.kind + ", not a PNG file");
  }
  std::unique_ptr<FILE, FileCloser> file(os::stream_from(fd, "rb"));
  if (!file) {
    const int error = errno;
    os::close_file(fd);
    throw ImageError(ImageError::Kind::Unreadable, "cannot read " + path + ": " + errno_text(error));
  }
  return read_png_stream(file.get(), static_cast<size_t>(status.size), path, max_pixels);
}

Image read_png_stream(FILE* file, size_t file_bytes, const std::string& name, size_t max_pixels) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  PngImageGuard guard{png};
  // libpng reports a short read and a failed read alike ("Read Error"); the stream's flags tell them apart.
  const auto fail_read = [&](const char* stage) {
    if (std::ferror(file)) {
      throw ImageError(ImageError::Kind::Unreadable,
                       "cannot read " + name + ": I/O error (libpng: " + png.message + ")");
    }
    const std::string reason = std::feof(file) ? "truncated" : "not a valid PNG";
    throw ImageError(ImageError::Kind::Corrupt,
                     name + ": " + reason + " (libpng, " + stage + ": " + png.message + ")");
  };
  if (!png_image_begin_read_from_stdio(&png, file)) fail_read("header");

  // Judged from the header alone, before a byte of pixel memory: a 57-byte file may claim 40000x40000.
  const std::string claimed = size_text(png.width, png.height);
  const auto kEdge = static_cast<png_uint_32>(kMaxImageEdge);
  if (png.width > kEdge || png.height > kEdge) {
    throw ImageError(ImageError::Kind::TooLarge, name + ": the header says " + claimed +
                                                     "; images larger than " + std::to_string(kMaxImageEdge) +
                                                     " pixels per side are refused");
  }
  const size_t pixels = static_cast<size_t>(png.width) * png.height;
  if (pixels > max_pixels) {
    throw ImageError(ImageError::Kind::TooLarge, name + ": the header says " + claimed + " (" +
                                                     std::to_string(pixels) + " pixels); at most " +
                                                     std::to_string(max_pixels) + " pixels are read");
  }
  if (file_bytes < smallest_possible_png(png.width, png.height)) {
    throw ImageError(ImageError::Kind::Corrupt, name + ": truncated: the header says " + claimed +
                                                    ", which " + std::to_string(file_bytes) +
                                                    " bytes cannot hold");
  }
  Image image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  try {
    image.rgba.resize(pixels * 4);
  } catch (const std::bad_alloc&) {
    throw ImageError(ImageError::Kind::TooLarge, name + ": " + claimed + " is too large to load here");
  }
  // 16-bit files without gAMA/sRGB come from ordinary tools and are sRGB-encoded in practice; libpng's
  // default (linear) would brighten them on the way down to 8 bits.
  png.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
  png.format = PNG_FORMAT_RGBA;
  if (!png_image_finish_read(&png, nullptr, image.rgba.data(), 0, nullptr)) fail_read("pixels");
  return image;
}

std::string check_png_output_path(const std::string& path) {
  return check_output_path(path, ".png");
}

std::string check_output_path(const std::string& path, const std::string& extension) {
  if (path.empty()) return "the output path is empty";
  if (path.size() >= os::kMaxPathBytes)
    return "the path is " + std::to_string(path.size()) + " bytes, more than the system allows (" +
           std::to_string(os::kMaxPathBytes - 1) + ", " + std::strerror(ENAMETOOLONG) +
           "); use a shorter path";
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return path + " is a directory";

  const size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (name.empty()) return path + " names a directory; give a file name ending in " + extension;
  if (!ends_with(name, extension)) return path + ": the file name must end in " + extension;

  const std::filesystem::file_status dir_status = std::filesystem::status(dir, error);
  if (error == std::errc::no_such_file_or_directory) return "directory " + dir + " does not exist";
  if (error) return "directory " + dir + ": " + error.message();
  if (dir_status.type() != std::filesystem::file_type::directory) return dir + " is not a directory";
  // Only creating a file tells for sure: root passes every permission check, /proc refuses files in a
  // directory that looks writable, and a read-only mount or a name too long for the file system shows
  // only here. The probe is the writer's own temporary name, so a name that fits but leaves no room for
  // the temporary suffix is caught too.
  std::string probe;
  const int fd = create_temp_beside(path, probe);
  if (fd < 0) return creation_problem(errno, dir, name, probe);
  const TemporaryFileGuard guard(probe);
  os::close_file(fd);
  os::remove_file(probe.c_str());
  return "";
}

void flip_rows(Image& image) {
  assert(image.rgba.size() == static_cast<size_t>(image.width) * image.height * 4 &&
         "flip_rows: Image.rgba must hold width*height*4 bytes");
  const size_t row_bytes = static_cast<size_t>(image.width) * 4;
  for (int top = 0, bottom = image.height - 1; top < bottom; ++top, --bottom) {
    const auto top_row = image.rgba.begin() + static_cast<std::ptrdiff_t>(top * row_bytes);
    const auto bottom_row = image.rgba.begin() + static_cast<std::ptrdiff_t>(bottom * row_bytes);
    std::swap_ranges(top_row, top_row + static_cast<std::ptrdiff_t>(row_bytes), bottom_row);
  }
}

}  // namespace lab
