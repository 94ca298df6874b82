// app/modes/mode_switch.cpp — attach_or_keep and the fallback tiers.
#include "app/modes/mode_switch.hpp"

#include <cstdio>
#include <stdexcept>

namespace lab {

std::string attach_or_keep(ModeId wanted, ModeId previous, const std::function<void(ModeId)>& attach,
                           const std::function<void()>& detach_failed) {
  try {
    attach(wanted);
    return "";
  } catch (const std::runtime_error& error) {
    const std::string notice = std::string(to_string(wanted)) + " cannot run here: " + error.what();
    std::fprintf(stderr, "interop-lab: %s; staying in %s\n", notice.c_str(), to_string(previous));
    detach_failed();
    attach(previous);
    return notice;
  }
}

ModeId fallback_tier(ModeId failed, bool staging_runs) {
  const ModeId next = falls_back_to(failed);
  // The copy tier needs CUDA: where it does not run, its own tier below (cpu) is next.
  if (mode_family(next) == ModeFamily::Copy && !staging_runs) return falls_back_to(next);
  return next;
}

std::string fallback_notice(ModeId failed, const std::string& what, const std::string& why, ModeId next) {
  return std::string(to_string(failed)) + " failed (" + what + ": " + why + "); now in " + to_string(next) +
         " mode";
}

}  // namespace lab
