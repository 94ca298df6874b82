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

const char* to_string(Access access);  // the name in kAccessNames
// "none" / "read-only" / "write-discard" back to the enum; nullopt for anything else.
std::optional<Access> access_from_string(const std::string& name);

}  // namespace interop
