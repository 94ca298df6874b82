// tests/support/stand_in_error.hpp — the CUDA error a test's stand-in mode throws where a real mode's CUDA
// call would fail: not sticky (cudaErrorUnknown: the loop falls back one tier) or sticky
// (cudaErrorIllegalAddress: the context is corrupt and the run ends), naming `call` as the call that failed.
#pragma once

#include "interop/error.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

namespace labtest {

inline interop::Error stand_in_cuda_error(bool sticky, std::string call, const char* file, int line) {
  interop::ErrorInfo info;
  info.call = std::move(call);
  info.file = file;
  info.line = line;
  info.code = sticky ? cudaErrorIllegalAddress : cudaErrorUnknown;
  info.error_name = sticky ? "cudaErrorIllegalAddress" : "cudaErrorUnknown";
  info.condition = sticky ? interop::Condition::ContextCorrupt : interop::Condition::GlNotOnCudaDevice;
  info.advice = "stand-in failure";
  info.sticky = sticky;
  return interop::Error(std::move(info));
}

}  // namespace labtest
