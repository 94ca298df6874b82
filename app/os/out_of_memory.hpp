// app/os/out_of_memory.hpp — a failed allocation of an image-sized buffer, said in the user's terms: what
// could not be allocated, how much, and what to do, instead of a bare "std::bad_alloc".
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace lab {

// "out of memory: cannot allocate 1024 MB for WHAT; use a smaller --size, or free memory (...)".
[[noreturn]] inline void throw_out_of_memory(const std::string& what, size_t bytes) {
  const size_t megabytes = (bytes + (1u << 20) - 1) >> 20;
  throw std::runtime_error("out of memory: cannot allocate " + std::to_string(megabytes) + " MB for " + what +
                           "; use a smaller --size, or free memory (other programs, ulimit -v)");
}

}  // namespace lab
