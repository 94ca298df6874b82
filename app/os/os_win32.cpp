// app/os/os_win32.cpp — app/os/os.hpp on Windows (Win32 and the Microsoft C runtime; mingw-w64 builds it
// too). Paths arrive as UTF-8 and are widened for the W functions, so names outside the ANSI code page work.
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "app/os/os.hpp"

#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace lab::os {
namespace {

std::wstring widen(const std::string& utf8) {
  if (utf8.empty()) return {};
  const int length = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring wide(static_cast<size_t>(length), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), wide.data(), length);
  return wide;
}

// The system's words for a Win32 error, without the trailing line break FormatMessage adds.
std::string system_message(DWORD error) {
  char* text = nullptr;
  const DWORD length = FormatMessageA(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
      error, 0, reinterpret_cast<char*>(&text), 0, nullptr);
  std::string message = length > 0 ? std::string(text, length) : "Windows error " + std::to_string(error);
  LocalFree(text);
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r' || message.back() == ' '))
    message.pop_back();
  return message;
}

}  // namespace

int process_id() {
  return static_cast<int>(GetCurrentProcessId());
}

std::string mps_status(const char*) {
  return "Linux only";
}

int create_new_file(const std::string& path) {
  return _wopen(widen(path).c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT,
                _S_IREAD | _S_IWRITE);
}

// Windows has no FIFOs in the file system (named pipes live under \\.\pipe\ and open at once), so a
// plain open never waits.
int open_for_reading(const std::string& path) {
  return _wopen(widen(path).c_str(), _O_RDONLY | _O_BINARY | _O_NOINHERIT);
}

int file_status(int fd, FileStatus& status) {
  struct _stat64 info {};
  if (_fstat64(fd, &info) != 0) return errno;
  status.regular = (info.st_mode & _S_IFMT) == _S_IFREG;
  status.size = static_cast<uint64_t>(info.st_size);
  if (status.regular)
    status.kind = "a regular file";
  else if ((info.st_mode & _S_IFMT) == _S_IFDIR)
    status.kind = "a directory";
  else if ((info.st_mode & _S_IFMT) == _S_IFCHR)
    status.kind = "a character device";
  else
    status.kind = "a special file";
  return 0;
}

FILE* stream_from(int fd, const char* mode) {
  return _fdopen(fd, mode);
}

void close_file(int fd) {
  _close(fd);
}

int remove_file(const char* path) {
  return _wunlink(widen(path).c_str());
}

// rename() on Windows refuses an existing target; MoveFileExW replaces it in one step within a volume
// (the temporary file is always beside its target). WRITE_THROUGH: it returns once the move is on disk.
std::string replace_file(const std::string& from, const std::string& to) {
  if (MoveFileExW(widen(from).c_str(), widen(to).c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
    return "";
  return system_message(GetLastError());
}

// NTFS, ReFS and exFAT allow 255 UTF-16 units a name; a UTF-8 byte count over that is refused for sure.
long max_file_name_bytes(const std::string& /*directory*/) {
  return 255;
}

// Windows' access check cannot tell for sure (ACLs, a read-only medium): creating the file will. This
// refuses only what is certainly not writable.
int directory_refuses_files(const std::string& directory) {
  return _waccess(widen(directory).c_str(), 2) == 0 ? 0 : errno;
}

void hold_closed_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (_get_osfhandle(fd) != -1) continue;  // -1 (or -2 without a console): not open
    const int held = _open("NUL", _O_RDONLY);
    if (held >= 0 && held != fd) {
      _dup2(held, fd);
      _close(held);
    }
  }
}

// The Windows heap does not keep freed image-sized blocks: allocations over its threshold (512 KiB on
// 64-bit) get their own virtual memory, which is released when they are freed. Nothing to tune.
void return_freed_images_to_the_system() {}

namespace {
constexpr int kHandled[] = {SIGINT, SIGTERM, SIGBREAK};
using SignalHandler = void (*)(int);
}  // namespace

struct StopSignalHandlers::Saved {
  std::array<SignalHandler, sizeof kHandled / sizeof kHandled[0]> previous{};
};

StopSignalHandlers::StopSignalHandlers(void (*handler)(int)) : m_saved(std::make_unique<Saved>()) {
  for (size_t i = 0; i < m_saved->previous.size(); ++i) {
    m_saved->previous[i] = signal(kHandled[i], handler);
    // Inherited as ignored: keep it so, as on POSIX.
    if (m_saved->previous[i] == SIG_IGN) signal(kHandled[i], SIG_IGN);
  }
}

StopSignalHandlers::~StopSignalHandlers() {
  for (size_t i = 0; i < m_saved->previous.size(); ++i)
    if (m_saved->previous[i] != SIG_ERR) signal(kHandled[i], m_saved->previous[i]);
}

void end_by_signal(int signal_number) {
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

}  // namespace lab::os
