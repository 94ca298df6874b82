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

const char* to_string(Access access);
// "none" / "read-only" / "write-discard" back to the enum; nullopt for anything else.
std::optional<Access> access_from_string(const std::string& name);

}  // namespace interop
