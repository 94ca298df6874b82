// app/cli/cli.cpp — the interop-lab command line, parsed by CLI11 and validated here. Every usage error
// becomes exit code 2 and one line naming the option, the bad value and what is accepted; nothing in this
// file prints or exits, so main() decides where the text goes and destructors always run.
#include "app/cli/cli.hpp"

#include "app/controls/controls.hpp"
#include "app/core/names.hpp"
#include "app/core/tables.hpp"
#include "app/core/text.hpp"
#include "app/image/image_io.hpp"
#include "app/os/os.hpp"
#include "interop/access.hpp"
#include "interop/publish.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <system_error>

#ifndef _WIN32
#include <sys/ioctl.h>
#include <unistd.h>
#endif

#ifndef INTEROP_LAB_VERSION
#define INTEROP_LAB_VERSION "0.0.0"  // CMake defines the real one from project(VERSION)
#endif

namespace lab {

std::string list_text() {
  std::ostringstream text;
  text << "scenes:\n";
  for (SceneId scene : all_scenes())
    text << "  " << std::left << std::setw(13) << to_string(scene) << describe(scene) << "\n";
  text << "modes:\n";
  for (ModeId mode : all_modes())
    text << "  " << std::left << std::setw(13) << to_string(mode) << describe(mode) << "\n";
  text << "graphics APIs (--api) and their modes:\n";
  for (GraphicsApi api : all_apis()) {
    text << "  " << std::left << std::setw(13) << to_string(api) << describe(api) << "\n"
         << "  " << std::setw(13) << ""
         << "modes: ";
    const std::vector<ModeId>& modes = modes_of(api);
    for (size_t i = 0; i < modes.size(); ++i) text << (i == 0 ? "" : ", ") << to_string(modes[i]);
    text << "\n";
  }
  // The names interop uses itself, so the list cannot drift from what the panel switches.
  text << "map flags: ";
  for (const interop::AccessName& access : interop::kAccessNames)
    text << access.name
         << (&access == &interop::kAccessNames[std::size(interop::kAccessNames) - 1] ? "\n" : ", ");
  return text.str();
}

std::string default_layout_path() {
  const auto set = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
  };
  if (const std::string dir = set("INTEROP_LAB_CONFIG_DIR"); !dir.empty()) return dir + "/imgui.ini";
  if (const std::string dir = set("XDG_CONFIG_HOME"); !dir.empty()) return dir + "/interop-lab/imgui.ini";
  if (const std::string home = set("HOME"); !home.empty()) return home + "/.config/interop-lab/imgui.ini";
  return "";
}

namespace {

constexpr int kUsageErrorExit = 2;

// --help's sections, in the order they are shown.
constexpr const char* kSceneGroup = "Scene & mode";
constexpr const char* kWindowGroup = "Window & output";
constexpr const char* kBenchGroup = "Benchmark";
constexpr const char* kDiagnosticsGroup = "Diagnostics";

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

// A CUDA device ordinal; whether the device exists is judged at start, where the devices are known.
std::string parse_ordinal(const char* option, const std::string& value, std::optional<int>& ordinal) {
  long long device = 0;
  const NumberParse parse = parse_whole_number(value, device);
  if (parse != NumberParse::Ok || device > std::numeric_limits<int>::max())
    return std::string(option) + " " + shown(value) +
           ": must be a non-negative integer, a CUDA device ordinal (e.g. " + option + " 0)";
  ordinal = static_cast<int>(device);
  return "";
}

std::string parse_device(const std::string& value, Options& options) {
  return parse_ordinal("--device", value, options.device);
}

std::string parse_compute_device(const std::string& value, Options& options) {
  return parse_ordinal("--compute-device", value, options.compute_device);
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

// "--json out.json: directory /x does not exist" from check_output_path's messages, without the stutter.
std::string output_path_problem(const char* option, const std::string& value, const std::string& extension) {
  std::string problem = check_output_path(value, extension);
  if (problem.empty()) return "";
  if (problem.rfind(value + ": ", 0) == 0) problem.erase(0, value.size() + 2);
  return std::string(option) + " " + shown(value) + ": " + problem;
}

std::string parse_json(const std::string& value, Options& options) {
  if (options.doctor) {  // --doctor --json: the report on stdout; a path is not taken
    if (!value.empty())
      return "--json " + value + ": with --doctor, --json takes no path (the report goes to stdout)";
    options.doctor_json = true;
    return "";
  }
  if (value.empty()) return "--json needs a path with --bench, e.g. --json bench.json";
  if (std::string problem = output_path_problem("--json", value, ".json"); !problem.empty()) return problem;
  options.json = value;
  return "";
}

std::string parse_chart(const std::string& value, Options& options) {
  if (std::string problem = output_path_problem("--chart", value, ".svg"); !problem.empty()) return problem;
  options.chart = value;
  return "";
}

std::string parse_sizes(const std::string& value, Options& options) {
  options.bench_sizes.clear();
  size_t start = 0;
  while (start <= value.size()) {
    const size_t comma = value.find(',', start);
    const std::string item =
        value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    Options one;
    if (std::string problem = parse_size(item, one); !problem.empty())
      return "--sizes " + shown(value) + ": " + problem.substr(problem.find(": ") + 2) +
             " (a comma-separated list, e.g. --sizes 1280x720,3840x2160)";
    options.bench_sizes.push_back({one.width, one.height});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return "";
}

std::string parse_bench_frames(const std::string& value, Options& options) {
  long long frames = 0;
  if (parse_whole_number(value, frames) != NumberParse::Ok || frames < 1 || frames > 1000000)
    return "--bench-frames " + shown(value) +
           ": must be a whole number from 1 to 1000000 (e.g. --bench-frames 300)";
  options.bench_frames = frames;
  return "";
}

std::string parse_bench_repeat(const std::string& value, Options& options) {
  long long repeat = 0;
  if (parse_whole_number(value, repeat) != NumberParse::Ok || repeat < 1 || repeat > 100)
    return "--bench-repeat " + shown(value) +
           ": must be a whole number from 1 to 100 (e.g. --bench-repeat 5)";
  options.bench_repeat = static_cast<int>(repeat);
  return "";
}

std::string parse_vsync(const std::string& value, Options& options) {
  if (value != "on" && value != "off") return "--vsync " + shown(value) + ": choose on or off";
  options.vsync = value == "on";
  return "";
}

// `--serve` alone arrives as the default address (its CLI11 default), so "" is only ever typed: an unset
// shell variable must not quietly mean the default, as with every other option.
std::string parse_serve(const std::string& value, Options& options) {
  if (value.empty())
    return "--serve '': give a port or HOST:PORT, e.g. --serve 8080 (--serve alone serves on " +
           ServeAddress{}.authority() + ")";
  ServeAddress address;
  if (std::string problem = parse_serve_address(value, address, /*any_free_port=*/true); !problem.empty())
    return "--serve " + problem;
  options.serve = address;
  return "";
}

// `--attach` alone arrives as "" (it lists what is published); a name must be one a publisher can take.
std::string parse_attach(const std::string& value, Options& options) {
  if (value.empty()) {
    options.attach_list = true;
    return "";
  }
#ifdef _WIN32
  return "--attach " + value + ": published frames need Linux (Unix sockets and POSIX FDs)";
#else
  if (const std::string problem = interop::validate_publication_name(value); !problem.empty())
    return "--attach: " + problem;
  options.attach = value;
  return "";
#endif
}

// The folder must exist and take files now: a screenshot taken an hour into a session must not fail.
std::string parse_screenshot_dir(const std::string& value, Options& options) {
  std::error_code error;
  if (value.empty() || !std::filesystem::is_directory(value, error))
    return "--screenshot-dir " + shown(value) +
           ": not a directory; give an existing folder (e.g. --screenshot-dir .)";
  if (const int refused = os::directory_refuses_files(value); refused != 0)
    return "--screenshot-dir " + value + ": " + std::strerror(refused) + "; give a folder you can write to";
  options.screenshot_dir = value;
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
  const char* group;  // the --help section
  const char* name;
  const char* type_name;
  std::string help;
  const char* example;  // a valid value, for messages
  std::string (*check)(const std::string& value, Options& options);
  std::string value{};  // CLI11 stores the raw text here; the check converts it
  CLI::Option* option = nullptr;
};

// The message, then the one line that points at --help: no message says "see --help" itself.
ParseResult usage_error(const std::string& message) {
  ParseResult result;
  result.exit_code = kUsageErrorExit;
  result.output = "interop-lab: " + message + "\nRun interop-lab --help for the full usage.\n";
  return result;
}

// An option that takes a value, as messages about it need it: its name and a valid example.
struct NamedOption {
  std::string name;
  std::string example;
};

// CLI11 says "--size: 1 required WxH missing" and "--size: At Most 1 required but received 2"; these
// say what to type instead.
std::string explain_argument_mismatch(const CLI::ArgumentMismatch& error,
                                      const std::vector<NamedOption>& options) {
  const std::string text = error.what();
  for (const NamedOption& entry : options) {
    if (text.rfind(entry.name + ":", 0) != 0) continue;
    if (text.find("missing") != std::string::npos)
      return entry.name + " needs a value, e.g. " + entry.name + " " + entry.example;
    if (text.find("received") != std::string::npos)
      return entry.name + " was given more than once; give it once";
  }
  return text;
}

constexpr const char* kDiffUsage =
    "interop-lab diff A.png B.png [--heatmap PATH] [--max-diff N] [--max-fraction F]";

// diff's usage errors speak as diff's other messages do (app/image/diff.cpp) and point at its own help.
ParseResult diff_usage_error(const std::string& message) {
  ParseResult result;
  result.exit_code = kUsageErrorExit;
  result.output = "interop-lab diff: " + message + "\nRun interop-lab diff --help for the full usage.\n";
  return result;
}

// Levenshtein distance, for "did you mean"; option names are short, so the quadratic table is nothing.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

// A name people know from elsewhere ("vk" for vulkan): suggested, never accepted (names match exactly).
struct Alias {
  const char* typed;
  const char* name;
};

constexpr Alias kApiAliases[] = {
    {"vk", "vulkan"},  {"opengl", "gl"},        {"ogl", "gl"},     {"direct3d11", "d3d11"},
    {"dx11", "d3d11"}, {"direct3d12", "d3d12"}, {"dx12", "d3d12"},
};

// Whether `a` is `b` with two neighbouring letters swapped ("hots", "host"): one slip of the fingers, though
// two edits.
bool swapped_neighbours(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  const size_t first = std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin();
  return first + 1 < a.size() && a[first] == b[first + 1] && a[first + 1] == b[first] &&
         a.compare(first + 2, std::string::npos, b, first + 2, std::string::npos) == 0;
}

// `name` in lower case without its leading dashes: "--Frames" -> "frames".
std::string bare_name(const std::string& name) {
  return lowercase(name.substr(std::min(name.find_first_not_of('-'), name.size())));
}

// The names `typed` most likely means, from the first of these that has any: the name it is in another case
// (Interop), the name it is an alias of (vk), the names it begins (wav, post), the longest name that begins
// it (interopp), the names a typo or two away (a swap of neighbours counts one) that keep most of its
// letters. Option names are compared without their dashes, so "--fps" is not near "--api" for the "--" they
// share. At most three, the shortest first; none when nothing is close.
std::vector<std::string> likely_names(const std::string& typed, const std::vector<std::string>& names,
                                      const std::vector<Alias>& aliases) {
  const std::string word = bare_name(typed);
  if (word.empty()) return {};
  std::vector<std::string> same_case, aliased, begun, beginning, typos;
  size_t closest = 2;  // further than two edits is another word, not a typo
  for (const std::string& name : names) {
    const std::string candidate = bare_name(name);
    if (candidate == word) same_case.push_back(name);
    for (const Alias& alias : aliases)
      if (word == alias.typed && name == alias.name) aliased.push_back(name);
    if (word.size() >= 2 && candidate.rfind(word, 0) == 0) begun.push_back(name);
    if (candidate.size() >= 2 && word.rfind(candidate, 0) == 0 && word.size() <= 2 * candidate.size() &&
        (beginning.empty() || name.size() > beginning.front().size()))
      beginning = {name};
    const size_t distance = swapped_neighbours(word, candidate) ? 1 : edit_distance(word, candidate);
    if (distance > closest || 2 * distance >= word.size()) continue;
    if (distance < closest) typos.clear();
    closest = distance;
    typos.push_back(name);
  }
  for (std::vector<std::string>* found : {&same_case, &aliased, &begun, &beginning, &typos}) {
    if (found->empty()) continue;
    std::stable_sort(found->begin(), found->end(),
                     [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
    if (found->size() > 3) found->resize(3);
    return *found;
  }
  return {};
}

// " (did you mean vulkan?)", " (did you mean d3d11 or d3d12?)", or "" when nothing is close.
std::string did_you_mean(const std::string& typed, const std::vector<std::string>& names,
                         const std::vector<Alias>& aliases = {}) {
  const std::vector<std::string> likely = likely_names(typed, names, aliases);
  if (likely.empty()) return "";
  std::string text = " (did you mean ";
  for (size_t i = 0; i < likely.size(); ++i)
    text += (i == 0 ? "" : i + 1 == likely.size() ? " or " : ", ") + likely[i];
  return text + "?)";
}

// " (did you mean --frames?)" when `name` is close to one of `command`'s long options, else "".
std::string nearest_option(const std::string& name, const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options())
    for (const std::string& long_name : option->get_lnames()) names.push_back("--" + long_name);
  return did_you_mean(name, names);
}

// "--scene wav: unknown scene (did you mean wave?); choose wave, pattern or postprocess": a bad name, the
// names it is close to, and every name `table` has.
template <class Entry, size_t N>
std::string unknown_name(const char* option, const std::string& value, const char* what,
                         const Entry (&table)[N], const std::vector<Alias>& aliases = {}) {
  std::vector<std::string> names;
  for (const Entry& entry : table) names.push_back(entry.name);
  return std::string(option) + " " + shown(value) + ": unknown " + what +
         did_you_mean(value, names, aliases) + "; choose " + choices_text(table);
}

// The options that take a name: a name of its table, or the usage error above.
std::string parse_scene(const std::string& value, Options& options) {
  const std::optional<SceneId> scene = scene_from_string(value);
  if (!scene) return unknown_name("--scene", value, "scene", kScenes);
  options.scene = *scene;
  return "";
}

std::string parse_filter(const std::string& value, Options& options) {
  const std::optional<kernels::Filter> filter = value_named(kernels::kFilterNames, value);
  if (!filter) return unknown_name("--filter", value, "filter", kernels::kFilterNames);
  options.filter = *filter;
  return "";
}

std::string parse_mode(const std::string& value, Options& options) {
  const std::optional<ModeId> mode = mode_from_string(value);
  if (!mode) return unknown_name("--mode", value, "mode", kModes);
  options.mode = *mode;
  return "";
}

std::string parse_map_flags(const std::string& value, Options& options) {
  const std::optional<interop::Access> access = value_named(interop::kAccessNames, value);
  if (!access) return unknown_name("--map-flags", value, "map flags", interop::kAccessNames);
  options.map_flags = *access;
  return "";
}

std::string parse_split_copy(const std::string& value, Options& options) {
  const std::optional<SplitCopy> copy = value_named(kSplitCopies, value);
  if (!copy) return unknown_name("--split-copy", value, "copy path", kSplitCopies);
  options.split_copy = *copy;
  return "";
}

std::string parse_picture_fit(const std::string& value, Options& options) {
  const std::optional<PictureFit> fit = value_named(kPictureFits, value);
  if (!fit) return unknown_name("--picture-fit", value, "fit", kPictureFits);
  options.picture_fit = *fit;
  return "";
}

std::string parse_semaphores(const std::string& value, Options& options) {
  const std::optional<interop::SemaphoreKind> kind = value_named(kSemaphoreKinds, value);
  if (!kind) return unknown_name("--semaphores", value, "semaphore kind", kSemaphoreKinds);
  options.semaphores = *kind;
  return "";
}

std::string parse_api(const std::string& value, Options& options) {
  const std::optional<GraphicsApi> api = api_from_string(value);
  if (!api)
    return unknown_name("--api", value, "graphics API", kApis,
                        std::vector<Alias>(std::begin(kApiAliases), std::end(kApiAliases)));
  options.api = *api;
  return "";
}

// "--mode pbo is not a mode of --api vulkan; its modes are external, staging or cpu", else "".
std::string check_mode_of_api(const Options& options) {
  if (!options.mode || has_mode(options.api, *options.mode)) return "";
  const std::vector<ModeId>& modes = modes_of(options.api);
  std::string names;
  for (size_t i = 0; i < modes.size(); ++i)
    names += std::string(i == 0 ? "" : i + 1 == modes.size() ? " or " : ", ") + to_string(modes[i]);
  return std::string("--mode ") + to_string(*options.mode) + " is not a mode of --api " +
         to_string(options.api) + "; its modes are " + names;
}

// The options only the GL backend reads; with another API they would be dropped in silence.
std::string check_gl_only_options(const CLI::App& app, const Options& options) {
  if (options.api == GraphicsApi::Gl) return "";
  if (options.bench && options.api != GraphicsApi::Vulkan)
    return std::string("--bench covers --api gl and vulkan; ") + display_name(options.api) +
           "'s benchmark is not built yet";
  // Vulkan's benchmark prints its table, repeats its cases and writes --json and --chart; measuring in a
  // window is the GL benchmark's.
  for (const char* gl_bench_only : {"--bench-window"})
    if (app.count(gl_bench_only) > 0)
      return std::string(gl_bench_only) + " applies to --api gl's benchmark; drop it with --api " +
             to_string(options.api);
  for (const char* gl_only : {"--map-flags", "--compute-device", "--split-copy", "--gl-debug"})
    if (app.count(gl_only) > 0)
      return std::string(gl_only) + " applies to --api gl; drop it with --api " + to_string(options.api);
  return "";
}

// --graph needs a mode with a graph form, where --mode names one.
std::string check_graph_option(const Options& options) {
  if (!options.graph || !options.mode || has_graph_form(*options.mode)) return "";
  std::string forms;
  for (const ModeId mode : modes_of(options.api))
    if (has_graph_form(mode)) forms += std::string(forms.empty() ? "" : ", ") + to_string(mode);
  return std::string("--graph: --mode ") + to_string(*options.mode) + " has no graph form" +
         (forms.empty()
              ? std::string(" (no mode of --api ") + to_string(options.api) + " has)"
              : "; the modes of --api " + std::string(to_string(options.api)) + " that have one: " + forms);
}

// --semaphores only means something to the modes that order frames with semaphores.
std::string check_semaphores_option(const CLI::App& app, const Options& options) {
  if (app.count("--semaphores") == 0 || options.bench || (options.mode && uses_semaphores(*options.mode)))
    return "";
  return "--semaphores applies to --mode external and exported; add one of them or drop it";
}

// "--filter does nothing with --scene wave; ..." for the first option given that only some scenes or modes
// read and that the run's would not, else "": refused as an option --list ignores is, not dropped in silence.
// The scene is the one given, else the default (wave), except that --bench without --scene measures every
// scene; the mode is judged where --mode names one (without it the app picks one at start). --semaphores
// and --graph, which only some modes read too, have their checks above.
std::string option_the_run_ignores(const CLI::App& app, const Options& options) {
  const bool scene_given = app.count("--scene") > 0;
  if (app.count("--filter") > 0 && options.scene != SceneId::Postprocess && (scene_given || !options.bench))
    return std::string("--filter does nothing with --scene ") + to_string(options.scene) +
           (scene_given ? "" : " (the default)") +
           "; it applies to --scene postprocess only, so give that or drop --filter";
  if (app.count("--picture-fit") > 0 && !options.attach)
    return "--picture-fit does nothing without --attach NAME; it places a published picture in the frame, "
           "so give --attach NAME or drop --picture-fit";
  if (options.mode && !uses_compute_device(*options.mode))
    for (const char* split_only : {"--compute-device", "--split-copy"})
      if (app.count(split_only) > 0)
        return std::string(split_only) + " does nothing with --mode " + to_string(*options.mode) +
               "; it applies to --mode split only, so give that or drop " + split_only;
  return "";
}

// CLI11's "The following arguments were not expected: x --y" lists every leftover; this names the first,
// says whether it is an unknown option or a stray argument, and what `command` accepts.
std::string explain_extras(const CLI::App& command, bool is_diff) {
  const std::vector<std::string> extras = command.remaining();
  if (extras.empty()) return "unexpected arguments";
  const std::string& extra = extras.front();
  if (extra.size() > 1 && extra[0] == '-') {
    const std::string name = extra.substr(0, extra.find('='));
    if (is_diff)
      return name + ": unknown option of diff" + nearest_option(name, command) +
             "; it takes --heatmap, --max-diff and --max-fraction";
    return name + ": unknown option" + nearest_option(name, command);
  }
  if (is_diff) return shown(extra) + ": one file too many; diff compares two PNG files: " + kDiffUsage;
  return shown(extra) +
         ": unexpected argument; interop-lab takes options, or the diff command: " + kDiffUsage;
}

// An empty value is a usage error like any other bad one: `--max-diff ""` from an unset shell variable
// must not quietly mean "the default".
std::string check_diff(DiffOptions& diff, const CLI::App& command, const std::string& max_diff,
                       const std::string& max_fraction) {
  if (command.count("--heatmap") > 0)
    if (std::string problem = output_path_problem("--heatmap", diff.heatmap, ".png"); !problem.empty())
      return problem;
  if (command.count("--max-diff") > 0) {
    long long value = 0;
    if (parse_whole_number(max_diff, value) != NumberParse::Ok || value > 255)
      return "--max-diff " + shown(max_diff) + ": must be a whole number from 0 to 255 (e.g. --max-diff 2)";
    diff.max_diff = static_cast<int>(value);
  }
  if (command.count("--max-fraction") > 0) {
    char* end = nullptr;
    const double value = std::strtod(max_fraction.c_str(), &end);
    if (max_fraction.empty() || end == max_fraction.c_str() || *end != '\0' ||
        !(value >= 0.0 && value <= 1.0))
      return "--max-fraction " + shown(max_fraction) + ": must be a number from 0 to 1 (e.g. 0.001 for 0.1%)";
    diff.max_fraction = value;
  }
  return "";
}

// "" when --serve (if given) goes with the rest of the command line, else what to change. --serve runs the
// app headless (it implies --headless), so a window's options and the runs that exit at once refuse it.
// --attach shows another process's frames: the app's own scene, its filter and the benchmark's cases do
// not apply.
std::string check_attach_option(const CLI::App& app, const Options& options) {
  if (!options.attach && !options.attach_list) return "";
  for (const char* own : {"--scene", "--filter"})
    if (app.count(own) > 0)
      return std::string("--attach shows another process's frames; ") + own +
             " picks what the app computes itself: drop one of them";
  if (options.bench)
    return "--attach shows another process's frames; --bench measures the app's own: drop one";
  if (options.api == GraphicsApi::D3d11 || options.api == GraphicsApi::D3d12)
    return std::string("--attach needs Linux; ") + display_name(options.api) + " runs on Windows";
  return "";
}

// --api none: the frames in host memory, nothing drawn and no window. It runs headless (as --serve does) and
// shows pictures: --attach, or the pattern scene (the default there), whose frame CUDA or the CPU writes.
std::string check_none_api(const CLI::App& app, Options& options) {
  if (options.api != GraphicsApi::None) return "";
  for (const char* window_only : {"--vsync", "--screenshot-dir", "--bench-window"})
    if (app.count(window_only) > 0) return std::string("--api none has no window; drop ") + window_only;
  if (!options.attach && !options.attach_list) {
    if (app.count("--scene") > 0 && options.scene != SceneId::Pattern)
      return std::string("--api none shows pictures, and the ") + to_string(options.scene) +
             " scene is drawn by a graphics API: use --scene pattern, --attach NAME, or --api gl or vulkan";
    options.scene = SceneId::Pattern;
  }
  options.headless = true;
  return "";
}

std::string check_serve_option(const Options& options) {
  if (!options.serve) return "";
  if (options.api == GraphicsApi::D3d11 || options.api == GraphicsApi::D3d12)
    return std::string("--serve serves --api gl or --api vulkan; ") + display_name(options.api) +
           " has no desk (drop --serve, or use --api vulkan)";
  if (options.bench_window) return "--bench --serve measures headless; drop --bench-window";
  if (options.vsync) return "--vsync applies to a window; --serve runs headless, drop --vsync";
  if (!options.screenshot_dir.empty())
    return "--screenshot-dir is where a window's screenshot key writes; with --serve the page's screenshot "
           "button "
           "downloads the frame: drop --screenshot-dir";
  return "";
}

// "--screenshot does nothing with --doctor; drop it" for the first option given that --list or --doctor
// would ignore, else "". The doctor reports on the GL context (--headless) and the devices it is asked
// about; --list on nothing but the build.
std::string ignored_option(const CLI::App& app, const Options& options) {
  const char* const all[] = {
      "--api",        "--scene",          "--filter",         "--mode",       "--map-flags",
      "--size",       "--device",         "--compute-device", "--split-copy", "--frames",
      "--screenshot", "--headless",       "--no-ui",          "--doctor",     "--bench",
      "--vsync",      "--screenshot-dir", "--graph",          "--serve",      "--attach"};
  const char* const doctor_uses[] = {"--device", "--compute-device", "--split-copy", "--headless"};
  const char* const runner = options.list ? "--list" : options.doctor ? "--doctor" : nullptr;
  if (runner == nullptr) return "";
  for (const char* option : all) {
    if (app.count(option) == 0) continue;
    const bool used =
        !options.list && std::any_of(std::begin(doctor_uses), std::end(doctor_uses),
                                     [option](const char* name) { return std::strcmp(name, option) == 0; });
    if (!used && std::strcmp(option, runner) != 0)
      return std::string(option) + " does nothing with " + runner + "; drop it";
  }
  return "";
}

// --help fits the terminal: at most 100 columns, fewer where COLUMNS or the terminal on stdout has fewer, but
// not under 40 (the option column alone takes 22).
constexpr size_t kHelpMostColumns = 100;
constexpr size_t kHelpFewestColumns = 40;
constexpr size_t kHelpOptionColumn = 22;  // where the options' descriptions start

size_t help_columns() {
  size_t columns = kHelpMostColumns;
  long long from_environment = 0;
  const char* variable = std::getenv("COLUMNS");
  if (variable != nullptr && parse_whole_number(variable, from_environment) == NumberParse::Ok &&
      from_environment > 0)
    columns = static_cast<size_t>(std::min<long long>(from_environment, kHelpMostColumns));
#ifndef _WIN32
  else if (winsize size{};
           isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    columns = size.ws_col;
#endif
  return std::clamp(columns, kHelpFewestColumns, kHelpMostColumns);
}

// `text` with each of its lines broken at spaces into lines of at most `width` characters; the lines a line
// is broken into after its first start `hang` spaces further in than it does. A word longer than a line
// is cut.
std::string wrap(const std::string& text, size_t width, size_t hang) {
  std::string wrapped;
  size_t start = 0;
  while (true) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    const size_t indent = std::min(line.find_first_not_of(' '), line.size());
    std::string current = line.substr(0, indent);
    bool has_words = false;
    std::istringstream words(line.substr(indent));
    for (std::string word; words >> word;) {
      if (has_words && current.size() + 1 + word.size() > width) {
        wrapped += current + '\n';
        current.assign(indent + hang, ' ');
        has_words = false;
      }
      while (!has_words && current.size() + word.size() > width) {
        const size_t room = width > current.size() ? width - current.size() : 1;
        wrapped += current + word.substr(0, room) + '\n';
        word.erase(0, room);
        current.assign(indent + hang, ' ');
      }
      current += (has_words ? " " : "") + word;
      has_words = true;
    }
    wrapped += current;
    if (end == text.size()) return wrapped;
    wrapped += '\n';
    start = end + 1;
  }
}

// CLI11's help with every text wrapped to `columns` (this CLI11 does not wrap): the options' and diff's
// descriptions in their column, the tagline and the footer (examples go on 4 columns further in).
class WrappingFormatter : public CLI::Formatter {
 public:
  explicit WrappingFormatter(size_t columns) : m_columns(columns) { column_width(kHelpOptionColumn); }

  std::string make_description(const CLI::App* app) const override {
    return wrap(CLI::Formatter::make_description(app), m_columns, 0);
  }
  std::string make_option_desc(const CLI::Option* option) const override {
    return wrap(option->get_description(), m_columns - get_column_width(), 0);
  }
  std::string make_subcommand(const CLI::App* command) const override {
    std::stringstream out;
    CLI::detail::format_help(out, command->get_display_name(true),
                             wrap(command->get_description(), m_columns - get_column_width(), 0),
                             get_column_width());
    return out.str();
  }
  std::string make_footer(const CLI::App* app) const override {
    return wrap(CLI::Formatter::make_footer(app), m_columns, 4);
  }

 private:
  size_t m_columns;
};

}  // namespace

ParseResult parse_command_line(int argc, const char* const* argv) {
  ParseResult result;
  Options& options = result.options;

  // Values arrive as strings and are converted by the checks above: CLI11's own conversion errors
  // ("Could not convert: --frames = x") name neither the accepted range nor an example.
  std::vector<ValueOption> value_options = {
      {kSceneGroup, "--api", "NAME",
       "the graphics API that owns the resources and draws the frames: " + choices_text(kApis) +
           " (default gl); d3d11 and d3d12 are Windows only; --list shows each "
           "API's modes",
       "vulkan", parse_api},
      {kSceneGroup, "--scene", "NAME", "what is computed: " + choices_text(kScenes) + " (default wave)",
       "wave", parse_scene},
      {kSceneGroup, "--filter", "NAME",
       "the postprocess scene's filter: " + choices_text(kernels::kFilterNames) + " (default sobel)", "sobel",
       parse_filter},
      {kSceneGroup, "--mode", "NAME",
       "how results reach the graphics API: " + choices_text(kModes) +
           ", of those the --api has (default with gl: the best that works here: interop, else staging, else "
           "cpu, saying why; with vulkan: staging with a CUDA device, else cpu)",
       "interop", parse_mode},
      {kSceneGroup, "--map-flags", "FLAGS",
       "map flags of every registered resource: " + choices_text(interop::kAccessNames) +
           " (default: write-discard for what CUDA writes, read-only for what it reads)",
       "write-discard", parse_map_flags},
      {kSceneGroup, "--device", "N", "CUDA device ordinal (default: the GPU that drives GL, else 0)", "0",
       parse_device},
      {kSceneGroup, "--compute-device", "N",
       "CUDA device of the split mode's kernels (default: the --device one)", "1", parse_compute_device},
      {kSceneGroup, "--split-copy", "HOW",
       "how the split mode moves results to the GL device: peer (cudaMemcpyPeerAsync; through host memory "
       "where "
       "the devices cannot reach each other) or host (always through pinned host memory) (default peer)",
       "host", parse_split_copy},
      {kSceneGroup, "--semaphores", "KIND",
       "what orders the external and exported modes' frames: timeline (one timeline semaphore, a value per "
       "step) or "
       "binary "
       "(two binary semaphores) (default timeline)",
       "binary", parse_semaphores},
      {kWindowGroup, "--size", "WxH", "image and window size (default 1280x720)", "1280x720", parse_size},
      {kWindowGroup, "--vsync", "on|off",
       "wait for the display's refresh in a window (default: on, off with --frames)", "off", parse_vsync},
      {kWindowGroup, "--frames", "N",
       "render N frames, then exit; time = frame / 60, so runs repeat (default: until the window closes; " +
           std::to_string(kDefaultHeadlessFrames) + " headless)",
       "120", parse_frames},
      {kWindowGroup, "--screenshot", "PATH", "write the last frame as a PNG", "out.png", parse_screenshot},
      {kWindowGroup, "--screenshot-dir", "DIR",
       "where the screenshot key (F12) and button write interop-lab-0001.png, -0002.png, ... never "
       "overwriting "
       "(default: the current folder)",
       ".", parse_screenshot_dir},
      {kSceneGroup, "--attach", "[NAME]",
       "show the frames another process publishes as NAME (interop_lab.publish, interop::Publisher) in place "
       "of a scene, live and with no copy between the processes; the frame takes their size unless --size "
       "is given; --attach alone lists what is published",
       "sim", parse_attach},
      {kSceneGroup, "--picture-fit", "FIT",
       "how the --attach picture lies in a frame of another size or aspect: " + choices_text(kPictureFits) +
           " (default stretch); the panel's and the page's picture fit change it live",
       "contain", parse_picture_fit},
      {kWindowGroup, "--serve", "[HOST:]PORT",
       "run headless and serve the desk, a web page with the live frame and the panel, on HOST:PORT "
       "(default 127.0.0.1:8080; port 0: any free port; a token in the printed URL guards it); "
       "with --api gl or vulkan",
       "127.0.0.1:8080", parse_serve},
      {kBenchGroup, "--sizes", "LIST",
       "with --bench: sizes to measure (default 1280x720,1920x1080,3840x2160,7680x4320)",
       "1280x720,3840x2160", parse_sizes},
      {kBenchGroup, "--bench-frames", "N",
       "with --bench: measured frames per case, 1 or more, after a warm-up (default: up to 300, stopping "
       "after "
       "4 s of a slow case)",
       "300", parse_bench_frames},
      {kBenchGroup, "--bench-repeat", "N",
       "with --bench: run each case N times (1 to 100); the table shows the median of the medians and their "
       "min-max spread (default 1)",
       "5", parse_bench_repeat},
      {kBenchGroup, "--json", "PATH",
       "with --bench: write every number as JSON; with --doctor (no PATH): print the report as JSON",
       "bench.json", parse_json},
      {kBenchGroup, "--chart", "PATH", "with --bench: write an SVG chart of frame time per mode and size",
       "bench.svg", parse_chart},
  };

  CLI::App app{
      "interop-lab: see, measure and trust each way a CUDA kernel hands results to a graphics API:\n"
      "OpenGL, Vulkan, Direct3D 11 and Direct3D 12.",
      "interop-lab"};
  app.formatter(std::make_shared<WrappingFormatter>(help_columns()));  // before diff, which takes it
  for (ValueOption& entry : value_options) {
    // --bench leads its section: the options after it refine it.
    if (entry.group == kBenchGroup && app.get_option_no_throw("--bench") == nullptr)
      app.add_flag(
             "--bench", options.bench,
             "benchmark every available mode x scene x size headless, then exit; --scene, --mode and --size "
             "(or --sizes) pick the cases; with --api vulkan: its modes (external and exported with both "
             "semaphore kinds, buffer, staging, cpu)")
          ->group(kBenchGroup);
    entry.option =
        app.add_option(entry.name, entry.value, entry.help)->type_name(entry.type_name)->group(entry.group);
  }
  // --doctor --json takes no path: the value is optional (the check says when one is needed).
  // --serve alone serves on 127.0.0.1:8080: CLI11 gives it that default, shown in --help as its type only.
  for (ValueOption& entry : value_options) {
    if (std::strcmp(entry.name, "--json") == 0 || std::strcmp(entry.name, "--attach") == 0)
      entry.option->expected(0, 1);
    if (std::strcmp(entry.name, "--serve") == 0)
      entry.option->expected(0, 1)->default_str(ServeAddress{}.authority())->option_text(entry.type_name);
  }
  app.add_flag("--headless", options.headless,
               "no window: render offscreen (GL through EGL, Vulkan and Direct3D without a surface)")
      ->group(kWindowGroup);
  app.add_flag("--no-ui", options.no_ui, "hide the ImGui panel (and keep its layout file untouched)")
      ->group(kWindowGroup);
  app.add_flag("--graph", options.graph,
               "launch each frame's CUDA work as one CUDA graph, updated every frame (the modes that map and "
               "unmap: the kernels between map and unmap; external: semaphore wait, kernels, signal)")
      ->group(kSceneGroup);
  app.add_flag(
         "--bench-window", options.bench_window,
         "with --bench: measure in a window (vsync off, no panel, nothing presented) instead of headless, "
         "so every frame holds the pass that shows it; the screen must fit the sizes")
      ->group(kBenchGroup);
  app.add_flag("--list", options.list, "list scenes, modes and map flags, then exit")
      ->group(kDiagnosticsGroup);
  app.add_flag(
         "--doctor", options.doctor,
         "report CUDA, GL and EGL devices and whether each mode works here, then exit (0: interop works); "
         "--json prints it as JSON")
      ->group(kDiagnosticsGroup);
  app.add_flag(
         "--gl-debug", options.gl_debug,
         "GL debug output (KHR_debug): GL errors stop the run with the driver's message (default: on in "
         "debug builds and with INTEROP_LAB_GL_DEBUG=1)")
      ->group(kDiagnosticsGroup);
  // Last, so that the diagnostics section ends with them rather than opening the help.
  app.set_help_flag("-h,--help", "print this help and exit")->group(kDiagnosticsGroup);
  app.set_version_flag("--version", std::string("interop-lab ") + INTEROP_LAB_VERSION,
                       "print the version and exit")
      ->group(kDiagnosticsGroup);

  DiffOptions diff;
  std::string max_diff_text, max_fraction_text;
  CLI::App* diff_command = app.add_subcommand(
      "diff", "compare two PNG images: exit 0 same or within tolerance, 1 different, 2 error");
  diff_command->add_option("A", diff.a, "the first PNG")->required();
  diff_command->add_option("B", diff.b, "the second PNG")->required();
  diff_command->add_option("--heatmap", diff.heatmap, "write a PNG heat map of the difference")
      ->type_name("PATH");
  diff_command
      ->add_option("--max-diff", max_diff_text,
                   "largest per-channel difference that still matches (default 2)")
      ->type_name("N");
  diff_command
      ->add_option("--max-fraction", max_fraction_text, "fraction of pixels allowed to differ (default 0)")
      ->type_name("F");
  app.footer(
      "Exit codes: 0 success, 1 runtime failure, 2 usage error.\n"
      "\n"
      "Examples:\n"
      "  interop-lab --scene pattern --mode cpu\n"
      "  interop-lab --headless --frames 120 --screenshot wave.png\n"
      "  interop-lab --serve 8080 --scene postprocess  # the desk: open the URL it prints in a browser\n");

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
    std::vector<NamedOption> named{
        {"--heatmap", "heat.png"}, {"--max-diff", "2"}, {"--max-fraction", "0.001"}};
    for (const ValueOption& entry : value_options) named.push_back({entry.name, entry.example});
    if (diff_command->parsed()) return diff_usage_error(explain_argument_mismatch(error, named));
    return usage_error(explain_argument_mismatch(error, named));
  } catch (const CLI::RequiredError& error) {
    // Only diff's A and B are required.
    if (diff_command->parsed()) return diff_usage_error(std::string("needs two PNG files: ") + kDiffUsage);
    return usage_error(error.what());
  } catch (const CLI::ExtrasError&) {
    // CLI11 raises it for the command that was left the extras: diff's own, or the main one's.
    if (diff_command->parsed() && !diff_command->remaining().empty())
      return diff_usage_error(explain_extras(*diff_command, true));
    return usage_error(explain_extras(app, false));
  } catch (const CLI::ParseError& error) {
    if (diff_command->parsed()) return diff_usage_error(error.what());
    return usage_error(error.what());
  }

  if (diff_command->parsed()) {
    if (std::string problem = check_diff(diff, *diff_command, max_diff_text, max_fraction_text);
        !problem.empty())
      return diff_usage_error(problem);
    options.diff = diff;
    return result;
  }

  // In table order, so of several bad values the first one on the help screen is reported.
  for (const ValueOption& entry : value_options) {
    if (entry.option->count() == 0) continue;
    if (std::string problem = entry.check(entry.value, options); !problem.empty())
      return usage_error(problem);
  }
  if (std::string problem = check_mode_of_api(options); !problem.empty()) return usage_error(problem);
  if (std::string problem = check_none_api(app, options); !problem.empty()) return usage_error(problem);
  if (std::string problem = check_gl_only_options(app, options); !problem.empty())
    return usage_error(problem);
  if (std::string problem = check_semaphores_option(app, options); !problem.empty())
    return usage_error(problem);
  if (std::string problem = check_graph_option(options); !problem.empty()) return usage_error(problem);
  for (const char* bench_only :
       {"--sizes", "--bench-frames", "--bench-repeat", "--json", "--chart", "--bench-window"})
    if (!options.bench && app.count(bench_only) > 0 &&
        !(options.doctor && std::strcmp(bench_only, "--json") == 0))
      return usage_error(std::string(bench_only) + " belongs to --bench; add --bench");
  if (std::string problem = check_serve_option(options); !problem.empty()) return usage_error(problem);
  if (std::string problem = check_attach_option(app, options); !problem.empty()) return usage_error(problem);
  if (options.vsync && (options.headless || options.bench))
    return usage_error(std::string("--vsync applies to a window; drop it with ") +
                       (options.bench ? "--bench (it measures with vsync off)" : "--headless"));
  if (!options.screenshot_dir.empty() && (options.headless || options.bench))
    return usage_error(
        std::string("--screenshot-dir is where a window's screenshot key writes; drop it with ") +
        (options.bench ? "--bench" : "--headless"));
  if (options.bench_window && options.headless)
    return usage_error("--bench-window measures in a window; drop --headless");
  if (options.bench && options.serve &&
      app.count("--json") + app.count("--chart") + app.count("--bench-repeat") > 0)
    return usage_error("--bench --serve prints its table only; drop --json, --chart and --bench-repeat");
  if (options.bench && (options.doctor || !options.screenshot.empty()))
    return usage_error("--bench runs on its own; drop --doctor and --screenshot");
  if (options.bench) {
    // --scene, --mode and --size pick the cases to measure; --frames would be silently overruled.
    if (app.count("--frames") > 0)
      return usage_error(
          "--frames does not apply to --bench; use --bench-frames N for the measured frames per case");
    if (app.count("--size") > 0 && app.count("--sizes") > 0)
      return usage_error("--size and --sizes both pick the benchmark's sizes; give one of them");
    if (app.count("--size") > 0) options.bench_sizes = {{options.width, options.height}};
    if (app.count("--scene") > 0) options.bench_scene = options.scene;
  }
  // --list and --doctor answer and exit: an option they would ignore (a --screenshot never written) is
  // a mistake to point out, not to drop in silence.
  if (const std::string ignored = ignored_option(app, options); !ignored.empty()) return usage_error(ignored);
  if (const std::string ignored = option_the_run_ignores(app, options); !ignored.empty())
    return usage_error(ignored);
  if (options.serve) options.headless = true;  // the desk's page is the window
  options.size_given = app.count("--size") > 0;
  return result;
}

}  // namespace lab
