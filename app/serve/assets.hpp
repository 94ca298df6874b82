// app/serve/assets.hpp — the desk's page (assets/desk: index.html, desk.js, desk.css), embedded in the binary
// at build time by cmake/EmbedDesk.cmake, so nothing is read from disk or fetched from the internet.
#pragma once

#include <optional>
#include <string_view>

namespace lab::serve {

struct DeskAsset {
  std::string_view body;
  const char* content_type;  // "text/html; charset=utf-8", ...
};

// The file called `name` ("index.html"), or nullopt.
std::optional<DeskAsset> desk_asset(std::string_view name);

}  // namespace lab::serve
