// tests/support/scratch_dir.hpp — a fresh directory for one test of one process, removed afterwards.
//
// Named <temp>/interop-lab-<what>-<pid>-<test name>, so test binaries running at the same time (ctest -j,
// or the same binary under several compute-sanitizer tools on one GPU) never share a file.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace labtest {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& what) {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = "interop-lab-" + what + "-" + std::to_string(getpid());
    if (test != nullptr) name += std::string("-") + test->test_suite_name() + "." + test->name();
    for (char& c : name)
      if (c == '/') c = '_';  // parameterised tests are named "Suite/Name/param"
    m_path = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(m_path);
    std::filesystem::create_directories(m_path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    // A test may have left a directory read-only; make everything deletable again.
    for (auto it = std::filesystem::recursive_directory_iterator(m_path, ignored);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
      if (it->is_directory(ignored))
        std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all, ignored);
    }
    std::filesystem::permissions(m_path, std::filesystem::perms::owner_all, ignored);
    std::filesystem::remove_all(m_path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return m_path; }
  std::string file(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

}  // namespace labtest
