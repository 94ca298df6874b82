// app/modes/access.cpp — the access-flag rules of app/modes/access.hpp.
#include "app/modes/access.hpp"

namespace lab {

interop::Access best_access(ResourceRole role) {
  return role == ResourceRole::Input ? interop::Access::ReadOnly : interop::Access::WriteDiscard;
}

interop::Access resolve_access(std::optional<interop::Access> choice, ResourceRole role) {
  return choice.value_or(best_access(role));
}

std::string check_access(const std::vector<ResourceDesc>& resources, std::optional<interop::Access> access) {
  if (!access) return "";
  for (const ResourceDesc& desc : resources) {
    if (*access == interop::Access::ReadOnly && desc.role == ResourceRole::Output)
      return std::string("read-only cannot apply to the ") + desc.label +
             ": CUDA writes it, and read-only promises it will not; use none or write-discard";
    if (*access == interop::Access::WriteDiscard && desc.role == ResourceRole::Input)
      return std::string("write-discard cannot apply to the ") + desc.label +
             ": CUDA reads it, and write-discard lets the driver drop its contents; use none or read-only";
  }
  return "";
}

std::vector<RegisteredFlags> registered_flags(const std::vector<ResourceDesc>& resources,
                                              const AccessSettings& access, const char* suffix) {
  std::vector<RegisteredFlags> flags;
  for (const ResourceDesc& desc : resources)
    flags.push_back({desc.label + std::string(suffix), desc.role,
                     resolve_access(access.register_access, desc.role),
                     resolve_access(access.map_access, desc.role)});
  return flags;
}

}  // namespace lab
