// interop/publish.hpp — frames shared with another process without a copy: a Publisher writes frames into
// a ring of slots, and any number of viewer processes (Subscriber) of the same user watch them.
//
//   Publisher        owns the slots and a listening Unix socket; acquire() a slot, write it, publish() it
//   Subscriber       attaches by name: the format, the slots' FDs (host slots mapped read-only), next()
//   list_published   what is published now (name, size, dtype, frames per second, viewers)
//
// Slots are host memory (memfd) or CUDA device memory (cuMemCreate, exported as POSIX FDs through
// interop/vmm.hpp) that a viewer imports into its graphics API or CUDA. The FDs cross once per viewer,
// with the format, over the socket (SCM_RIGHTS); each frame then costs one short message. The wire format
// is interop/publish_protocol.hpp.
//
// The socket is $XDG_RUNTIME_DIR/interop-lab/NAME.sock (/tmp/interop-lab-UID/ without XDG_RUNTIME_DIR):
// the directory is made mode 0700 and must belong to the user, the socket is 0600, and a peer of another
// user (SO_PEERCRED) is refused. NAME.pid, flock'ed by the live publisher, says who holds a name.
//
// The publisher never waits on a viewer: with no free slot it takes back the oldest frame no viewer has
// begun to read (the newest frame wins; counted as dropped), and announcements to a viewer whose socket is
// full are dropped for it. A viewer that dies gives its slots back.
//
// Threads: a Publisher's calls may come from any thread (it runs a socket thread of its own, and for device
// slots one that waits for their events); a Subscriber is used by one thread at a time.
//
// Linux (POSIX sockets, memfd_create): not built on Windows.
#pragma once

#ifndef _WIN32

#include "interop/vmm.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace interop {

enum class DType : uint8_t { UInt8 = 0, UInt16 = 1, Int32 = 2, Float16 = 3, Float32 = 4 };
const char* to_string(DType dtype);
size_t dtype_size(DType dtype);

enum class SlotMemory : uint8_t {
  Host = 0,    // memfd_create + mmap: any machine
  Device = 1,  // cuMemCreate with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR on a CUDA device
};
const char* to_string(SlotMemory memory);

using DeviceUuid = std::array<uint8_t, 16>;
// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi writes it.
std::string to_string(const DeviceUuid& uuid);

struct FrameFormat {
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t channels = 4;  // 1, 3 or 4
  DType dtype = DType::UInt8;
  size_t pitch = 0;  // bytes per row; 0: width * channels * dtype_size
  size_t row_bytes() const { return size_t{width} * channels * dtype_size(dtype); }
  size_t pitch_or_packed() const { return pitch ? pitch : row_bytes(); }
};

struct PublisherDesc {
  std::string name;  // letters, digits, '-', '_', '.'; at most 64
  FrameFormat format;
  uint32_t slot_count = 3;  // 1 to 16
  SlotMemory memory = SlotMemory::Host;
  int device = -1;        // Device slots: the CUDA device ordinal; -1: the current device
  std::string directory;  // "": the per-user directory above
};

// "" when `desc` can be published, else what is wrong, naming the field.
std::string validate(const PublisherDesc& desc);
// "" when `name` is a valid publication name, else why not.
std::string validate_publication_name(const std::string& name);
// The directory the sockets live in ($XDG_RUNTIME_DIR/interop-lab or /tmp/interop-lab-UID).
std::string default_publication_directory();

struct PublisherStats {
  uint64_t frames_published = 0;
  uint64_t frames_dropped = 0;  // frames taken back unread because no slot was free
  uint32_t viewers = 0;
  double frames_per_second = 0;  // over the last second or so
};

class Publisher {
 public:
  // A slot to write: data() is a host pointer (Host) or a CUDA device pointer (Device). Empty (no data)
  // only when every slot is being read by a viewer at that moment: skip the frame.
  struct Slot {
    int index = -1;
    void* data = nullptr;
    size_t size = 0;
    explicit operator bool() const { return index >= 0; }
  };

  // Creates the slots and listens. Throws interop::Error: an invalid desc, a name a live publisher holds
  // (naming its pid), a directory not the user's.
  explicit Publisher(const PublisherDesc& desc);
  ~Publisher();
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  Slot acquire();
  // Announces `slot` as holding `frame_index`. Device slots: after the work queued on `stream` so far (a
  // CUDA event; a helper thread waits for it, the stream never waits on a viewer). Host slots: now.
  void publish(const Slot& slot, uint64_t frame_index, cudaStream_t stream = nullptr);

  // Gives back a slot acquire() gave, unannounced (what was written into it is never shown): for a frame
  // whose writing failed. Device slots: the caller's stream must be done with it, or the next acquire()
  // may hand it out while work queued before still writes it.
  void discard(const Slot& slot);

  PublisherStats stats() const;
  const FrameFormat& format() const;
  const std::string& name() const;
  std::string socket_path() const;
  size_t slot_size() const;
  // What the constructor did that a program may want to log ("took over the stale socket ..."); "" if
  // nothing.
  std::string notice() const;

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

struct SubscriberDesc {
  std::string directory;                      // "": the per-user directory
  std::optional<DeviceUuid> expected_device;  // refuse Device slots of another GPU
};

class Subscriber {
 public:
  enum class Status { Attached, PublisherGone };
  struct Frame {
    uint64_t index = 0;  // the publisher's frame index
    int slot = -1;
    const void* data = nullptr;  // host slots: the mapped memory; device slots: nullptr
  };
  struct SlotHandle {
    int fd = -1;  // owned by the Subscriber: dup() it for an import that takes it over
    size_t size = 0;
    const void* data = nullptr;  // host slots only
  };

  // Attaches to the publisher `name`. Throws interop::Error: no such publisher, another version, another
  // user, another GPU (naming both UUIDs), a malformed Hello.
  explicit Subscriber(const std::string& name, const SubscriberDesc& desc = {});
  ~Subscriber();
  Subscriber(const Subscriber&) = delete;
  Subscriber& operator=(const Subscriber&) = delete;

  // The newest announced frame, claimed for reading until release() (or until a later next() returns a
  // newer one), waiting up to `timeout`; nullopt on timeout or when the publisher is gone (status()), and the
  // frame claimed before stays claimed, so a viewer may go on reading it.
  std::optional<Frame> next(std::chrono::milliseconds timeout);
  void release(int slot);

  Status status() const;
  // Why the publisher is gone ("publisher 'x' closed the connection"); "" while attached.
  std::string gone_reason() const;
  // Attaches again to a publisher of the same name (a new one after the old one died). Throws as the
  // constructor does; the old slots are unmapped and closed first.
  void reconnect();

  const std::string& name() const;
  const FrameFormat& format() const;
  SlotMemory memory() const;
  DeviceUuid device_uuid() const;
  int publisher_pid() const;
  const std::vector<SlotHandle>& slots() const;
  // Frames announced to this viewer that it never returned: superseded by a newer one before next(), or
  // taken back by the publisher before it was claimed.
  uint64_t frames_skipped() const;

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

struct PublishedInfo {
  std::string name;
  FrameFormat format;
  SlotMemory memory = SlotMemory::Host;
  int publisher_pid = 0;
  PublisherStats stats;
};
// The live publishers in `directory` ("": the per-user one), by name; stale sockets are skipped.
std::vector<PublishedInfo> list_published(const std::string& directory = "");

}  // namespace interop

#endif  // _WIN32
