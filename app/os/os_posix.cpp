// app/os/os_posix.cpp — app/os/os.hpp on Linux (POSIX and glibc).
#include "app/os/os.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace lab::os {

int process_id() {
  return static_cast<int>(getpid());
}

std::string mps_status(const char* pipe_directory) {
  const std::string directory =
      pipe_directory != nullptr && *pipe_directory != '\0' ? pipe_directory : "/tmp/nvidia-mps";
  const std::string control = directory + "/control";
  struct stat status {};
  // A named pipe, or a Unix socket where the daemon makes one.
  if (::stat(control.c_str(), &status) == 0 && (S_ISFIFO(status.st_mode) || S_ISSOCK(status.st_mode)))
    return "a control daemon's pipe at " + control +
           ": this user's CUDA processes (a job and its --attach viewers) run side by side";
  return "not running (no " + control +
         "): processes on one GPU take turns; a job watched by --attach viewers costs less under MPS "
         "(nvidia-cuda-mps-control -d)";
}

// open()'s mode (unlike mkstemp's fixed 0600) lets the umask decide the permissions, as for any new file.
int create_new_file(const std::string& path) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
}

int open_for_reading(const std::string& path) {
  return open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

namespace {
const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a special file";
}
}  // namespace

int file_status(int fd, FileStatus& status) {
  struct stat info {};
  if (fstat(fd, &info) != 0) return errno;
  status.regular = S_ISREG(info.st_mode);
  status.size = static_cast<uint64_t>(info.st_size);
  status.kind = status.regular ? "a regular file" : file_type_name(info.st_mode);
  return 0;
}

FILE* stream_from(int fd, const char* mode) {
  // open_for_reading's O_NONBLOCK only kept a FIFO from blocking the open; a regular file never blocks,
  // and clearing the flag keeps stdio's reads ordinary.
  const int flags = fcntl(fd, F_GETFL);
  if (flags != -1 && (flags & O_NONBLOCK) != 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fdopen(fd, mode);
}

void close_file(int fd) {
  close(fd);
}

int remove_file(const char* path) {
  return unlink(path);
}

std::string replace_file(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) == 0) return "";
  return std::strerror(errno);
}

long max_file_name_bytes(const std::string& directory) {
  const long name_max = pathconf(directory.c_str(), _PC_NAME_MAX);
  return name_max > 0 ? name_max : NAME_MAX;
}

int directory_refuses_files(const std::string& directory) {
  return access(directory.c_str(), W_OK | X_OK) == 0 ? 0 : errno;
}

// /dev/null opened read-only holds the number: reads see end of file, and writes fail with EBADF as on
// the closed descriptor, so main()'s check of stdout reports them.
void hold_closed_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = open("/dev/null", O_RDONLY);
    if (held >= 0 && held != fd) {
      dup2(held, fd);
      close(held);
    }
  }
}

// Every resize frees and allocates image-sized blocks: llvmpipe's textures, renderbuffers and window
// buffers, the cpu mode's copies, the filter's scratch. glibc serves blocks over M_MMAP_THRESHOLD with
// their own mmap and unmaps them when freed, but each such free raises the threshold to the freed size
// (up to 32 MiB), after which images come from the heaps of the main and llvmpipe's threads' arenas,
// where blocks of ever-different sizes fragment them and the freed middles stay resident. In the window
// soak test (tests/window/test_window_soak.cpp) RSS went from 153 MB after 800 resizes to 201 MB after 1800,
// though heaptrack found only 71 KB leaked at exit (fragmentation, not a leak). Setting the threshold fixes
// it at glibc's default (128 KiB) and turns the raising off, so an image goes back to the system when it
// is freed: the same resizes then stay between 125 and 133 MB, and frame times do not change (--bench,
// cpu mode, llvmpipe). Setting it again (a second App) changes nothing.
void return_freed_images_to_the_system() {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

namespace {
constexpr int kHandled[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
}

struct StopSignalHandlers::Saved {
  std::array<struct sigaction, sizeof kHandled / sizeof kHandled[0]> previous{};
};

StopSignalHandlers::StopSignalHandlers(void (*handler)(int)) : m_saved(std::make_unique<Saved>()) {
  struct sigaction action {};
  action.sa_handler = handler;
  // SA_RESTART: a signal in the middle of a read or write resumes it rather than failing it with EINTR.
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (const int signal : kHandled) sigaddset(&action.sa_mask, signal);  // one handler at a time
  for (size_t i = 0; i < m_saved->previous.size(); ++i) {
    const int signal = kHandled[i];
    sigaction(signal, nullptr, &m_saved->previous[i]);
    if (signal == SIGXFSZ) {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      sigemptyset(&ignore.sa_mask);
      sigaction(signal, &ignore, nullptr);
    } else if (m_saved->previous[i].sa_handler != SIG_IGN) {
      sigaction(signal, &action, nullptr);
    }
  }
}

StopSignalHandlers::~StopSignalHandlers() {
  for (size_t i = 0; i < m_saved->previous.size(); ++i)
    sigaction(kHandled[i], &m_saved->previous[i], nullptr);
}

void end_by_signal(int signal) {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal, &default_action, nullptr);
  raise(signal);
}

}  // namespace lab::os
