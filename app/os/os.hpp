// app/os/os.hpp — the few operating-system calls interop-lab makes outside its graphics platforms, one
// implementation per system: os_posix.cpp (Linux) and os_win32.cpp (Windows). Everything else in app/
// is portable C++ and calls these.
//
// Files are the C runtime's int descriptors on both systems (POSIX open(); Windows' _wopen family), so
// stdio streams come from them the same way. Paths are UTF-8 (Windows widens them to UTF-16). Functions
// that fail return -1 (or a non-zero errno) and leave the reason in errno, as the C library does.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace lab::os {

// The longest path, in bytes, that the file functions below accept (one less, with the terminating 0).
#ifdef _WIN32
inline constexpr size_t kMaxPathBytes = 260 * 3;  // MAX_PATH UTF-16 units, up to 3 UTF-8 bytes each
#else
inline constexpr size_t kMaxPathBytes = PATH_MAX;
#endif

int process_id();

// Whether NVIDIA's Multi-Process Service has a control daemon in `pipe_directory` (CUDA_MPS_PIPE_DIRECTORY's
// value, or nullptr / "" for its default, /tmp/nvidia-mps): its pipe `control` there, said in a line for
// --doctor's environment section and publish_bench's header. Under MPS the CUDA work of one user's processes
// (a job and its --attach viewers) runs side by side; without it they take turns on the GPU
// (docs/performance.md). "Linux only" on Windows.
std::string mps_status(const char* pipe_directory);

// Creates `path` for writing only if it does not exist yet (EEXIST otherwise), not inherited by child
// processes, with the permissions any new file gets (the umask's); -1 and errno on failure.
int create_new_file(const std::string& path);
// Opens `path` for reading without ever waiting (a FIFO would wait for a writer); -1 and errno.
int open_for_reading(const std::string& path);
// What an open descriptor is: a regular file (with its size) or else what kind of file, for messages
// ("a directory", "a FIFO (named pipe)").
struct FileStatus {
  bool regular = false;
  uint64_t size = 0;
  const char* kind = "a regular file";
};
// 0, or the errno of the failure.
int file_status(int fd, FileStatus& status);
// A stdio stream over `fd` (fdopen), which it then owns; nullptr and errno on failure. A descriptor from
// open_for_reading reads as an ordinary blocking file through it.
FILE* stream_from(int fd, const char* mode);
void close_file(int fd);
// Deletes a file; async-signal-safe on POSIX (the stop handler calls it). 0, or -1 and errno.
int remove_file(const char* path);
// Replaces `to` with `from` in one step: a reader sees the old file or the new one, never a part
// (rename; Windows: MoveFileExW with MOVEFILE_REPLACE_EXISTING). Both lie in one directory. "" when done,
// else the system's reason.
std::string replace_file(const std::string& from, const std::string& to);
// The longest file name (one path component) a file in `directory` may have, in bytes.
long max_file_name_bytes(const std::string& directory);
// 0 when new files can be created in `directory` by this process, else the errno that says why not.
int directory_refuses_files(const std::string& directory);

// A standard descriptor (0, 1, 2) closed by the caller (`>&-`) would be taken by the next file opened,
// and what is printed would land in it: each closed one is held by a read-only null device instead, so
// writes to it fail as they would have.
void hold_closed_standard_descriptors();

// Makes freed image-sized blocks go back to the system at once (see os_posix.cpp for why it matters
// with glibc). Process-wide; call before the graphics driver starts its threads.
void return_freed_images_to_the_system();

// The stop handlers (app/os/signals.hpp): `handler` runs for each stop request (POSIX: SIGINT, SIGTERM,
// SIGHUP; Windows: SIGINT, SIGTERM, SIGBREAK). On POSIX a signal the process inherited as ignored stays
// ignored, and SIGXFSZ is ignored, so a write over `ulimit -f` fails with EFBIG instead of killing the
// process. The destructor puts back what was there.
class StopSignalHandlers {
 public:
  explicit StopSignalHandlers(void (*handler)(int));
  ~StopSignalHandlers();
  StopSignalHandlers(const StopSignalHandlers&) = delete;
  StopSignalHandlers& operator=(const StopSignalHandlers&) = delete;

 private:
  struct Saved;
  std::unique_ptr<Saved> m_saved;
};

// Ends the process by `signal`'s default action, so the parent sees the signal (a second stop request).
// Async-signal-safe.
void end_by_signal(int signal);

}  // namespace lab::os
