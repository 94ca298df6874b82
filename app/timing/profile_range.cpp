// app/timing/profile_range.cpp — NVTX ranges in the app's own domain.
#include "app/timing/profile_range.hpp"

#include <nvtx3/nvToolsExt.h>

namespace lab {
namespace {

nvtxDomainHandle_t domain() {
  // Created on first use: NVTX loads the profiler's injection library then, not at static initialisation.
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA("interop-lab");
  return handle;
}

}  // namespace

ProfileRange::ProfileRange(const char* name) {
  push_profile_range(name);
}

ProfileRange::~ProfileRange() {
  pop_profile_range();
}

void push_profile_range(const char* name) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  nvtxDomainRangePushEx(domain(), &attributes);
}

void pop_profile_range() {
  nvtxDomainRangePop(domain());
}

}  // namespace lab
