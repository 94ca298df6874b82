// app/cli.cpp — the interop-lab command line, parsed by CLI11 and validated here. Every usage error becomes
// exit code 2 and one line naming the option, the bad value and what is accepted; nothing in this file
// prints or exits, so main() decides where the text goes and destructors always run.
#include "app/cli.hpp"

#include "app/image_io.hpp"
#include "interop/gl.hpp"

#include <CLI/CLI.hpp>

#include <charconv>
#include <iomanip>
#include <limits>
#include <sstream>
#include <system_error>

#ifndef INTEROP_LAB_VERSION
#define INTEROP_LAB_VERSION "0.0.0"  // CMake defines the real one from project(VERSION)
#endif

namespace lab {

const char* to_string(SceneId scene) {
  switch (scene) {
    case SceneId::Wave:
      return "wave";
    case SceneId::Pattern:
      return "pattern";
    case SceneId::Postprocess:
      return "postprocess";
  }
  return "?";
}

const char* to_string(ModeId mode) {
  switch (mode) {
    case ModeId::Interop:
      return "interop";
    case ModeId::Reregister:
      return "reregister";
    case ModeId::Pbo:
      return "pbo";
    case ModeId::Staging:
      return "staging";
    case ModeId::Cpu:
      return "cpu";
  }
  return "?";
}

const std::vector<SceneId>& all_scenes() {
  static const std::vector<SceneId> scenes{SceneId::Wave, SceneId::Pattern, SceneId::Postprocess};
  return scenes;
}

const std::vector<ModeId>& all_modes() {
  static const std::vector<ModeId> modes{ModeId::Interop, ModeId::Reregister, ModeId::Pbo, ModeId::Staging,
                                          ModeId::Cpu};
  return modes;
}

std::optional<SceneId> scene_from_string(const std::string& name) {
  for (SceneId scene : all_scenes())
    if (name == to_string(scene)) return scene;
  return std::nullopt;
}

std::optional<ModeId> mode_from_string(const std::string& name) {
  for (ModeId mode : all_modes())
    if (name == to_string(mode)) return mode;
  return std::nullopt;
}

const char* describe(SceneId scene) {
  switch (scene) {
    case SceneId::Wave:
      return "animated height field: CUDA writes positions + normals into a GL vertex buffer through a "
             "mapped pointer";
    case SceneId::Pattern:
      return "procedural image: CUDA writes a GL texture through a surface object";
    case SceneId::Postprocess:
      return "GL renders a lit 3D scene into a texture; CUDA reads it through a texture object and writes "
             "a filtered image (Sobel edges or a separable blur) through a surface object";
  }
  return "?";
}

const char* describe(ModeId mode) {
  switch (mode) {
    case ModeId::Interop:
      return "register once, map/unmap every frame (the right way)";
    case ModeId::Reregister:
      return "register + map + unmap + unregister every frame (the anti-pattern, kept to measure it)";
    case ModeId::Pbo:
      return "CUDA writes a mapped GL buffer, GL copies it into the texture or vertex buffer "
             "(the cuda-samples way)";
    case ModeId::Staging:
      return "CUDA writes device memory, copies it to pinned host memory, GL uploads from host "
             "(no interop at all)";
    case ModeId::Cpu:
      return "no CUDA: the CPU reference of every kernel, uploaded with "
             "glTextureSubImage2D/glNamedBufferSubData";
  }
  return "?";
}

std::string list_text() {
  std::ostringstream text;
  text << "scenes:\n";
  for (SceneId scene : all_scenes())
    text << "  " << std::left << std::setw(10) << to_string(scene) << describe(scene) << "\n";
  text << "modes:\n";
  for (ModeId mode : all_modes())
    text << "  " << std::left << std::setw(10) << to_string(mode) << describe(mode) << "\n";
  // The names interop uses itself, so the list cannot drift from what the panel switches.
  text << "map flags: " << interop::to_string(interop::Access::ReadWrite) << ", "
       << interop::to_string(interop::Access::ReadOnly) << ", "
       << interop::to_string(interop::Access::WriteDiscard) << "\n";
  return text.str();
}

namespace {

constexpr int kUsageErrorExit = 2;

// "wave or pattern", "interop or cpu": the accepted values, straight from the lists above.
template <typename Id>
std::string choices(const std::vector<Id>& ids) {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) text += i + 1 == ids.size() ? " or " : ", ";
    text += to_string(ids[i]);
  }
  return text;
}

// The value as the user typed it, made visible when it is empty (`--scene ""`).
std::string shown(const std::string& value) {
  return value.empty() ? "''" : value;
}

enum class NumberParse { Ok, NotANumber, TooLarge };

// Plain decimal digits only: "12abc", " 5", "1e3", "+2" and "-1" are refused rather than read leniently
// (std::stoll would take "12abc" as 12), so a typo never silently becomes a different run.
NumberParse parse_whole_number(const std::string& text, long long& value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return NumberParse::NotANumber;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) return NumberParse::TooLarge;
  return error == std::errc() && end == text.data() + text.size() ? NumberParse::Ok : NumberParse::NotANumber;
}

// Each check returns "" when the value is good, else the one line of the usage error.
std::string parse_scene(const std::string& value, Options& options) {
  const std::optional<SceneId> scene = scene_from_string(value);
  if (!scene) return "--scene " + shown(value) + ": unknown scene; choose " + choices(all_scenes());
  options.scene = *scene;
  return "";
}

std::string parse_filter(const std::string& value, Options& options) {
  for (const kernels::Filter filter : {kernels::Filter::Sobel, kernels::Filter::Blur}) {
    if (value != kernels::to_string(filter)) continue;
    options.filter = filter;
    return "";
  }
  return "--filter " + shown(value) + ": unknown filter; choose " + kernels::to_string(kernels::Filter::Sobel) +
         " or " + kernels::to_string(kernels::Filter::Blur);
}

std::string parse_mode(const std::string& value, Options& options) {
  const std::optional<ModeId> mode = mode_from_string(value);
  if (!mode) return "--mode " + shown(value) + ": unknown mode; choose " + choices(all_modes());
  options.mode = *mode;
  return "";
}

std::string parse_size(const std::string& value, Options& options) {
  const std::string format_problem = "--size " + shown(value) + ": expected WIDTHxHEIGHT, e.g. 1280x720";
  const size_t separator = value.find('x');
  if (separator == std::string::npos) return format_problem;
  long long width = 0;
  long long height = 0;
  const NumberParse width_parse = parse_whole_number(value.substr(0, separator), width);
  const NumberParse height_parse = parse_whole_number(value.substr(separator + 1), height);
  if (width_parse == NumberParse::NotANumber || height_parse == NumberParse::NotANumber)
    return format_problem;
  const auto in_range = [](NumberParse parse, long long edge) {
    return parse == NumberParse::Ok && edge >= 1 && edge <= kMaxImageEdge;
  };
  if (!in_range(width_parse, width) || !in_range(height_parse, height))
    return "--size " + value + ": width and height must be between 1 and " + std::to_string(kMaxImageEdge) +
           " (e.g. --size 1280x720)";
  options.width = static_cast<int>(width);
  options.height = static_cast<int>(height);
  return "";
}

std::string parse_device(const std::string& value, Options& options) {
  long long device = 0;
  const NumberParse parse = parse_whole_number(value, device);
  if (parse != NumberParse::Ok || device > std::numeric_limits<int>::max())
    return "--device " + shown(value) +
           ": must be a non-negative integer, a CUDA device ordinal (e.g. --device 0)";
  options.device = static_cast<int>(device);
  return "";
}

std::string parse_frames(const std::string& value, Options& options) {
  long long frames = 0;
  const NumberParse parse = parse_whole_number(value, frames);
  if (parse == NumberParse::TooLarge)
    return "--frames " + value + ": too large; the most is " +
           std::to_string(std::numeric_limits<long long>::max());
  if (parse != NumberParse::Ok || frames < 1)
    return "--frames " + shown(value) + ": must be a whole number of at least 1 (e.g. --frames 120)";
  options.frames = frames;
  return "";
}

std::string parse_map_flags(const std::string& value, Options& options) {
  const std::optional<interop::Access> access = interop::access_from_string(value);
  if (!access)
    return "--map-flags " + shown(value) + ": unknown map flags; choose " +
           interop::to_string(interop::Access::ReadWrite) + ", " + interop::to_string(interop::Access::ReadOnly) +
           " or " + interop::to_string(interop::Access::WriteDiscard);
  options.map_flags = *access;
  return "";
}

std::string parse_screenshot(const std::string& value, Options& options) {
  // Checked now, before any window or GPU work, so a typo in the path fails in milliseconds, not after
  // a long render.
  std::string problem = check_png_output_path(value);
  if (!problem.empty()) {
    // Some of its messages already start with the path; "--screenshot a.jpg: a.jpg: ..." reads as a stutter.
    if (problem.rfind(value + ": ", 0) == 0) problem.erase(0, value.size() + 2);
    return "--screenshot " + shown(value) + ": " + problem;
  }
  options.screenshot = value;
  return "";
}

// An option that takes a value. One table registers them with CLI11 and runs their checks, so --help,
// the "needs a value" message and the validation cannot disagree.
struct ValueOption {
  const char* name;
  const char* type_name;
  std::string help;
  const char* example;  // a valid value, for messages
  std::string (*check)(const std::string& value, Options& options);
  std::string value{};  // CLI11 stores the raw text here; the check converts it
  CLI::Option* option = nullptr;
};

ParseResult usage_error(const std::string& message) {
  ParseResult result;
  result.exit_code = kUsageErrorExit;
  result.output = "interop-lab: " + message + "\nRun interop-lab --help for the full usage.\n";
  return result;
}

// CLI11 says "--size: 1 required WxH missing" and "--size: At Most 1 required but received 2"; these
// say what to type instead. Other parse errors (unknown options, stray arguments) read well as they are.
std::string explain_argument_mismatch(const CLI::ArgumentMismatch& error,
                                      const std::vector<ValueOption>& value_options) {
  const std::string text = error.what();
  for (const ValueOption& entry : value_options) {
    if (text.rfind(std::string(entry.name) + ":", 0) != 0) continue;
    if (text.find("missing") != std::string::npos)
      return std::string(entry.name) + " needs a value, e.g. " + entry.name + " " + entry.example;
    if (text.find("received") != std::string::npos)
      return std::string(entry.name) + " was given more than once; give it once";
  }
  return text;
}

}  // namespace

ParseResult parse_command_line(int argc, const char* const* argv) {
  ParseResult result;
  Options& options = result.options;

  // Values arrive as strings and are converted by the checks above: CLI11's own conversion errors
  // ("Could not convert: --frames = x") name neither the accepted range nor an example.
  std::vector<ValueOption> value_options = {
      {"--scene", "NAME", "what is computed: " + choices(all_scenes()) + " (default wave)", "wave",
       parse_scene},
      {"--filter", "NAME", "the postprocess scene's filter: sobel or blur (default sobel)", "sobel", parse_filter},
      {"--mode", "NAME", "how results reach GL: " + choices(all_modes()) + " (default interop, else cpu)",
       "interop", parse_mode},
      {"--map-flags", "FLAGS",
       "map flags of every registered resource: none, read-only or write-discard (default: write-discard for "
       "what CUDA writes, read-only for what it reads)",
       "write-discard", parse_map_flags},
      {"--size", "WxH", "image and window size (default 1280x720)", "1280x720", parse_size},
      {"--device", "N", "CUDA device ordinal (default: the GPU that drives GL, else 0)", "0", parse_device},
      {"--frames", "N", "render N frames, then exit; time = frame / 60, so runs repeat", "120", parse_frames},
      {"--screenshot", "PATH", "write the last frame as a PNG", "out.png", parse_screenshot},
  };

  CLI::App app{"interop-lab: see, measure and trust each way a CUDA kernel hands results to OpenGL.",
               "interop-lab"};
  app.get_formatter()->column_width(22);
  app.set_help_flag("-h,--help", "print this help and exit");
  app.set_version_flag("--version", std::string("interop-lab ") + INTEROP_LAB_VERSION,
                       "print the version and exit");
  for (ValueOption& entry : value_options)
    entry.option = app.add_option(entry.name, entry.value, entry.help)->type_name(entry.type_name);
  app.add_flag("--headless", options.headless, "no window: render offscreen through EGL");
  app.add_flag("--no-ui", options.no_ui, "hide the ImGui panel");
  app.add_flag("--list", options.list, "list scenes, modes and map flags, then exit");
  app.footer(
      "Exit codes: 0 success, 1 runtime failure, 2 usage error.\n"
      "\n"
      "Examples:\n"
      "  interop-lab --scene pattern --mode cpu\n"
      "  interop-lab --headless --frames 120 --screenshot wave.png\n");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    result.exit_code = 0;
    result.output = app.help();
    return result;
  } catch (const CLI::CallForVersion& version) {
    result.exit_code = 0;
    result.output = std::string(version.what()) + "\n";
    return result;
  } catch (const CLI::ArgumentMismatch& error) {
    return usage_error(explain_argument_mismatch(error, value_options));
  } catch (const CLI::ParseError& error) {
    return usage_error(error.what());
  }

  // In table order, so of several bad values the first one on the help screen is reported.
  for (const ValueOption& entry : value_options) {
    if (entry.option->count() == 0) continue;
    if (std::string problem = entry.check(entry.value, options); !problem.empty())
      return usage_error(problem);
  }
  return result;
}

}  // namespace lab
