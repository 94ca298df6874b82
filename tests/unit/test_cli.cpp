// tests/unit/test_cli.cpp — the command-line contract: defaults, every option, and every usage error
// giving exit code 2 with one line that names the option and the value. No GPU, no GL.
#include "app/cli/cli.hpp"
#include "tests/support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// argv as main() receives it, with the program name first.
lab::ParseResult parse(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"interop-lab"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return lab::parse_command_line(static_cast<int>(argv.size()), argv.data());
}

// Sets an environment variable (nullptr: unsets it) for a scope, then puts back what was there.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedVariable() {
    if (m_old)
      setenv(m_name, m_old->c_str(), 1);
    else
      unsetenv(m_name);
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

// --help as a terminal `columns` wide would show it (COLUMNS; nullptr: none set).
std::string help_text(const char* columns) {
  const ScopedVariable variable("COLUMNS", columns);
  const lab::ParseResult result = parse({"--help"});
  EXPECT_EQ(result.exit_code, 0);
  return result.output;
}

// The help with the options' wrapped descriptions joined again: their lines go on in the 22nd column.
std::string unwrapped(const std::string& help) {
  std::string text = help;
  const std::string continuation = "\n" + std::string(22, ' ');
  for (size_t at = text.find(continuation); at != std::string::npos; at = text.find(continuation, at))
    text.replace(at, continuation.size(), " ");
  return text;
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
  return count;
}

// Options that parsed and are to be run: no exit code, nothing to print.
void expect_runs(const lab::ParseResult& result) {
  EXPECT_FALSE(result.exit_code.has_value()) << result.output;
  EXPECT_EQ(result.output, "");
}

TEST(CliTest, NoArgumentsGiveTheDefaults) {
  const lab::ParseResult result = parse({});
  expect_runs(result);
  const lab::Options& options = result.options;
  EXPECT_EQ(options.scene, lab::SceneId::Wave);
  EXPECT_FALSE(options.mode.has_value());
  EXPECT_EQ(options.width, 1280);
  EXPECT_EQ(options.height, 720);
  EXPECT_FALSE(options.device.has_value());
  EXPECT_FALSE(options.headless);
  EXPECT_FALSE(options.frames.has_value());
  EXPECT_EQ(options.screenshot, "");
  EXPECT_FALSE(options.no_ui);
  EXPECT_FALSE(options.list);
}

TEST(CliTest, EveryScenePassesByName) {
  for (lab::SceneId scene : lab::all_scenes()) {
    SCOPED_TRACE(lab::to_string(scene));
    const lab::ParseResult result = parse({"--scene", lab::to_string(scene)});
    expect_runs(result);
    EXPECT_EQ(result.options.scene, scene);
  }
  EXPECT_EQ(parse({"--scene", "pattern"}).options.scene, lab::SceneId::Pattern);
}

TEST(CliTest, EveryModePassesByName) {
  for (lab::ModeId mode : lab::all_modes()) {
    SCOPED_TRACE(lab::to_string(mode));
    const lab::ParseResult result = parse({"--mode", lab::to_string(mode)});
    expect_runs(result);
    EXPECT_EQ(result.options.mode, mode);
  }
  EXPECT_EQ(parse({"--mode", "cpu"}).options.mode, lab::ModeId::Cpu);
}

TEST(CliTest, EveryApiPassesByNameWithEachOfItsModes) {
  EXPECT_EQ(parse({}).options.api, lab::GraphicsApi::Gl);
  for (lab::GraphicsApi api : lab::all_apis()) {
    SCOPED_TRACE(lab::to_string(api));
    EXPECT_EQ(lab::api_from_string(lab::to_string(api)), api);
    ASSERT_FALSE(lab::modes_of(api).empty());
    for (lab::ModeId mode : lab::modes_of(api)) {
      const lab::ParseResult result = parse({"--api", lab::to_string(api), "--mode", lab::to_string(mode)});
      expect_runs(result);
      EXPECT_EQ(result.options.api, api);
      EXPECT_EQ(result.options.mode, mode);
    }
  }
}

// --api none: no window, pictures only. It runs headless and shows the pattern scene unless told to attach;
// a drawn scene or a window's option is a usage error.
TEST(CliTest, ApiNoneRunsHeadlessAndShowsPictures) {
  lab::ParseResult result = parse({"--api", "none"});
  expect_runs(result);
  EXPECT_TRUE(result.options.headless);
  EXPECT_EQ(result.options.scene, lab::SceneId::Pattern);
  result = parse({"--api", "none", "--attach", "sim", "--serve", "0"});
  expect_runs(result);
  EXPECT_EQ(result.options.attach, std::optional<std::string>("sim"));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--api", "none", "--scene", "postprocess"},
        std::vector<std::string>{"--api", "none", "--bench-window", "--bench"}}) {
    result = parse(args);
    EXPECT_EQ(result.exit_code, std::optional<int>(2)) << args[2];
    EXPECT_NE(result.output.find("--api none"), std::string::npos) << result.output;
  }
}

// The table the parser, --list, the doctor and availability all read.
TEST(CliTest, EachApiHasItsModes) {
  const auto names = [](lab::GraphicsApi api) {
    std::string text;
    for (lab::ModeId mode : lab::modes_of(api))
      text += std::string(text.empty() ? "" : " ") + lab::to_string(mode);
    return text;
  };
  EXPECT_EQ(names(lab::GraphicsApi::Gl),
            "interop reregister pbo split buffer staging cpu external exported eglstream");
  EXPECT_EQ(names(lab::GraphicsApi::Vulkan), "external exported buffer staging cpu");
  EXPECT_EQ(names(lab::GraphicsApi::D3d11), "interop reregister staging cpu external");
  EXPECT_EQ(names(lab::GraphicsApi::D3d12), "external staging cpu");
  EXPECT_EQ(names(lab::GraphicsApi::None), "staging cpu");
  // Every mode belongs to some API, and has_mode agrees with the table.
  for (lab::ModeId mode : lab::all_modes()) {
    SCOPED_TRACE(lab::to_string(mode));
    EXPECT_TRUE(lab::has_mode(lab::GraphicsApi::Gl, mode));
    EXPECT_EQ(lab::has_mode(lab::GraphicsApi::Vulkan, mode),
              mode == lab::ModeId::External || mode == lab::ModeId::Exported || mode == lab::ModeId::Buffer ||
                  mode == lab::ModeId::Staging || mode == lab::ModeId::Cpu);
  }
}

TEST(CliTest, SizeIsWidthByHeight) {
  lab::ParseResult result = parse({"--size", "640x480"});
  expect_runs(result);
  EXPECT_EQ(result.options.width, 640);
  EXPECT_EQ(result.options.height, 480);

  result = parse({"--size=1x1"});
  expect_runs(result);
  EXPECT_EQ(result.options.width, 1);
  EXPECT_EQ(result.options.height, 1);

  const std::string largest = std::to_string(lab::kMaxImageEdge) + "x" + std::to_string(lab::kMaxImageEdge);
  result = parse({"--size", largest});
  expect_runs(result);
  EXPECT_EQ(result.options.width, lab::kMaxImageEdge);
  EXPECT_EQ(result.options.height, lab::kMaxImageEdge);
}

TEST(CliTest, DeviceIsAnOrdinal) {
  lab::ParseResult result = parse({"--device", "0"});
  expect_runs(result);
  EXPECT_EQ(result.options.device, 0);

  result = parse({"--device", "3"});
  expect_runs(result);
  EXPECT_EQ(result.options.device, 3);
}

TEST(CliTest, SplitModeTakesAComputeDeviceAndACopyPath) {
  lab::ParseResult result = parse({});
  expect_runs(result);
  EXPECT_FALSE(result.options.compute_device.has_value()) << "unset: the GL device computes";
  EXPECT_EQ(result.options.split_copy, lab::SplitCopy::Peer);

  result = parse({"--mode", "split", "--compute-device", "1", "--split-copy", "host"});
  expect_runs(result);
  EXPECT_EQ(result.options.mode, lab::ModeId::Split);
  EXPECT_EQ(result.options.compute_device, 1);
  EXPECT_EQ(result.options.split_copy, lab::SplitCopy::Host);
}

TEST(CliTest, AnAttachedPictureTakesAFit) {
  lab::ParseResult result = parse({"--attach", "sim"});
  expect_runs(result);
  EXPECT_FALSE(result.options.picture_fit.has_value()) << "unset: stretched, as before fits";
  result = parse({"--attach", "sim", "--picture-fit", "contain"});
  expect_runs(result);
  EXPECT_EQ(result.options.picture_fit, lab::PictureFit::Contain);
}

TEST(CliTest, TheExternalModeTakesASemaphoreKind) {
  lab::ParseResult result = parse({"--api", "vulkan", "--mode", "external"});
  expect_runs(result);
  EXPECT_EQ(result.options.semaphores, interop::SemaphoreKind::Timeline) << "the default";
  result = parse({"--api", "vulkan", "--mode", "external", "--semaphores", "binary"});
  expect_runs(result);
  EXPECT_EQ(result.options.semaphores, interop::SemaphoreKind::Binary);
}

TEST(CliTest, TheExportedModeTakesASemaphoreKindToo) {
  lab::ParseResult result = parse({"--api", "vulkan", "--mode", "exported", "--semaphores", "binary"});
  expect_runs(result);
  EXPECT_EQ(result.options.mode, lab::ModeId::Exported);
  EXPECT_EQ(result.options.semaphores, interop::SemaphoreKind::Binary);
  EXPECT_TRUE(lab::uses_semaphores(lab::ModeId::Exported));
  EXPECT_FALSE(lab::uses_semaphores(lab::ModeId::Staging));
}

TEST(CliTest, FramesIsAPositiveCount) {
  lab::ParseResult result = parse({"--frames", "1"});
  expect_runs(result);
  EXPECT_EQ(result.options.frames, 1);

  result = parse({"--frames", "120"});
  expect_runs(result);
  EXPECT_EQ(result.options.frames, 120);

  const long long most = std::numeric_limits<long long>::max();
  result = parse({"--frames", std::to_string(most)});
  expect_runs(result);
  EXPECT_EQ(result.options.frames, most);
}

TEST(CliTest, FlagsSetTheirOptions) {
  lab::ParseResult result = parse({"--headless"});
  expect_runs(result);
  EXPECT_TRUE(result.options.headless);

  result = parse({"--no-ui"});
  expect_runs(result);
  EXPECT_TRUE(result.options.no_ui);
}

TEST(CliTest, ListIsLeftToMain) {
  // main() prints list_text() itself, so --list sets the option and asks for no exit here.
  const lab::ParseResult result = parse({"--list"});
  expect_runs(result);
  EXPECT_TRUE(result.options.list);
}

TEST(CliTest, AllOptionsTogether) {
  const lab::ParseResult result = parse({"--scene", "pattern", "--mode", "cpu", "--size", "320x200",
                                         "--device", "1", "--headless", "--frames", "10", "--no-ui"});
  expect_runs(result);
  const lab::Options& options = result.options;
  EXPECT_EQ(options.scene, lab::SceneId::Pattern);
  EXPECT_EQ(options.mode, lab::ModeId::Cpu);
  EXPECT_EQ(options.width, 320);
  EXPECT_EQ(options.height, 200);
  EXPECT_EQ(options.device, 1);
  EXPECT_TRUE(options.headless);
  EXPECT_EQ(options.frames, 10);
  EXPECT_TRUE(options.no_ui);
  EXPECT_FALSE(options.list);
}

TEST(CliTest, HelpListsEveryOptionAndTheExitCodes) {
  const std::string help = help_text("100");
  for (const char* option :
       {"--scene", "--mode", "--size", "--device", "--compute-device", "--split-copy", "--headless",
        "--frames", "--screenshot", "--no-ui", "--list", "--help", "--version"})
    EXPECT_NE(help.find(option), std::string::npos) << option << " missing from:\n" << help;
  EXPECT_NE(help.find("2 usage error"), std::string::npos) << help;
  EXPECT_NE(help.find("interop-lab --"), std::string::npos) << "no example in:\n" << help;
}

// Every line of --help fits in 100 columns, however wide the terminal says it is (COLUMNS unset: the
// terminal's width where stdout is one, else 100).
TEST(CliTest, HelpFitsInOneHundredColumns) {
  const struct {
    const char* columns;  // COLUMNS; nullptr: unset
    bool says_wider;      // COLUMNS says 100 or more, whatever the terminal
  } cases[] = {{nullptr, false}, {"100", true}, {"300", true}, {"not-a-number", false}};
  for (const auto& [columns, says_wider] : cases) {
    SCOPED_TRACE(columns ? columns : "COLUMNS unset");
    std::istringstream lines(help_text(columns));
    size_t widest = 0;
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(line.size(), 100u) << line;
      widest = std::max(widest, line.size());
    }
    if (says_wider) {
      EXPECT_GT(widest, 90u) << "the help uses the width it has";
    }
  }
}

// A narrower terminal gets the same help, wrapped to its width: the same words, in the same order.
TEST(CliTest, HelpWrapsToANarrowerTerminal) {
  const auto words = [](const std::string& text) {
    std::istringstream stream(text);
    std::vector<std::string> all;
    for (std::string word; stream >> word;) all.push_back(word);
    return all;
  };
  const std::string narrow = help_text("70");
  std::istringstream lines(narrow);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 70u) << line;
  EXPECT_EQ(words(narrow), words(help_text("100")));
  EXPECT_NE(narrow, help_text("100"));
}

// The tagline names every graphics API, and an example serves the desk.
TEST(CliTest, HelpNamesEveryApiAndShowsTheDesk) {
  const std::string help = unwrapped(help_text("100"));
  std::string tagline = help.substr(0, help.find("Usage:"));
  std::replace(tagline.begin(), tagline.end(), '\n', ' ');
  for (const char* api : {"OpenGL", "Vulkan", "Direct3D 11", "Direct3D 12"})
    EXPECT_NE(tagline.find(api), std::string::npos) << api << " missing from: " << tagline;
  const std::string examples = help.substr(help.find("Examples:"));
  EXPECT_NE(examples.find("interop-lab --serve "), std::string::npos) << examples;
}

TEST(CliTest, VersionPrintsTheProgramAndVersion) {
  const lab::ParseResult result = parse({"--version"});
  ASSERT_TRUE(result.exit_code.has_value());
  EXPECT_EQ(*result.exit_code, 0);
  EXPECT_EQ(result.output.rfind("interop-lab ", 0), 0u) << result.output;
#ifdef INTEROP_LAB_VERSION
  EXPECT_EQ(result.output, std::string("interop-lab ") + INTEROP_LAB_VERSION + "\n");
#endif
}

TEST(CliTest, NamesRoundTrip) {
  for (lab::SceneId scene : lab::all_scenes())
    EXPECT_EQ(lab::scene_from_string(lab::to_string(scene)), scene);
  for (lab::ModeId mode : lab::all_modes()) EXPECT_EQ(lab::mode_from_string(lab::to_string(mode)), mode);
  EXPECT_STREQ(lab::to_string(lab::SceneId::Wave), "wave");
  EXPECT_STREQ(lab::to_string(lab::SceneId::Pattern), "pattern");
  EXPECT_STREQ(lab::to_string(lab::ModeId::Interop), "interop");
  EXPECT_STREQ(lab::to_string(lab::ModeId::Cpu), "cpu");
  EXPECT_FALSE(lab::scene_from_string("Wave").has_value());
  EXPECT_FALSE(lab::mode_from_string("").has_value());
}

// The mode table (cli.cpp's kModes) answers for every ModeId, so the files that decide by a mode's facts ask
// it instead of naming modes; its own static_asserts hold the rows to ModeId's order.
TEST(ModeTable, EveryModeIdHasARowWithItsNameAndFacts) {
  ASSERT_EQ(lab::all_modes().size(), lab::kModeCount);
  for (size_t index = 0; index < lab::kModeCount; ++index) {
    const lab::ModeId mode = static_cast<lab::ModeId>(index);
    SCOPED_TRACE(index);
    EXPECT_EQ(lab::all_modes()[index], mode) << "the table lists the modes in ModeId's order";
    EXPECT_STRNE(lab::to_string(mode), "?");
    EXPECT_STRNE(lab::describe(mode), "?");
    EXPECT_EQ(lab::mode_named(lab::to_string(mode)), mode);
    EXPECT_EQ(lab::uses_semaphores(mode), lab::mode_family(mode) == lab::ModeFamily::ExternalMemory);
    EXPECT_EQ(lab::shares_graphics_memory(mode),
              lab::mode_family(mode) == lab::ModeFamily::MapUnmap ||
                  lab::mode_family(mode) == lab::ModeFamily::ExternalMemory);
    // Two steps down at most reach cpu, the one mode that falls back to itself.
    EXPECT_EQ(lab::falls_back_to(lab::falls_back_to(mode)), lab::cpu_mode());
    EXPECT_EQ(lab::falls_back_to(mode) == mode, lab::is_cpu_mode(mode));
  }
}

TEST(ModeTable, ItsQueriesNameTheModesTheRulesMean) {
  EXPECT_STREQ(lab::to_string(lab::cpu_mode()), "cpu");
  EXPECT_TRUE(lab::is_cpu_mode(lab::mode_named("cpu")));
  EXPECT_FALSE(lab::is_cpu_mode(lab::mode_named("staging")));
  EXPECT_EQ(lab::mode_family(lab::mode_named("staging")), lab::ModeFamily::Copy);
  EXPECT_STREQ(lab::to_string(lab::falls_back_to(lab::mode_named("external"))), "staging");
  EXPECT_TRUE(lab::has_graph_form(lab::mode_named("interop")));
  EXPECT_FALSE(lab::has_graph_form(lab::mode_named("eglstream")));
  EXPECT_FALSE(lab::shares_graphics_memory(lab::mode_named("eglstream")));
  // The tier between the modes that share graphics memory and cpu: staging, which the modes that share
  // memory fall back to.
  EXPECT_STREQ(lab::to_string(lab::copy_mode()), "staging");
  EXPECT_EQ(lab::falls_back_to(lab::mode_named("interop")), lab::copy_mode());
  // Split alone computes on a device of its own; its compute device and copy are its settings.
  for (const lab::ModeId mode : lab::all_modes())
    EXPECT_EQ(lab::uses_compute_device(mode), std::string(lab::to_string(mode)) == "split")
        << lab::to_string(mode);
  // Each API's best mode is the first of its list: GL runs interop without --mode where it can.
  EXPECT_STREQ(lab::to_string(lab::best_mode(lab::GraphicsApi::Gl)), "interop");
  EXPECT_STREQ(lab::to_string(lab::best_mode(lab::GraphicsApi::Vulkan)), "external");
  try {
    lab::mode_named("Interop");
    FAIL() << "a name the table has not is refused";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("interop, reregister"), std::string::npos) << error.what();
  }
}

TEST(CliTest, ListTextNamesEverySceneAndMode) {
  const std::string text = lab::list_text();
  EXPECT_NE(text.find("scenes:"), std::string::npos);
  EXPECT_NE(text.find("modes:"), std::string::npos);
  // "  name   description": a space at least between them, however long the name.
  for (lab::SceneId scene : lab::all_scenes()) {
    EXPECT_NE(text.find("  " + std::string(lab::to_string(scene)) + " "), std::string::npos) << text;
    EXPECT_NE(text.find(lab::describe(scene)), std::string::npos);
  }
  for (lab::ModeId mode : lab::all_modes()) {
    EXPECT_NE(text.find("  " + std::string(lab::to_string(mode)) + " "), std::string::npos) << text;
    EXPECT_NE(text.find(lab::describe(mode)), std::string::npos);
  }
  EXPECT_NE(text.find("map flags: none, read-only, write-discard"), std::string::npos) << text;
  for (lab::GraphicsApi api : lab::all_apis()) {
    EXPECT_NE(text.find("  " + std::string(lab::to_string(api)) + " "), std::string::npos) << text;
    EXPECT_NE(text.find(lab::describe(api)), std::string::npos) << text;
  }
  EXPECT_NE(text.find("vulkan"), std::string::npos);
  EXPECT_NE(text.find("modes: external, exported, buffer, staging, cpu\n"), std::string::npos) << text;
  EXPECT_NE(
      text.find(
          "modes: interop, reregister, pbo, split, buffer, staging, cpu, external, exported, eglstream\n"),
      std::string::npos)
      << text;
  EXPECT_NE(std::string(lab::describe(lab::SceneId::Pattern)).find("surface object"), std::string::npos);
  EXPECT_NE(std::string(lab::describe(lab::ModeId::Cpu)).find("no CUDA"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Usage errors: exit code 2, and the first line names the option, the value and what is accepted.

struct BadInput {
  const char* name;  // the test's name suffix
  std::vector<std::string> args;
  std::vector<std::string> message_parts;  // each must appear on the message's line
};

void PrintTo(const BadInput& input, std::ostream* out) {
  *out << input.name;
}

class CliUsageErrorTest : public testing::TestWithParam<BadInput> {};

TEST_P(CliUsageErrorTest, ExitsWithTwoAndOneLineThatNamesTheProblem) {
  const BadInput& input = GetParam();
  const lab::ParseResult result = parse(input.args);
  ASSERT_TRUE(result.exit_code.has_value()) << "accepted";
  EXPECT_EQ(*result.exit_code, 2);
  // One message line, then the hint; main() prints the text as it is.
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 2) << result.output;
  const std::string message = result.output.substr(0, result.output.find('\n'));
  for (const std::string& part : input.message_parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' missing from: " << message;
  EXPECT_NE(result.output.find("--help"), std::string::npos) << result.output;
  // The line after the message points at --help; the message does not as well.
  EXPECT_EQ(occurrences(result.output, "--help"), 1u) << result.output;
}

// One bad input per line reads as a table.
// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Cli, CliUsageErrorTest,
    testing::Values(
        BadInput{"SizeZero", {"--size", "0x0"}, {"--size 0x0", "between 1 and 16384", "1280x720"}},
        BadInput{"SizeNotWxH", {"--size", "abc"}, {"--size abc", "WIDTHxHEIGHT", "1280x720"}},
        BadInput{"SizeHuge", {"--size", "100000x100000"}, {"--size 100000x100000", "16384"}},
        BadInput{"SizeOnePastTheLimit", {"--size", "16385x16"}, {"--size 16385x16", "16384"}},
        BadInput{"SizeOverflowingLong", {"--size", "99999999999999999999x5"}, {"--size", "16384"}},
        BadInput{"SizeNoHeight", {"--size", "640x"}, {"--size 640x", "WIDTHxHEIGHT"}},
        BadInput{"SizeNegative", {"--size", "-640x480"}, {"--size -640x480", "WIDTHxHEIGHT"}},
        BadInput{"SizeThreeParts", {"--size", "1x2x3"}, {"--size 1x2x3", "WIDTHxHEIGHT"}},
        BadInput{"SizeMissingValue", {"--size"}, {"--size", "needs a value"}},
        BadInput{"SceneUnknown", {"--scene", "nope"}, {"--scene nope", "unknown scene", "wave", "pattern"}},
        BadInput{"SceneEmpty", {"--scene="}, {"--scene", "wave"}},
        BadInput{"ModeUnknown", {"--mode", "nope"}, {"--mode nope", "unknown mode", "interop", "cpu"}},
        BadInput{"FramesNegative", {"--frames", "-1"}, {"--frames -1", "whole number", "at least 1"}},
        BadInput{"FramesZero", {"--frames", "0"}, {"--frames 0", "at least 1"}},
        BadInput{"FramesText", {"--frames", "x"}, {"--frames x", "whole number"}},
        BadInput{"FramesFraction", {"--frames", "1.5"}, {"--frames 1.5", "whole number"}},
        BadInput{"FramesTrailingText", {"--frames", "12abc"}, {"--frames 12abc", "whole number"}},
        BadInput{"FramesTooLarge", {"--frames", "99999999999999999999"}, {"--frames 99999999999999999999"}},
        BadInput{"DeviceNegative", {"--device", "-1"}, {"--device -1", "non-negative integer"}},
        BadInput{"DeviceText", {"--device", "x"}, {"--device x", "non-negative integer"}},
        BadInput{"DeviceTooLarge", {"--device", "3000000000"}, {"--device 3000000000", "non-negative"}},
        BadInput{"ComputeDeviceNegative", {"--compute-device", "-1"}, {"--compute-device -1", "non-negative integer"}},
        BadInput{"ComputeDeviceText", {"--compute-device", "gpu1"}, {"--compute-device gpu1", "non-negative"}},
        BadInput{"SplitCopyUnknown", {"--split-copy", "nvlink"}, {"--split-copy nvlink", "peer or host"}},
        BadInput{"UnknownOption", {"--bogus"}, {"--bogus: unknown option"}},
        BadInput{"UnknownOptionWithValue", {"--frobnicate=3"}, {"--frobnicate: unknown option"}},
        BadInput{"UnknownOptionNearAKnownOne", {"--frame", "3"}, {"--frame: unknown option (did you mean --frames?)"}},
        BadInput{"UnknownShortOption", {"-x"}, {"-x: unknown option"}},
        BadInput{"StrayArgument", {"stray"}, {"stray: unexpected argument", "interop-lab diff A.png B.png"}},
        BadInput{"StrayAfterOptions", {"--scene", "wave", "pattern"}, {"pattern: unexpected argument"}},
        BadInput{"DiffNoFiles", {"diff"}, {"diff: needs two PNG files: interop-lab diff A.png B.png [--heatmap PATH]"}},
        BadInput{"DiffOneFile", {"diff", "a.png"}, {"diff: needs two PNG files: interop-lab diff A.png B.png"}},
        BadInput{"DiffThreeFiles", {"diff", "a.png", "b.png", "c.png"}, {"c.png: one file too many", "diff A.png B.png"}},
        BadInput{"DiffUnknownOption", {"diff", "a.png", "b.png", "--nope"},
                 {"--nope: unknown option of diff; it takes --heatmap, --max-diff and --max-fraction"}},
        BadInput{"DiffUnknownOptionNearAKnownOne", {"diff", "a.png", "b.png", "--max-dif", "3"},
                 {"--max-dif: unknown option of diff (did you mean --max-diff?)"}},
        BadInput{"DiffMaxDiffTwice", {"diff", "a.png", "b.png", "--max-diff", "2", "--max-diff", "3"},
                 {"--max-diff was given more than once; give it once"}},
        BadInput{"DiffMaxFractionTwice", {"diff", "a.png", "b.png", "--max-fraction", "0", "--max-fraction", "0"},
                 {"--max-fraction was given more than once"}},
        BadInput{"DiffMaxDiffMissingValue", {"diff", "a.png", "b.png", "--max-diff"},
                 {"--max-diff needs a value, e.g. --max-diff 2"}},
        BadInput{"DiffMaxDiffEmpty", {"diff", "a.png", "b.png", "--max-diff", ""}, {"--max-diff '': ", "0 to 255"}},
        BadInput{"DiffMaxDiffEmptyAfterEquals", {"diff", "a.png", "b.png", "--max-diff="}, {"--max-diff needs a value"}},
        BadInput{"DiffMaxDiffTooLarge", {"diff", "a.png", "b.png", "--max-diff", "256"}, {"--max-diff 256: ", "0 to 255"}},
        BadInput{"DiffMaxFractionEmpty", {"diff", "a.png", "b.png", "--max-fraction", ""},
                 {"--max-fraction '': ", "from 0 to 1"}},
        BadInput{"DiffMaxFractionOverOne", {"diff", "a.png", "b.png", "--max-fraction", "1.5"}, {"--max-fraction 1.5: "}},
        BadInput{"DiffHeatmapEmpty", {"diff", "a.png", "b.png", "--heatmap", ""}, {"--heatmap '': ", "empty"}},
        BadInput{"RepeatedOption", {"--scene", "wave", "--scene", "pattern"}, {"--scene", "more than once"}},
        BadInput{"ScreenshotNoDirectory",
                 {"--screenshot", "/nonexistent-interop-lab-dir/out.png"},
                 {"--screenshot /nonexistent-interop-lab-dir/out.png: "}},
        BadInput{"ScreenshotMissingValue", {"--screenshot"}, {"--screenshot", "needs a value"}},
        BadInput{"ApiUnknown", {"--api", "opengl"}, {"--api opengl", "unknown graphics API", "gl, vulkan, d3d11, d3d12 or none"}},
        BadInput{"ApiTypo", {"--api", "vulkn"}, {"--api vulkn", "(did you mean vulkan?)", "choose gl"}},
        BadInput{"ApiEmpty", {"--api", ""}, {"--api '': unknown graphics API"}},
        BadInput{"ModeNotOfVulkan", {"--api", "vulkan", "--mode", "pbo"},
                 {"--mode pbo is not a mode of --api vulkan", "its modes are external, exported, buffer, staging or cpu"}},
        BadInput{"ModeNotOfD3d12", {"--mode", "interop", "--api", "d3d12"},
                 {"--mode interop is not a mode of --api d3d12", "external, staging or cpu"}},
        BadInput{"BenchOnD3d11", {"--bench", "--api", "d3d11"},
                 {"--bench covers --api gl and vulkan; Direct3D 11's benchmark is not built yet"}},
        BadInput{"BenchWindowOnVulkan", {"--bench", "--api", "vulkan", "--bench-window"},
                 {"--bench-window applies to --api gl's benchmark; drop it with --api vulkan"}},
        BadInput{"MapFlagsOnVulkan", {"--api", "vulkan", "--map-flags", "none"},
                 {"--map-flags applies to --api gl; drop it with --api vulkan"}},
        BadInput{"ApiWithList", {"--list", "--api", "vulkan"}, {"--api does nothing with --list; drop it"}},
        BadInput{"SemaphoresWithoutExternal", {"--api", "vulkan", "--semaphores", "binary"},
                 {"--semaphores applies to --mode external"}},
        BadInput{"ModeExportedNotOfD3d11", {"--api", "d3d11", "--mode", "exported"},
                 {"--mode exported is not a mode of --api d3d11"}},
        BadInput{"SemaphoresWithStaging", {"--api", "vulkan", "--mode", "staging", "--semaphores", "binary"},
                 {"--semaphores applies to --mode external and exported"}},
        BadInput{"SemaphoresUnknown", {"--mode", "external", "--semaphores", "counting"},
                 {"--semaphores counting", "choose timeline or binary"}},
        // A bad name names the names it is close to: a typo, a prefix, another case, an alias.
        BadInput{"SceneBeginningOfAName", {"--scene", "wav"}, {"--scene wav: unknown scene (did you mean wave?); choose wave"}},
        BadInput{"ModeTypo", {"--mode", "interopp"}, {"--mode interopp: unknown mode (did you mean interop?)"}},
        BadInput{"ModeInAnotherCase", {"--mode", "Interop"}, {"--mode Interop: unknown mode (did you mean interop?)"}},
        BadInput{"ApiAlias", {"--api", "vk"}, {"--api vk: unknown graphics API (did you mean vulkan?)"}},
        BadInput{"ApiBeginningOfTwo", {"--api", "d3d"}, {"(did you mean d3d11 or d3d12?)"}},
        BadInput{"FilterTypo", {"--filter", "blurr"}, {"--filter blurr: unknown filter (did you mean blur?)"}},
        BadInput{"MapFlagsBeginning", {"--map-flags", "read"}, {"(did you mean read-only?)"}},
        BadInput{"SplitCopySwappedLetters", {"--split-copy", "hots"},
                 {"--split-copy hots: unknown copy path (did you mean host?); choose peer or host"}},
        BadInput{"SemaphoresTypo", {"--mode", "external", "--semaphores", "timelin"}, {"(did you mean timeline?)"}},
        BadInput{"OptionInAnotherCase", {"--Frames", "3"}, {"--Frames: unknown option (did you mean --frames?)"}},
        BadInput{"OptionBeginningOfOne", {"--screen", "x.png"},
                 {"--screen: unknown option (did you mean --screenshot or --screenshot-dir?)"}},
        // An option that the scene or mode the run starts with does not read is refused, as --list refuses
        // what it ignores.
        BadInput{"FilterWithAnotherScene", {"--scene", "wave", "--filter", "blur"},
                 {"--filter does nothing with --scene wave; it applies to --scene postprocess only"}},
        BadInput{"FilterWithTheDefaultScene", {"--filter", "blur", "--headless"},
                 {"--filter does nothing with --scene wave (the default)"}},
        BadInput{"FilterWithABenchOfAnotherScene", {"--bench", "--scene", "pattern", "--filter", "sobel"},
                 {"--filter does nothing with --scene pattern"}},
        BadInput{"ComputeDeviceWithAnotherMode", {"--mode", "interop", "--compute-device", "1"},
                 {"--compute-device does nothing with --mode interop; it applies to --mode split only"}},
        BadInput{"SplitCopyWithAnotherMode", {"--mode", "cpu", "--split-copy", "host"},
                 {"--split-copy does nothing with --mode cpu"}},
        BadInput{"PictureFitUnknown", {"--attach", "sim", "--picture-fit", "fill"},
                 {"--picture-fit fill", "contain, stretch, cover or actual"}},
        BadInput{"PictureFitWithoutAttach", {"--picture-fit", "contain"},
                 {"--picture-fit does nothing without --attach NAME"}}),
    [](const testing::TestParamInfo<BadInput>& param_info) { return std::string(param_info.param.name); });
// clang-format on

// Nothing close, nothing suggested: "--fps" is two edits from "--api", which is another word.
TEST(CliTest, ANameFarFromEveryOtherGetsNoSuggestion) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--fps", "30"}, std::vector<std::string>{"--api", "metal"},
        std::vector<std::string>{"--scene", "cube"}, std::vector<std::string>{"--mode", "x"},
        std::vector<std::string>{"--scene", ""}}) {
    const lab::ParseResult result = parse(args);
    ASSERT_EQ(result.exit_code, 2) << args[0];
    EXPECT_EQ(result.output.find("did you mean"), std::string::npos) << result.output;
  }
  EXPECT_EQ(parse({"--fps", "30"}).output.substr(0, parse({"--fps", "30"}).output.find('\n')),
            "interop-lab: --fps: unknown option");
}

// Where the scene or mode reads the option, it is taken: postprocess's filter, also in a benchmark of every
// scene; split's compute device and copy path, also where --mode leaves the mode to the app.
TEST(CliTest, OptionsOfSomeScenesAndModesAreTakenWhereTheyApply) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--scene", "postprocess", "--filter", "blur"},
        std::vector<std::string>{"--bench", "--filter", "blur"},
        std::vector<std::string>{"--bench", "--scene", "postprocess", "--filter", "blur"},
        std::vector<std::string>{"--mode", "split", "--compute-device", "1", "--split-copy", "host"},
        std::vector<std::string>{"--compute-device", "0", "--split-copy", "host"}}) {
    SCOPED_TRACE(testing::PrintToString(args));
    expect_runs(parse(args));
  }
  EXPECT_EQ(parse({"--scene", "postprocess", "--filter", "blur"}).options.filter, kernels::Filter::Blur);
}

TEST(CliTest, DiffTakesTwoFilesAndItsTolerances) {
  lab::ParseResult result = parse({"diff", "a.png", "b.png"});
  expect_runs(result);
  ASSERT_TRUE(result.options.diff.has_value());
  EXPECT_EQ(result.options.diff->a, "a.png");
  EXPECT_EQ(result.options.diff->b, "b.png");
  EXPECT_EQ(result.options.diff->max_diff, 2);
  EXPECT_EQ(result.options.diff->heatmap, "");

  result = parse({"diff", "a.png", "b.png", "--max-diff", "0", "--max-fraction", "0.25"});
  expect_runs(result);
  EXPECT_EQ(result.options.diff->max_diff, 0);
  EXPECT_EQ(result.options.diff->max_fraction, 0.25);
}

// --list and --doctor answer and exit; what they would ignore is refused, naming the option.
TEST(CliTest, OptionsThatListAndDoctorIgnoreAreUsageErrors) {
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--doctor", "--screenshot", "out.png"}, "--screenshot does nothing with --doctor; drop it"},
      {{"--doctor", "--headless", "--frames", "10"}, "--frames does nothing with --doctor; drop it"},
      {{"--doctor", "--scene", "pattern"}, "--scene does nothing with --doctor; drop it"},
      {{"--doctor", "--mode", "cpu"}, "--mode does nothing with --doctor; drop it"},
      {{"--doctor", "--size", "64x64"}, "--size does nothing with --doctor; drop it"},
      {{"--doctor", "--no-ui"}, "--no-ui does nothing with --doctor; drop it"},
      {{"--list", "--screenshot", "out.png"}, "--screenshot does nothing with --list; drop it"},
      {{"--list", "--headless"}, "--headless does nothing with --list; drop it"},
      {{"--list", "--doctor"}, "--doctor does nothing with --list; drop it"},
      {{"--list", "--bench"}, "--bench does nothing with --list; drop it"},
  };
  for (const auto& [args, message] : cases) {
    const lab::ParseResult result = parse(args);
    ASSERT_EQ(result.exit_code, 2) << args[1];
    EXPECT_EQ(result.output.substr(0, result.output.find('\n')), "interop-lab: " + message);
  }
}

TEST(CliTest, DoctorTakesTheOptionsItReportsOn) {
  const lab::ParseResult result =
      parse({"--doctor", "--headless", "--device", "0", "--compute-device", "1", "--split-copy", "host"});
  expect_runs(result);
  EXPECT_TRUE(result.options.doctor);
}

TEST(CliTest, FirstBadValueIsTheOneReported) {
  const lab::ParseResult result = parse({"--frames", "0", "--scene", "nope"});
  ASSERT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--scene nope"), std::string::npos) << result.output;
}

// ---------------------------------------------------------------------------------------------
// --screenshot is checked before anything renders, against a real directory.

class CliScreenshotTest : public testing::Test {
 protected:
  labtest::ScratchDir m_scratch{"cli"};
  const std::filesystem::path& m_dir = m_scratch.path();
};

TEST_F(CliScreenshotTest, PathInAnExistingDirectoryIsAccepted) {
  const std::string path = (m_dir / "frame.png").string();
  const lab::ParseResult result = parse({"--headless", "--frames", "3", "--screenshot", path});
  expect_runs(result);
  EXPECT_EQ(result.options.screenshot, path);
  EXPECT_FALSE(std::filesystem::exists(path)) << "parsing must not create the file";
}

TEST_F(CliScreenshotTest, PathInAMissingDirectoryIsAUsageError) {
  const std::string path = (m_dir / "missing" / "frame.png").string();
  const lab::ParseResult result = parse({"--screenshot", path});
  ASSERT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--screenshot " + path + ": "), std::string::npos) << result.output;
  EXPECT_EQ(result.options.screenshot, "");
}

// Each bad output path is refused at parse time with the system's own reason, not after the frames.
// (`prefix`: diff's messages speak as `interop-lab diff`.)
void expect_refused(const std::vector<std::string>& args, const std::string& option_and_path,
                    const std::string& reason, const std::string& prefix = "interop-lab: ") {
  const lab::ParseResult result = parse(args);
  ASSERT_EQ(result.exit_code, 2) << result.output;
  const std::string message = result.output.substr(0, result.output.find('\n'));
  EXPECT_EQ(message.rfind(prefix + option_and_path + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(reason), std::string::npos) << "'" << reason << "' missing from: " << message;
}

TEST_F(CliScreenshotTest, DirectoryThatRefusesFilesIsAUsageErrorWithTheReason) {
  // Root (the tests' user) passes every permission check; /proc refuses new files all the same.
  expect_refused({"--screenshot", "/proc/interop-lab.png"}, "--screenshot /proc/interop-lab.png",
                 "No such file or directory");
  expect_refused({"--bench", "--json", "/proc/bench.json"}, "--json /proc/bench.json",
                 "No such file or directory");
  expect_refused({"--bench", "--chart", "/proc/bench.svg"}, "--chart /proc/bench.svg",
                 "No such file or directory");
  expect_refused({"diff", "a.png", "b.png", "--heatmap", "/proc/heat.png"}, "--heatmap /proc/heat.png",
                 "No such file or directory", "interop-lab diff: ");
}

TEST_F(CliScreenshotTest, NameLongerThanTheFileSystemAllowsIsAUsageError) {
  const std::string path = (m_dir / (std::string(300, 'n') + ".png")).string();
  expect_refused({"--screenshot", path}, "--screenshot " + path, "File name too long");
  EXPECT_TRUE(std::filesystem::is_empty(m_dir));
}

TEST_F(CliScreenshotTest, NameWithNoRoomForTheTemporarySuffixIsAUsageError) {
  // 255 bytes fit the file system, but the atomic write's NAME.tmp-PID-N beside it does not.
  const std::string path = (m_dir / (std::string(251, 'n') + ".png")).string();
  expect_refused({"--screenshot", path}, "--screenshot " + path, "File name too long");
  EXPECT_TRUE(std::filesystem::is_empty(m_dir));
}

TEST_F(CliScreenshotTest, PathLongerThanPathMaxIsAUsageError) {
  std::string path = m_dir.string();
  while (path.size() < 5000) path += "/" + std::string(200, 'd');
  path += "/out.png";
  expect_refused({"--screenshot", path}, "--screenshot " + path, "File name too long");
}

TEST_F(CliScreenshotTest, ParsingLeavesNoProbeFileBehind) {
  const std::string path = (m_dir / "frame.png").string();
  expect_runs(parse({"--screenshot", path}));
  EXPECT_TRUE(std::filesystem::is_empty(m_dir));
}

TEST_F(CliScreenshotTest, PathWithoutPngExtensionIsAUsageError) {
  const std::string path = (m_dir / "frame.jpg").string();
  const lab::ParseResult result = parse({"--screenshot", path});
  ASSERT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--screenshot " + path + ": "), std::string::npos) << result.output;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// --bench takes --scene, --mode and --size as filters; what it would ignore is refused.

namespace {

TEST(CliBenchTest, SceneModeAndSizePickTheCases) {
  const lab::ParseResult result =
      parse({"--bench", "--scene", "pattern", "--mode", "cpu", "--size", "64x48"});
  ASSERT_FALSE(result.exit_code) << result.output;
  ASSERT_TRUE(result.options.bench_scene.has_value());
  EXPECT_EQ(*result.options.bench_scene, lab::SceneId::Pattern);
  EXPECT_EQ(result.options.mode, lab::ModeId::Cpu);
  ASSERT_EQ(result.options.bench_sizes.size(), 1u);
  EXPECT_EQ(result.options.bench_sizes[0].width, 64);
  EXPECT_EQ(result.options.bench_sizes[0].height, 48);
}

TEST(CliBenchTest, WithoutFiltersEveryCaseRuns) {
  const lab::ParseResult result = parse({"--bench"});
  ASSERT_FALSE(result.exit_code) << result.output;
  EXPECT_FALSE(result.options.bench_scene.has_value());
  EXPECT_FALSE(result.options.mode.has_value());
  EXPECT_TRUE(result.options.bench_sizes.empty());
}

TEST(CliBenchTest, WhatTheBenchWouldIgnoreIsRefused) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--bench", "--frames", "5"},
        std::vector<std::string>{"--bench", "--size", "64x64", "--sizes", "64x64,128x128"}}) {
    const lab::ParseResult result = parse(args);
    ASSERT_TRUE(result.exit_code.has_value()) << "accepted: " << testing::PrintToString(args);
    EXPECT_EQ(*result.exit_code, 2);
    EXPECT_NE(result.output.find(args[1]), std::string::npos) << result.output;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The desk: --help in sections with true defaults, --vsync, --screenshot-dir, --bench-repeat,
// --bench-frames from 1, --doctor --json, --gl-debug.

namespace {

TEST(CliDeskTest, HelpIsGroupedWithTheDefaultsTheCodeUses) {
  const std::string help = unwrapped(help_text("100"));
  size_t previous = 0;
  for (const char* group : {"Scene & mode:", "Window & output:", "Benchmark:", "Diagnostics:"}) {
    const size_t at = help.find(group);
    ASSERT_NE(at, std::string::npos) << group << " missing from:\n" << help;
    EXPECT_GT(at, previous) << group << " out of order";
    previous = at;
  }
  EXPECT_NE(help.find("the best that works here: interop, else staging, else cpu"), std::string::npos)
      << help;
  EXPECT_NE(help.find("default: on, off with --frames"), std::string::npos) << help;
  EXPECT_NE(help.find("--bench-repeat N"), std::string::npos) << help;
  // --bench opens its section, before the options that refine it.
  EXPECT_LT(help.find("  --bench "), help.find("--sizes")) << help;
}

TEST(CliDeskTest, VsyncTakesOnOrOff) {
  EXPECT_FALSE(parse({}).options.vsync.has_value());
  EXPECT_EQ(parse({"--vsync", "on"}).options.vsync, true);
  EXPECT_EQ(parse({"--vsync", "off"}).options.vsync, false);
  for (const char* bad : {"yes", "", "ON", "1"}) {
    const lab::ParseResult result = parse({"--vsync", bad});
    ASSERT_EQ(result.exit_code, 2) << bad;
    EXPECT_NE(result.output.find(": choose on or off"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.rfind("interop-lab: --vsync ", 0), 0u) << result.output;
  }
  for (const char* runner : {"--headless", "--bench"}) {
    const lab::ParseResult result = parse({"--vsync", "on", runner});
    ASSERT_EQ(result.exit_code, 2) << runner;
    EXPECT_NE(result.output.find("--vsync applies to a window"), std::string::npos) << result.output;
  }
}

TEST(CliDeskTest, ScreenshotDirMustBeAWritableFolder) {
  labtest::ScratchDir dir("cli-shots");
  EXPECT_EQ(parse({"--screenshot-dir", dir.path().string()}).options.screenshot_dir, dir.path().string());
  const std::string missing = (dir.path() / "absent").string();
  const lab::ParseResult result = parse({"--screenshot-dir", missing});
  ASSERT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output.rfind("interop-lab: --screenshot-dir " + missing + ": not a directory", 0), 0u)
      << result.output;
  EXPECT_EQ(parse({"--screenshot-dir", dir.path().string(), "--headless"}).exit_code, 2);
}

TEST(CliDeskTest, BenchFramesFromOneAndBenchRepeat) {
  const lab::ParseResult one = parse({"--bench", "--bench-frames", "1"});
  ASSERT_FALSE(one.exit_code) << one.output;
  EXPECT_EQ(one.options.bench_frames, 1);
  EXPECT_EQ(parse({"--bench", "--bench-frames", "5"}).options.bench_frames, 5);
  EXPECT_EQ(parse({"--bench"}).options.bench_repeat, 1);
  EXPECT_EQ(parse({"--bench", "--bench-repeat", "3"}).options.bench_repeat, 3);
  EXPECT_EQ(parse({"--bench", "--api", "vulkan", "--bench-repeat", "3"}).options.bench_repeat, 3)
      << "Vulkan's benchmark repeats its cases too";
  for (const char* bad : {"0", "101", "x", ""}) {
    const lab::ParseResult result = parse({"--bench", "--bench-repeat", bad});
    ASSERT_EQ(result.exit_code, 2) << bad;
    EXPECT_NE(result.output.find("must be a whole number from 1 to 100"), std::string::npos) << result.output;
  }
  EXPECT_EQ(parse({"--bench", "--bench-frames", "0"}).exit_code, 2);
  const lab::ParseResult alone = parse({"--bench-repeat", "3"});
  ASSERT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.output.find("--bench-repeat belongs to --bench"), std::string::npos) << alone.output;
}

TEST(CliDeskTest, DoctorJsonTakesNoPath) {
  const lab::ParseResult result = parse({"--doctor", "--json"});
  ASSERT_FALSE(result.exit_code) << result.output;
  EXPECT_TRUE(result.options.doctor_json);
  EXPECT_TRUE(result.options.json.empty());
  EXPECT_TRUE(parse({"--doctor", "--json", "--headless"}).options.doctor_json);
  const lab::ParseResult with_path = parse({"--doctor", "--json", "report.json"});
  ASSERT_EQ(with_path.exit_code, 2);
  EXPECT_NE(with_path.output.find("with --doctor, --json takes no path"), std::string::npos)
      << with_path.output;
  const lab::ParseResult bench_without_path = parse({"--bench", "--json"});
  ASSERT_EQ(bench_without_path.exit_code, 2);
  EXPECT_NE(bench_without_path.output.find("--json needs a path with --bench"), std::string::npos)
      << bench_without_path.output;
}

TEST(CliDeskTest, GlDebugIsAFlag) {
  EXPECT_FALSE(parse({}).options.gl_debug);
  EXPECT_TRUE(parse({"--gl-debug"}).options.gl_debug);
}

TEST(CliDeskTest, LayoutFileFollowsTheConfigVariables) {
  const auto with = [](const char* name, const char* value) {
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  };
  const char* saved[3];
  const char* names[3] = {"INTEROP_LAB_CONFIG_DIR", "XDG_CONFIG_HOME", "HOME"};
  std::string copies[3];
  for (int i = 0; i < 3; ++i) {
    const char* value = std::getenv(names[i]);
    copies[i] = value ? value : "";
    saved[i] = value ? copies[i].c_str() : nullptr;
  }
  with("INTEROP_LAB_CONFIG_DIR", nullptr);
  with("XDG_CONFIG_HOME", nullptr);
  with("HOME", "/home/ada");
  EXPECT_EQ(lab::default_layout_path(), "/home/ada/.config/interop-lab/imgui.ini");
  with("XDG_CONFIG_HOME", "/xdg");
  EXPECT_EQ(lab::default_layout_path(), "/xdg/interop-lab/imgui.ini");
  with("INTEROP_LAB_CONFIG_DIR", "/scratch");
  EXPECT_EQ(lab::default_layout_path(), "/scratch/imgui.ini");
  for (int i = 0; i < 3; ++i) with(names[i], saved[i]);
}

}  // namespace
