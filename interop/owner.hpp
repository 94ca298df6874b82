// interop/owner.hpp — Owner<Traits>: the one move-only owner behind the library's RAII handles
// (GraphicsResource, DeviceBuffer, PinnedHostBuffer, Stream, Event, SurfaceObject, TextureObject).
//
// Traits says what the handle is and how it dies:
//   struct Traits {
//     using Handle = ...;                        // a value-initialised Handle{} is the empty state
//     static void destroy(Handle) noexcept;      // reports failures (INTEROP_CUDA_REPORT), never throws
//   };
// Copy is deleted; a move leaves the source empty, so exactly one owner destroys the handle. Handles
// that are structs (a pointer and its size) define operator==.
#pragma once

#include <utility>

namespace interop {

template <typename Traits>
class Owner {
 public:
  using Handle = typename Traits::Handle;

  Owner() = default;
  explicit Owner(Handle handle) noexcept : m_handle(handle) {}
  ~Owner() { destroy(); }
  Owner(const Owner&) = delete;
  Owner& operator=(const Owner&) = delete;
  Owner(Owner&& other) noexcept : m_handle(other.release()) {}
  Owner& operator=(Owner&& other) noexcept {
    if (this != &other) {
      destroy();
      m_handle = other.release();
    }
    return *this;
  }

  const Handle& get() const { return m_handle; }
  explicit operator bool() const { return !(m_handle == Handle{}); }
  // Gives the handle up without destroying it; the owner is empty afterwards.
  Handle release() noexcept { return std::exchange(m_handle, Handle{}); }

 private:
  void destroy() noexcept {
    if (*this) Traits::destroy(release());
  }

  Handle m_handle{};
};

}  // namespace interop
