// tests/gl/test_attach.cpp — the published source (--attach) through the real GL pipeline in cpu mode: a
// publisher in this process (interop::Publisher, host slots: what runs without a GPU) and the app attached
// to it, its frames compared with the published pictures pixel by pixel. The same path with device slots
// and a publisher in another process is tests/gpu's.
#include "tests/support/app_fixture.hpp"

#include "app/scene/published_source.hpp"
#include "interop/error.hpp"
#include "interop/publish.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace {

using lab::ModeId;
using lab::SceneId;

// Publishers and viewers of one test meet in a directory of its own ($XDG_RUNTIME_DIR/interop-lab), short
// enough for a Unix socket's path (107 bytes).
class Attach : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* before = std::getenv("XDG_RUNTIME_DIR");
    if (before != nullptr) m_runtime_before = before;
    char path[] = "/tmp/ilab-XXXXXX";
    ASSERT_NE(::mkdtemp(path), nullptr);
    m_runtime = path;
    ::setenv("XDG_RUNTIME_DIR", m_runtime.c_str(), 1);
  }
  void TearDown() override {
    if (m_runtime_before)
      ::setenv("XDG_RUNTIME_DIR", m_runtime_before->c_str(), 1);
    else
      ::unsetenv("XDG_RUNTIME_DIR");
    std::error_code ignored;
    std::filesystem::remove_all(m_runtime, ignored);
  }

  static std::unique_ptr<interop::Publisher> publisher(const std::string& name, int width, int height,
                                                       int channels,
                                                       interop::DType dtype = interop::DType::UInt8,
                                                       int slots = 3) {
    interop::PublisherDesc desc;
    desc.slot_count = slots;
    desc.name = name;
    desc.format.width = static_cast<uint32_t>(width);
    desc.format.height = static_cast<uint32_t>(height);
    desc.format.channels = static_cast<uint32_t>(channels);
    desc.format.dtype = dtype;
    desc.memory = interop::SlotMemory::Host;
    return std::make_unique<interop::Publisher>(desc);
  }

  // A picture whose pixels all differ, row 0 at the top: channel c of (x, y) is (x * 3 + y * 7 + c * 50 +
  // seed) mod 256.
  static std::vector<uint8_t> picture(int width, int height, int channels, int seed) {
    std::vector<uint8_t> bytes(static_cast<size_t>(width) * height * channels);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < channels; ++c)
          bytes[(static_cast<size_t>(y) * width + x) * channels + c] =
              static_cast<uint8_t>((x * 3 + y * 7 + c * 50 + seed) & 0xff);
    return bytes;
  }

  // What the frame must show for `bytes`: gray as r = g = b, RGB opaque, RGBA as it is.
  static lab::Image as_frame(const std::vector<uint8_t>& bytes, int width, int height, int channels) {
    lab::Image image;
    image.width = width;
    image.height = height;
    image.rgba.resize(static_cast<size_t>(width) * height * 4);
    for (size_t i = 0; i < static_cast<size_t>(width) * height; ++i) {
      const uint8_t* in = &bytes[i * channels];
      uint8_t* out = &image.rgba[i * 4];
      out[0] = in[0];
      out[1] = channels >= 3 ? in[1] : in[0];
      out[2] = channels >= 3 ? in[2] : in[0];
      out[3] = channels == 4 ? in[3] : 255;
    }
    return image;
  }

  static void publish(interop::Publisher& publisher, const std::vector<uint8_t>& bytes, uint64_t index) {
    const interop::Publisher::Slot slot = publisher.acquire();
    ASSERT_TRUE(slot) << "no slot free";
    ASSERT_GE(slot.size, bytes.size());
    std::memcpy(slot.data, bytes.data(), bytes.size());
    publisher.publish(slot, index);
  }

  static lab::Options attach_options(const std::string& name) {
    lab::Options options = labtest::app_options(SceneId::Pattern, ModeId::Cpu, 1280, 720);
    options.attach = name;
    options.size_given = false;
    return options;
  }

  // Renders frames until `done` holds or a second passes (the announcement crosses a socket).
  static lab::Image render_until(lab::gl::App& app, long long& index,
                                 const std::function<bool(const lab::Image&)>& done) {
    lab::Image frame;
    for (int attempt = 0; attempt < 100; ++attempt) {
      frame = labtest::render(app, index++);
      if (done(frame)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return frame;
  }

  static size_t pixels_off(const lab::Image& a, const lab::Image& b) {
    return lab::compare_images(a, b, 0).pixels_over;
  }

 private:
  std::string m_runtime;
  std::optional<std::string> m_runtime_before;
};

TEST_F(Attach, TheFrameIsThePublishedPictureAtItsOwnSize) {
  auto pub = publisher("attach-rgba", 97, 61, 4);
  const std::vector<uint8_t> bytes = picture(97, 61, 4, 1);
  publish(*pub, bytes, 7);
  lab::gl::App app(attach_options("attach-rgba"));
  long long index = 0;
  const lab::Image expected = as_frame(bytes, 97, 61, 4);
  const lab::Image frame = render_until(app, index, [&](const lab::Image& f) {
    return f.width == 97 && f.height == 61 && pixels_off(f, expected) == 0;
  });
  ASSERT_EQ(frame.width, 97) << "the frame takes the publisher's size without --size";
  ASSERT_EQ(frame.height, 61);
  EXPECT_EQ(pixels_off(frame, expected), 0u) << lab::to_string(lab::compare_images(frame, expected, 0), 0);
  EXPECT_FALSE(app.scene_id().has_value()) << "no scene makes these frames";
  EXPECT_EQ(app.source().kind(), lab::SourceKind::Published);
  EXPECT_EQ(app.source().name(), "published 'attach-rgba'");
  EXPECT_NE(app.source().status().find("frame 7 of pid"), std::string::npos) << app.source().status();
}

TEST_F(Attach, GrayAndRgbShowOpaque) {
  for (const int channels : {1, 3}) {
    SCOPED_TRACE("channels " + std::to_string(channels));
    const std::string name = "attach-" + std::to_string(channels);
    auto pub = publisher(name, 64, 33, channels);
    const std::vector<uint8_t> bytes = picture(64, 33, channels, 9);
    publish(*pub, bytes, 1);
    lab::gl::App app(attach_options(name));
    long long index = 0;
    const lab::Image expected = as_frame(bytes, 64, 33, channels);
    const lab::Image frame =
        render_until(app, index, [&](const lab::Image& f) { return pixels_off(f, expected) == 0; });
    EXPECT_EQ(pixels_off(frame, expected), 0u);
  }
}

TEST_F(Attach, WithASizeThePictureIsScaledNearest) {
  auto pub = publisher("attach-scaled", 40, 30, 4);
  const std::vector<uint8_t> bytes = picture(40, 30, 4, 3);
  publish(*pub, bytes, 1);
  lab::Options options = attach_options("attach-scaled");
  options.width = 80;
  options.height = 90;
  options.size_given = true;
  lab::gl::App app(options);
  const lab::Image small = as_frame(bytes, 40, 30, 4);
  lab::Image expected;
  expected.width = 80;
  expected.height = 90;
  expected.rgba.resize(80 * 90 * 4);
  for (int y = 0; y < 90; ++y)
    for (int x = 0; x < 80; ++x) std::memcpy(&expected.rgba[(y * 80 + x) * 4], small.pixel(x / 2, y / 3), 4);
  long long index = 0;
  const lab::Image frame =
      render_until(app, index, [&](const lab::Image& f) { return pixels_off(f, expected) == 0; });
  ASSERT_EQ(frame.width, 80);
  EXPECT_EQ(pixels_off(frame, expected), 0u);
}

TEST_F(Attach, APictureFitLetterboxesThePictureInAFrameOfAnotherAspect) {
  auto pub = publisher("attach-contain", 40, 30, 4);
  const std::vector<uint8_t> bytes = picture(40, 30, 4, 5);
  publish(*pub, bytes, 1);
  lab::Options options = attach_options("attach-contain");
  options.width = 80;
  options.height = 90;
  options.size_given = true;
  options.picture_fit = lab::PictureFit::Contain;
  lab::gl::App app(options);
  // 40x30 at twice its size fills 80x60, in rows 15..74; black above and below.
  const lab::Image small = as_frame(bytes, 40, 30, 4);
  lab::Image expected;
  expected.width = 80;
  expected.height = 90;
  expected.rgba.assign(80 * 90 * 4, 0);
  for (int y = 0; y < 90; ++y)
    for (int x = 0; x < 80; ++x) {
      uint8_t* at = &expected.rgba[(y * 80 + x) * 4];
      if (y >= 15 && y < 75)
        std::memcpy(at, small.pixel(x / 2, (y - 15) / 2), 4);
      else
        at[3] = 255;
    }
  long long index = 0;
  const lab::Image frame =
      render_until(app, index, [&](const lab::Image& f) { return pixels_off(f, expected) == 0; });
  EXPECT_EQ(pixels_off(frame, expected), 0u);
}

TEST_F(Attach, ANewerFrameReplacesTheOneShown) {
  auto pub = publisher("attach-newer", 50, 20, 4);
  const std::vector<uint8_t> first = picture(50, 20, 4, 1), second = picture(50, 20, 4, 77);
  publish(*pub, first, 1);
  lab::gl::App app(attach_options("attach-newer"));
  long long index = 0;
  const lab::Image expected_first = as_frame(first, 50, 20, 4), expected_second = as_frame(second, 50, 20, 4);
  EXPECT_EQ(pixels_off(render_until(app, index,
                                    [&](const lab::Image& f) { return pixels_off(f, expected_first) == 0; }),
                       expected_first),
            0u);
  publish(*pub, second, 2);
  EXPECT_EQ(pixels_off(render_until(app, index,
                                    [&](const lab::Image& f) { return pixels_off(f, expected_second) == 0; }),
                       expected_second),
            0u);
  EXPECT_NE(app.source().status().find("frame 2 of pid"), std::string::npos) << app.source().status();
}

// Before each frame the loop asks the source to wait for news (FrameSource::wait_for_frame): a frame
// published during the wait is the one drawn next, and with nothing published the wait ends and the frame
// shown is drawn again. The source draws from its own copy: the slot went back as soon as it was copied, so
// a publisher with a single slot writes it again at once, and what is drawn stays the frame taken.
TEST_F(Attach, AFramePublishedWhileTheSourceWaitsIsTheOneDrawnNext) {
  auto pub = publisher("attach-wait", 40, 30, 4, interop::DType::UInt8, 1);
  const std::vector<uint8_t> first = picture(40, 30, 4, 3), second = picture(40, 30, 4, 90);
  publish(*pub, first, 1);
  std::unique_ptr<lab::FrameSource> source =
      lab::create_published_source("attach-wait", lab::publication_directory());
  const lab::Extent extent{40, 30};
  std::vector<uint8_t> drawn(40 * 30 * 4);
  const auto draw = [&](long long index) {
    source->compute_cpu({index, 0.0f, extent}, {{drawn.data(), drawn.size(), 40 * 4}});
    lab::Image image;  // the target's rows are GL's, the bottom of the picture first
    image.width = 40;
    image.height = 30;
    for (int y = 29; y >= 0; --y)
      image.rgba.insert(image.rgba.end(), drawn.begin() + y * 40 * 4, drawn.begin() + (y + 1) * 40 * 4);
    return image;
  };
  source->wait_for_frame(std::chrono::seconds(2));  // nothing shown yet: the frame announced at attach
  lab::Image frame = draw(0);
  for (int attempt = 0; attempt < 100 && pixels_off(frame, as_frame(first, 40, 30, 4)) != 0; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the announcement crosses a socket
    frame = draw(attempt + 1);
  }
  ASSERT_EQ(pixels_off(frame, as_frame(first, 40, 30, 4)), 0u);
  {
    const interop::Publisher::Slot slot = pub->acquire();
    ASSERT_TRUE(slot) << "the only slot is still held by the viewer";
    std::memset(slot.data, 0, slot.size);  // written, not published: the viewer must not see it
    pub->discard(slot);
  }
  using Clock = std::chrono::steady_clock;
  Clock::time_point started = Clock::now();
  source->wait_for_frame(std::chrono::milliseconds(20));  // nothing new: it waits its 20 ms, then gives up
  EXPECT_GE(Clock::now() - started, std::chrono::milliseconds(15));
  EXPECT_EQ(pixels_off(draw(200), as_frame(first, 40, 30, 4)), 0u) << "the frame shown is drawn again";
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    publish(*pub, second, 2);
  });
  started = Clock::now();
  source->wait_for_frame(std::chrono::seconds(5));
  const Clock::duration waited = Clock::now() - started;
  later.join();
  EXPECT_GE(waited, std::chrono::milliseconds(25)) << "it returned before the frame was published";
  EXPECT_LT(waited, std::chrono::seconds(5)) << "it did not wake when the frame came";
  EXPECT_EQ(pixels_off(draw(201), as_frame(second, 40, 30, 4)), 0u) << source->status();
  EXPECT_NE(source->status().find("frame 2 of pid"), std::string::npos) << source->status();
}

TEST_F(Attach, WhenThePublisherGoesTheLastFrameStaysAndANewOneIsAttachedAgain) {
  auto pub = publisher("attach-gone", 32, 24, 4);
  const std::vector<uint8_t> before = picture(32, 24, 4, 5), after = picture(32, 24, 4, 200);
  publish(*pub, before, 1);
  lab::gl::App app(attach_options("attach-gone"));
  long long index = 0;
  const lab::Image expected_before = as_frame(before, 32, 24, 4), expected_after = as_frame(after, 32, 24, 4);
  render_until(app, index, [&](const lab::Image& f) { return pixels_off(f, expected_before) == 0; });
  pub.reset();  // the publisher exits: its socket closes, its slots go
  const lab::Image kept = render_until(app, index, [&](const lab::Image&) {
    return app.source().status().find("publisher gone") != std::string::npos;
  });
  EXPECT_NE(app.source().status().find("publisher gone"), std::string::npos) << app.source().status();
  EXPECT_EQ(pixels_off(kept, expected_before), 0u) << "the last frame stays";
  pub = publisher("attach-gone", 32, 24, 4);
  publish(*pub, after, 1);
  const lab::Image back =
      render_until(app, index, [&](const lab::Image& f) { return pixels_off(f, expected_after) == 0; });
  EXPECT_EQ(pixels_off(back, expected_after), 0u)
      << "a publisher of the name returned: " << app.source().status();
}

TEST_F(Attach, NothingPublishedUnderTheNameIsRefusedNamingIt) {
  try {
    lab::gl::App app(attach_options("attach-nobody"));
    FAIL() << "attached to nothing";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("--attach attach-nobody: nothing is published by that name"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(Attach, SwitchingToAnotherPublisherShowsItsFramesAtItsSizeAndANameNobodyPublishesIsRefused) {
  auto first = publisher("attach-first", 40, 30, 4);
  auto second = publisher("attach-second", 64, 48, 3);
  const std::vector<uint8_t> first_bytes = picture(40, 30, 4, 11), second_bytes = picture(64, 48, 3, 123);
  publish(*first, first_bytes, 5);
  publish(*second, second_bytes, 9);
  lab::gl::App app(attach_options("attach-first"));
  long long index = 0;
  const lab::Image expected_first = as_frame(first_bytes, 40, 30, 4);
  const lab::Image expected_second = as_frame(second_bytes, 64, 48, 3);
  ASSERT_EQ(pixels_off(render_until(app, index,
                                    [&](const lab::Image& f) { return pixels_off(f, expected_first) == 0; }),
                       expected_first),
            0u);
  EXPECT_EQ(app.published_name(), "attach-first");
  EXPECT_EQ(app.publishers(), (std::vector<std::string>{"attach-first", "attach-second"}));

  // A name nothing publishes: refused at once, said in the notice, and the frames stay the first's.
  const std::string refused = app.request_source("attach-nobody");
  EXPECT_NE(refused.find("source attach-nobody: --attach attach-nobody: nothing is published by that name"),
            std::string::npos)
      << refused;
  EXPECT_EQ(app.notice(), refused);
  EXPECT_EQ(pixels_off(labtest::render(app, index++), expected_first), 0u);
  EXPECT_EQ(app.published_name(), "attach-first");

  // The second publisher: its picture at its own size (the frame had the first's), its frame index.
  EXPECT_EQ(app.request_source("attach-second"), "");
  const lab::Image frame = render_until(app, index, [&](const lab::Image& f) {
    return f.width == 64 && f.height == 48 && pixels_off(f, expected_second) == 0;
  });
  ASSERT_EQ(frame.width, 64) << "the frame follows the new publisher's size";
  ASSERT_EQ(frame.height, 48);
  EXPECT_EQ(pixels_off(frame, expected_second), 0u);
  EXPECT_EQ(app.published_name(), "attach-second");
  EXPECT_EQ(app.source().name(), "published 'attach-second'");
  EXPECT_NE(app.source().status().find("frame 9 of pid"), std::string::npos) << app.source().status();
  EXPECT_EQ(app.notice(), "") << "a switch that succeeded clears the refusal";
  // The first publisher is no longer watched: its viewer went with the old source.
  for (int attempt = 0; attempt < 100 && first->stats().viewers > 0; ++attempt)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(first->stats().viewers, 0u);
  EXPECT_EQ(second->stats().viewers, 1u);

  // A scene asked after it leaves the published frames; no publisher is listed then.
  app.request_scene(SceneId::Pattern);
  labtest::render(app, index++);
  EXPECT_EQ(app.scene_id(), SceneId::Pattern);
  EXPECT_EQ(app.published_name(), "");
  EXPECT_TRUE(app.publishers().empty());
}

TEST_F(Attach, TheListNamesEachPublisherWithItsFormat) {
  EXPECT_EQ(lab::published_list_text(), "");
  auto pub = publisher("attach-listed", 20, 10, 3);
  const std::string listed = lab::published_list_text();
  EXPECT_NE(listed.find("attach-listed"), std::string::npos) << listed;
  EXPECT_NE(listed.find("20x10 uint8x3"), std::string::npos) << listed;
  EXPECT_NE(listed.find("host slots"), std::string::npos) << listed;
}

// Frames other than uint8 are shown by the Python viewer's rule (docs/python.md's dtype table): t = (v - low)
// / (high - low) clamped to [0, 1], byte floor(t * 255 + 0.5), each step rounded on its own in float32; one
// channel through gray, three with alpha 255; NaN magenta, +inf white, -inf black. The expected bytes are
// that formula, computed here.
uint8_t documented_byte(float value, float low, float span) {
  const float t = (value - low) / span;
  if (!(t > 0.0f)) return 0;
  if (t >= 1.0f) return 255;
  volatile float scaled = t * 255.0f;  // rounded here, as the rule says: never one fused multiply-add
  return static_cast<uint8_t>(std::floor(scaled + 0.5f));
}

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// float32 frames at their default range 0..1: a ramp past both ends in three channels, and the pixels with
// NaN, +inf or -inf in a channel, which take that colour whole (NaN first, then +inf).
TEST_F(Attach, Float32FramesShowThroughTheDocumentedMappingOverZeroToOne) {
  constexpr int kWidth = 67, kHeight = 9;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> values(static_cast<size_t>(kWidth) * kHeight * 3);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      float* pixel = &values[(static_cast<size_t>(y) * kWidth + x) * 3];
      pixel[0] = (static_cast<float>(x) - 3.0f) / 60.0f;  // -0.05..1.05
      pixel[1] = static_cast<float>(y) / 8.0f;
      pixel[2] = 0.37f * static_cast<float>((x * 7 + y * 3) % 11) / 10.0f;
    }
  values[(4 * kWidth + 10) * 3 + 1] = nan;
  values[(4 * kWidth + 11) * 3 + 2] = inf;
  values[(4 * kWidth + 12) * 3 + 0] = -inf;
  values[(4 * kWidth + 13) * 3 + 0] = inf;
  values[(4 * kWidth + 13) * 3 + 1] = nan;
  auto pub = publisher("attach-f32", kWidth, kHeight, 3, interop::DType::Float32);
  publish(*pub, bytes_of(values), 3);
  lab::gl::App app(attach_options("attach-f32"));

  lab::Image expected;
  expected.width = kWidth;
  expected.height = kHeight;
  expected.rgba.resize(static_cast<size_t>(kWidth) * kHeight * 4);
  for (size_t i = 0; i < static_cast<size_t>(kWidth) * kHeight; ++i) {
    for (int c = 0; c < 3; ++c) expected.rgba[i * 4 + c] = documented_byte(values[i * 3 + c], 0.0f, 1.0f);
    expected.rgba[i * 4 + 3] = 255;
  }
  const uint8_t magenta[4] = {255, 0, 255, 255}, white[4] = {255, 255, 255, 255}, black[4] = {0, 0, 0, 255};
  std::memcpy(&expected.rgba[(4 * kWidth + 10) * 4], magenta, 4);
  std::memcpy(&expected.rgba[(4 * kWidth + 11) * 4], white, 4);
  std::memcpy(&expected.rgba[(4 * kWidth + 12) * 4], black, 4);
  std::memcpy(&expected.rgba[(4 * kWidth + 13) * 4], magenta, 4);

  long long index = 0;
  const lab::Image frame = render_until(app, index, [&](const lab::Image& f) {
    return f.width == kWidth && f.height == kHeight && pixels_off(f, expected) == 0;
  });
  ASSERT_EQ(frame.width, kWidth);
  ASSERT_EQ(frame.height, kHeight);
  EXPECT_EQ(pixels_off(frame, expected), 0u) << lab::to_string(lab::compare_images(frame, expected, 0), 0);
  EXPECT_EQ(frame.pixel(0, 0)[0], 0) << "below 0 is 0";
  EXPECT_EQ(frame.pixel(kWidth - 1, 0)[0], 255) << "above 1 is 255";
  EXPECT_EQ(frame.pixel(33, 0)[0], 128) << "0.5: floor(127.5 + 0.5)";
  const std::string status = app.source().status();
  EXPECT_NE(status.find("float32x3, host slots, range 0..1, frame 3 of pid"), std::string::npos) << status;
}

// uint16 frames, one channel: the range is "auto", the first frame's smallest and largest value, kept for
// the frames after it (whose values past it clamp); gray shows the byte as r = g = b.
TEST_F(Attach, Uint16FramesMapOverTheFirstFramesRangeKeptForTheNext) {
  constexpr int kWidth = 50, kHeight = 20;
  std::vector<uint16_t> first(static_cast<size_t>(kWidth) * kHeight), second(first.size());
  for (size_t i = 0; i < first.size(); ++i) {
    first[i] = static_cast<uint16_t>(300 + i * 53);  // 300..53247
    second[i] = static_cast<uint16_t>(i * 61);       // 0..60939: past both ends of the first
  }
  const float low = 300.0f, span = static_cast<float>(first.back()) - 300.0f;
  const auto expected_of = [&](const std::vector<uint16_t>& values) {
    lab::Image image;
    image.width = kWidth;
    image.height = kHeight;
    image.rgba.resize(values.size() * 4);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint8_t b = documented_byte(static_cast<float>(values[i]), low, span);
      image.rgba[i * 4 + 0] = image.rgba[i * 4 + 1] = image.rgba[i * 4 + 2] = b;
      image.rgba[i * 4 + 3] = 255;
    }
    return image;
  };
  auto pub = publisher("attach-u16", kWidth, kHeight, 1, interop::DType::UInt16);
  publish(*pub, bytes_of(first), 1);
  lab::gl::App app(attach_options("attach-u16"));
  long long index = 0;
  const lab::Image expected_first = expected_of(first);
  const lab::Image shown_first =
      render_until(app, index, [&](const lab::Image& f) { return pixels_off(f, expected_first) == 0; });
  EXPECT_EQ(pixels_off(shown_first, expected_first), 0u)
      << lab::to_string(lab::compare_images(shown_first, expected_first, 0), 0);
  EXPECT_EQ(shown_first.pixel(0, 0)[0], 0) << "the smallest value is the bottom";
  EXPECT_EQ(shown_first.pixel(kWidth - 1, kHeight - 1)[0], 255) << "the largest the top";
  EXPECT_NE(app.source().status().find("uint16x1, host slots, range 300..53247 (auto: the first frame's)"),
            std::string::npos)
      << app.source().status();

  publish(*pub, bytes_of(second), 2);
  const lab::Image expected_second = expected_of(second);
  const lab::Image shown_second =
      render_until(app, index, [&](const lab::Image& f) { return pixels_off(f, expected_second) == 0; });
  EXPECT_EQ(pixels_off(shown_second, expected_second), 0u)
      << "the first frame's range holds: "
      << lab::to_string(lab::compare_images(shown_second, expected_second, 0), 0);
  EXPECT_EQ(shown_second.pixel(0, 0)[0], 0);
  EXPECT_EQ(shown_second.pixel(kWidth - 1, kHeight - 1)[0], 255) << "60939 is past 53247";
  EXPECT_NE(app.source().status().find("range 300..53247 (auto: the first frame's), frame 2 of pid"),
            std::string::npos)
      << app.source().status();
}

}  // namespace
