// tests/unit/test_publish.cpp — frames published to another process (interop/publish.hpp) with host-memory
// slots: two real processes (a fork()ed publisher or viewer) where a death or a second pid matters, one
// process otherwise. The round trip is pixel-exact, the newest frame wins, a discarded slot is never shown,
// deaths on either side free what they held (a publisher killed mid-frame leaves the viewer's frame whole),
// clients that lie, flood or send FDs are refused and leak nothing (/proc/self/fd counted), a stale socket
// is taken over saying so, a second publisher of a name is refused with the first one's pid, another
// protocol version is refused naming both, a viewer in another PID namespace (and in a user namespace, as
// in a rootless container) attaches. Device slots (cuMemCreate FDs) run where a CUDA device exports VMM
// memory; they skip without one, saying why, and fail instead where INTEROP_LAB_REQUIRE_GPUS says a GPU
// must be.
#include "interop/error.hpp"
#include "interop/publish.hpp"
#include "interop/publish_protocol.hpp"

#include <cuda_runtime_api.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace wire = interop::publish_protocol;
using namespace std::chrono_literals;

int open_fd_count() {
  int count = 0;
  DIR* listing = ::opendir("/proc/self/fd");
  while (const dirent* entry = ::readdir(listing))
    if (entry->d_name[0] != '.') ++count;
  ::closedir(listing);
  return count - 1;  // the listing's own
}

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 3s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// The value every test frame holds at (x, y, channel) of frame k: each byte differs from its neighbours.
uint8_t pattern(uint64_t frame, uint64_t x, uint64_t y, uint64_t channel) {
  return static_cast<uint8_t>(frame * 31 + x * 7 + y * 13 + channel * 101);
}

void fill(const interop::FrameFormat& format, void* data, uint64_t frame) {
  auto* bytes = static_cast<uint8_t*>(data);
  for (uint32_t y = 0; y < format.height; ++y)
    for (uint32_t x = 0; x < format.width; ++x)
      for (uint32_t c = 0; c < format.channels; ++c)
        bytes[y * format.pitch_or_packed() + size_t{x} * format.channels + c] = pattern(frame, x, y, c);
}

// The first pixel that differs from frame k's pattern, or "".
std::string compare(const interop::FrameFormat& format, const void* data, uint64_t frame) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (uint32_t y = 0; y < format.height; ++y)
    for (uint32_t x = 0; x < format.width; ++x)
      for (uint32_t c = 0; c < format.channels; ++c) {
        const uint8_t seen = bytes[y * format.pitch_or_packed() + size_t{x} * format.channels + c];
        if (seen != pattern(frame, x, y, c))
          return "(" + std::to_string(x) + ", " + std::to_string(y) + ") channel " + std::to_string(c) +
                 ": " + std::to_string(seen) + ", expected " + std::to_string(pattern(frame, x, y, c));
      }
  return "";
}

interop::PublisherDesc desc_of(const std::string& name, uint32_t slots = 3) {
  interop::PublisherDesc desc;
  desc.name = name;
  desc.format.width = 37;  // odd sizes and a pitch wider than a row: a wrong stride shows
  desc.format.height = 23;
  desc.format.channels = 3;
  desc.format.dtype = interop::DType::UInt8;
  desc.format.pitch = 128;
  desc.slot_count = slots;
  return desc;
}

void publish_frame(interop::Publisher& publisher, uint64_t frame) {
  const interop::Publisher::Slot slot = publisher.acquire();
  if (!slot) return;
  fill(publisher.format(), slot.data, frame);
  publisher.publish(slot, frame);
}

std::string error_text(const std::function<void()>& call) {
  try {
    call();
  } catch (const interop::Error& error) {
    return error.what();
  }
  return "no error";
}

// A child process. Its body runs without GoogleTest (its exit status is its verdict) and ends with _exit.
class Child {
 public:
  explicit Child(const std::function<int(int signal_fd)>& body) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    m_pid = ::fork();
    if (m_pid == 0) {
      ::close(fds[0]);
      int status = 3;
      try {
        status = body(fds[1]);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "child: %s\n", error.what());
      }
      ::_exit(status);
    }
    ::close(fds[1]);
    m_read = fds[0];
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
    }
    ::close(m_read);
  }
  pid_t pid() const { return m_pid; }
  // The next line the child wrote to its signal pipe (without the newline); "" when it closed it.
  std::string read_line(std::chrono::milliseconds limit = 5s) {
    std::string line;
    char c = 0;
    pollfd polled{m_read, POLLIN, 0};
    while (::poll(&polled, 1, static_cast<int>(limit.count())) > 0 && ::read(m_read, &c, 1) == 1 && c != '\n')
      line += c;
    return line;
  }
  void kill_now() {
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, nullptr, 0);
    m_pid = -1;
  }
  int wait_exit() {
    int status = 0;
    ::waitpid(m_pid, &status, 0);
    m_pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t m_pid = -1;
  int m_read = -1;
};

void say(int fd, const std::string& line) {
  const std::string text = line + "\n";
  (void)!::write(fd, text.data(), text.size());
}

// A publisher child: publishes frame 1, 2, ... every `period` until killed; first says its notice.
int run_publisher(int signal_fd, const std::string& name, std::chrono::milliseconds period = 5ms) {
  interop::Publisher publisher(desc_of(name));
  say(signal_fd, "ready " + publisher.notice());
  for (uint64_t frame = 1; frame < 100000; ++frame) {
    publish_frame(publisher, frame);
    std::this_thread::sleep_for(period);
  }
  return 0;
}

// A raw client of a publisher's socket, as a program that ignores the protocol would be.
class RawClient {
 public:
  explicit RawClient(const std::string& path) {
    m_fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", path.c_str());
    m_connected = ::connect(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;
  ~RawClient() { ::close(m_fd); }
  bool connected() const { return m_connected; }
  int fd() const { return m_fd; }
  void send(const void* data, size_t size, const std::vector<int>& fds = {}) {
    iovec io{const_cast<void*>(data), size};
    msghdr message = {};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
    if (!fds.empty()) {
      message.msg_control = control.data();
      message.msg_controllen = control.size();
      cmsghdr* header = CMSG_FIRSTHDR(&message);
      header->cmsg_level = SOL_SOCKET;
      header->cmsg_type = SCM_RIGHTS;
      header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
    }
    EXPECT_EQ(::sendmsg(m_fd, &message, MSG_NOSIGNAL), static_cast<ssize_t>(size));
  }
  // The refusal's text the publisher sent before closing, or what came instead.
  std::string refusal() {
    pollfd polled{m_fd, POLLIN, 0};
    if (::poll(&polled, 1, 3000) <= 0) return "(nothing within 3 s)";
    wire::RefusalMessage message;
    const ssize_t size = ::recv(m_fd, &message, sizeof(message), 0);
    if (size <= 0) return "(closed without a refusal)";
    if (message.header.type != wire::MessageType::Refusal)
      return "(a message of type " + std::to_string(int(message.header.type)) + ")";
    message.text[sizeof(message.text) - 1] = '\0';
    return message.text;
  }
  bool closed_by_peer() {
    pollfd polled{m_fd, POLLIN, 0};
    char byte;
    while (::poll(&polled, 1, 3000) > 0) {
      if (::recv(m_fd, &byte, 1, MSG_DONTWAIT) <= 0) return true;
    }
    return false;
  }

 private:
  int m_fd = -1;
  bool m_connected = false;
};

// Each test gets a runtime directory of its own (XDG_RUNTIME_DIR), so no test meets another's names.
class Publish : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* previous = std::getenv("XDG_RUNTIME_DIR");
    if (previous) m_previous = previous;
    char dir[] = "/tmp/publish-test-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    m_runtime = dir;
    ::setenv("XDG_RUNTIME_DIR", dir, 1);
  }
  void TearDown() override {
    if (m_previous)
      ::setenv("XDG_RUNTIME_DIR", m_previous->c_str(), 1);
    else
      ::unsetenv("XDG_RUNTIME_DIR");
    const std::string command = "rm -rf '" + m_runtime + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }
  std::string directory() const { return m_runtime + "/interop-lab"; }
  std::string socket_of(const std::string& name) const { return directory() + "/" + name + ".sock"; }

  std::string m_runtime;
  std::optional<std::string> m_previous;
};

// ---- names and descs ----

TEST_F(Publish, NamesAreLettersDigitsAndDashUnderscoreDotUpTo64) {
  EXPECT_EQ(interop::validate_publication_name("train-run_3.loss"), "");
  EXPECT_NE(interop::validate_publication_name("a/b").find("'/'"), std::string::npos);
  EXPECT_NE(interop::validate_publication_name("").find("empty"), std::string::npos);
  EXPECT_NE(interop::validate_publication_name(std::string(65, 'a')).find("at most 64"), std::string::npos);
  EXPECT_EQ(interop::validate_publication_name(std::string(64, 'a')), "");
  const std::string text = error_text([] { interop::Publisher publisher(desc_of("bad name")); });
  EXPECT_NE(text.find("PublisherDesc.name"), std::string::npos) << text;
  EXPECT_NE(text.find("' '"), std::string::npos) << text;
}

TEST_F(Publish, ADescIsRefusedNamingTheField) {
  interop::PublisherDesc desc = desc_of("x");
  desc.format.channels = 2;
  EXPECT_NE(interop::validate(desc).find("PublisherDesc.format.channels is 2"), std::string::npos);
  desc = desc_of("x");
  desc.format.pitch = 10;
  EXPECT_NE(interop::validate(desc).find("PublisherDesc.format.pitch 10 is under a row's 111 bytes"),
            std::string::npos)
      << interop::validate(desc);
  desc = desc_of("x", 0);
  EXPECT_NE(interop::validate(desc).find("PublisherDesc.slot_count is 0"), std::string::npos);
  EXPECT_EQ(interop::validate(desc_of("x")), "");
}

TEST_F(Publish, TheSocketIsInAPrivateDirectoryOfTheUser) {
  interop::Publisher publisher(desc_of("private"));
  EXPECT_EQ(publisher.socket_path(), socket_of("private"));
  struct stat info = {};
  ASSERT_EQ(::stat(directory().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);
  EXPECT_EQ(info.st_uid, ::geteuid());
  ASSERT_EQ(::stat(publisher.socket_path().c_str(), &info), 0);
  EXPECT_TRUE(S_ISSOCK(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(publisher.notice(), "");
}

TEST_F(Publish, ADirectoryOpenToOthersIsRefused) {
  ASSERT_EQ(::mkdir(directory().c_str(), 0755), 0);
  ASSERT_EQ(::chmod(directory().c_str(), 0755), 0);
  const std::string text = error_text([] { interop::Publisher publisher(desc_of("open")); });
  EXPECT_NE(text.find("mode 0755, open to other users"), std::string::npos) << text;
}

TEST_F(Publish, WithoutXdgRuntimeDirTheDirectoryIsPerUserInTmp) {
  ::unsetenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(interop::default_publication_directory(), "/tmp/interop-lab-" + std::to_string(::geteuid()));
}

// ---- frames ----

TEST_F(Publish, FramesCrossToAnotherProcessPixelExact) {
  Child publisher([](int signal_fd) { return run_publisher(signal_fd, "roundtrip"); });
  ASSERT_EQ(publisher.read_line().rfind("ready", 0), 0u);
  interop::Subscriber subscriber("roundtrip");
  EXPECT_EQ(subscriber.publisher_pid(), publisher.pid());
  EXPECT_EQ(subscriber.memory(), interop::SlotMemory::Host);
  EXPECT_EQ(subscriber.format().width, 37u);
  EXPECT_EQ(subscriber.format().pitch, 128u);
  ASSERT_EQ(subscriber.slots().size(), 3u);
  uint64_t last = 0;
  for (int i = 0; i < 20; ++i) {
    const auto frame = subscriber.next(2s);
    ASSERT_TRUE(frame) << subscriber.gone_reason();
    EXPECT_GT(frame->index, last);
    last = frame->index;
    ASSERT_NE(frame->data, nullptr);
    EXPECT_EQ(compare(subscriber.format(), frame->data, frame->index), "") << "frame " << frame->index;
    subscriber.release(frame->slot);
  }
}

TEST_F(Publish, TheNewestFrameWinsAndTheTakenBackOnesCountAsDropped) {
  interop::Publisher publisher(desc_of("newest"));
  for (uint64_t frame = 1; frame <= 10; ++frame) publish_frame(publisher, frame);
  EXPECT_EQ(publisher.stats().frames_dropped, 0u) << "with no viewer every slot is free again at once";

  // A viewer attaches (and is told of frame 10 at once), then reads nothing while frames 11 to 20 go out:
  // 11 and 12 take the two free slots, and each of 13 to 20 takes back the oldest unread frame.
  interop::Subscriber subscriber("newest");
  ASSERT_TRUE(wait_until([&] { return publisher.stats().viewers == 1; }));
  for (uint64_t frame = 11; frame <= 20; ++frame) publish_frame(publisher, frame);
  const interop::PublisherStats stats = publisher.stats();
  EXPECT_EQ(stats.frames_published, 20u);
  EXPECT_EQ(stats.frames_dropped, 8u);
  const auto newest = subscriber.next(2s);
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->index, 20u) << "the viewer gets the newest frame, not the oldest";
  EXPECT_EQ(compare(subscriber.format(), newest->data, 20), "");
  EXPECT_EQ(subscriber.frames_skipped(), 10u) << "frames 10 to 19 were announced and passed over";
}

TEST_F(Publish, ASlotBeingReadIsNeverTakenBack) {
  interop::Publisher publisher(desc_of("reading", 1));
  interop::Subscriber subscriber("reading");
  ASSERT_TRUE(wait_until([&] { return publisher.stats().viewers == 1; }));
  publish_frame(publisher, 1);
  const auto frame = subscriber.next(2s);
  ASSERT_TRUE(frame);
  EXPECT_FALSE(publisher.acquire())
      << "the only slot is being read: acquire() gives none rather than tear it";
  EXPECT_EQ(publisher.stats().frames_dropped, 1u);
  EXPECT_EQ(compare(subscriber.format(), frame->data, 1), "");
  subscriber.release(frame->slot);
  EXPECT_TRUE(wait_until([&] { return bool(publisher.acquire()); }));
}

// A viewer faster than its publisher asks for a newer frame and finds none: the frame it shows stays
// claimed (it goes on drawing from that slot), and goes back once a newer one is claimed.
TEST_F(Publish, AFrameStaysClaimedWhileNothingNewerCame) {
  interop::Publisher publisher(desc_of("still", 2));
  interop::Subscriber subscriber("still");
  ASSERT_TRUE(wait_until([&] { return publisher.stats().viewers == 1; }));
  publish_frame(publisher, 1);
  const auto first = subscriber.next(2s);
  ASSERT_TRUE(first);
  EXPECT_FALSE(subscriber.next(50ms)) << "nothing newer was published";
  // Frame 2 takes the other slot; frame 3 finds both taken (1 is still claimed, 2 not yet read) and takes
  // back 2, never 1.
  publish_frame(publisher, 2);
  publish_frame(publisher, 3);
  EXPECT_EQ(compare(subscriber.format(), first->data, 1), "") << "the claimed slot was written";
  const auto newer = subscriber.next(2s);
  ASSERT_TRUE(newer);
  EXPECT_EQ(newer->index, 3u);
  EXPECT_NE(newer->slot, first->slot);
  // Claiming 3 gave 1 back: the next frame may take its slot.
  publish_frame(publisher, 4);
  const auto fourth = subscriber.next(2s);
  ASSERT_TRUE(fourth);
  EXPECT_EQ(fourth->index, 4u);
  EXPECT_EQ(fourth->slot, first->slot);
  EXPECT_EQ(compare(subscriber.format(), fourth->data, 4), "");
}

TEST_F(Publish, ADiscardedSlotIsNeverAnnouncedAndIsFreeAgain) {
  interop::Publisher publisher(desc_of("discarded", 1));
  interop::Subscriber subscriber("discarded");
  ASSERT_TRUE(wait_until([&] { return publisher.stats().viewers == 1; }));
  const interop::Publisher::Slot slot = publisher.acquire();
  ASSERT_TRUE(slot);
  fill(publisher.format(), slot.data, 5);
  publisher.discard(slot);
  EXPECT_FALSE(subscriber.next(200ms)) << "a discarded frame reached the viewer";
  EXPECT_EQ(publisher.stats().frames_published, 0u);
  EXPECT_NE(error_text([&] { publisher.discard(slot); }).find("is not one acquire() gave"), std::string::npos)
      << "a slot discarded twice";
  publish_frame(publisher, 6);  // the only slot is free again
  const auto frame = subscriber.next(2s);
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->index, 6u);
  EXPECT_EQ(compare(subscriber.format(), frame->data, 6), "");
}

// ---- deaths ----

TEST_F(Publish, AKilledViewerGivesItsSlotsBackAndThePublisherGoesOn) {
  interop::Publisher publisher(desc_of("viewer-dies", 1));
  publish_frame(publisher, 1);
  Child viewer([](int signal_fd) {
    interop::Subscriber subscriber("viewer-dies");
    const auto frame = subscriber.next(2s);
    say(signal_fd, frame ? "reading" : "nothing");
    ::pause();  // holds the slot until killed
    return 0;
  });
  ASSERT_EQ(viewer.read_line(), "reading");
  EXPECT_FALSE(publisher.acquire()) << "the viewer reads the only slot";
  viewer.kill_now();
  EXPECT_TRUE(wait_until([&] { return publisher.stats().viewers == 0; }));
  interop::Publisher::Slot slot;
  ASSERT_TRUE(wait_until([&] { return bool(slot = publisher.acquire()); }))
      << "the dead viewer's slot came back";
  fill(publisher.format(), slot.data, 2);
  publisher.publish(slot, 2);
  EXPECT_EQ(publisher.stats().frames_published, 2u);
}

TEST_F(Publish, AKilledPublisherIsSeenGoneAndANewOneOfTheNameIsReattached) {
  auto first = std::make_unique<Child>([](int signal_fd) { return run_publisher(signal_fd, "job"); });
  ASSERT_EQ(first->read_line(), "ready ");
  const pid_t first_pid = first->pid();
  interop::Subscriber subscriber("job");
  const auto frame = subscriber.next(2s);
  ASSERT_TRUE(frame);
  first->kill_now();
  EXPECT_FALSE(subscriber.next(2s) && subscriber.next(2s) && subscriber.next(2s) && subscriber.next(2s))
      << "frames after the publisher died";
  EXPECT_EQ(subscriber.status(), interop::Subscriber::Status::PublisherGone);
  EXPECT_NE(subscriber.gone_reason().find("publisher 'job' is gone"), std::string::npos)
      << subscriber.gone_reason();
  EXPECT_NE(error_text([&] { subscriber.reconnect(); }).find("its publisher is gone"), std::string::npos);

  Child second([](int signal_fd) { return run_publisher(signal_fd, "job"); });
  const std::string ready = second.read_line();
  EXPECT_NE(ready.find("took over the stale socket " + socket_of("job")), std::string::npos) << ready;
  EXPECT_NE(ready.find("(pid " + std::to_string(first_pid) + ")"), std::string::npos) << ready;
  subscriber.reconnect();
  EXPECT_EQ(subscriber.status(), interop::Subscriber::Status::Attached);
  EXPECT_EQ(subscriber.publisher_pid(), second.pid());
  const auto again = subscriber.next(2s);
  ASSERT_TRUE(again);
  EXPECT_EQ(compare(subscriber.format(), again->data, again->index), "");
}

TEST_F(Publish, APublisherKilledMidFrameLeavesTheHeldFrameWholeAndIsSeenGone) {
  auto publisher = std::make_unique<Child>([](int signal_fd) {
    interop::Publisher job(desc_of("mid-frame"));
    publish_frame(job, 1);
    say(signal_fd, "published");
    const interop::Publisher::Slot slot = job.acquire();  // frame 2: half written when the kill comes
    fill(job.format(), slot.data, 2);
    std::memset(slot.data, 0, job.format().pitch * job.format().height / 2);
    say(signal_fd, "mid-frame");
    ::pause();
    return 0;
  });
  ASSERT_EQ(publisher->read_line(), "published");
  interop::Subscriber subscriber("mid-frame");
  const auto held = subscriber.next(2s);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->index, 1u);
  ASSERT_EQ(publisher->read_line(), "mid-frame");
  publisher->kill_now();
  EXPECT_EQ(compare(subscriber.format(), held->data, 1), "")
      << "the frame the viewer held stays mapped and whole after its publisher died";
  EXPECT_FALSE(subscriber.next(2s)) << "the half-written frame 2 was never announced";
  EXPECT_EQ(subscriber.status(), interop::Subscriber::Status::PublisherGone);
  EXPECT_EQ(subscriber.gone_reason(), "publisher 'mid-frame' is gone (its connection closed)");

  Child again([](int signal_fd) { return run_publisher(signal_fd, "mid-frame"); });
  ASSERT_EQ(again.read_line().rfind("ready took over the stale socket", 0), 0u);
  subscriber.reconnect();
  const auto frame = subscriber.next(2s);
  ASSERT_TRUE(frame) << subscriber.gone_reason();
  EXPECT_EQ(compare(subscriber.format(), frame->data, frame->index), "");
}

// A rootless container's viewer: a user namespace (its uid mapped to the same uid outside, as podman and
// `unshare --user --map-current-user` map it) and a PID namespace, with the socket's directory shared into
// it (here: the same path).
TEST_F(Publish, AViewerInAUserAndPidNamespaceOfItsOwnAttaches) {
  Child publisher([](int signal_fd) { return run_publisher(signal_fd, "contained"); });
  ASSERT_EQ(publisher.read_line(), "ready ");
  Child viewer([](int signal_fd) {
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    if (::unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) {
      say(signal_fd, std::string("skip: unshare(CLONE_NEWUSER | CLONE_NEWPID): ") + std::strerror(errno));
      return 0;
    }
    auto write_file = [](const std::string& path, const std::string& text) {
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      const bool written =
          fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      if (fd >= 0) ::close(fd);
      return written;
    };
    if (!write_file("/proc/self/setgroups", "deny") ||
        !write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n") ||
        !write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n")) {
      say(signal_fd, std::string("skip: mapping the uid into the user namespace: ") + std::strerror(errno));
      return 0;
    }
    const pid_t inner = ::fork();
    if (inner == 0) {
      try {
        interop::Subscriber subscriber("contained");
        const auto frame = subscriber.next(2s);
        say(signal_fd, std::string("pid ") + std::to_string(::getpid()) + ": " +
                           (frame && compare(subscriber.format(), frame->data, frame->index).empty()
                                ? "exact"
                                : "no exact frame: " + subscriber.gone_reason()));
      } catch (const interop::Error& error) {
        say(signal_fd, error.what());
      }
      ::_exit(0);
    }
    ::waitpid(inner, nullptr, 0);
    return 0;
  });
  const std::string line = viewer.read_line();
  if (line.rfind("skip: ", 0) == 0)
    GTEST_SKIP() << "this machine gives no user namespace: " << line.substr(6);
  EXPECT_EQ(line, "pid 1: exact");
}

TEST_F(Publish, AViewerInAnotherPidNamespaceAttachesThroughTheSocketAlone) {
  Child publisher([](int signal_fd) { return run_publisher(signal_fd, "namespaced"); });
  ASSERT_EQ(publisher.read_line(), "ready ");
  // The viewer: a process in a PID namespace of its own (where the publisher's pid means nothing, and
  // pidfd_getfd or ptrace could not reach it), attached through the socket only.
  Child viewer([](int signal_fd) {
    if (::unshare(CLONE_NEWPID) != 0) {
      say(signal_fd, std::string("skip: unshare(CLONE_NEWPID): ") + std::strerror(errno));
      return 0;
    }
    const pid_t inner = ::fork();  // the first child in the new namespace
    if (inner == 0) {
      try {
        interop::Subscriber subscriber("namespaced");
        const auto frame = subscriber.next(2s);
        say(signal_fd, std::string("pid ") + std::to_string(::getpid()) + ": " +
                           (frame ? (compare(subscriber.format(), frame->data, frame->index).empty()
                                         ? "frame " + std::to_string(frame->index) + " exact"
                                         : "frame differs")
                                  : "no frame: " + subscriber.gone_reason()));
      } catch (const interop::Error& error) {
        say(signal_fd, error.what());
      }
      ::_exit(0);
    }
    ::waitpid(inner, nullptr, 0);
    return 0;
  });
  const std::string line = viewer.read_line();
  if (line.rfind("skip: ", 0) == 0) GTEST_SKIP() << "this machine gives no PID namespace: " << line.substr(6);
  EXPECT_EQ(line.rfind("pid 1: frame ", 0), 0u) << line;
  EXPECT_NE(line.find(" exact"), std::string::npos) << line;
}

// ---- names held, stale sockets ----

TEST_F(Publish, ASecondPublisherOfANameIsRefusedWithTheFirstOnesPid) {
  Child first([](int signal_fd) { return run_publisher(signal_fd, "taken"); });
  ASSERT_EQ(first.read_line(), "ready ");
  const std::string text = error_text([] { interop::Publisher second(desc_of("taken")); });
  EXPECT_NE(text.find("published by pid " + std::to_string(first.pid())), std::string::npos) << text;
  interop::Subscriber subscriber("taken");
  EXPECT_EQ(subscriber.publisher_pid(), first.pid()) << "the refused one removed nothing of the first's";
}

TEST_F(Publish, AStaleSocketIsTakenOverSayingSo) {
  ASSERT_EQ(::mkdir(directory().c_str(), 0700), 0);
  {
    // What a crashed publisher leaves: a socket nobody listens on, and its unlocked pid file.
    const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET, 0);
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", socket_of("stale").c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
    ::close(fd);
    const std::string pid_file = "echo 4242 > '" + directory() + "/stale.pid'";
    ASSERT_EQ(std::system(pid_file.c_str()), 0);
  }
  EXPECT_TRUE(interop::list_published().empty()) << "a stale socket is not listed";
  interop::Publisher publisher(desc_of("stale"));
  EXPECT_EQ(publisher.notice(),
            "took over the stale socket " + socket_of("stale") + " of a publisher that is gone (pid 4242)");
  interop::Subscriber subscriber("stale");
  EXPECT_EQ(subscriber.publisher_pid(), ::getpid());
}

TEST_F(Publish, AttachingToNothingSaysSo) {
  const std::string text = error_text([] { interop::Subscriber subscriber("nobody"); });
  EXPECT_NE(text.find("nothing is published by that name"), std::string::npos) << text;
}

// ---- refusals ----

TEST_F(Publish, GarbageLiesAndForeignFdsAreRefusedAndNothingLeaks) {
  interop::Publisher publisher(desc_of("guarded"));
  publish_frame(publisher, 1);
  const int before = open_fd_count();
  {
    RawClient garbage(socket_of("guarded"));
    ASSERT_TRUE(garbage.connected());
    garbage.send("hello?", 6);
    EXPECT_NE(garbage.refusal().find("not an interop-lab request"), std::string::npos);
  }
  {
    RawClient liar(socket_of("guarded"));
    char request[64] = {};
    const wire::MessageHeader header{wire::kMagic, wire::kVersion, wire::MessageType::Attach};
    std::memcpy(request, &header, sizeof(header));
    liar.send(request, sizeof(request));
    EXPECT_NE(liar.refusal().find("a request of 64 bytes"), std::string::npos);
  }
  {
    RawClient sender(socket_of("guarded"));
    const wire::MessageHeader header{wire::kMagic, wire::kVersion, wire::MessageType::Attach};
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    sender.send(&header, sizeof(header), {null_fd, null_fd, null_fd});
    ::close(null_fd);
    EXPECT_NE(sender.refusal().find("a viewer sends no file descriptors"), std::string::npos);
  }
  {
    // An attached viewer that then lies: a release of a slot that does not exist.
    RawClient viewer(socket_of("guarded"));
    const wire::MessageHeader header{wire::kMagic, wire::kVersion, wire::MessageType::Attach};
    viewer.send(&header, sizeof(header));
    char hello[512];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
    iovec io{hello, sizeof(hello)};
    msghdr message = {};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    ASSERT_EQ(::recvmsg(viewer.fd(), &message, MSG_CMSG_CLOEXEC),
              static_cast<ssize_t>(sizeof(wire::Description)));
    int received = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c))
      for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); ++i, ++received) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        ::close(fd);
      }
    EXPECT_EQ(received, 4) << "the control page and three slots";
    wire::ReleaseMessage release;
    release.slot = 99;
    viewer.send(&release, sizeof(release));
    std::string refusal;
    for (int i = 0; i < 5 && refusal.find("refuses") == std::string::npos; ++i) refusal = viewer.refusal();
    EXPECT_NE(refusal.find("no slot 99"), std::string::npos) << refusal;
  }
  EXPECT_TRUE(wait_until([&] { return open_fd_count() == before; }))
      << open_fd_count() << " descriptors open, " << before << " before";
  EXPECT_TRUE(wait_until([&] { return publisher.stats().viewers == 0; }));
}

// An attached viewer is held to Release messages: one that then sends descriptors (which must not stay open
// in the publisher), an oversized message or a lie about a slot's frame is dropped, and every slot it held
// comes back.
TEST_F(Publish, AnAttachedViewerThatMisbehavesIsDroppedAndItsFdsAndSlotsComeBack) {
  interop::Publisher publisher(desc_of("attached-liar", 1));
  publish_frame(publisher, 1);
  const int before = open_fd_count();
  auto attach = [&](RawClient& viewer) {
    const wire::MessageHeader header{wire::kMagic, wire::kVersion, wire::MessageType::Attach};
    viewer.send(&header, sizeof(header));
    char hello[512];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
    iovec io{hello, sizeof(hello)};
    msghdr message = {};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    if (::recvmsg(viewer.fd(), &message, MSG_CMSG_CLOEXEC) != static_cast<ssize_t>(sizeof(wire::Description)))
      return false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c))
      for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        ::close(fd);
      }
    wire::Description description;
    std::memcpy(&description, hello, sizeof(description));
    return description.header.type == wire::MessageType::Hello;
  };
  auto refusal_of = [](RawClient& viewer) {
    std::string text;
    for (int i = 0; i < 5 && text.find("refuses") == std::string::npos; ++i) text = viewer.refusal();
    return text;
  };
  {
    RawClient viewer(socket_of("attached-liar"));
    ASSERT_TRUE(attach(viewer));
    ASSERT_TRUE(wait_until([&] { return publisher.stats().viewers == 1; }));
    wire::ReleaseMessage release;
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    viewer.send(&release, sizeof(release), {null_fd, null_fd, null_fd, null_fd});
    ::close(null_fd);
    EXPECT_NE(refusal_of(viewer).find("a viewer sends no file descriptors"), std::string::npos);
  }
  {
    RawClient viewer(socket_of("attached-liar"));
    ASSERT_TRUE(attach(viewer));
    std::vector<char> oversized(4096, 'x');
    wire::ReleaseMessage release;
    std::memcpy(oversized.data(), &release, sizeof(release));
    viewer.send(oversized.data(), oversized.size());
    EXPECT_NE(refusal_of(viewer).find("expected a release message"), std::string::npos);
  }
  EXPECT_TRUE(wait_until([&] { return publisher.stats().viewers == 0 && open_fd_count() == before; }))
      << open_fd_count() << " descriptors open, " << before << " before";
  interop::Publisher::Slot slot;
  EXPECT_TRUE(wait_until([&] { return bool(slot = publisher.acquire()); })) << "the only slot came back";
}

TEST_F(Publish, AFloodOfConnectionsIsCappedAndLeavesNothingOpen) {
  interop::Publisher publisher(desc_of("flooded"));
  const int before = open_fd_count();
  {
    // Connections that never speak: the first ones wait their turn (and are closed after a while), the
    // rest are refused at once.
    std::vector<std::unique_ptr<RawClient>> silent;
    silent.reserve(40);
    for (int i = 0; i < 40; ++i) silent.push_back(std::make_unique<RawClient>(socket_of("flooded")));
    EXPECT_TRUE(silent.back()->closed_by_peer());
    EXPECT_TRUE(silent.front()->closed_by_peer()) << "a connection that says nothing is closed in time";
  }
  EXPECT_TRUE(wait_until([&] { return open_fd_count() == before; }, 5s))
      << open_fd_count() << " descriptors open, " << before << " before";
  {
    std::vector<std::unique_ptr<interop::Subscriber>> viewers;
    std::vector<std::string> refusals;
    for (int i = 0; i < 20; ++i) {
      try {
        viewers.push_back(std::make_unique<interop::Subscriber>("flooded"));
      } catch (const interop::Error& error) {
        refusals.push_back(error.what());
      }
    }
    EXPECT_EQ(viewers.size(), size_t{wire::kMaxViewers});
    ASSERT_EQ(refusals.size(), 20 - size_t{wire::kMaxViewers});
    EXPECT_NE(refusals[0].find("refused: publisher 'flooded' has 16 viewers, the most it takes"),
              std::string::npos)
        << refusals[0];
    EXPECT_EQ(publisher.stats().viewers, wire::kMaxViewers);
  }
  EXPECT_TRUE(wait_until([&] { return publisher.stats().viewers == 0 && open_fd_count() == before; }))
      << open_fd_count() << " descriptors open, " << before << " before";
  interop::Subscriber after("flooded");  // still serving
  EXPECT_EQ(after.publisher_pid(), ::getpid());
}

TEST_F(Publish, AViewerOfAnotherVersionIsRefusedNamingBoth) {
  interop::Publisher publisher(desc_of("versioned"));
  RawClient client(socket_of("versioned"));
  const wire::MessageHeader header{wire::kMagic, static_cast<uint16_t>(wire::kVersion + 1),
                                   wire::MessageType::Attach};
  client.send(&header, sizeof(header));
  const std::string text = client.refusal();
  EXPECT_NE(text.find("speaks protocol version " + std::to_string(wire::kVersion) +
                      "; this viewer speaks version " + std::to_string(wire::kVersion + 1)),
            std::string::npos)
      << text;
}

TEST_F(Publish, APublisherOfAnotherVersionIsRefusedNamingBoth) {
  ASSERT_EQ(::mkdir(directory().c_str(), 0700), 0);
  const int listener = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", socket_of("future").c_str());
  ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  std::thread future([listener] {
    const int fd = ::accept(listener, nullptr, nullptr);
    wire::MessageHeader request;
    (void)!::recv(fd, &request, sizeof(request), 0);
    char hello[sizeof(wire::Description) + 32] = {};  // a later version's longer hello
    const wire::MessageHeader header{wire::kMagic, 9, wire::MessageType::Hello};
    std::memcpy(hello, &header, sizeof(header));
    (void)!::send(fd, hello, sizeof(hello), MSG_NOSIGNAL);
    ::close(fd);
  });
  const std::string text = error_text([] { interop::Subscriber subscriber("future"); });
  future.join();
  ::close(listener);
  EXPECT_NE(text.find("the publisher speaks protocol version 9; this library speaks version " +
                      std::to_string(wire::kVersion)),
            std::string::npos)
      << text;
}

TEST_F(Publish, AViewerOfAnotherUserIsRefusedSayingSo) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to connect as another user (runs as uid " << ::geteuid() << ")";
  interop::Publisher publisher(desc_of("mine"));
  Child stranger([this](int signal_fd) {
    // The socket's credentials are the effective uid; the file system uid stays root to reach the socket.
    if (::setresgid(65534, 65534, 0) != 0 || ::seteuid(65534) != 0) return 4;
    ::setfsuid(0);
    RawClient client(socket_of("mine"));
    const wire::MessageHeader header{wire::kMagic, wire::kVersion, wire::MessageType::Attach};
    if (client.connected()) client.send(&header, sizeof(header));
    say(signal_fd, client.connected() ? client.refusal() : "not connected");
    return 0;
  });
  const std::string text = stranger.read_line();
  EXPECT_NE(text.find("belongs to uid 0; a viewer of uid 65534 is refused"), std::string::npos) << text;
  EXPECT_EQ(publisher.stats().viewers, 0u);
}

// ---- many viewers, listing ----

TEST_F(Publish, AHundredAttachDetachCyclesLeaveTheDescriptorCountFlat) {
  interop::Publisher publisher(desc_of("cycles"));
  publish_frame(publisher, 1);
  { interop::Subscriber warm("cycles"); }
  ASSERT_TRUE(wait_until([&] { return publisher.stats().viewers == 0; }));
  const int before = open_fd_count();
  for (uint64_t cycle = 0; cycle < 100; ++cycle) {
    interop::Subscriber subscriber("cycles");
    publish_frame(publisher, cycle + 2);
    const auto frame = subscriber.next(2s);
    ASSERT_TRUE(frame) << "cycle " << cycle;
    EXPECT_EQ(compare(subscriber.format(), frame->data, frame->index), "");
  }
  EXPECT_TRUE(wait_until([&] { return publisher.stats().viewers == 0 && open_fd_count() == before; }))
      << open_fd_count() << " descriptors open, " << before << " before";
  EXPECT_EQ(publisher.stats().frames_dropped, 0u);
}

TEST_F(Publish, ListPublishedNamesTheLiveOnesWithSizeRateAndViewers) {
  interop::PublisherDesc big = desc_of("b-floats");
  big.format = {64, 32, 1, interop::DType::Float32, 0};
  interop::Publisher floats(big);
  interop::Publisher bytes(desc_of("a-bytes"));
  interop::Subscriber viewer("b-floats");
  ASSERT_TRUE(wait_until([&] { return floats.stats().viewers == 1; }));
  for (int frame = 1; frame <= 60; ++frame) {
    const auto slot = floats.acquire();
    floats.publish(slot, frame);
    if (auto seen = viewer.next(0ms)) viewer.release(seen->slot);
    std::this_thread::sleep_for(20ms);
  }
  const std::vector<interop::PublishedInfo> published = interop::list_published();
  ASSERT_EQ(published.size(), 2u);
  EXPECT_EQ(published[0].name, "a-bytes");
  EXPECT_EQ(published[0].format.width, 37u);
  EXPECT_EQ(published[0].stats.viewers, 0u);
  EXPECT_EQ(published[1].name, "b-floats");
  EXPECT_EQ(published[1].format.width, 64u);
  EXPECT_EQ(published[1].format.height, 32u);
  EXPECT_EQ(published[1].format.dtype, interop::DType::Float32);
  EXPECT_EQ(published[1].format.pitch, 256u);
  EXPECT_EQ(published[1].publisher_pid, ::getpid());
  EXPECT_EQ(published[1].stats.viewers, 1u);
  EXPECT_EQ(published[1].stats.frames_published, 60u);
  EXPECT_GT(published[1].stats.frames_per_second, 20.0);
  EXPECT_LT(published[1].stats.frames_per_second, 60.0);
}

// ---- device slots (a CUDA device with VMM export) ----

int required_gpus() {
  const char* required = std::getenv("INTEROP_LAB_REQUIRE_GPUS");
  return required ? std::atoi(required) : 0;
}

// `message` is a stream chain ("text" << value), so it cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define NEEDS_A_GPU(message)                                                      \
  do {                                                                            \
    if (required_gpus() >= 1)                                                     \
      GTEST_FAIL() << message << " (INTEROP_LAB_REQUIRE_GPUS=" << required_gpus() \
                   << ": this machine must have it)";                             \
    else                                                                          \
      GTEST_SKIP() << message;                                                    \
  } while (0)
// NOLINTEND(bugprone-macro-parentheses)

class PublishDevice : public Publish {
 protected:
  void SetUp() override {
    Publish::SetUp();
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      cudaGetLastError();
      NEEDS_A_GPU("needs a CUDA device for device slots: none is visible");
    }
    const interop::VmmExportSupport support = interop::probe_vmm_export(0);
    if (!support.supported) NEEDS_A_GPU("needs a CUDA device that exports VMM memory: " << support.reason);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    cudaDeviceProp properties = {};
    ASSERT_EQ(cudaGetDeviceProperties(&properties, 0), cudaSuccess);
    std::memcpy(m_uuid.data(), properties.uuid.bytes, m_uuid.size());
  }
  interop::PublisherDesc device_desc(const std::string& name) {
    interop::PublisherDesc desc = desc_of(name);
    desc.memory = interop::SlotMemory::Device;
    desc.device = 0;
    return desc;
  }
  interop::DeviceUuid m_uuid{};
};

TEST_F(PublishDevice, DeviceSlotsCrossAsFdsThatCudaImportsPixelExact) {
  interop::Publisher publisher(device_desc("device"));
  interop::SubscriberDesc desc;
  desc.expected_device = m_uuid;
  interop::Subscriber subscriber("device", desc);
  EXPECT_EQ(subscriber.memory(), interop::SlotMemory::Device);
  EXPECT_EQ(subscriber.device_uuid(), m_uuid);
  ASSERT_TRUE(wait_until([&] { return publisher.stats().viewers == 1; }));

  const interop::FrameFormat& format = publisher.format();
  std::vector<uint8_t> host(format.pitch * format.height);
  fill(format, host.data(), 7);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const interop::Publisher::Slot slot = publisher.acquire();
  ASSERT_TRUE(slot);
  ASSERT_EQ(cudaMemcpyAsync(slot.data, host.data(), host.size(), cudaMemcpyHostToDevice, stream),
            cudaSuccess);
  publisher.publish(slot, 7, stream);
  const auto frame = subscriber.next(5s);
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->index, 7u);
  EXPECT_EQ(frame->data, nullptr) << "device slots are imported, not mapped";

  // The viewer's side: its FD imported as external memory, read back.
  const interop::Subscriber::SlotHandle& handle = subscriber.slots()[static_cast<size_t>(frame->slot)];
  cudaExternalMemoryHandleDesc import = {};
  import.type = cudaExternalMemoryHandleTypeOpaqueFd;
  import.handle.fd = ::dup(handle.fd);  // the import takes the descriptor over
  import.size = handle.size;
  cudaExternalMemory_t memory = nullptr;
  ASSERT_EQ(cudaImportExternalMemory(&memory, &import), cudaSuccess);
  cudaExternalMemoryBufferDesc buffer = {};
  buffer.size = host.size();
  void* mapped = nullptr;
  ASSERT_EQ(cudaExternalMemoryGetMappedBuffer(&mapped, memory, &buffer), cudaSuccess);
  std::vector<uint8_t> seen(host.size());
  ASSERT_EQ(cudaMemcpy(seen.data(), mapped, seen.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(compare(format, seen.data(), 7), "");
  subscriber.release(frame->slot);
  EXPECT_EQ(cudaFree(mapped), cudaSuccess);
  EXPECT_EQ(cudaDestroyExternalMemory(memory), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(PublishDevice, AViewerOnAnotherGpuIsRefusedNamingBothUuids) {
  interop::Publisher publisher(device_desc("elsewhere"));
  interop::SubscriberDesc desc;
  desc.expected_device = interop::DeviceUuid{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const std::string text = error_text([&] { interop::Subscriber subscriber("elsewhere", desc); });
  EXPECT_NE(text.find("its frames are on " + interop::to_string(m_uuid)), std::string::npos) << text;
  EXPECT_NE(text.find("GPU-01020304-0506-0708-090a-0b0c0d0e0f10"), std::string::npos) << text;
}

// The publisher half of the two-process device test below, which starts this binary again with
// INTEROP_LAB_PUBLISH_CHILD set (exec'd, so that its CUDA starts fresh): device frames written by an
// asynchronous copy on a stream of its own, published on that stream, until it is killed.
TEST(PublishDeviceChild, PublishesDeviceFramesUntilKilled) {
  const char* name = std::getenv("INTEROP_LAB_PUBLISH_CHILD");
  if (!name) GTEST_SKIP() << "the publisher half of PublishDevice.AnotherProcessImportsTheFramesPixelExact";
  interop::PublisherDesc desc = desc_of(name);
  desc.memory = interop::SlotMemory::Device;
  desc.device = 0;
  interop::Publisher publisher(desc);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  std::vector<uint8_t> host(publisher.format().pitch * publisher.format().height);
  for (uint64_t frame = 1; frame < 100000; ++frame) {
    const interop::Publisher::Slot slot = publisher.acquire();
    if (slot) {
      fill(publisher.format(), host.data(), frame);
      ASSERT_EQ(cudaMemcpyAsync(slot.data, host.data(), host.size(), cudaMemcpyHostToDevice, stream),
                cudaSuccess);
      publisher.publish(slot, frame, stream);
    }
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);  // `host` is written again next
    std::this_thread::sleep_for(2ms);
  }
}

TEST_F(PublishDevice, AnotherProcessImportsTheFramesPixelExact) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::setenv("INTEROP_LAB_PUBLISH_CHILD", "device-job", 1);
    const int null_fd = ::open("/dev/null", O_WRONLY);
    ::dup2(null_fd, STDOUT_FILENO);
    ::execl("/proc/self/exe", "unit_tests", "--gtest_filter=PublishDeviceChild.*",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::optional<interop::Subscriber> subscriber;
  interop::SubscriberDesc desc;
  desc.expected_device = m_uuid;
  const bool attached = wait_until(
      [&] {
        try {
          subscriber.emplace("device-job", desc);
          return true;
        } catch (const interop::Error&) {
          return false;
        }
      },
      20s);
  if (!attached) {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    FAIL() << "the publisher process did not come up";
  }
  EXPECT_EQ(subscriber->publisher_pid(), child);
  // Each slot's FD imported once into this process's CUDA, as a viewer's graphics API would.
  std::vector<cudaExternalMemory_t> imported(subscriber->slots().size(), nullptr);
  std::vector<void*> mapped(subscriber->slots().size(), nullptr);
  const interop::FrameFormat format = subscriber->format();
  std::vector<uint8_t> seen(format.pitch * format.height);
  uint64_t last = 0;
  for (int i = 0; i < 30; ++i) {
    const auto frame = subscriber->next(5s);
    ASSERT_TRUE(frame) << subscriber->gone_reason();
    EXPECT_GT(frame->index, last);
    last = frame->index;
    const size_t slot = static_cast<size_t>(frame->slot);
    if (!imported[slot]) {
      cudaExternalMemoryHandleDesc import = {};
      import.type = cudaExternalMemoryHandleTypeOpaqueFd;
      import.handle.fd = ::dup(subscriber->slots()[slot].fd);
      import.size = subscriber->slots()[slot].size;
      ASSERT_EQ(cudaImportExternalMemory(&imported[slot], &import), cudaSuccess);
      cudaExternalMemoryBufferDesc buffer = {};
      buffer.size = seen.size();
      ASSERT_EQ(cudaExternalMemoryGetMappedBuffer(&mapped[slot], imported[slot], &buffer), cudaSuccess);
    }
    ASSERT_EQ(cudaMemcpy(seen.data(), mapped[slot], seen.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(compare(format, seen.data(), frame->index), "") << "frame " << frame->index;
    subscriber->release(frame->slot);
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(subscriber->next(2s) && subscriber->next(2s) && subscriber->next(2s) && subscriber->next(2s));
  EXPECT_EQ(subscriber->status(), interop::Subscriber::Status::PublisherGone);
  for (size_t i = 0; i < imported.size(); ++i) {
    if (mapped[i]) {
      EXPECT_EQ(cudaFree(mapped[i]), cudaSuccess);
    }
    if (imported[i]) {
      EXPECT_EQ(cudaDestroyExternalMemory(imported[i]), cudaSuccess);
    }
  }
}

TEST_F(PublishDevice, AHundredAttachImportDetachCyclesLeaveDescriptorsAndDeviceMemoryFlat) {
  interop::Publisher publisher(device_desc("device-cycles"));
  const interop::FrameFormat& format = publisher.format();
  std::vector<uint8_t> host(format.pitch * format.height);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  interop::SubscriberDesc desc;
  desc.expected_device = m_uuid;
  // One cycle: a viewer attaches, imports the frame's slot into CUDA as a viewer's graphics API would, reads
  // it, and lets everything go.
  auto cycle = [&](uint64_t index) {
    interop::Subscriber subscriber("device-cycles", desc);
    const interop::Publisher::Slot slot = publisher.acquire();
    if (!slot) return std::string("no free slot");
    fill(format, host.data(), index);
    if (cudaMemcpyAsync(slot.data, host.data(), host.size(), cudaMemcpyHostToDevice, stream) != cudaSuccess)
      return std::string("cudaMemcpyAsync");
    publisher.publish(slot, index, stream);
    if (cudaStreamSynchronize(stream) != cudaSuccess) return std::string("cudaStreamSynchronize");
    const auto frame = subscriber.next(5s);
    if (!frame) return "no frame: " + subscriber.gone_reason();
    const interop::Subscriber::SlotHandle& handle = subscriber.slots()[static_cast<size_t>(frame->slot)];
    cudaExternalMemoryHandleDesc import = {};
    import.type = cudaExternalMemoryHandleTypeOpaqueFd;
    import.handle.fd = ::dup(handle.fd);
    import.size = handle.size;
    cudaExternalMemory_t memory = nullptr;
    if (cudaImportExternalMemory(&memory, &import) != cudaSuccess) return std::string("import");
    cudaExternalMemoryBufferDesc buffer = {};
    buffer.size = host.size();
    void* mapped = nullptr;
    std::vector<uint8_t> seen(host.size());
    std::string verdict = "map";
    if (cudaExternalMemoryGetMappedBuffer(&mapped, memory, &buffer) == cudaSuccess) {
      verdict = cudaMemcpy(seen.data(), mapped, seen.size(), cudaMemcpyDeviceToHost) == cudaSuccess
                    ? compare(format, seen.data(), frame->index)
                    : "cudaMemcpy";
      cudaFree(mapped);
    }
    cudaDestroyExternalMemory(memory);
    subscriber.release(frame->slot);
    return verdict;
  };
  ASSERT_EQ(cycle(1), "");  // warm: CUDA's own first-use allocations are made
  ASSERT_TRUE(wait_until([&] { return publisher.stats().viewers == 0; }));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  size_t free_before = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  const int fds_before = open_fd_count();
  for (uint64_t index = 2; index < 102; ++index) ASSERT_EQ(cycle(index), "") << "cycle " << index;
  EXPECT_TRUE(wait_until([&] { return publisher.stats().viewers == 0 && open_fd_count() == fds_before; }))
      << open_fd_count() << " descriptors open, " << fds_before << " before";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  size_t free_after = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  // Flat to within one slot: a hundred leaked imports would be a hundred slots' worth.
  EXPECT_LE(free_before - std::min(free_before, free_after), publisher.slot_size())
      << "device memory free: " << free_before << " bytes before, " << free_after << " after";
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
