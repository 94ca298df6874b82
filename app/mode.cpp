// app/mode.cpp — access-flag rules shared by the modes, and the mode factory.
#include "app/mode.hpp"

#include <stdexcept>

namespace lab {

std::unique_ptr<Mode> create_interop_mode(const CudaContext& cuda, const AccessSettings& access);
std::unique_ptr<Mode> create_reregister_mode(const CudaContext& cuda, const AccessSettings& access);
std::unique_ptr<Mode> create_pbo_mode(const CudaContext& cuda, const AccessSettings& access);
std::unique_ptr<Mode> create_staging_mode(const CudaContext& cuda);
std::unique_ptr<Mode> create_cpu_mode();

interop::Access best_access(ResourceRole role) {
  return role == ResourceRole::Input ? interop::Access::ReadOnly : interop::Access::WriteDiscard;
}

interop::Access resolve_access(std::optional<interop::Access> choice, ResourceRole role) {
  return choice.value_or(best_access(role));
}

std::string check_access(const std::vector<ResourceSpec>& resources, std::optional<interop::Access> access) {
  if (!access) return "";
  for (const ResourceSpec& spec : resources) {
    if (*access == interop::Access::ReadOnly && spec.role == ResourceRole::Output)
      return std::string("read-only cannot apply to the ") + spec.label +
             ": CUDA writes it, and read-only promises it will not; use none or write-discard";
    if (*access == interop::Access::WriteDiscard && spec.role == ResourceRole::Input)
      return std::string("write-discard cannot apply to the ") + spec.label +
             ": CUDA reads it, and write-discard lets the driver drop its contents; use none or read-only";
  }
  return "";
}

std::unique_ptr<Mode> create_mode(ModeId id, const CudaContext& cuda, const AccessSettings& access) {
  switch (id) {
    case ModeId::Interop: return create_interop_mode(cuda, access);
    case ModeId::Reregister: return create_reregister_mode(cuda, access);
    case ModeId::Pbo: return create_pbo_mode(cuda, access);
    case ModeId::Staging: return create_staging_mode(cuda);
    case ModeId::Cpu: return create_cpu_mode();
  }
  throw std::invalid_argument("unknown mode");
}

}  // namespace lab
