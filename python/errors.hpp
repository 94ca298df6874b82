// python/errors.hpp — how the bridge's C functions report failure: each returns 0, or -1 with a message
// that ilab_last_error() hands to Python (one per thread, kept in bridge.cpp). The lab, viewer and own-GL
// functions (bridge.cpp, viewer.cpp, own_gl.cpp) all wrap their bodies in guarded().
#pragma once

#include <exception>
#include <string>

namespace ilab {

// What ilab_last_error() returns next on this thread.
void set_last_error(const std::string& message);

// Runs `body`: 0 when it returns, -1 with its exception's message as the last error when it throws.
template <class Body>
int guarded(Body&& body) {
  try {
    body();
    return 0;
  } catch (const std::exception& error) {
    set_last_error(error.what());
  } catch (...) {
    set_last_error("unknown error");
  }
  return -1;
}

}  // namespace ilab
