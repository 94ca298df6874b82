// tests/unit/test_vmm_desc.cpp — the rules of CUDA-owned exportable allocations (interop/vmm.hpp) that
// need no GPU: descs refused with the field and the fix before CUDA is called, the granularity
// rounding, the probe always giving a reason when it says no, and the owned file descriptor.
#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "interop/vmm.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <limits>
#include <utility>

namespace {

interop::ExportableAllocationDesc desc_of(size_t size) {
  interop::ExportableAllocationDesc desc;
  desc.size = size;
  return desc;
}

TEST(VmmDesc, ASizedDescOnThisPlatformIsValid) {
  EXPECT_EQ(interop::validate(desc_of(1)), "");
}

TEST(VmmDesc, ZeroSizeIsRefusedNamingTheField) {
  const std::string problem = interop::validate(desc_of(0));
  EXPECT_NE(problem.find("ExportableAllocationDesc.size is 0"), std::string::npos) << problem;
}

TEST(VmmDesc, ANegativeDeviceOtherThanCurrentIsRefused) {
  interop::ExportableAllocationDesc desc = desc_of(64);
  desc.device = -2;
  const std::string problem = interop::validate(desc);
  EXPECT_NE(problem.find("ExportableAllocationDesc.device is -2"), std::string::npos) << problem;
  desc.device = -1;  // the current device
  EXPECT_EQ(interop::validate(desc), "");
}

TEST(VmmDesc, TheOtherPlatformsHandleTypeIsRefusedWithTheOneThatWorks) {
  interop::ExportableAllocationDesc desc = desc_of(64);
  desc.handle_type = interop::ExportHandleType::Win32;
  const std::string problem = interop::validate(desc);
  EXPECT_NE(problem.find("ExportableAllocationDesc.handle_type win32"), std::string::npos) << problem;
  EXPECT_NE(problem.find("PosixFd"), std::string::npos) << problem;
}

TEST(VmmDesc, AnInvalidDescThrowsBeforeAnyCudaCall) {
  try {
    interop::ExportableAllocation allocation(desc_of(0));
    FAIL() << "a zero-sized allocation was made";
  } catch (const interop::Error& error) {
    EXPECT_EQ(error.source(), interop::ErrorSource::Desc);
    EXPECT_EQ(error.condition(), interop::Condition::InvalidDesc);
    EXPECT_NE(std::string(error.what()).find("ExportableAllocationDesc.size is 0"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(interop::live_device_bytes(), 0u);
}

TEST(VmmRounding, RoundsUpToWholeGranules) {
  const size_t granule = size_t{2} << 20;  // what current GPUs report
  EXPECT_EQ(interop::round_up_to_granularity(1, granule), granule);
  EXPECT_EQ(interop::round_up_to_granularity(granule, granule), granule);
  EXPECT_EQ(interop::round_up_to_granularity(granule + 1, granule), 2 * granule);
  // 3840x2160 RGBA8: 31.6 MiB -> 16 granules.
  const size_t frame = size_t{3840} * 2160 * 4;
  const size_t rounded = interop::round_up_to_granularity(frame, granule);
  EXPECT_EQ(rounded % granule, 0u);
  EXPECT_GE(rounded, frame);
  EXPECT_LT(rounded - frame, granule);
  EXPECT_EQ(interop::round_up_to_granularity(0, granule), 0u);
}

TEST(VmmRounding, AGranularityThatIsNoPowerOfTwoStillRoundsToMultiples) {
  EXPECT_EQ(interop::round_up_to_granularity(10, 3), 12u);
  EXPECT_EQ(interop::round_up_to_granularity(4097 * 3 * 4, 4096), 4096u * 13);
}

TEST(VmmRounding, OverflowAndZeroGranularityGiveZero) {
  const size_t max = std::numeric_limits<size_t>::max();
  EXPECT_EQ(interop::round_up_to_granularity(max, size_t{2} << 20), 0u);
  EXPECT_EQ(interop::round_up_to_granularity(max - 1, 4), 0u);  // ...FE is even, but no multiple of 4
  EXPECT_EQ(interop::round_up_to_granularity(5, 0), 0u);
}

// Whatever this machine has: "no" always comes with why, "yes" with the granularity it maps in.
TEST(VmmProbe, SaysWhyWheneverItSaysNo) {
  const interop::VmmExportSupport support = interop::probe_vmm_export(0);
  EXPECT_EQ(support.supported, support.reason.empty()) << support.reason;
  if (support.supported) {
    EXPECT_GT(support.granularity, 0u);
  } else {
    EXPECT_EQ(support.granularity, 0u);
  }
}

// Where the probe says no (here: no driver; elsewhere a device without VMM export), making one anyway is
// an interop::Error in the library's words: the call, the error's name, and what to do.
TEST(VmmProbe, WhereItSaysNoAnAllocationThrowsAnErrorThatSaysWhatToDo) {
  const interop::VmmExportSupport support = interop::probe_vmm_export(0);
  if (support.supported) GTEST_SKIP() << "CUDA device 0 exports VMM memory: tests/gpu/test_vmm.cpp covers it";
  try {
    interop::ExportableAllocation allocation(desc_of(4096));
    FAIL() << "allocated though the probe said: " << support.reason;
  } catch (const interop::Error& error) {
    EXPECT_NE(error.source(), interop::ErrorSource::Desc) << error.what();
    EXPECT_FALSE(error.call().empty());
    EXPECT_FALSE(error.error_name().empty());
    EXPECT_FALSE(error.advice().empty()) << error.what();
  }
  EXPECT_EQ(interop::live_device_bytes(), 0u) << "nothing counted for an allocation that was never made";
}

TEST(VmmProbe, AnInvalidHandleTypeIsAnsweredWithoutAsking) {
  const interop::VmmExportSupport support = interop::probe_vmm_export(0, interop::ExportHandleType::Win32);
  EXPECT_FALSE(support.supported);
  EXPECT_NE(support.reason.find("handle_type win32"), std::string::npos) << support.reason;
}

TEST(FileDescriptor, ClosesWhatItOwnsAndReleaseGivesItUp) {
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  {
    interop::FileDescriptor read_end(pipe_ends[0]);
    interop::FileDescriptor moved = std::move(read_end);
    EXPECT_FALSE(read_end) << "a moved-from descriptor is empty";
    EXPECT_EQ(moved.get(), pipe_ends[0]);
  }
  errno = 0;
  EXPECT_EQ(fcntl(pipe_ends[0], F_GETFD), -1) << "closed by its owner";
  EXPECT_EQ(errno, EBADF);

  interop::FileDescriptor write_end(pipe_ends[1]);
  const int released = write_end.release();
  EXPECT_EQ(released, pipe_ends[1]);
  EXPECT_EQ(write_end.get(), -1);
  EXPECT_NE(fcntl(released, F_GETFD), -1) << "release() must not close it";
  close(released);
}

}  // namespace
