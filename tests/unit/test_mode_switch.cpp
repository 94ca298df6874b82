// tests/unit/test_mode_switch.cpp — attach_or_keep, the live mode switch of the Vulkan and Direct3D apps:
// a mode that runs is attached; one whose attach throws leaves the previous mode attached and says why.
#include "app/core/mode_switch.hpp"

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

}  // namespace
