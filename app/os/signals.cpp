// app/os/signals.cpp — the stop flag, the table of temporary files a handler removes, the handlers, and
// the line that says what a stop did.
// Everything the handler touches is a lock-free atomic or a fixed buffer, and it calls only
// async-signal-safe functions (os::remove_file and os::end_by_signal: unlink, sigaction, raise). Installing
// the handlers is the system's part (app/os/os.hpp).
#include "app/os/signals.hpp"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

namespace lab {
namespace {

static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "a signal handler may only touch lock-free atomics");

std::atomic<int> g_stop_signal{0};
// Whether a stop left a file unfinished, which was then removed: by the handler, or by its writer where the
// request came before the file was guarded. stop_message says so only then.
std::atomic<bool> g_removed_unfinished{false};

// A slot is Free, Filling (its owner copies the path in), Armed (the handler may remove the file) or
// Removing (a handler is unlinking it; the owner waits before reusing the slot).
enum SlotState : int { Free, Filling, Armed, Removing };
constexpr int kSlots = 16;
struct TemporaryFileSlot {
  std::atomic<int> state{Free};
  char path[os::kMaxPathBytes];
};
TemporaryFileSlot g_temporary_files[kSlots];

void remove_temporary_files() {
  for (TemporaryFileSlot& slot : g_temporary_files) {
    int armed = Armed;
    if (!slot.state.compare_exchange_strong(armed, Removing)) continue;
    if (os::remove_file(slot.path) == 0) g_removed_unfinished.store(true);
    slot.state.store(Armed);
  }
}

extern "C" void on_stop_signal(int signal) {
  const int saved_errno = errno;
  remove_temporary_files();
  int none = 0;
  if (!g_stop_signal.compare_exchange_strong(none, signal)) {
    // A second request: the user insists (or the first stop hangs). End now, by the signal's own
    // default action, so the parent sees the signal; the files were removed above. (Windows' C runtime
    // puts the default action back before calling a handler, so there the second request ends the
    // process without coming here.)
    os::end_by_signal(signal);
  }
  errno = saved_errno;
}

}  // namespace

SignalHandlers::SignalHandlers() {
  g_stop_signal.store(0);
  g_removed_unfinished.store(false);
  m_handlers.emplace(on_stop_signal);
}

SignalHandlers::~SignalHandlers() {
  m_handlers.reset();  // the previous handlers first: a signal until then still counts, and is cleared
  g_stop_signal.store(0);
  g_removed_unfinished.store(false);
}

int stop_signal() {
  return g_stop_signal.load();
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
#ifdef SIGHUP
    case SIGHUP:
      return "SIGHUP";
#endif
#ifdef SIGXFSZ
    case SIGXFSZ:
      return "SIGXFSZ";
#endif
#ifdef SIGBREAK
    case SIGBREAK:
      return "SIGBREAK";
#endif
    default:
      return "signal " + std::to_string(signal);
  }
}

std::string stop_message(int signal) {
  return "stopped by " + signal_name(signal) +
         (g_removed_unfinished.load() ? "; files not finished were removed" : "");
}

void stop_if_requested() {
  if (const int signal = stop_signal(); signal != 0) throw Interrupted{signal};
}

TemporaryFileGuard::TemporaryFileGuard(const std::string& path) noexcept {
  if (path.size() >= os::kMaxPathBytes) return;  // open() refused it too: there is no such file to guard
  for (int i = 0; i < kSlots; ++i) {
    int free = Free;
    if (!g_temporary_files[i].state.compare_exchange_strong(free, Filling)) continue;
    std::memcpy(g_temporary_files[i].path, path.c_str(), path.size() + 1);
    g_temporary_files[i].state.store(Armed);
    m_slot = i;
    // A request that came before the file was guarded found nothing to remove; its writer removes the file
    // when it looks (app/image/image_io.cpp), so the stop still left it unfinished.
    if (g_stop_signal.load() != 0) g_removed_unfinished.store(true);
    return;
  }
}

TemporaryFileGuard::~TemporaryFileGuard() {
  if (m_slot < 0) return;
  // Spins only while a handler on another thread unlinks this very file: a few microseconds.
  for (int armed = Armed; !g_temporary_files[m_slot].state.compare_exchange_weak(armed, Free);
       armed = Armed) {
  }
}

}  // namespace lab
