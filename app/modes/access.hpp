// app/modes/access.hpp — the register and map flags of the modes that register a scene's resources with
// CUDA (GL's interop, reregister, pbo and split modes): what each resource gets unless the user chose
// (--map-flags, the panel), which choices suit a scene, and what the panel lists per registration. No
// graphics API: the rules are the CUDA runtime's (cudaGraphicsRegisterFlags / cudaGraphicsMapFlags).
#pragma once

#include "app/scene/scene_compute.hpp"
#include "interop/access.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lab {

// Register and map flags for every resource a mode registers. Unset: the best for each resource's role
// (write-discard for what CUDA writes, read-only for what it reads).
struct AccessSettings {
  std::optional<interop::Access> register_access;
  std::optional<interop::Access> map_access;
};

interop::Access best_access(ResourceRole role);
// The access a resource gets under `choice` (its best when unset).
interop::Access resolve_access(std::optional<interop::Access> choice, ResourceRole role);
// "" when `access` suits every resource, else why not, naming the resource and what would work:
// read-only cannot apply to what CUDA writes, write-discard not to what it reads.
std::string check_access(const std::vector<ResourceDesc>& resources, std::optional<interop::Access> access);

// What the panel shows for one registered resource.
struct RegisteredFlags {
  std::string label;
  ResourceRole role = ResourceRole::Output;
  interop::Access register_access = interop::Access::ReadWrite;
  interop::Access map_access = interop::Access::ReadWrite;
};

// One RegisteredFlags per resource under `access`; `suffix` follows each label (" (its buffer)").
std::vector<RegisteredFlags> registered_flags(const std::vector<ResourceDesc>& resources,
                                              const AccessSettings& access, const char* suffix = "");

}  // namespace lab
