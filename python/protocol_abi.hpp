// python/protocol_abi.hpp — the page's protocol (app/serve/protocol.hpp) through the C ABI, for each Python
// object that speaks it (Viewer, Viewer.attach): one message in, parsed as the desk parses the page's and
// applied by the object's own command path; its state out as the JSON the page is sent.
#pragma once

#include "app/controls/controls.hpp"
#include "app/serve/protocol.hpp"
#include "python/errors.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ilab {

// `text` into `out` (`size` bytes, null-terminated; cut short where it does not fit); nothing for a null out.
inline void copy_text(const std::string& text, char* out, uint64_t size) {
  if (out == nullptr || size == 0) return;
  const size_t n = std::min<size_t>(text.size(), static_cast<size_t>(size) - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

// One message of the page's protocol ({"zoom": [x, y, 1.25]}), applied by `apply` (the commands in, "" or why
// the last refused one was refused out), which runs guarded. Returns 0: taken, with that reason in `refused`;
// 1: a message the protocol does not take, what is wrong as the last error, nothing applied; -1: another
// failure, as guarded() says it.
template <class Apply>
int protocol_command(const char* message, char* refused, uint64_t refused_size, Apply&& apply) {
  std::string problem;
  const int status = guarded([&] {
    std::vector<lab::Command> commands;
    problem = lab::serve::parse_commands(message != nullptr ? message : "", commands);
    if (problem.empty()) copy_text(apply(commands), refused, refused_size);
  });
  if (status != 0 || problem.empty()) return status;
  set_last_error(problem);
  return 1;
}

// The state's JSON into `out`: *size gets its bytes plus one; `out` null asks for the size alone. Throws
// where `out_size` is too small.
inline void protocol_state(const std::string& state, char* out, uint64_t out_size, uint64_t* size) {
  *size = state.size() + 1;
  if (out == nullptr) return;
  if (out_size < state.size() + 1)
    throw std::invalid_argument("the state needs " + std::to_string(*size) + " bytes");
  copy_text(state, out, out_size);
}

}  // namespace ilab
