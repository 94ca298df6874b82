// app/timing/profile_range.hpp — NVTX ranges in the "interop-lab" domain: what Nsight Systems shows of the
// app (one range per frame, per phase, per switch), whatever the graphics API. Needs the NVTX v3 headers
// (CUDA::nvtx3, header-only: without a profiler attached a range is one branch).
#pragma once

#include <string>

namespace lab {

// An NVTX range for the scope. NVTX copies the name when the range opens.
class ProfileRange {
 public:
  explicit ProfileRange(const char* name);
  explicit ProfileRange(const std::string& name) : ProfileRange(name.c_str()) {}
  ~ProfileRange();
  ProfileRange(const ProfileRange&) = delete;
  ProfileRange& operator=(const ProfileRange&) = delete;
};

// The same as free calls, for guards whose header stays free of NVTX (app/timing/timing.hpp's phases).
void push_profile_range(const char* name);
void pop_profile_range();

}  // namespace lab
