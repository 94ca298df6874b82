// tests/support/crafted_png.hpp — PNG bytes written by hand, for headers no encoder would write: a 57-byte
// file whose IHDR claims any size (signature, IHDR, an empty IDAT, IEND; every CRC correct, so libpng
// accepts the header and only the missing pixels give it away).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace labtest {

inline uint32_t png_crc32(const std::vector<uint8_t>& bytes, size_t begin) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = begin; i < bytes.size(); ++i) {
    crc ^= bytes[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return crc ^ 0xffffffffu;
}

inline void append_be32(std::vector<uint8_t>& bytes, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<uint8_t>(value >> shift));
}

inline void append_chunk(std::vector<uint8_t>& bytes, const char (&type)[5],
                         const std::vector<uint8_t>& data) {
  append_be32(bytes, static_cast<uint32_t>(data.size()));
  const size_t crc_begin = bytes.size();
  bytes.insert(bytes.end(), type, type + 4);
  bytes.insert(bytes.end(), data.begin(), data.end());
  append_be32(bytes, png_crc32(bytes, crc_begin));
}

// An 8-bit RGBA PNG whose header says width x height and which holds no pixels at all.
inline std::vector<uint8_t> png_claiming_size(uint32_t width, uint32_t height) {
  std::vector<uint8_t> bytes = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> header;
  append_be32(header, width);
  append_be32(header, height);
  header.insert(header.end(), {8, 6, 0, 0, 0});  // bit depth 8, RGBA, deflate, no filter, no interlace
  append_chunk(bytes, "IHDR", header);
  append_chunk(bytes, "IDAT", {});
  append_chunk(bytes, "IEND", {});
  return bytes;
}

}  // namespace labtest
