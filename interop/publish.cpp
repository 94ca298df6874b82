// interop/publish.cpp — Publisher, Subscriber and list_published (interop/publish.hpp) over the wire format
// of interop/publish_protocol.hpp: a SOCK_SEQPACKET Unix socket per publication, the slots' FDs sent once
// per viewer, a control page of atomic words that orders who may touch which slot.
//
// Threads: the publisher's socket thread accepts, answers queries and takes release messages; for device
// slots a second thread waits for each published slot's CUDA event and only then announces it. Both, and
// the caller's acquire()/publish(), share one mutex held for bookkeeping only: no call under it waits on a
// viewer (sends are MSG_DONTWAIT; a viewer whose socket is full misses that announcement).
#include "interop/publish.hpp"

#include "interop/error.hpp"
#include "interop/publish_protocol.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <utility>

namespace interop {

namespace wire = publish_protocol;

namespace {

static_assert(std::atomic<uint64_t>::is_always_lock_free, "the control words are shared between processes");
static_assert(wire::kMaxSlots * sizeof(std::atomic<uint64_t>) <= wire::kControlPageSize);

constexpr auto kRequestTimeout = std::chrono::seconds(2);  // a connection that says nothing is closed
constexpr auto kHelloTimeout = std::chrono::seconds(5);
constexpr size_t kMaxPendingConnections = 16;

// Errors of this file: the call (or what was asked), what went wrong, what to do; errno as the code where
// a system call failed. (ErrorSource::Desc: the refusals are of what was asked or sent, not of CUDA or GL.)
#define INTEROP_PUBLISH_FAIL(...) fail_at(__FILE__, __LINE__, __VA_ARGS__)
[[noreturn]] void fail_at(const char* file, int line, const std::string& call, const std::string& problem,
                          const std::string& advice, int code = 0) {
  ErrorInfo info;
  info.source = ErrorSource::Desc;
  info.call = call;
  info.file = file;
  info.line = line;
  info.code = code;
  info.error_name = problem;
  info.advice = advice;
  throw Error(std::move(info));
}

std::string errno_text(int error) {
  return std::strerror(error);
}

// An mmap'ed range with one owner.
class Mapping {
 public:
  Mapping() = default;
  Mapping(void* data, size_t size) : m_data(data), m_size(size) {}
  ~Mapping() { reset(); }
  Mapping(Mapping&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}
  Mapping& operator=(Mapping&& other) noexcept {
    if (this != &other) {
      reset();
      m_data = std::exchange(other.m_data, nullptr);
      m_size = std::exchange(other.m_size, 0);
    }
    return *this;
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  void* data() const { return m_data; }
  void reset() {
    if (m_data) ::munmap(m_data, m_size);
    m_data = nullptr;
    m_size = 0;
  }

 private:
  void* m_data = nullptr;
  size_t m_size = 0;
};

Mapping map_fd(int fd, size_t size, int protection, const std::string& what) {
  void* data = ::mmap(nullptr, size, protection, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) INTEROP_PUBLISH_FAIL("mmap(" + what + ")", errno_text(errno), "", errno);
  return Mapping(data, size);
}

std::atomic<uint64_t>* control_words(const Mapping& control) {
  return static_cast<std::atomic<uint64_t>*>(control.data());
}

size_t round_up(size_t bytes, size_t multiple) {
  return (bytes + multiple - 1) / multiple * multiple;
}

bool valid_dtype(uint8_t dtype) {
  return dtype <= static_cast<uint8_t>(DType::Float32);
}

// The directory of the sockets, made 0700 where missing; refused unless it is the user's own and closed to
// everyone else.
void ensure_directory(const std::string& directory, bool create) {
  if (create && ::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
    INTEROP_PUBLISH_FAIL("mkdir(" + directory + ")", errno_text(errno),
                         "make the directory, or set XDG_RUNTIME_DIR", errno);
  struct stat info = {};
  if (::lstat(directory.c_str(), &info) != 0)
    INTEROP_PUBLISH_FAIL("lstat(" + directory + ")", errno_text(errno), "nothing is published there", errno);
  if (!S_ISDIR(info.st_mode))
    INTEROP_PUBLISH_FAIL("publication directory " + directory, "not a directory",
                         "remove it; it is made mode 0700");
  if (info.st_uid != ::geteuid())
    INTEROP_PUBLISH_FAIL(
        "publication directory " + directory,
        "owned by uid " + std::to_string(info.st_uid) + ", not by this user (uid " +
            std::to_string(::geteuid()) + ")",
        "it must be the user's own: remove it, or set XDG_RUNTIME_DIR to a directory of the user's");
  if ((info.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(info.st_mode & 07777));
    INTEROP_PUBLISH_FAIL("publication directory " + directory,
                         std::string("mode ") + mode + ", open to other users",
                         "chmod 0700 it (it is made 0700)");
  }
}

sockaddr_un socket_address(const std::string& path) {
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path))
    INTEROP_PUBLISH_FAIL(
        "socket path " + path,
        "longer than a Unix socket path may be (" + std::to_string(sizeof(address.sun_path) - 1) + " bytes)",
        "use a shorter XDG_RUNTIME_DIR or name");
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

// The uid of the peer of a connected Unix socket.
uid_t peer_uid(int fd) {
  ucred credentials = {};
  socklen_t size = sizeof(credentials);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return static_cast<uid_t>(-1);
  return credentials.uid;
}

bool send_message(int fd, const void* data, size_t size, const int* fds = nullptr, size_t fd_count = 0) {
  iovec io{const_cast<void*>(data), size};
  msghdr message = {};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  std::vector<char> control;
  if (fd_count > 0) {
    control.assign(CMSG_SPACE(sizeof(int) * fd_count), 0);
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fd_count);
    std::memcpy(CMSG_DATA(header), fds, sizeof(int) * fd_count);
  }
  ssize_t sent;
  do {
    sent = ::sendmsg(fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent == static_cast<ssize_t>(size);
}

// One message as received: its bytes, and what came with it. FDs that came along are owned by `fds`, so
// whoever did not expect them closes them by letting the message go.
struct Received {
  ssize_t size = 0;  // 0: the peer closed; -1: an error (errno in `error`), EAGAIN included
  int error = 0;
  bool truncated = false;  // the message or its FDs did not fit
  alignas(8) char bytes[512] = {};
  std::vector<FileDescriptor> fds;

  const wire::MessageHeader* header() const {
    return size >= static_cast<ssize_t>(sizeof(wire::MessageHeader))
               ? reinterpret_cast<const wire::MessageHeader*>(bytes)
               : nullptr;
  }
};

Received receive_message(int fd, int flags) {
  Received received;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * (wire::kMaxSlots + 1))];
  iovec io{received.bytes, sizeof(received.bytes)};
  msghdr message = {};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  do {
    received.size = ::recvmsg(fd, &message, flags | MSG_CMSG_CLOEXEC);
  } while (received.size < 0 && errno == EINTR);
  if (received.size < 0) {
    received.error = errno;
    return received;
  }
  received.truncated = (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int received_fd = -1;
      std::memcpy(&received_fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
      received.fds.emplace_back(received_fd);
    }
  }
  return received;
}

// Says why before the connection closes. What the peer sent and nobody read is read first: a Unix socket
// closed with unread messages resets the connection, and the peer would get ECONNRESET, not the reason.
void send_refusal(int fd, const std::string& text) {
  wire::RefusalMessage refusal;
  std::snprintf(refusal.text, sizeof(refusal.text), "%s", text.c_str());
  send_message(fd, &refusal, sizeof(refusal));
  for (int unread = 0; unread < 64 && receive_message(fd, MSG_DONTWAIT).size > 0; ++unread) {
  }
}

// A read-only descriptor of the same memory (a viewer maps host slots read-only and should not be able to
// write them); the descriptor itself where /proc is not there to reopen it.
FileDescriptor read_only_copy(int fd) {
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  const int copy = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  return FileDescriptor(copy >= 0 ? copy : ::fcntl(fd, F_DUPFD_CLOEXEC, 0));
}

FileDescriptor make_memfd(const std::string& label, size_t size) {
  FileDescriptor fd(::memfd_create(label.c_str(), MFD_CLOEXEC));
  if (!fd) INTEROP_PUBLISH_FAIL("memfd_create(" + label + ")", errno_text(errno), "", errno);
  if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0)
    INTEROP_PUBLISH_FAIL("ftruncate(" + label + ", " + std::to_string(size) + ")", errno_text(errno), "",
                         errno);
  return fd;
}

int read_pid_file(int fd) {
  char text[32] = {};
  const ssize_t size = ::pread(fd, text, sizeof(text) - 1, 0);
  return size > 0 ? std::atoi(text) : 0;
}

DeviceUuid uuid_of(const uint8_t* bytes) {
  DeviceUuid uuid;
  std::copy(bytes, bytes + uuid.size(), uuid.begin());
  return uuid;
}

PublisherStats stats_of(const wire::Description& description) {
  PublisherStats stats;
  stats.frames_published = description.frames_published;
  stats.frames_dropped = description.frames_dropped;
  stats.viewers = description.viewers;
  stats.frames_per_second = description.frames_per_second;
  return stats;
}

FrameFormat format_of(const wire::Description& description) {
  FrameFormat format;
  format.width = description.width;
  format.height = description.height;
  format.channels = description.channels;
  format.dtype = static_cast<DType>(description.dtype);
  format.pitch = description.pitch;
  return format;
}

// The Description's fields a viewer relies on, checked: "" or what is wrong.
std::string check_description(const wire::Description& description, const std::string& name) {
  if (description.name[wire::kMaxNameLength] != '\0' || name != description.name)
    return "it names itself '" +
           std::string(description.name, strnlen(description.name, wire::kMaxNameLength)) + "'";
  if (description.channels != 1 && description.channels != 3 && description.channels != 4)
    return std::to_string(description.channels) + " channels";
  if (!valid_dtype(description.dtype)) return "dtype " + std::to_string(description.dtype);
  if (description.memory > static_cast<uint8_t>(SlotMemory::Device))
    return "memory kind " + std::to_string(description.memory);
  if (description.width == 0 || description.height == 0) return "an empty frame";
  const FrameFormat format = format_of(description);
  if (description.pitch < format.row_bytes())
    return "pitch " + std::to_string(description.pitch) + " under a row's " +
           std::to_string(format.row_bytes()) + " bytes";
  if (description.slot_count == 0 || description.slot_count > wire::kMaxSlots)
    return std::to_string(description.slot_count) + " slots";
  if (description.slot_size / description.pitch < description.height)
    return "slot size " + std::to_string(description.slot_size) + " under a frame's " +
           std::to_string(description.pitch * description.height) + " bytes";
  if (description.viewer_bit >= wire::kMaxViewers)
    return "viewer bit " + std::to_string(description.viewer_bit);
  return "";
}

}  // namespace

// ---- names, formats, places ------------------------------------------------------------------------------

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::UInt8:
      return "uint8";
    case DType::UInt16:
      return "uint16";
    case DType::Int32:
      return "int32";
    case DType::Float16:
      return "float16";
    case DType::Float32:
      return "float32";
  }
  return "unknown";
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::UInt8:
      return 1;
    case DType::UInt16:
    case DType::Float16:
      return 2;
    case DType::Int32:
    case DType::Float32:
      return 4;
  }
  return 0;
}

const char* to_string(SlotMemory memory) {
  return memory == SlotMemory::Device ? "device" : "host";
}

std::string to_string(const DeviceUuid& uuid) {
  std::string text = "GPU-";
  char byte[3];
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    std::snprintf(byte, sizeof(byte), "%02x", uuid[i]);
    text += byte;
  }
  return text;
}

std::string validate_publication_name(const std::string& name) {
  if (name.empty()) return "the publication name is empty: use letters, digits, '-', '_' and '.'";
  if (name.size() > wire::kMaxNameLength)
    return "the publication name '" + name + "' has " + std::to_string(name.size()) +
           " characters: at most " + std::to_string(wire::kMaxNameLength);
  for (const char c : name) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                         c == '-' || c == '_' || c == '.';
    if (!allowed)
      return "the publication name '" + name + "' holds '" + std::string(1, c) +
             "': use letters, digits, '-', '_' and '.'";
  }
  return "";
}

std::string validate(const PublisherDesc& desc) {
  const std::string name_problem = validate_publication_name(desc.name);
  if (!name_problem.empty()) return "PublisherDesc.name: " + name_problem;
  const FrameFormat& format = desc.format;
  if (format.width == 0 || format.height == 0)
    return "PublisherDesc.format is " + std::to_string(format.width) + "x" + std::to_string(format.height) +
           ": width and height must be at least 1";
  if (format.channels != 1 && format.channels != 3 && format.channels != 4)
    return "PublisherDesc.format.channels is " + std::to_string(format.channels) + ": use 1, 3 or 4";
  if (!valid_dtype(static_cast<uint8_t>(format.dtype))) return "PublisherDesc.format.dtype is not a DType";
  if (format.pitch != 0 && format.pitch < format.row_bytes())
    return "PublisherDesc.format.pitch " + std::to_string(format.pitch) + " is under a row's " +
           std::to_string(format.row_bytes()) + " bytes: use 0 (packed) or at least that";
  if (format.pitch_or_packed() > (size_t{1} << 40) / format.height)
    return "PublisherDesc.format: a frame of " + std::to_string(format.width) + "x" +
           std::to_string(format.height) + " is too large";
  if (desc.slot_count == 0 || desc.slot_count > wire::kMaxSlots)
    return "PublisherDesc.slot_count is " + std::to_string(desc.slot_count) + ": use 1 to " +
           std::to_string(wire::kMaxSlots);
  if (desc.memory != SlotMemory::Host && desc.memory != SlotMemory::Device)
    return "PublisherDesc.memory is not a SlotMemory";
  if (desc.device < -1)
    return "PublisherDesc.device is " + std::to_string(desc.device) + ": -1 is the current";
  return "";
}

std::string default_publication_directory() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (runtime && *runtime) return std::string(runtime) + "/interop-lab";
  return "/tmp/interop-lab-" + std::to_string(::geteuid());
}

namespace {

std::string directory_or_default(const std::string& directory) {
  return directory.empty() ? default_publication_directory() : directory;
}

}  // namespace

// ---- Publisher -------------------------------------------------------------------------------------------

struct Publisher::State {
  enum class Phase { Idle, Writing, Waiting };  // Waiting: a device slot's event is not reached yet

  struct SlotRecord {
    Phase phase = Phase::Idle;
    uint64_t tag = 0;  // the frame it holds (0: none)
    uint64_t frame_index = 0;
    uint32_t unreleased = 0;  // bits of the viewers that were told and have not released it
    void* data = nullptr;
    FileDescriptor host_fd;    // Host: the memfd
    FileDescriptor viewer_fd;  // what viewers get (Host: a read-only copy; Device: the exported FD)
    Mapping host_mapping;
    ExportableAllocation device_allocation;
    cudaEvent_t event = nullptr;
  };
  struct Viewer {
    FileDescriptor fd;
    uint32_t bit = 0;
  };
  struct Connection {
    FileDescriptor fd;
    std::chrono::steady_clock::time_point accepted;
    std::string refusal;  // refused once it has spoken (so that it reads why)
  };

  PublisherDesc desc;
  FrameFormat format;  // pitch resolved
  size_t slot_size = 0;
  std::string directory, socket_path, pid_path, notice;
  DeviceUuid device_uuid{};
  int device = -1;

  FileDescriptor lock_fd, listen_fd, wake_read, wake_write, control_fd;
  Mapping control;
  std::vector<SlotRecord> slots;

  mutable std::mutex mutex;  // everything below, and the slots' bookkeeping
  std::vector<Viewer> viewers;
  std::vector<Connection> connections;
  uint64_t next_tag = 1;
  int latest_slot = -1;
  uint64_t published = 0, dropped = 0;
  std::chrono::steady_clock::time_point window_start = std::chrono::steady_clock::now();
  uint64_t window_frames = 0;
  double frames_per_second = 0;

  std::condition_variable waiter_wake;
  std::deque<std::pair<int, uint64_t>> waiting;  // device slots whose events the waiter thread waits for
  bool stopping = false;
  std::thread socket_thread, waiter_thread;

  std::atomic<uint64_t>* words() const { return control_words(control); }

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    waiter_wake.notify_all();
    if (wake_write) {
      const char byte = 1;
      (void)!::write(wake_write.get(), &byte, 1);
    }
    if (socket_thread.joinable()) socket_thread.join();
    if (waiter_thread.joinable()) waiter_thread.join();
    viewers.clear();
    connections.clear();
    if (listen_fd) ::unlink(socket_path.c_str());
    if (lock_fd) ::unlink(pid_path.c_str());  // still locked: a newcomer either sees our pid or a new file
    for (SlotRecord& slot : slots)
      if (slot.event) INTEROP_CUDA_REPORT(cudaEventDestroy(slot.event));
  }

  void take_lock() {
    for (int attempt = 0; attempt < 3; ++attempt) {
      lock_fd = FileDescriptor(::open(pid_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
      if (!lock_fd) INTEROP_PUBLISH_FAIL("open(" + pid_path + ")", errno_text(errno), "", errno);
      if (::flock(lock_fd.get(), LOCK_EX | LOCK_NB) != 0) {
        const int holder = read_pid_file(lock_fd.get());
        lock_fd = FileDescriptor();  // not ours: the destructor must not remove the holder's file
        INTEROP_PUBLISH_FAIL(
            "Publisher(\"" + desc.name + "\")",
            "the name is published by pid " + std::to_string(holder) + " (" + socket_path + ")",
            "choose another name, or stop that publisher");
      }
      // The file may have been unlinked by a publisher that exited between our open and flock.
      struct stat opened = {}, named = {};
      if (::fstat(lock_fd.get(), &opened) == 0 && ::stat(pid_path.c_str(), &named) == 0 &&
          opened.st_ino == named.st_ino && opened.st_dev == named.st_dev)
        return;
      lock_fd = FileDescriptor();
    }
    INTEROP_PUBLISH_FAIL("Publisher(\"" + desc.name + "\")", "the lock file " + pid_path + " keeps changing",
                         "another publisher of that name starts and stops: try again");
  }

  void listen_on_socket() {
    const int previous_pid = read_pid_file(lock_fd.get());
    const std::string pid_text = std::to_string(::getpid()) + "\n";
    if (::ftruncate(lock_fd.get(), 0) != 0 ||
        ::pwrite(lock_fd.get(), pid_text.data(), pid_text.size(), 0) != static_cast<ssize_t>(pid_text.size()))
      INTEROP_PUBLISH_FAIL("write(" + pid_path + ")", errno_text(errno), "", errno);

    const sockaddr_un address = socket_address(socket_path);
    struct stat existing = {};
    if (::lstat(socket_path.c_str(), &existing) == 0) {
      // We hold the lock, so whoever made this socket is gone; a connect that is refused confirms it.
      FileDescriptor probe(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
      const bool answered =
          probe && ::connect(probe.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
      if (answered)
        INTEROP_PUBLISH_FAIL("Publisher(\"" + desc.name + "\")",
                             "a process listens on " + socket_path + " without the lock " + pid_path,
                             "stop the program that made it");
      notice = "took over the stale socket " + socket_path + " of a publisher that is gone" +
               (previous_pid > 0 ? " (pid " + std::to_string(previous_pid) + ")" : "");
      ::unlink(socket_path.c_str());
    }
    listen_fd = FileDescriptor(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!listen_fd) INTEROP_PUBLISH_FAIL("socket(AF_UNIX, SOCK_SEQPACKET)", errno_text(errno), "", errno);
    if (::bind(listen_fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      const int error = errno;
      listen_fd = FileDescriptor();
      INTEROP_PUBLISH_FAIL("bind(" + socket_path + ")", errno_text(error), "", error);
    }
    if (::chmod(socket_path.c_str(), 0600) != 0 || ::listen(listen_fd.get(), 32) != 0)
      INTEROP_PUBLISH_FAIL("listen(" + socket_path + ")", errno_text(errno), "", errno);
  }

  void make_slots() {
    control_fd = make_memfd("interop-lab:" + desc.name + ":control", wire::kControlPageSize);
    control = map_fd(control_fd.get(), wire::kControlPageSize, PROT_READ | PROT_WRITE, "control page");
    for (uint32_t i = 0; i < desc.slot_count; ++i) new (&words()[i]) std::atomic<uint64_t>(0);

    const size_t frame_bytes = format.pitch * format.height;
    slots.resize(desc.slot_count);
    if (desc.memory == SlotMemory::Host) {
      slot_size = round_up(frame_bytes, static_cast<size_t>(::sysconf(_SC_PAGESIZE)));
      for (uint32_t i = 0; i < desc.slot_count; ++i) {
        SlotRecord& slot = slots[i];
        slot.host_fd = make_memfd("interop-lab:" + desc.name + ":slot" + std::to_string(i), slot_size);
        slot.host_mapping = map_fd(slot.host_fd.get(), slot_size, PROT_READ | PROT_WRITE, "slot");
        slot.data = slot.host_mapping.data();
        slot.viewer_fd = read_only_copy(slot.host_fd.get());
        if (!slot.viewer_fd)
          INTEROP_PUBLISH_FAIL("open(slot " + std::to_string(i) + ", O_RDONLY)", errno_text(errno), "",
                               errno);
      }
      return;
    }
    device = desc.device;
    if (device < 0) INTEROP_CUDA_CHECK(cudaGetDevice(&device));
    int current = 0;
    INTEROP_CUDA_CHECK(cudaGetDevice(&current));
    INTEROP_CUDA_CHECK(cudaSetDevice(device));
    cudaDeviceProp properties = {};
    INTEROP_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
    device_uuid = uuid_of(reinterpret_cast<const uint8_t*>(properties.uuid.bytes));
    for (uint32_t i = 0; i < desc.slot_count; ++i) {
      SlotRecord& slot = slots[i];
      ExportableAllocationDesc allocation;
      allocation.size = frame_bytes;
      allocation.device = device;
      slot.device_allocation = ExportableAllocation(allocation);
      slot.data = slot.device_allocation.data();
      slot.viewer_fd = slot.device_allocation.export_fd();
      INTEROP_CUDA_CHECK(cudaEventCreateWithFlags(&slot.event, cudaEventDisableTiming));
    }
    slot_size = slots[0].device_allocation.allocation_size();
    INTEROP_CUDA_CHECK(cudaSetDevice(current));
  }

  wire::Description description(wire::MessageType type, uint32_t viewer_bit) const {
    wire::Description hello;
    hello.header.type = type;
    std::snprintf(hello.name, sizeof(hello.name), "%s", desc.name.c_str());
    hello.channels = static_cast<uint8_t>(format.channels);
    hello.dtype = static_cast<uint8_t>(format.dtype);
    hello.memory = static_cast<uint8_t>(desc.memory);
    hello.viewer_bit = static_cast<uint8_t>(viewer_bit);
    std::copy(device_uuid.begin(), device_uuid.end(), hello.device_uuid);
    hello.width = format.width;
    hello.height = format.height;
    hello.pitch = format.pitch;
    hello.slot_size = slot_size;
    hello.slot_count = desc.slot_count;
    hello.publisher_pid = ::getpid();
    return hello;
  }

  // Takes slot `index` back from the viewers unless one reads it: its tag is cleared, so no viewer can
  // claim it any more. Under the mutex.
  bool take_back(size_t index) {
    uint64_t word = words()[index].load(std::memory_order_acquire);
    if ((word & wire::kReaderMask) != 0) return false;
    if (!words()[index].compare_exchange_strong(word, 0, std::memory_order_acq_rel)) return false;
    slots[index].unreleased = 0;
    slots[index].tag = 0;
    if (latest_slot == static_cast<int>(index)) latest_slot = -1;
    return true;
  }

  // Tells every viewer that `index` holds `frame_index`. Under the mutex.
  void announce(size_t index, uint64_t frame_index) {
    SlotRecord& slot = slots[index];
    slot.phase = Phase::Idle;
    slot.tag = next_tag++;
    slot.frame_index = frame_index;
    slot.unreleased = 0;
    words()[index].store(wire::control_word(slot.tag, 0), std::memory_order_release);
    latest_slot = static_cast<int>(index);
    for (const Viewer& viewer : viewers) tell(viewer, index);
    ++published;
    ++window_frames;
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - window_start).count();
    if (seconds >= 1.0) {
      frames_per_second = window_frames / seconds;
      window_frames = 0;
      window_start = now;
    }
  }

  void tell(const Viewer& viewer, size_t index) {
    SlotRecord& slot = slots[index];
    wire::FrameMessage message;
    message.slot = static_cast<uint32_t>(index);
    message.frame_index = slot.frame_index;
    message.tag = slot.tag;
    if (send_message(viewer.fd.get(), &message, sizeof(message))) slot.unreleased |= 1u << viewer.bit;
  }

  void drop_viewer(size_t position) {
    const uint32_t bit = 1u << viewers[position].bit;
    for (size_t i = 0; i < slots.size(); ++i) {
      words()[i].fetch_and(~uint64_t{bit}, std::memory_order_acq_rel);
      slots[i].unreleased &= ~bit;
    }
    viewers.erase(viewers.begin() + static_cast<std::ptrdiff_t>(position));
  }

  // ---- the socket thread ----

  void accept_connections() {
    for (;;) {
      FileDescriptor fd(::accept4(listen_fd.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
      if (!fd) return;  // EAGAIN, or a connection that went away
      const uid_t uid = peer_uid(fd.get());
      std::string refusal;
      if (uid != ::geteuid())
        refusal = "publisher '" + desc.name + "' belongs to uid " + std::to_string(::geteuid()) +
                  "; a viewer of uid " + std::to_string(uid) + " is refused";
      std::lock_guard<std::mutex> lock(mutex);
      if (connections.size() >= kMaxPendingConnections) {
        send_refusal(fd.get(), refusal.empty() ? "publisher '" + desc.name +
                                                     "' has too many connections that said nothing"
                                               : refusal);
        continue;
      }
      connections.push_back({std::move(fd), std::chrono::steady_clock::now(), std::move(refusal)});
    }
  }

  // The first message of a connection: Attach or Query. Under the mutex.
  void answer_request(Connection connection) {
    const FileDescriptor& fd = connection.fd;
    const Received received = receive_message(fd.get(), MSG_DONTWAIT);
    if (received.size < 0 && received.error == EAGAIN) return connections.push_back(std::move(connection));
    if (received.size <= 0) return;
    if (!connection.refusal.empty()) return send_refusal(fd.get(), connection.refusal);
    const std::string refused = "publisher '" + desc.name + "' refuses: ";
    if (!received.fds.empty()) return send_refusal(fd.get(), refused + "a viewer sends no file descriptors");
    const wire::MessageHeader* header = received.header();
    if (!header || header->magic != wire::kMagic)
      return send_refusal(fd.get(), refused + "not an interop-lab request");
    if (header->version != wire::kVersion)
      return send_refusal(fd.get(), "publisher '" + desc.name + "' speaks protocol version " +
                                        std::to_string(wire::kVersion) + "; this viewer speaks version " +
                                        std::to_string(header->version));
    if (received.truncated || received.size != sizeof(wire::MessageHeader))
      return send_refusal(fd.get(), refused + "a request of " + std::to_string(received.size) + " bytes");
    if (header->type == wire::MessageType::Query) {
      wire::Description info = description(wire::MessageType::Info, 0);
      info.frames_published = published;
      info.frames_dropped = dropped;
      info.viewers = static_cast<uint32_t>(viewers.size());
      info.frames_per_second = current_fps();
      send_message(fd.get(), &info, sizeof(info));
      return;
    }
    if (header->type != wire::MessageType::Attach)
      return send_refusal(fd.get(), refused + "the first message must be Attach or Query");
    if (viewers.size() >= wire::kMaxViewers)
      return send_refusal(fd.get(), "publisher '" + desc.name + "' has " + std::to_string(wire::kMaxViewers) +
                                        " viewers, the most it takes");
    uint32_t taken = 0;
    for (const Viewer& viewer : viewers) taken |= 1u << viewer.bit;
    uint32_t bit = 0;
    while (taken & (1u << bit)) ++bit;
    const wire::Description hello = description(wire::MessageType::Hello, bit);
    std::vector<int> fds{control_fd.get()};
    for (const SlotRecord& slot : slots) fds.push_back(slot.viewer_fd.get());
    if (!send_message(fd.get(), &hello, sizeof(hello), fds.data(), fds.size())) return;
    viewers.push_back({std::move(connection.fd), bit});
    // A viewer that arrives between frames sees the newest one at once.
    if (latest_slot >= 0 && slots[static_cast<size_t>(latest_slot)].tag != 0)
      tell(viewers.back(), static_cast<size_t>(latest_slot));
  }

  // A message from an attached viewer: false when the viewer must go. Under the mutex.
  bool take_viewer_message(Viewer& viewer) {
    for (;;) {
      const Received received = receive_message(viewer.fd.get(), MSG_DONTWAIT);
      if (received.size < 0 && received.error == EAGAIN) return true;
      if (received.size <= 0) return false;
      const std::string refused = "publisher '" + desc.name + "' refuses: ";
      if (!received.fds.empty()) {
        send_refusal(viewer.fd.get(), refused + "a viewer sends no file descriptors");
        return false;
      }
      const wire::MessageHeader* header = received.header();
      if (received.truncated || received.size != sizeof(wire::ReleaseMessage) || !header ||
          header->magic != wire::kMagic || header->version != wire::kVersion ||
          header->type != wire::MessageType::Release) {
        send_refusal(viewer.fd.get(), refused + "expected a release message");
        return false;
      }
      wire::ReleaseMessage release;
      std::memcpy(&release, received.bytes, sizeof(release));
      if (release.slot >= slots.size()) {
        send_refusal(viewer.fd.get(), refused + "no slot " + std::to_string(release.slot));
        return false;
      }
      const uint32_t bit = 1u << viewer.bit;
      words()[release.slot].fetch_and(~uint64_t{bit}, std::memory_order_acq_rel);
      if (slots[release.slot].tag == release.tag) slots[release.slot].unreleased &= ~bit;
    }
  }

  double current_fps() const {
    const double idle =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - window_start).count();
    return idle > 2.0 ? 0.0 : frames_per_second;
  }

  void serve() {
    std::vector<pollfd> polled;
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (stopping) return;
        polled.clear();
        polled.push_back({wake_read.get(), POLLIN, 0});
        polled.push_back({listen_fd.get(), POLLIN, 0});
        for (const Connection& connection : connections) polled.push_back({connection.fd.get(), POLLIN, 0});
        for (const Viewer& viewer : viewers) polled.push_back({viewer.fd.get(), POLLIN, 0});
      }
      if (::poll(polled.data(), polled.size(), 250) < 0 && errno != EINTR) return;
      if (polled[0].revents) {
        char bytes[16];
        while (::read(wake_read.get(), bytes, sizeof(bytes)) > 0) {
        }
      }
      if (polled[1].revents & POLLIN) accept_connections();

      std::lock_guard<std::mutex> lock(mutex);
      if (stopping) return;
      const auto now = std::chrono::steady_clock::now();
      // Answer the connections that spoke; close the ones that said nothing for too long.
      std::vector<Connection> asked;
      for (auto it = connections.begin(); it != connections.end();) {
        const bool ready = std::any_of(polled.begin() + 2, polled.end(), [&](const pollfd& entry) {
          return entry.fd == it->fd.get() && entry.revents != 0;
        });
        if (ready) {
          asked.push_back(std::move(*it));
          it = connections.erase(it);
        } else if (now - it->accepted > kRequestTimeout) {
          it = connections.erase(it);
        } else {
          ++it;
        }
      }
      for (Connection& connection : asked) answer_request(std::move(connection));
      for (size_t i = viewers.size(); i-- > 0;) {
        const bool ready = std::any_of(polled.begin() + 2, polled.end(), [&](const pollfd& entry) {
          return entry.fd == viewers[i].fd.get() && entry.revents != 0;
        });
        if (ready && !take_viewer_message(viewers[i])) drop_viewer(i);
      }
    }
  }

  // ---- the device slots' waiter thread ----

  void wait_for_events() {
    if (device >= 0) INTEROP_CUDA_REPORT(cudaSetDevice(device));
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      waiter_wake.wait(lock, [&] { return stopping || !waiting.empty(); });
      if (waiting.empty()) return;  // stopping, and nothing left to announce
      const auto [index, frame_index] = waiting.front();
      waiting.pop_front();
      lock.unlock();
      INTEROP_CUDA_REPORT(cudaEventSynchronize(slots[static_cast<size_t>(index)].event));
      lock.lock();
      announce(static_cast<size_t>(index), frame_index);
    }
  }
};

Publisher::Publisher(const PublisherDesc& desc) : m_state(std::make_unique<State>()) {
  State& state = *m_state;
  const std::string problem = validate(desc);
  if (!problem.empty()) detail::throw_invalid_desc("Publisher(desc)", problem, __FILE__, __LINE__);
  state.desc = desc;
  state.format = desc.format;
  state.format.pitch = desc.format.pitch_or_packed();
  state.directory = directory_or_default(desc.directory);
  ensure_directory(state.directory, true);
  state.socket_path = state.directory + "/" + desc.name + ".sock";
  state.pid_path = state.directory + "/" + desc.name + ".pid";
  socket_address(state.socket_path);  // refuses a path too long before anything is made
  state.take_lock();
  state.make_slots();
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) INTEROP_PUBLISH_FAIL("pipe2", errno_text(errno), "", errno);
  state.wake_read = FileDescriptor(wake[0]);
  state.wake_write = FileDescriptor(wake[1]);
  state.listen_on_socket();
  state.socket_thread = std::thread([&state] { state.serve(); });
  if (desc.memory == SlotMemory::Device)
    state.waiter_thread = std::thread([&state] { state.wait_for_events(); });
}

Publisher::~Publisher() = default;

Publisher::Slot Publisher::acquire() {
  State& state = *m_state;
  std::lock_guard<std::mutex> lock(state.mutex);
  // A slot nobody needs, the oldest frame first (the newest stays for a viewer that attaches now); else
  // the oldest frame no viewer has begun to read, counted as dropped.
  std::vector<size_t> order;
  for (size_t i = 0; i < state.slots.size(); ++i)
    if (state.slots[i].phase == State::Phase::Idle) order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return state.slots[a].tag < state.slots[b].tag; });
  for (const bool unread_too : {false, true}) {
    for (const size_t i : order) {
      State::SlotRecord& slot = state.slots[i];
      const bool unread = slot.unreleased != 0;
      if (unread != unread_too || !state.take_back(i)) continue;
      if (unread) ++state.dropped;
      slot.phase = State::Phase::Writing;
      return Slot{static_cast<int>(i), slot.data, state.slot_size};
    }
  }
  ++state.dropped;  // every slot is being written or read: this frame is not shown
  return Slot{};
}

void Publisher::publish(const Slot& slot, uint64_t frame_index, cudaStream_t stream) {
  State& state = *m_state;
  if (!slot) return;  // acquire() found nothing free; the frame was counted as dropped
  const size_t index = static_cast<size_t>(slot.index);
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (index >= state.slots.size() || state.slots[index].phase != State::Phase::Writing)
      detail::throw_invalid_desc(
          "Publisher::publish",
          "slot " + std::to_string(slot.index) + " is not one acquire() gave and publish() did not take yet",
          __FILE__, __LINE__);
    if (state.desc.memory == SlotMemory::Host) return state.announce(index, frame_index);
    state.slots[index].phase = State::Phase::Waiting;
  }
  const cudaError_t recorded = cudaEventRecord(state.slots[index].event, stream);
  std::lock_guard<std::mutex> lock(state.mutex);
  if (recorded != cudaSuccess) {
    state.slots[index].phase = State::Phase::Writing;  // the caller may publish it again
    detail::throw_cuda_error(recorded, "cudaEventRecord(slot event, stream)", __FILE__, __LINE__);
  }
  state.waiting.emplace_back(slot.index, frame_index);
  state.waiter_wake.notify_one();
}

void Publisher::discard(const Slot& slot) {
  State& state = *m_state;
  if (!slot) return;
  std::lock_guard<std::mutex> lock(state.mutex);
  const size_t index = static_cast<size_t>(slot.index);
  if (index >= state.slots.size() || state.slots[index].phase != State::Phase::Writing)
    detail::throw_invalid_desc(
        "Publisher::discard",
        "slot " + std::to_string(slot.index) + " is not one acquire() gave and publish() did not take yet",
        __FILE__, __LINE__);
  state.slots[index].phase = State::Phase::Idle;  // take_back() cleared its tag: it holds no frame
}

PublisherStats Publisher::stats() const {
  std::lock_guard<std::mutex> lock(m_state->mutex);
  PublisherStats stats;
  stats.frames_published = m_state->published;
  stats.frames_dropped = m_state->dropped;
  stats.viewers = static_cast<uint32_t>(m_state->viewers.size());
  stats.frames_per_second = m_state->current_fps();
  return stats;
}

const FrameFormat& Publisher::format() const {
  return m_state->format;
}
const std::string& Publisher::name() const {
  return m_state->desc.name;
}
std::string Publisher::socket_path() const {
  return m_state->socket_path;
}
size_t Publisher::slot_size() const {
  return m_state->slot_size;
}
std::string Publisher::notice() const {
  return m_state->notice;
}

// ---- Subscriber ------------------------------------------------------------------------------------------

struct Subscriber::State {
  std::string name;
  SubscriberDesc desc;
  std::string socket_path;
  FileDescriptor socket;
  FileDescriptor control_fd;
  Mapping control;
  std::vector<FileDescriptor> slot_fds;
  std::vector<Mapping> slot_mappings;
  std::vector<SlotHandle> handles;
  wire::Description hello;
  FrameFormat format;
  Status status = Status::PublisherGone;
  std::string gone_reason;
  std::optional<wire::FrameMessage> held;  // claimed by next(), not released yet
  uint64_t skipped = 0;

  std::atomic<uint64_t>* words() const { return control_words(control); }
  uint64_t bit() const { return uint64_t{1} << hello.viewer_bit; }

  void detach() {
    socket = FileDescriptor();
    handles.clear();
    slot_mappings.clear();
    slot_fds.clear();
    control = Mapping();
    control_fd = FileDescriptor();
    held.reset();
  }

  void attach() {
    detach();
    const std::string call = "Subscriber(\"" + name + "\")";
    const std::string problem = validate_publication_name(name);
    if (!problem.empty()) detail::throw_invalid_desc(call.c_str(), problem, __FILE__, __LINE__);
    const std::string directory = directory_or_default(desc.directory);
    socket_path = directory + "/" + name + ".sock";
    const sockaddr_un address = socket_address(socket_path);
    struct stat info = {};
    if (::lstat(socket_path.c_str(), &info) != 0)
      INTEROP_PUBLISH_FAIL(call, "nothing is published by that name (no " + socket_path + ")",
                           "start the publisher first");
    ensure_directory(directory, false);

    FileDescriptor fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    if (!fd) INTEROP_PUBLISH_FAIL("socket(AF_UNIX, SOCK_SEQPACKET)", errno_text(errno), "", errno);
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      const int error = errno;
      if (error == ECONNREFUSED)
        INTEROP_PUBLISH_FAIL(call, "its publisher is gone (" + socket_path + " is left from it)",
                             "start the publisher again", error);
      INTEROP_PUBLISH_FAIL("connect(" + socket_path + ")", errno_text(error), "", error);
    }
    const uid_t uid = peer_uid(fd.get());
    if (uid != ::geteuid())
      INTEROP_PUBLISH_FAIL(call,
                           "the publisher runs as uid " + std::to_string(uid) + ", not as this user (uid " +
                               std::to_string(::geteuid()) + ")",
                           "a viewer attaches to its own user's publishers only");
    const wire::MessageHeader request{wire::kMagic, wire::kVersion, wire::MessageType::Attach};
    // A publisher that refuses at once (another user, too many viewers) may have closed before the request
    // went out: its refusal is read all the same.
    const bool sent = send_message(fd.get(), &request, sizeof(request));
    const int send_error = errno;

    pollfd polled{fd.get(), POLLIN, 0};
    const int waited = ::poll(&polled, 1, static_cast<int>(std::chrono::milliseconds(kHelloTimeout).count()));
    if (waited <= 0)
      INTEROP_PUBLISH_FAIL(call, "the publisher sent no hello in time", "is the publisher stuck?");
    Received received = receive_message(fd.get(), MSG_DONTWAIT);
    if (received.size <= 0 && !sent)
      INTEROP_PUBLISH_FAIL("send(" + socket_path + ")", errno_text(send_error), "", send_error);
    if (received.size <= 0)
      INTEROP_PUBLISH_FAIL(call, "the publisher closed the connection before its hello", "");
    const wire::MessageHeader* header = received.header();
    if (!header || header->magic != wire::kMagic)
      INTEROP_PUBLISH_FAIL(call, "the publisher's hello is no interop-lab message", "");
    if (header->type == wire::MessageType::Refusal) {
      wire::RefusalMessage refusal;
      std::memcpy(&refusal, received.bytes, std::min(sizeof(refusal), static_cast<size_t>(received.size)));
      refusal.text[sizeof(refusal.text) - 1] = '\0';
      INTEROP_PUBLISH_FAIL(call, std::string("refused: ") + refusal.text, "");
    }
    if (header->version != wire::kVersion)
      INTEROP_PUBLISH_FAIL(call,
                           "the publisher speaks protocol version " + std::to_string(header->version) +
                               "; this library speaks version " + std::to_string(wire::kVersion),
                           "use the same interop-lab version on both sides");
    if (header->type != wire::MessageType::Hello || received.truncated ||
        received.size != static_cast<ssize_t>(sizeof(wire::Description)))
      INTEROP_PUBLISH_FAIL(call,
                           "the publisher's hello has " + std::to_string(received.size) + " bytes, not " +
                               std::to_string(sizeof(wire::Description)),
                           "");
    wire::Description description;
    std::memcpy(&description, received.bytes, sizeof(description));
    const std::string wrong = check_description(description, name);
    if (!wrong.empty()) INTEROP_PUBLISH_FAIL(call, "the publisher's hello is malformed: " + wrong, "");
    if (received.fds.size() != description.slot_count + 1)
      INTEROP_PUBLISH_FAIL(call,
                           "the publisher sent " + std::to_string(received.fds.size()) + " descriptors for " +
                               std::to_string(description.slot_count) + " slots and the control page",
                           "");
    const SlotMemory memory = static_cast<SlotMemory>(description.memory);
    const DeviceUuid uuid = uuid_of(description.device_uuid);
    if (memory == SlotMemory::Device && desc.expected_device && *desc.expected_device != uuid)
      INTEROP_PUBLISH_FAIL(call,
                           "its frames are on " + to_string(uuid) + ", this viewer's device is " +
                               to_string(*desc.expected_device),
                           "device memory is imported on its own GPU only: view on that GPU");

    auto fd_size = [](int slot_fd) {
      struct stat slot_info = {};
      return ::fstat(slot_fd, &slot_info) == 0 ? static_cast<size_t>(slot_info.st_size) : 0;
    };
    if (fd_size(received.fds[0].get()) < wire::kControlPageSize)
      INTEROP_PUBLISH_FAIL(
          call, "the publisher's control page is smaller than " + std::to_string(wire::kControlPageSize), "");
    control = map_fd(received.fds[0].get(), wire::kControlPageSize, PROT_READ | PROT_WRITE, "control page");
    control_fd = std::move(received.fds[0]);
    for (size_t i = 1; i < received.fds.size(); ++i) {
      SlotHandle handle;
      handle.fd = received.fds[i].get();
      handle.size = description.slot_size;
      if (memory == SlotMemory::Host) {
        if (fd_size(handle.fd) < description.slot_size)
          INTEROP_PUBLISH_FAIL(call,
                               "slot " + std::to_string(i - 1) + " holds " +
                                   std::to_string(fd_size(handle.fd)) + " bytes, not the " +
                                   std::to_string(description.slot_size) + " its hello says",
                               "");
        slot_mappings.push_back(map_fd(handle.fd, description.slot_size, PROT_READ, "slot"));
        handle.data = slot_mappings.back().data();
      }
      handles.push_back(handle);
      slot_fds.push_back(std::move(received.fds[i]));
    }
    hello = description;
    format = format_of(description);
    socket = std::move(fd);
    status = Status::Attached;
    gone_reason.clear();
  }

  void gone(const std::string& reason) {
    if (status == Status::PublisherGone) return;
    status = Status::PublisherGone;
    gone_reason = reason;
    socket = FileDescriptor();  // the slots stay mapped: the last frame can still be shown
  }

  void send_release(const wire::FrameMessage& frame) {
    wire::ReleaseMessage release;
    release.slot = frame.slot;
    release.tag = frame.tag;
    if (socket) send_message(socket.get(), &release, sizeof(release));
  }

  void release_held() {
    if (!held) return;
    if (control.data()) words()[held->slot].fetch_and(~bit(), std::memory_order_acq_rel);
    send_release(*held);
    held.reset();
  }

  // Reads what the publisher sent so far; the newest frame announcement stays in `newest`, older ones are
  // given back unread.
  void drain(std::optional<wire::FrameMessage>& newest) {
    while (socket) {
      const Received received = receive_message(socket.get(), MSG_DONTWAIT);
      if (received.size < 0 && received.error == EAGAIN) return;
      if (received.size <= 0) return gone("publisher '" + name + "' is gone (its connection closed)");
      const wire::MessageHeader* header = received.header();
      if (!header || header->magic != wire::kMagic || header->version != wire::kVersion)
        return gone("publisher '" + name + "' sent a message that is not its protocol's");
      if (header->type == wire::MessageType::Refusal) {
        wire::RefusalMessage refusal;
        std::memcpy(&refusal, received.bytes, std::min(sizeof(refusal), static_cast<size_t>(received.size)));
        refusal.text[sizeof(refusal.text) - 1] = '\0';
        return gone(refusal.text);
      }
      if (header->type != wire::MessageType::Frame || received.size != sizeof(wire::FrameMessage)) continue;
      wire::FrameMessage frame;
      std::memcpy(&frame, received.bytes, sizeof(frame));
      if (frame.slot >= handles.size()) continue;
      if (newest) {
        ++skipped;
        send_release(*newest);
      }
      newest = frame;
    }
  }
};

Subscriber::Subscriber(const std::string& name, const SubscriberDesc& desc)
    : m_state(std::make_unique<State>()) {
  m_state->name = name;
  m_state->desc = desc;
  m_state->attach();
}

Subscriber::~Subscriber() = default;

std::optional<Subscriber::Frame> Subscriber::next(std::chrono::milliseconds timeout) {
  State& state = *m_state;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::optional<wire::FrameMessage> newest;
  for (;;) {
    state.drain(newest);
    if (newest) {
      // Claim it: set our reader bit while the slot still holds that frame.
      std::atomic<uint64_t>& word = state.words()[newest->slot];
      uint64_t seen = word.load(std::memory_order_acquire);
      bool claimed = false;
      while (wire::control_tag(seen) == newest->tag) {
        if (word.compare_exchange_weak(seen, seen | state.bit(), std::memory_order_acq_rel)) {
          claimed = true;
          break;
        }
      }
      if (claimed) {
        state.release_held();  // only now: with nothing newer, the frame shown stays claimed
        state.held = newest;
        Frame frame;
        frame.index = newest->frame_index;
        frame.slot = static_cast<int>(newest->slot);
        frame.data = state.handles[newest->slot].data;
        return frame;
      }
      ++state.skipped;  // the publisher took it back before we came to it
      state.send_release(*newest);
      newest.reset();
    }
    if (state.status != Status::Attached) return std::nullopt;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd polled{state.socket.get(), POLLIN, 0};
    ::poll(&polled, 1, static_cast<int>(left.count()));
  }
}

void Subscriber::release(int slot) {
  State& state = *m_state;
  if (state.held && static_cast<int>(state.held->slot) == slot) state.release_held();
}

Subscriber::Status Subscriber::status() const {
  return m_state->status;
}
std::string Subscriber::gone_reason() const {
  return m_state->gone_reason;
}
void Subscriber::reconnect() {
  m_state->attach();
}
const std::string& Subscriber::name() const {
  return m_state->name;
}
const FrameFormat& Subscriber::format() const {
  return m_state->format;
}
SlotMemory Subscriber::memory() const {
  return static_cast<SlotMemory>(m_state->hello.memory);
}
DeviceUuid Subscriber::device_uuid() const {
  return uuid_of(m_state->hello.device_uuid);
}
int Subscriber::publisher_pid() const {
  return m_state->hello.publisher_pid;
}
const std::vector<Subscriber::SlotHandle>& Subscriber::slots() const {
  return m_state->handles;
}
uint64_t Subscriber::frames_skipped() const {
  return m_state->skipped;
}

// ---- list_published --------------------------------------------------------------------------------------

namespace {

// Asks the socket of `name` for its Info; nullopt for a stale socket or an answer that is not one.
std::optional<PublishedInfo> query(const std::string& directory, const std::string& name) {
  const std::string path = directory + "/" + name + ".sock";
  if (path.size() >= sizeof(sockaddr_un::sun_path)) return std::nullopt;
  const sockaddr_un address = socket_address(path);
  FileDescriptor fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd || ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
    return std::nullopt;
  if (peer_uid(fd.get()) != ::geteuid()) return std::nullopt;
  const wire::MessageHeader request{wire::kMagic, wire::kVersion, wire::MessageType::Query};
  if (!send_message(fd.get(), &request, sizeof(request))) return std::nullopt;
  pollfd polled{fd.get(), POLLIN, 0};
  if (::poll(&polled, 1, 1000) <= 0) return std::nullopt;
  const Received received = receive_message(fd.get(), MSG_DONTWAIT);
  const wire::MessageHeader* header = received.header();
  if (!header || header->magic != wire::kMagic || header->version != wire::kVersion ||
      header->type != wire::MessageType::Info ||
      received.size != static_cast<ssize_t>(sizeof(wire::Description)))
    return std::nullopt;
  wire::Description description;
  std::memcpy(&description, received.bytes, sizeof(description));
  description.viewer_bit = 0;
  if (!check_description(description, name).empty()) return std::nullopt;
  PublishedInfo info;
  info.name = name;
  info.format = format_of(description);
  info.memory = static_cast<SlotMemory>(description.memory);
  info.publisher_pid = description.publisher_pid;
  info.stats = stats_of(description);
  return info;
}

}  // namespace

std::vector<PublishedInfo> list_published(const std::string& directory_or_empty) {
  const std::string directory = directory_or_default(directory_or_empty);
  std::vector<PublishedInfo> published;
  DIR* listing = ::opendir(directory.c_str());
  if (!listing) return published;
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string file = entry->d_name;
    const std::string suffix = ".sock";
    if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string name = file.substr(0, file.size() - suffix.size());
    if (validate_publication_name(name).empty()) names.push_back(name);
  }
  ::closedir(listing);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names)
    if (auto info = query(directory, name)) published.push_back(std::move(*info));
  return published;
}

}  // namespace interop
