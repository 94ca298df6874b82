// app/core/text.hpp — the small text helpers the app's messages share, so each is written once. GL-free.
#pragma once

#include <string>
#include <string_view>

namespace lab {

// "1280x720", as --size takes it and every message about an image size shows it.
inline std::string size_text(long long width, long long height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

inline bool contains(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

}  // namespace lab
