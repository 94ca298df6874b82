// tests/unit/test_image_io.cpp — PNG round trips, atomic-write guarantees, read error kinds, output path
// checks and row flipping. Needs no GPU; each test works in its own temporary directory.
#include "app/image/image_io.hpp"
#include "tests/support/crafted_png.hpp"
#include "tests/support/scratch_dir.hpp"

#include <gtest/gtest.h>
#include <png.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

lab::Image make_noise_image(int width, int height, uint32_t seed) {
  lab::Image image;
  image.width = width;
  image.height = height;
  image.rgba.resize(static_cast<size_t>(width) * height * 4);
  std::mt19937 random(seed);
  for (uint8_t& byte : image.rgba) byte = static_cast<uint8_t>(random() & 0xff);
  return image;
}

std::vector<char> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <typename Call>
lab::ImageError::Kind error_kind_of(Call call) {
  try {
    call();
  } catch (const lab::ImageError& error) {
    return error.kind();
  }
  ADD_FAILURE() << "expected an ImageError";
  return lab::ImageError::Kind::Corrupt;
}

// The kind and message of read_png's ImageError for `file`.
std::pair<lab::ImageError::Kind, std::string> error_message_of(const std::string& file) {
  try {
    lab::read_png(file);
  } catch (const lab::ImageError& error) {
    return {error.kind(), error.what()};
  }
  ADD_FAILURE() << "expected an ImageError from reading " << file;
  return {lab::ImageError::Kind::Corrupt, ""};
}

// Root passes every permission check, so tests of permission failures cannot fail as intended there.
bool permissions_are_enforced() {
  return geteuid() != 0;
}

class ImageIoTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return m_scratch.file(name); }

  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(m_dir)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  labtest::ScratchDir m_scratch{"image-io"};
  const fs::path& m_dir = m_scratch.path();
};

TEST_F(ImageIoTest, RoundTripKeepsEveryByteAtOddSize) {
  const lab::Image written = make_noise_image(37, 19, 1);
  lab::write_png(path("round.png"), written);
  const lab::Image read = lab::read_png(path("round.png"));
  EXPECT_EQ(read.width, 37);
  EXPECT_EQ(read.height, 19);
  EXPECT_EQ(read.rgba, written.rgba);
  EXPECT_EQ(entries(), std::vector<std::string>{"round.png"});
}

TEST_F(ImageIoTest, OverwriteReplacesExistingFile) {
  lab::write_png(path("out.png"), make_noise_image(8, 8, 1));
  const lab::Image second = make_noise_image(3, 5, 2);
  lab::write_png(path("out.png"), second);
  const lab::Image read = lab::read_png(path("out.png"));
  EXPECT_EQ(read.width, 3);
  EXPECT_EQ(read.height, 5);
  EXPECT_EQ(read.rgba, second.rgba);
  EXPECT_EQ(entries(), std::vector<std::string>{"out.png"});
}

TEST_F(ImageIoTest, WriteIntoMissingDirectoryThrowsUnwritableAndCreatesNothing) {
  const std::string target = path("missing/out.png");
  try {
    lab::write_png(target, make_noise_image(4, 4, 1));
    FAIL() << "expected ImageError";
  } catch (const lab::ImageError& error) {
    EXPECT_EQ(error.kind(), lab::ImageError::Kind::Unwritable);
    EXPECT_NE(std::string(error.what()).find(target), std::string::npos) << error.what();
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(ImageIoTest, InvalidImagesThrowUnwritableAndLeaveTargetAndDirectoryUntouched) {
  const lab::Image original = make_noise_image(4, 4, 1);
  lab::write_png(path("out.png"), original);

  lab::Image short_data = make_noise_image(4, 4, 2);
  short_data.rgba.pop_back();
  lab::Image zero_width;
  zero_width.height = 3;
  lab::Image negative_height = make_noise_image(2, 2, 3);
  negative_height.height = -2;
  for (const lab::Image& bad : {short_data, zero_width, negative_height}) {
    EXPECT_EQ(error_kind_of([&] { lab::write_png(path("out.png"), bad); }),
              lab::ImageError::Kind::Unwritable);
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"out.png"});
  EXPECT_EQ(lab::read_png(path("out.png")).rgba, original.rgba);
}

TEST_F(ImageIoTest, LibpngFailureRemovesTemporaryFile) {
  // libpng refuses widths over its default user limit (1,000,000) only once the file is being encoded,
  // so this exercises the clean-up after a temporary file exists.
  const lab::Image too_wide = make_noise_image(1'000'001, 1, 1);
  try {
    lab::write_png(path("wide.png"), too_wide);
    FAIL() << "expected ImageError";
  } catch (const lab::ImageError& error) {
    EXPECT_EQ(error.kind(), lab::ImageError::Kind::Unwritable);
    EXPECT_NE(std::string(error.what()).find("libpng"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(ImageIoTest, RenameFailureRemovesTemporaryFile) {
  fs::create_directory(path("taken.png"));
  EXPECT_EQ(error_kind_of([&] { lab::write_png(path("taken.png"), make_noise_image(2, 2, 1)); }),
            lab::ImageError::Kind::Unwritable);
  EXPECT_EQ(entries(), std::vector<std::string>{"taken.png"});
  EXPECT_TRUE(fs::is_directory(path("taken.png")));
}

TEST_F(ImageIoTest, ReadMissingFileIsNotFound) {
  EXPECT_EQ(error_kind_of([&] { lab::read_png(path("absent.png")); }), lab::ImageError::Kind::NotFound);
  EXPECT_EQ(error_kind_of([&] { lab::read_png(path("absent_dir/absent.png")); }),
            lab::ImageError::Kind::NotFound);
}

TEST_F(ImageIoTest, ReadDirectoryIsUnreadable) {
  fs::create_directory(path("dir.png"));
  EXPECT_EQ(error_kind_of([&] { lab::read_png(path("dir.png")); }), lab::ImageError::Kind::Unreadable);
}

TEST_F(ImageIoTest, ReadFifoIsRefusedAtOnceNamingWhatItIs) {
  ASSERT_EQ(mkfifo(path("pipe.png").c_str(), 0600), 0);
  auto read = std::async(std::launch::async, [&] { return error_message_of(path("pipe.png")); });
  if (read.wait_for(std::chrono::seconds(5)) == std::future_status::timeout) {
    // Release the reader blocked in open(): a writer that opens and closes at once gives it end-of-file.
    close(open(path("pipe.png").c_str(), O_WRONLY));
    read.wait();
    FAIL() << "read_png waited for a writer on a FIFO";
  }
  const auto [kind, message] = read.get();
  EXPECT_EQ(kind, lab::ImageError::Kind::Unreadable);
  EXPECT_NE(message.find(path("pipe.png") + ": it is a FIFO"), std::string::npos) << message;
}

TEST_F(ImageIoTest, ReadDeviceIsRefusedNamingWhatItIs) {
  const auto [kind, message] = error_message_of("/dev/zero");
  EXPECT_EQ(kind, lab::ImageError::Kind::Unreadable);
  EXPECT_NE(message.find("/dev/zero: it is a character device"), std::string::npos) << message;
}

TEST_F(ImageIoTest, ReadFollowsASymlinkToAPng) {
  lab::write_png(path("real.png"), make_noise_image(3, 2, 1));
  fs::create_symlink(path("real.png"), path("link.png"));
  EXPECT_EQ(lab::read_png(path("link.png")).rgba, make_noise_image(3, 2, 1).rgba);
}

// A 57-byte file whose header claims width x height: refused from the header, before any pixel memory.
void expect_refused_at_once(const std::string& file, uint32_t width, uint32_t height,
                            lab::ImageError::Kind kind, const std::string& message_part) {
  const std::vector<uint8_t> bytes = labtest::png_claiming_size(width, height);
  write_bytes(file, std::vector<char>(bytes.begin(), bytes.end()));
  const auto started = std::chrono::steady_clock::now();
  const auto [error_kind, message] = error_message_of(file);
  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(error_kind, kind) << message;
  EXPECT_NE(message.find(message_part), std::string::npos) << message;
  EXPECT_NE(message.find(file), std::string::npos) << message;
  EXPECT_LT(elapsed, std::chrono::milliseconds(500)) << width << "x" << height << ": " << message;
}

TEST_F(ImageIoTest, HeaderBeyondTheEdgeLimitIsRefusedBeforeAllocating) {
  expect_refused_at_once(path("huge.png"), 40000, 40000, lab::ImageError::Kind::TooLarge,
                         "the header says 40000x40000; images larger than 16384 pixels per side");
  expect_refused_at_once(path("wide.png"), 16385, 1, lab::ImageError::Kind::TooLarge, "16385x1");
  expect_refused_at_once(path("tall.png"), 1, 999999, lab::ImageError::Kind::TooLarge, "1x999999");
}

TEST_F(ImageIoTest, HeaderWithinTheLimitsButBeyondTheFileSizeIsCorruptAtOnce) {
  // 1 GiB of RGBA8 claimed by 57 bytes: deflate cannot shrink that far, so no gigabyte is allocated first.
  expect_refused_at_once(path("bomb.png"), 16384, 16384, lab::ImageError::Kind::Corrupt,
                         "truncated: the header says 16384x16384, which 57 bytes cannot hold");
}

TEST_F(ImageIoTest, PixelLimitIsTheCallers) {
  lab::write_png(path("noise.png"), make_noise_image(100, 50, 1));
  EXPECT_EQ(lab::read_png(path("noise.png"), 5000).width, 100);
  try {
    lab::read_png(path("noise.png"), 4999);
    FAIL() << "expected ImageError";
  } catch (const lab::ImageError& error) {
    EXPECT_EQ(error.kind(), lab::ImageError::Kind::TooLarge);
    EXPECT_NE(std::string(error.what()).find("100x50 (5000 pixels); at most 4999"), std::string::npos)
        << error.what();
  }
}

TEST_F(ImageIoTest, ReadWithoutPermissionIsUnreadable) {
  if (!permissions_are_enforced()) GTEST_SKIP() << "running as root, which reads files regardless of mode";
  lab::write_png(path("locked.png"), make_noise_image(2, 2, 1));
  fs::permissions(path("locked.png"), fs::perms::none);
  EXPECT_EQ(error_kind_of([&] { lab::read_png(path("locked.png")); }), lab::ImageError::Kind::Unreadable);
}

TEST_F(ImageIoTest, RandomBytesAreCorrupt) {
  std::vector<char> noise(1000);
  std::mt19937 random(7);
  for (char& byte : noise) byte = static_cast<char>(random() & 0xff);
  write_bytes(path("noise.png"), noise);
  try {
    lab::read_png(path("noise.png"));
    FAIL() << "expected ImageError";
  } catch (const lab::ImageError& error) {
    EXPECT_EQ(error.kind(), lab::ImageError::Kind::Corrupt);
    EXPECT_NE(std::string(error.what()).find(path("noise.png")), std::string::npos) << error.what();
  }

  write_bytes(path("empty.png"), {});
  EXPECT_EQ(error_kind_of([&] { lab::read_png(path("empty.png")); }), lab::ImageError::Kind::Corrupt);

  // A valid signature followed by garbage fails past the first check.
  std::vector<char> signed_noise = {'\x89', 'P', 'N', 'G', '\r', '\n', '\x1a', '\n'};
  signed_noise.insert(signed_noise.end(), noise.begin(), noise.end());
  write_bytes(path("signed_noise.png"), signed_noise);
  EXPECT_EQ(error_kind_of([&] { lab::read_png(path("signed_noise.png")); }), lab::ImageError::Kind::Corrupt);
}

TEST_F(ImageIoTest, TruncatedPngIsCorrupt) {
  lab::write_png(path("full.png"), make_noise_image(37, 19, 1));
  std::vector<char> bytes = read_bytes(path("full.png"));
  ASSERT_GT(bytes.size(), 100u);
  bytes.resize(bytes.size() / 2);
  write_bytes(path("half.png"), bytes);
  try {
    lab::read_png(path("half.png"));
    FAIL() << "expected ImageError";
  } catch (const lab::ImageError& error) {
    EXPECT_EQ(error.kind(), lab::ImageError::Kind::Corrupt);
    EXPECT_NE(std::string(error.what()).find(path("half.png")), std::string::npos) << error.what();
  }
}

// Writes a PNG in another colour type with libpng directly, to check the conversion on read.
void write_png_with_format(const std::string& file, int width, int height, png_uint_32 format,
                           const std::vector<uint8_t>& pixels) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(width);
  png.height = static_cast<png_uint_32>(height);
  png.format = format;
  ASSERT_TRUE(png_image_write_to_file(&png, file.c_str(), 0, pixels.data(), 0, nullptr)) << png.message;
}

TEST_F(ImageIoTest, GrayPngIsConvertedToOpaqueRgba) {
  const std::vector<uint8_t> gray = {0, 1, 64, 127, 128, 200, 254, 255, 17, 99, 3, 250};  // 4x3
  ASSERT_NO_FATAL_FAILURE(write_png_with_format(path("gray.png"), 4, 3, PNG_FORMAT_GRAY, gray));
  const lab::Image read = lab::read_png(path("gray.png"));
  ASSERT_EQ(read.width, 4);
  ASSERT_EQ(read.height, 3);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 4; ++x) {
      const uint8_t value = gray[static_cast<size_t>(y) * 4 + x];
      const uint8_t* pixel = read.pixel(x, y);
      EXPECT_EQ(pixel[0], value) << x << "," << y;
      EXPECT_EQ(pixel[1], value) << x << "," << y;
      EXPECT_EQ(pixel[2], value) << x << "," << y;
      EXPECT_EQ(pixel[3], 255) << x << "," << y;
    }
  }
}

TEST_F(ImageIoTest, RgbPngIsConvertedToOpaqueRgba) {
  std::vector<uint8_t> rgb(5 * 2 * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<uint8_t>(i * 37 + 5);
  ASSERT_NO_FATAL_FAILURE(write_png_with_format(path("rgb.png"), 5, 2, PNG_FORMAT_RGB, rgb));
  const lab::Image read = lab::read_png(path("rgb.png"));
  ASSERT_EQ(read.width, 5);
  ASSERT_EQ(read.height, 2);
  for (size_t i = 0; i < 5 * 2; ++i) {
    EXPECT_EQ(read.rgba[i * 4 + 0], rgb[i * 3 + 0]) << "pixel " << i;
    EXPECT_EQ(read.rgba[i * 4 + 1], rgb[i * 3 + 1]) << "pixel " << i;
    EXPECT_EQ(read.rgba[i * 4 + 2], rgb[i * 3 + 2]) << "pixel " << i;
    EXPECT_EQ(read.rgba[i * 4 + 3], 255) << "pixel " << i;
  }
}

TEST_F(ImageIoTest, CheckOutputPathAcceptsWritableDirectory) {
  EXPECT_EQ(lab::check_png_output_path(path("out.png")), "");
  EXPECT_EQ(lab::check_png_output_path(path("OUT.PNG")), "");
  EXPECT_TRUE(entries().empty()) << "the check must not create anything";
}

TEST_F(ImageIoTest, CheckOutputPathRejectsBadPaths) {
  EXPECT_EQ(lab::check_png_output_path(path("missing/out.png")),
            "directory " + path("missing") + " does not exist");
  EXPECT_EQ(lab::check_png_output_path(path("x.txt")), path("x.txt") + ": the file name must end in .png");
  EXPECT_EQ(lab::check_png_output_path(path("png")), path("png") + ": the file name must end in .png");
  fs::create_directory(path("dir.png"));
  EXPECT_EQ(lab::check_png_output_path(path("dir.png")), path("dir.png") + " is a directory");
  EXPECT_NE(lab::check_png_output_path(m_dir.string() + "/"), "");
  write_bytes(path("file"), {'x'});
  EXPECT_NE(lab::check_png_output_path(path("file/out.png")), "");
  EXPECT_NE(lab::check_png_output_path(""), "");
  EXPECT_EQ(entries(), (std::vector<std::string>{"dir.png", "file"}));
}

TEST_F(ImageIoTest, CheckOutputPathTreatsBareNameAsCurrentDirectory) {
  const fs::path previous = fs::current_path();
  fs::current_path(m_dir);
  const std::string bare = lab::check_png_output_path("out.png");
  const std::string missing = lab::check_png_output_path("missing/out.png");
  fs::current_path(previous);
  EXPECT_EQ(bare, "");
  EXPECT_EQ(missing, "directory missing does not exist");
}

TEST_F(ImageIoTest, CheckOutputPathRejectsReadOnlyDirectory) {
  if (!permissions_are_enforced()) GTEST_SKIP() << "running as root, which may write to any directory";
  fs::create_directory(path("ro"));
  fs::permissions(path("ro"), fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_EQ(
      lab::check_png_output_path(path("ro/out.png")),
      "cannot create a file in directory " + path("ro") + ": Permission denied; choose another directory");
  EXPECT_EQ(error_kind_of([&] { lab::write_png(path("ro/out.png"), make_noise_image(2, 2, 1)); }),
            lab::ImageError::Kind::Unwritable);
  EXPECT_TRUE(fs::is_empty(path("ro")));
}

TEST_F(ImageIoTest, WriteTextFileWritesAndReplacesWholeFiles) {
  lab::write_text_file(path("out.json"), "{\"a\": 1}\n");
  lab::write_text_file(path("out.json"), "{}\n");
  const std::vector<char> bytes = read_bytes(path("out.json"));
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "{}\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"}) << "no temporary file is left";
}

TEST_F(ImageIoTest, WriteTextFileFailureLeavesNothingAndKeepsTheOldFile) {
  EXPECT_EQ(error_kind_of([&] { lab::write_text_file(path("missing/out.json"), "{}"); }),
            lab::ImageError::Kind::Unwritable);
  EXPECT_TRUE(entries().empty());

  fs::create_directory(path("taken.json"));  // the rename fails after the temporary file was written
  EXPECT_EQ(error_kind_of([&] { lab::write_text_file(path("taken.json"), "{}"); }),
            lab::ImageError::Kind::Unwritable);
  EXPECT_EQ(entries(), std::vector<std::string>{"taken.json"});
  EXPECT_TRUE(fs::is_directory(path("taken.json")));
}

TEST_F(ImageIoTest, CheckOutputPathJudgesTheGivenExtension) {
  EXPECT_EQ(lab::check_output_path(path("bench.json"), ".json"), "");
  EXPECT_EQ(lab::check_output_path(path("BENCH.JSON"), ".json"), "");
  EXPECT_EQ(lab::check_output_path(path("bench.png"), ".json"),
            path("bench.png") + ": the file name must end in .json");
  EXPECT_EQ(lab::check_output_path(path("missing/bench.json"), ".json"),
            "directory " + path("missing") + " does not exist");
  EXPECT_TRUE(entries().empty()) << "the check must not create anything";
}

TEST(FlipRows, ReversesRowOrderOfTwoByThreeImage) {
  lab::Image image;
  image.width = 2;
  image.height = 3;
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 2; ++x) {
      for (int c = 0; c < 4; ++c) image.rgba.push_back(static_cast<uint8_t>(y * 100 + x * 10 + c));
    }
  }
  const lab::Image original = image;
  lab::flip_rows(image);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 2; ++x) {
      EXPECT_TRUE(std::equal(image.pixel(x, y), image.pixel(x, y) + 4, original.pixel(x, 2 - y)))
          << x << "," << y;
    }
  }
  lab::flip_rows(image);
  EXPECT_EQ(image.rgba, original.rgba);
}

TEST(FlipRows, LeavesSingleRowUnchanged) {
  lab::Image image;
  image.width = 3;
  image.height = 1;
  image.rgba = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<uint8_t> original = image.rgba;
  lab::flip_rows(image);
  EXPECT_EQ(image.rgba, original);
}

}  // namespace
