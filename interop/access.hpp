// interop/access.hpp — how CUDA uses a registered graphics resource, as one enum for register flags
// and map flags alike. Separate from gl.hpp so that code without GL headers (the command line) can
// name it.
#pragma once

#include <optional>
#include <string>

namespace interop {

// How CUDA will use a registered resource; maps onto cudaGraphicsRegisterFlags / MapFlags.
enum class Access {
  ReadWrite,     // cudaGraphicsRegisterFlagsNone
  ReadOnly,      // CUDA only reads (e.g. a texture that GL rendered)
  WriteDiscard,  // CUDA overwrites everything; previous contents are undefined after mapping
};

// Every value with its name (as --map-flags and the panel spell it) and what it maps onto, in the order
// they are offered.
struct AccessName {
  Access value;
  const char* name;
  const char* description;
};
inline constexpr AccessName kAccessNames[] = {
    {Access::ReadWrite, "none", "cudaGraphicsMapFlagsNone: CUDA reads and writes"},
    {Access::ReadOnly, "read-only", "cudaGraphicsMapFlagsReadOnly: CUDA only reads"},
    {Access::WriteDiscard, "write-discard", "cudaGraphicsMapFlagsWriteDiscard: CUDA overwrites everything"},
};

// The name in kAccessNames. Here with the table, not in a source of one API's interop, so that code built
// without GL (the Direct3D builds' frame loop and desk) spells flags the same way.
inline const char* to_string(Access access) {
  for (const AccessName& entry : kAccessNames)
    if (entry.value == access) return entry.name;
  return "?";
}
// "none" / "read-only" / "write-discard" back to the enum; nullopt for anything else.
inline std::optional<Access> access_from_string(const std::string& name) {
  for (const AccessName& entry : kAccessNames)
    if (name == entry.name) return entry.value;
  return std::nullopt;
}

}  // namespace interop
