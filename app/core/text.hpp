// app/core/text.hpp — the small text helpers the app's messages share, so each is written once. GL-free.
#pragma once

#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>

namespace lab {

// A number as a message says it: 0.015625, 64, 240 (the shortest of the stream's default form).
inline std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

// "1280x720", as --size takes it and every message about an image size shows it.
inline std::string size_text(long long width, long long height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

// 13000 -> "13.0", 12040 -> "12.4" (CUDA's 1000 * major + 10 * minor); "none" for 0 (no driver or runtime).
inline std::string cuda_version_text(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// "a1b2c3d4-..." as CUDA and nvidia-smi print UUIDs (the doctor's, Vulkan's and GL's device UUIDs).
inline std::string uuid_text(const std::array<uint8_t, 16>& uuid) {
  std::string text;
  char part[3];
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    std::snprintf(part, sizeof part, "%02x", uuid[i]);
    text += part;
  }
  return text;
}

// `text` in lower case, ASCII letters only ("Interop" -> "interop"): names compared without their case.
inline std::string lowercase(std::string text) {
  for (char& letter : text) letter = static_cast<char>(std::tolower(static_cast<unsigned char>(letter)));
  return text;
}

inline bool contains(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

}  // namespace lab
