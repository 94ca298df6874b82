// interop/publish_protocol.hpp — the wire format between an interop::Publisher and its viewers
// (interop/publish.hpp), for programs that speak it without the library.
//
// Transport: a Unix socket of type SOCK_SEQPACKET (one message per send, never merged or split). Every
// message starts with MessageHeader {magic, version, type}; those three fields keep their place in every
// version, so a peer of another version is recognised and refused by name. All fields are in the host's
// byte order (both ends run on one machine).
//
//   viewer -> publisher   Attach or Query (a header alone), then Release messages (attached viewers only)
//   publisher -> viewer   Hello + SCM_RIGHTS (the control page, then one FD per slot), then Frame messages;
//                         Info to a Query (no FDs), then the socket closes; Refusal before closing on anyone
//                         it turns away (another user, another version, too many viewers, a bad message)
//
// Ordering of the slots' memory without locks: the control page (a memfd of kControlPageSize bytes) holds
// one 64-bit atomic word per slot, `tag << 16 | readers`: tag is the publish number of the frame the slot
// holds (0: none), readers a bit per viewer (Hello::viewer_bit) reading it. A viewer claims a slot by a
// compare-and-swap that sets its bit only while the tag is still the announced one; the publisher takes a
// slot back (to write it, or because it holds an unread frame and no slot is free) by a compare-and-swap
// from `tag << 16 | 0` to 0, so it never takes a slot a viewer is reading, and a viewer never reads a slot
// the publisher took back.
//
// What a slot holds: one frame, the publisher's array bytes as they are, never converted (no RGBA8, no
// value range applied: a viewer maps the values to colours itself, as it does for an array of its own).
// Row y (0: the top row of the picture, as an array's row 0) starts at byte y * pitch; within a row, pixel x
// starts at byte x * channels * dtype_size, its channels follow one another (1: one value, for a
// colormap; 3: R, G, B; 4: R, G, B, A), each value a `dtype` in the host's byte order (float16: IEEE
// binary16). Bytes from width * channels * dtype_size to pitch in a row, and from pitch * height to
// slot_size, are not part of the frame. Host slots: the memfd's bytes from offset 0; device slots: the
// cuMemCreate allocation from its start, as cuMemMap / cudaExternalMemoryGetMappedBuffer at offset 0
// sees it. interop_lab.publish (Python) writes packed rows (pitch = width * channels * dtype_size).
#pragma once

#include <cstddef>
#include <cstdint>

namespace interop {
namespace publish_protocol {

constexpr uint32_t kMagic = 0x504c4949;  // "IILP" in memory on little-endian machines
constexpr uint16_t kVersion = 1;
constexpr size_t kMaxNameLength = 64;
constexpr uint32_t kMaxSlots = 16;
constexpr uint32_t kMaxViewers = 16;  // one bit each in the control words' low 16 bits
constexpr size_t kControlPageSize = 4096;
constexpr size_t kRefusalTextSize = 256;

enum class MessageType : uint16_t {
  Attach = 1,   // viewer: send me the Hello and the FDs
  Query = 2,    // anyone: send me the Info (list_published)
  Hello = 3,    // publisher: the format, with the FDs
  Info = 4,     // publisher: the format and the counters, no FDs
  Frame = 5,    // publisher: slot holds frame
  Release = 6,  // viewer: done with slot (read, shown, or skipped)
  Refusal = 7,  // publisher: why it closes this connection
};

struct MessageHeader {
  uint32_t magic = kMagic;
  uint16_t version = kVersion;
  MessageType type = MessageType::Attach;
};

// Hello and Info share the layout (Info fills the counters; Hello fills viewer_bit).
struct Description {
  MessageHeader header;
  char name[kMaxNameLength + 1] = {};  // NUL-terminated
  uint8_t channels = 0;                // 1, 3 or 4, interleaved (see "What a slot holds" above)
  uint8_t dtype = 0;                   // interop::DType: 0 uint8, 1 uint16, 2 int32, 3 float16, 4 float32
  uint8_t memory = 0;                  // interop::SlotMemory: 0 host (memfd), 1 device (cuMemCreate FD)
  uint8_t viewer_bit = 0;              // this viewer's bit in the control words (Hello)
  uint8_t device_uuid[16] = {};        // the CUDA device of device slots; zero for host slots
  uint32_t width = 0;
  uint32_t height = 0;
  uint64_t pitch = 0;      // bytes from one row to the next
  uint64_t slot_size = 0;  // bytes of each slot's memory (>= pitch * height; rounded up)
  uint32_t slot_count = 0;
  int32_t publisher_pid = 0;
  uint64_t frames_published = 0;  // Info only, as the three below
  uint64_t frames_dropped = 0;
  uint32_t viewers = 0;
  uint32_t reserved = 0;
  double frames_per_second = 0;
};

struct FrameMessage {
  MessageHeader header{kMagic, kVersion, MessageType::Frame};
  uint32_t slot = 0;
  uint32_t reserved = 0;
  uint64_t frame_index = 0;  // the publisher's own numbering
  uint64_t tag = 0;          // the control word's tag for this frame
};

struct ReleaseMessage {
  MessageHeader header{kMagic, kVersion, MessageType::Release};
  uint32_t slot = 0;
  uint32_t reserved = 0;
  uint64_t tag = 0;  // the Frame's tag: a release of an older frame of the slot is ignored
};

struct RefusalMessage {
  MessageHeader header{kMagic, kVersion, MessageType::Refusal};
  char text[kRefusalTextSize] = {};  // NUL-terminated
};

constexpr uint64_t kReaderMask = 0xffff;
constexpr uint64_t control_word(uint64_t tag, uint64_t readers) {
  return tag << 16 | readers;
}
constexpr uint64_t control_tag(uint64_t word) {
  return word >> 16;
}

}  // namespace publish_protocol
}  // namespace interop
