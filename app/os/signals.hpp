// app/os/signals.hpp — what interop-lab does when it is asked to stop (SIGINT, SIGTERM, SIGHUP) and when a
// write meets `ulimit -f` (SIGXFSZ). A stop request is only recorded: the frame and bench loops look at
// it between frames, so destructors still tear CUDA and GL down in order, and main() exits with
// 128 + the signal. The temporary file of a write in progress is removed by the handler itself, at once,
// so nothing is left half-written even when a second signal ends the process on the spot. SIGXFSZ is
// ignored: a write over the file size limit then fails with EFBIG and is reported and cleaned up like
// any other write error, instead of the kernel killing the process with a core dump.
//
// The stop flag and the table of temporary files are the process's only mutable globals: a signal
// handler can reach nothing else.
#pragma once

#include "app/os/os.hpp"

#include <signal.h>

#include <optional>
#include <string>

namespace lab {

// Installs the handlers (main() holds one for the whole run; tests hold one for a test) and clears the
// stop flag; the destructor puts back what was there and clears it again. A signal the process
// inherited as ignored (nohup, `cmd &` in a script) stays ignored.
class SignalHandlers {
 public:
  SignalHandlers();
  ~SignalHandlers();
  SignalHandlers(const SignalHandlers&) = delete;
  SignalHandlers& operator=(const SignalHandlers&) = delete;

 private:
  std::optional<os::StopSignalHandlers> m_handlers;  // the system's part (app/os/os.hpp)
};

// The signal that asked the process to stop (SIGINT, SIGTERM or SIGHUP; Windows: SIGBREAK for SIGHUP), or 0.
int stop_signal();

// "SIGTERM"; "signal N" for others.
std::string signal_name(int signal);

// What main() says of a stop: "stopped by SIGTERM", and "; files not finished were removed" where the stop
// left a guarded file unfinished (TemporaryFileGuard), which was removed.
std::string stop_message(int signal);

// Thrown where work stops for a stop request (between bench frames, before a write). Deliberately not a
// std::exception: no failure handler along the way may report it as an error; main() exits with
// 128 + signal.
struct Interrupted {
  int signal;
};

// Throws Interrupted when a signal asked the process to stop.
void stop_if_requested();

// While one lives, a stop signal removes `path` (an existing temporary file) at once. The writer still
// renames or removes the file itself; the destructor only forgets it. Holds one of a fixed number of
// slots: with all taken (more concurrent writes than any run makes) the file is simply not guarded.
class TemporaryFileGuard {
 public:
  explicit TemporaryFileGuard(const std::string& path) noexcept;
  ~TemporaryFileGuard();
  TemporaryFileGuard(const TemporaryFileGuard&) = delete;
  TemporaryFileGuard& operator=(const TemporaryFileGuard&) = delete;

 private:
  int m_slot = -1;
};

}  // namespace lab
