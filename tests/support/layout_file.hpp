// tests/support/layout_file.hpp — the panel's entry in an ImGui layout file (imgui.ini), written before a
// window test starts (a layout a user's earlier runs left) and read after it ends (what the app saved).
#pragma once

#include "app/core/layout.hpp"
#include "app/core/vocabulary.hpp"

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace labtest {

// A layout file whose panel stands at `panel` (and ImGui's implicit debug window off-screen as well).
inline void write_layout(const std::string& path, const lab::PanelRect& panel) {
  std::ofstream(path) << "[Window][Debug##Default]\nPos=-18,-18\nSize=400,400\nCollapsed=0\n\n"
                      << "[Window][interop-lab]\nPos=" << static_cast<int>(panel.x) << ","
                      << static_cast<int>(panel.y) << "\nSize=" << static_cast<int>(panel.width) << ","
                      << static_cast<int>(panel.height) << "\nCollapsed=0\n\n";
}

// The panel's position and size as a layout file holds them; nullopt when it has no panel entry.
inline std::optional<lab::PanelRect> read_layout(const std::string& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  const std::string all = text.str();
  const size_t entry = all.find("[Window][interop-lab]");
  if (entry == std::string::npos) return std::nullopt;
  int x = 0, y = 0, width = 0, height = 0;
  const size_t pos = all.find("Pos=", entry), size = all.find("Size=", entry);
  if (pos == std::string::npos || size == std::string::npos) return std::nullopt;
  if (std::sscanf(all.c_str() + pos, "Pos=%d,%d", &x, &y) != 2) return std::nullopt;
  if (std::sscanf(all.c_str() + size, "Size=%d,%d", &width, &height) != 2) return std::nullopt;
  return lab::PanelRect{static_cast<float>(x), static_cast<float>(y), static_cast<float>(width),
                        static_cast<float>(height)};
}

// The window sizes of the layout tests' resizes: `count` of them, a 1x1 one every 20th, sizes from 160x120
// to 659x519 between, and `last` last.
inline std::vector<lab::Extent> resize_sequence(int count, lab::Extent last) {
  std::vector<lab::Extent> sizes;
  for (int i = 0; i + 1 < count; ++i)
    sizes.push_back(i % 20 == 7 ? lab::Extent{1, 1}
                                : lab::Extent{160 + (i * 37) % 500, 120 + (i * 53) % 400});
  sizes.push_back(last);
  return sizes;
}

// Whether `panel` lies wholly inside a window of `extent`.
inline bool inside(const lab::PanelRect& panel, int width, int height) {
  return panel.x >= 0.0f && panel.y >= 0.0f && panel.x + panel.width <= static_cast<float>(width) &&
         panel.y + panel.height <= static_cast<float>(height);
}

}  // namespace labtest
