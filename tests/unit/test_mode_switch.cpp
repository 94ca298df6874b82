// tests/unit/test_mode_switch.cpp — attach_or_keep, the live mode switch of the Vulkan and Direct3D apps:
// a mode that runs is attached; one whose attach throws leaves the previous mode attached and says why. The
// fallback tiers every loop falls back by: each CUDA mode to staging where it runs, else cpu, and what the
// loop says when it does.
#include "app/modes/mode_switch.hpp"

#include "app/core/vocabulary.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using lab::ModeId;

TEST(AttachOrKeep, AModeThatRunsIsAttachedAndNothingIsSaid) {
  std::vector<ModeId> attached;
  int detached = 0;
  const std::string notice = lab::attach_or_keep(
      ModeId::External, ModeId::Cpu, [&](ModeId id) { attached.push_back(id); }, [&] { ++detached; });
  EXPECT_EQ(notice, "");
  EXPECT_EQ(attached, std::vector<ModeId>{ModeId::External});
  EXPECT_EQ(detached, 0);
}

TEST(AttachOrKeep, AModeWhoseAttachFailsLeavesThePreviousOneRunningAndSaysWhy) {
  std::vector<ModeId> attached;
  int detached = 0;
  const std::string notice = lab::attach_or_keep(
      ModeId::External, ModeId::Staging,
      [&](ModeId id) {
        attached.push_back(id);
        if (id == ModeId::External) throw std::runtime_error("the device exports no semaphores");
      },
      [&] { ++detached; });
  EXPECT_EQ(notice, "external cannot run here: the device exports no semaphores");
  EXPECT_EQ(attached, (std::vector<ModeId>{ModeId::External, ModeId::Staging}));
  EXPECT_EQ(detached, 1) << "what the failed attach made is released before the previous mode comes back";
}

TEST(FallbackTier, EveryModeAboveStagingFallsToStagingWhereItRunsElseToCpu) {
  int above = 0;
  for (const ModeId mode : lab::all_modes()) {
    SCOPED_TRACE(lab::to_string(mode));
    if (mode == ModeId::Staging || mode == ModeId::Cpu) {
      EXPECT_EQ(lab::fallback_tier(mode, true), ModeId::Cpu) << "staging and cpu fall to the last tier";
      EXPECT_EQ(lab::fallback_tier(mode, false), ModeId::Cpu);
      continue;
    }
    ++above;
    EXPECT_EQ(lab::fallback_tier(mode, true), ModeId::Staging);
    EXPECT_EQ(lab::fallback_tier(mode, false), ModeId::Cpu);
  }
  EXPECT_EQ(above + 2, static_cast<int>(lab::all_modes().size())) << "staging and cpu are modes of the table";
}

TEST(FallbackNotice, NamesTheFailedModeWhatFailedWhyAndTheNextTier) {
  const std::string notice = lab::fallback_notice(ModeId::Interop, "producing frame 7",
                                                  "cudaErrorUnknown (a stand-in)", ModeId::Staging);
  const size_t failed = notice.find(std::string(lab::to_string(ModeId::Interop)) + " failed");
  const size_t what = notice.find("producing frame 7");
  const size_t why = notice.find("cudaErrorUnknown (a stand-in)");
  const size_t next = notice.find(std::string("now in ") + lab::to_string(ModeId::Staging) + " mode");
  ASSERT_NE(failed, std::string::npos) << notice;
  ASSERT_NE(what, std::string::npos) << notice;
  ASSERT_NE(why, std::string::npos) << notice;
  ASSERT_NE(next, std::string::npos) << notice;
  EXPECT_LT(failed, what);
  EXPECT_LT(what, why);
  EXPECT_LT(why, next);
}

}  // namespace
