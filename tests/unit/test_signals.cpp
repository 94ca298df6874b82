// tests/unit/test_signals.cpp — stop signals and the file size limit: a stop request is recorded (not
// fatal), removes the temporary file of a write in progress at once and makes later writes stop; over
// `ulimit -f` a write fails as a write error and leaves nothing. No GPU; each test holds its own
// SignalHandlers, so the process's own handling comes back afterwards.
#include "app/image/image_io.hpp"
#include "app/os/signals.hpp"
#include "tests/support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>

#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <system_error>
#include <thread>

namespace fs = std::filesystem;

namespace {

// Noise, so the PNG is about as large as the pixels (far over the file size limit below).
lab::Image noise_image(int width, int height) {
  lab::Image image;
  image.width = width;
  image.height = height;
  image.rgba.resize(static_cast<size_t>(width) * height * 4);
  std::mt19937 random(7);
  for (uint8_t& byte : image.rgba) byte = static_cast<uint8_t>(random() & 0xff);
  return image;
}

// Each test starts with the stop signals at their defaults and puts back what the test process had: run
// under nohup, SIGHUP arrives ignored, and lab::SignalHandlers rightly leaves it so, which is not what the
// tests that raise it are about (SignalIgnoredByTheParentStaysIgnored sets that up itself).
class SignalsTest : public testing::Test {
 protected:
  void SetUp() override {
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    for (size_t i = 0; i < kStopSignals.size(); ++i)
      ASSERT_EQ(sigaction(kStopSignals[i], &default_action, &m_inherited[i]), 0);
  }
  void TearDown() override {
    for (size_t i = 0; i < kStopSignals.size(); ++i) sigaction(kStopSignals[i], &m_inherited[i], nullptr);
  }

  static constexpr std::array<int, 3> kStopSignals{SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> m_inherited{};
  labtest::ScratchDir m_scratch{"signals"};
  const fs::path& m_dir = m_scratch.path();
};

TEST_F(SignalsTest, StopSignalIsRecordedAndRemovesGuardedTemporaryFile) {
  const lab::SignalHandlers handlers;
  const std::string temporary = m_scratch.file("out.png.tmp-1-0");
  std::ofstream(temporary) << "half a PNG";
  const lab::TemporaryFileGuard guard(temporary);
  ASSERT_EQ(lab::stop_signal(), 0);
  raise(SIGTERM);  // handled synchronously on this thread: the process lives on
  EXPECT_EQ(lab::stop_signal(), SIGTERM);
  EXPECT_FALSE(fs::exists(temporary)) << "the handler must remove a write's temporary file at once";
  EXPECT_THROW(lab::stop_if_requested(), lab::Interrupted);
}

// main() says files were removed only where a stop removed one.
TEST_F(SignalsTest, StopMessageSpeaksOfRemovedFilesOnlyWhenOneWasRemoved) {
  {
    const lab::SignalHandlers handlers;
    raise(SIGTERM);
    EXPECT_EQ(lab::stop_message(SIGTERM), "stopped by SIGTERM") << "no file was being written";
  }
  const lab::SignalHandlers handlers;
  const std::string temporary = m_scratch.file("out.png.tmp-1-0");
  std::ofstream(temporary) << "half a PNG";
  const lab::TemporaryFileGuard guard(temporary);
  raise(SIGTERM);
  EXPECT_EQ(lab::stop_message(SIGTERM), "stopped by SIGTERM; files not finished were removed");
}

TEST_F(SignalsTest, StopDuringAWriteRemovesItsTemporaryFileAndStopsTheWriter) {
  const lab::SignalHandlers handlers;
  // A watcher raises SIGTERM (handled on its own thread) the moment the temporary file appears, while
  // libpng is still encoding noise that takes far longer than the watcher's look.
  std::atomic<bool> seen{false};
  std::thread watcher([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!seen && std::chrono::steady_clock::now() < give_up) {
      std::error_code ignored;  // files come and go while the directory is read
      for (fs::directory_iterator it(m_dir, ignored); it != fs::directory_iterator(); it.increment(ignored)) {
        if (it->path().filename().string().rfind("out.png.tmp-", 0) != 0) continue;
        seen = true;
        raise(SIGTERM);
        break;
      }
    }
  });
  int stopped_by = 0;
  try {
    lab::write_png(m_scratch.file("out.png"), noise_image(2048, 2048));
  } catch (const lab::Interrupted& interrupted) {
    stopped_by = interrupted.signal;
  }
  seen = true;
  watcher.join();
  EXPECT_EQ(stopped_by, SIGTERM) << "the writer must stop rather than rename a removed file";
  EXPECT_TRUE(fs::is_empty(m_dir)) << "neither the temporary file nor out.png may be left";
}

TEST_F(SignalsTest, OnlyGuardedFilesAreRemovedAndGuardsFreeTheirSlots) {
  const lab::SignalHandlers handlers;
  // More guards one after another than the table has slots: each gives its slot back.
  for (int i = 0; i < 100; ++i) const lab::TemporaryFileGuard guard(m_scratch.file("gone.tmp"));
  const std::string unguarded = m_scratch.file("keep.png");
  std::ofstream(unguarded) << "finished";
  raise(SIGINT);
  EXPECT_EQ(lab::stop_signal(), SIGINT);
  EXPECT_TRUE(fs::exists(unguarded));
}

TEST_F(SignalsTest, WriteAfterAStopRequestStopsAndLeavesNothing) {
  const lab::SignalHandlers handlers;
  raise(SIGHUP);
  try {
    lab::write_png(m_scratch.file("out.png"), noise_image(8, 8));
    FAIL() << "expected Interrupted";
  } catch (const lab::Interrupted& interrupted) {
    EXPECT_EQ(interrupted.signal, SIGHUP);
  }
  EXPECT_TRUE(fs::is_empty(m_dir));
}

TEST_F(SignalsTest, HandlersGoneClearTheStopRequest) {
  {
    const lab::SignalHandlers handlers;
    raise(SIGTERM);
    EXPECT_EQ(lab::stop_signal(), SIGTERM);
  }
  EXPECT_EQ(lab::stop_signal(), 0);
  lab::write_png(m_scratch.file("out.png"), noise_image(4, 4));  // writes work again
  EXPECT_TRUE(fs::exists(m_scratch.file("out.png")));
}

TEST_F(SignalsTest, SignalIgnoredByTheParentStaysIgnored) {
  // nohup (SIGHUP) and `cmd &` in a script (SIGINT) hand the process an ignored signal on purpose.
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGHUP, &ignore, &previous);
  {
    const lab::SignalHandlers handlers;
    raise(SIGHUP);
    EXPECT_EQ(lab::stop_signal(), 0);
  }
  sigaction(SIGHUP, &previous, nullptr);
}

TEST_F(SignalsTest, FileSizeLimitIsAWriteErrorThatLeavesNothing) {
  const lab::SignalHandlers handlers;  // ignores SIGXFSZ, which would otherwise end this process
  rlimit previous{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &previous), 0);
  rlimit limited = previous;
  limited.rlim_cur = 16 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  std::string message;
  try {
    lab::write_png(m_scratch.file("big.png"), noise_image(256, 256));
  } catch (const lab::ImageError& error) {
    message = error.what();
  }
  setrlimit(RLIMIT_FSIZE, &previous);
  EXPECT_NE(message.find(m_scratch.file("big.png")), std::string::npos) << message;
  EXPECT_NE(message.find("file size limit"), std::string::npos) << message;
  EXPECT_TRUE(fs::is_empty(m_dir)) << "no temporary file may be left";
}

}  // namespace
