// tests/windows/os_win32_check.cpp — app/os/os_win32.cpp and the portable app/os/signals.cpp, run under Wine
// (scripts/windows-cross.sh) or on Windows: what the app's atomic write and stop handling rely on.
// Prints one line per check and exits 1 when any fails. No test framework: mingw-w64 has no GoogleTest
// package, and the checks are few.
#include "app/os/os.hpp"
#include "app/os/signals.hpp"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

int g_failures = 0;

void check(bool ok, const std::string& what, const std::string& detail = "") {
  std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
  if (!ok) ++g_failures;
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_through_descriptor(int fd, const std::string& text) {
  FILE* file = lab::os::stream_from(fd, "wb");
  std::fwrite(text.data(), 1, text.size(), file);
  std::fclose(file);
}

}  // namespace

int main() {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("interop-lab-os-check-" + std::to_string(lab::os::process_id()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string target = (dir / "frame.png").string();
  const std::string temporary = target + ".tmp";

  // Exclusive creation: the writer's temporary names rely on EEXIST to stay unique.
  const int fd = lab::os::create_new_file(temporary);
  check(fd >= 0, "create_new_file creates a new file");
  const int again = lab::os::create_new_file(temporary);
  check(again < 0 && errno == EEXIST, "create_new_file refuses an existing file with EEXIST",
        "got " + std::to_string(again) + ", errno " + std::to_string(errno));
  write_through_descriptor(fd, "new frame");

  // The atomic write's last step, over an existing file: rename() would fail here on Windows.
  std::ofstream(target, std::ios::binary) << "old frame";
  const std::string replaced = lab::os::replace_file(temporary, target);
  check(replaced.empty(), "replace_file replaces an existing file", replaced);
  check(contents(target) == "new frame", "the replaced file holds the new contents", contents(target));
  check(!fs::exists(temporary), "replace_file leaves no temporary file behind");

  const int reader = lab::os::open_for_reading(target);
  lab::os::FileStatus status;
  const int status_error = reader >= 0 ? lab::os::file_status(reader, status) : -1;
  check(status_error == 0 && status.regular && status.size == 9,
        "file_status of a regular file: regular, 9 bytes",
        std::string(status.kind) + ", " + std::to_string(status.size));
  if (reader >= 0) lab::os::close_file(reader);
  const int directory = lab::os::open_for_reading(dir.string());
  check(directory < 0, "open_for_reading refuses a directory (the C runtime cannot open one)");

  check(lab::os::directory_refuses_files(dir.string()) == 0,
        "directory_refuses_files accepts a writable folder");
  check(lab::os::directory_refuses_files((dir / "missing").string()) == ENOENT,
        "directory_refuses_files names a missing folder ENOENT");

  // A stop request: recorded, and a guarded temporary file removed by the handler itself.
  {
    const lab::SignalHandlers handlers;
    std::ofstream(temporary, std::ios::binary) << "half a frame";
    const lab::TemporaryFileGuard guard(temporary);
    raise(SIGINT);
    check(lab::stop_signal() == SIGINT, "SIGINT is recorded as a stop request",
          "stop_signal() = " + std::to_string(lab::stop_signal()));
    check(!fs::exists(temporary), "the stop handler removes the guarded temporary file");
  }
  check(lab::stop_signal() == 0, "the stop request is cleared with the handlers");

  check(lab::os::remove_file(target.c_str()) == 0 && !fs::exists(target), "remove_file deletes");
  fs::remove_all(dir);
  std::printf("os_win32_check: %s (%d failed)\n", g_failures == 0 ? "passed" : "FAILED", g_failures);
  return g_failures == 0 ? 0 : 1;
}
