// app/serve/protocol.cpp — the desk's messages (app/serve/protocol.hpp): commands parsed from JSON, the state
// written as JSON (nlohmann-json), and the strip-framed binary frame message.
#include "app/serve/protocol.hpp"

#include "app/core/names.hpp"
#include "app/core/tables.hpp"
#include "app/core/text.hpp"
#include "app/image/image_io.hpp"

#ifndef _WIN32
#include "interop/publish.hpp"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>

namespace lab::serve {

namespace {

std::string names_of_scenes() {
  std::string names;
  for (const SceneId scene : all_scenes()) names += std::string(names.empty() ? "" : ", ") + to_string(scene);
  return names;
}

std::string names_of_modes() {
  std::string names;
  for (const ModeId mode : all_modes()) names += std::string(names.empty() ? "" : ", ") + to_string(mode);
  return names;
}

std::string names_of_access() {
  std::string names = kBestAccess;
  for (const interop::AccessName& entry : interop::kAccessNames) names += std::string(", ") + entry.name;
  return names;
}

std::string names_of_filters() {
  std::string names;
  for (const kernels::FilterName& entry : kernels::kFilterNames)
    names += std::string(names.empty() ? "" : ", ") + entry.name;
  return names;
}

// Bytes in whole MiB, rounded to the nearest.
long long mebibytes(long long bytes) {
  return (bytes + (1LL << 19)) >> 20;
}

// Whether `value` is an array of `count` finite numbers whose first two, each within kMaxPagePoint of 0, are
// a point (or an offset) of the frame: then they are command.x and command.y.
bool point_of(const nlohmann::json& value, size_t count, Command& command) {
  if (!value.is_array() || value.size() != count) return false;
  for (const nlohmann::json& number : value)
    if (!number.is_number() || !std::isfinite(number.get<double>())) return false;
  const double x = value[0].get<double>(), y = value[1].get<double>();
  if (std::abs(x) > kMaxPagePoint || std::abs(y) > kMaxPagePoint) return false;
  command.x = x;
  command.y = y;
  return true;
}

// "" and `command`, or what is wrong with key/value.
std::string parse_command(const std::string& key, const nlohmann::json& value, Command& command) {
  if (key == "scene") {
    const std::optional<SceneId> scene =
        value.is_string() ? scene_from_string(value.get<std::string>()) : std::nullopt;
    if (!scene) return "scene: " + value.dump() + " is not a scene; choose " + names_of_scenes();
    command.kind = Command::Kind::Scene;
    command.scene = *scene;
    return "";
  }
  if (key == "mode") {
    const std::optional<ModeId> mode =
        value.is_string() ? mode_from_string(value.get<std::string>()) : std::nullopt;
    if (!mode) return "mode: " + value.dump() + " is not a mode; choose " + names_of_modes();
    command.kind = Command::Kind::Mode;
    command.mode = *mode;
    return "";
  }
  if (key == "size") {
    const auto edge = [](const nlohmann::json& number) {
      return number.is_number_integer() && number.get<long long>() >= 1 &&
             number.get<long long>() <= kMaxImageEdge;
    };
    if (!value.is_array() || value.size() != 2 || !edge(value[0]) || !edge(value[1]))
      return "size: " + value.dump() + " is not [width, height] with each from 1 to " +
             std::to_string(kMaxImageEdge) + ", e.g. [1280, 720]";
    const long long pixels = value[0].get<long long>() * value[1].get<long long>();
    if (pixels > kMaxPagePixels)
      return "size: " + value.dump() + " is " + std::to_string(pixels) + " pixels (" +
             std::to_string(mebibytes(pixels * 4)) + " MiB a frame); the desk takes at most " +
             std::to_string(kMaxPagePixels) + " pixels (7680x4320, " +
             std::to_string(mebibytes(kMaxPagePixels * 4)) + " MiB a frame), e.g. [3840, 2160]";
    command.kind = Command::Kind::Size;
    command.size = {value[0].get<int>(), value[1].get<int>()};
    return "";
  }
  if (key == "map_flags" || key == "register_flags") {
    const std::string name = value.is_string() ? value.get<std::string>() : "";
    const std::optional<interop::Access> access = interop::access_from_string(name);
    if (!access && name != kBestAccess)
      return key + ": " + value.dump() + " is not a flags choice; choose " + names_of_access();
    command.kind = key == "map_flags" ? Command::Kind::MapFlags : Command::Kind::RegisterFlags;
    command.access = access;
    return "";
  }
  if (key == "device" || key == "compute_device") {
    if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > kMaxCudaDevice)
      return key + ": " + value.dump() + " is not a CUDA device ordinal from 0 to " +
             std::to_string(kMaxCudaDevice);
    command.kind = key == "device" ? Command::Kind::Device : Command::Kind::ComputeDevice;
    command.device = value.get<int>();
    return "";
  }
  if (key == "filter") {
    const std::string name = value.is_string() ? value.get<std::string>() : "";
    const auto* entry = std::find_if(std::begin(kernels::kFilterNames), std::end(kernels::kFilterNames),
                                     [&](const kernels::FilterName& filter) { return name == filter.name; });
    if (entry == std::end(kernels::kFilterNames))
      return "filter: " + value.dump() + " is not a filter; choose " + names_of_filters();
    command.kind = Command::Kind::Filter;
    command.filter = entry->value;
    return "";
  }
  if (key == "source") {
#ifdef _WIN32
    return "source: " + value.dump() + ": published frames need Linux (Unix sockets and POSIX FDs)";
#else
    const std::string name = value.is_string() ? value.get<std::string>() : "";
    if (const std::string problem = interop::validate_publication_name(name); !problem.empty())
      return "source: " + value.dump() + " is not a publication's name: " + problem;
    command.kind = Command::Kind::Source;
    command.source = name;
    return "";
#endif
  }
  if (key == "blur_radius") {
    if (!value.is_number_integer() || value.get<long long>() < 0 ||
        value.get<long long>() > kernels::kMaxBlurRadius)
      return "blur_radius: " + value.dump() + " is not a radius from 0 to " +
             std::to_string(kernels::kMaxBlurRadius) + " pixels";
    command.kind = Command::Kind::BlurRadius;
    command.blur_radius = value.get<int>();
    return "";
  }
  if (key == "zoom") {
    if (!point_of(value, 3, command) || !value[2].is_number() || !(value[2].get<double>() >= kMinPageZoom) ||
        !(value[2].get<double>() <= kMaxPageZoom))
      return "zoom: " + value.dump() +
             " is not [x, y, factor]: a point of the frame in its pixels and a factor " + "from " +
             number_text(kMinPageZoom) + " to " + number_text(kMaxPageZoom) + ", e.g. [640, 360, 1.25]";
    command.kind = Command::Kind::Zoom;
    command.factor = value[2].get<double>();
    return "";
  }
  if (key == "pan" || key == "actual_size") {
    if (!point_of(value, 2, command))
      return key + ": " + value.dump() + " is not [x, y]: " +
             (key == "pan" ? "an offset in the frame's pixels, e.g. [12, -4]"
                           : "a point of the frame in its pixels, e.g. [640, 360]") +
             ", each within " + number_text(kMaxPagePoint) + " of 0";
    command.kind = key == "pan" ? Command::Kind::Pan : Command::Kind::ActualSize;
    return "";
  }
  if (key == "hover") {
    command.kind = Command::Kind::Hover;
    command.on = !value.is_null();
    if (value.is_null() || point_of(value, 2, command)) return "";
    return "hover: " + value.dump() + " is not [x, y], a point of the frame in its pixels (each within " +
           number_text(kMaxPagePoint) + " of 0), or null: off the frame";
  }
  if (key == "fit") {
    if (value != true) return "fit: " + value.dump() + " is not true (fit takes nothing else)";
    command.kind = Command::Kind::Fit;
    return "";
  }
  if (key == "index") {
    if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > kMaxStackIndex)
      return "index: " + value.dump() + " is not a frame of a stack: a whole number from 0 to " +
             std::to_string(kMaxStackIndex);
    command.kind = Command::Kind::Index;
    command.index = value.get<int>();
    return "";
  }
  if (key == "control") {
    const auto name = value.is_object() ? value.find("name") : value.end();
    const auto set = value.is_object() ? value.find("value") : value.end();
    const bool named = name != value.end() && name->is_string() && !name->get<std::string>().empty() &&
                       name->get<std::string>().size() <= kMaxControlText;
    const bool typed =
        set != value.end() && ((set->is_number() && std::isfinite(set->get<double>())) || set->is_boolean() ||
                               (set->is_string() && set->get<std::string>().size() <= kMaxControlText));
    if (!value.is_object() || value.size() != 2 || !named || !typed)
      return "control: " + value.dump() +
             " is not {\"name\": NAME, \"value\": VALUE}: a control's name and a " +
             "finite number (a slider), true or false (a checkbox; true: a button's press) or an option's "
             "name " +
             "(a choice), each text up to " + std::to_string(kMaxControlText) + " bytes";
    command.kind = Command::Kind::Control;
    command.name = name->get<std::string>();
    if (set->is_number()) {
      command.value = Command::Value::Number;
      command.number = set->get<double>();
    } else if (set->is_boolean()) {
      command.value = Command::Value::Boolean;
      command.on = set->get<bool>();
    } else {
      command.value = Command::Value::Text;
      command.text = set->get<std::string>();
    }
    return "";
  }
  using Kind = Command::Kind;
  if (const std::optional<Kind> kind = control_named(key); kind) {
    // The table's widgets: a switch, true or false; an action, true or nothing; a choice, one of its
    // options; a number, within its range.
    const Control& control = control_of(*kind);
    command.kind = *kind;
    switch (control.widget) {
      case Widget::Action:
        if (value != true) return key + ": " + value.dump() + " is not true (" + key + " takes nothing else)";
        command.on = true;
        return "";
      case Widget::Switch:
        if (!value.is_boolean()) return key + ": " + value.dump() + " is not true or false";
        command.on = value.get<bool>();
        return "";
      case Widget::Choice:
        if (!value.is_string() || !takes_option(control, value.get<std::string>()))
          return refusal_of(control, value.dump());
        command.text = value.get<std::string>();
        return "";
      case Widget::Number:
        if (!value.is_number() || !takes_number(control, value.get<double>()))
          return refusal_of(control, value.dump());
        command.number = value.get<double>();
        return "";
      case Widget::Own:
        break;
    }
  }
  return "'" + key + "' is not a command; the page sends " + control_keys();
}

nlohmann::json phase_json(const PhaseLine& line) {
  return {{"phase", line.phase},         {"clock", line.clock},   {"last_ms", line.last_ms},
          {"median_ms", line.median_ms}, {"p90_ms", line.p90_ms}, {"samples", line.samples},
          {"measured", line.measured}};
}

void put_u32(std::vector<uint8_t>& out, unsigned long long value) {
  for (int byte = 0; byte < 4; ++byte) out.push_back(static_cast<uint8_t>((value >> (8 * byte)) & 0xff));
}

unsigned int get_u32(const uint8_t* data) {
  return static_cast<unsigned int>(data[0]) | static_cast<unsigned int>(data[1]) << 8 |
         static_cast<unsigned int>(data[2]) << 16 | static_cast<unsigned int>(data[3]) << 24;
}

constexpr char kMagic[4] = {'I', 'L', 'F', '2'};
constexpr size_t kHeaderBytes = 20;
constexpr size_t kStripEntryBytes = 16;

}  // namespace

std::string parse_commands(const std::string& text, std::vector<Command>& commands) {
  const nlohmann::json message = nlohmann::json::parse(text, nullptr, false);
  if (message.is_discarded()) return "not JSON; the page sends an object such as {\"scene\":\"wave\"}";
  if (!message.is_object() || message.empty())
    return "expected an object of commands such as {\"scene\":\"wave\"}, got " + message.dump();
  std::vector<Command> parsed;
  for (const auto& [key, value] : message.items()) {
    Command command;
    if (std::string problem = parse_command(key, value, command); !problem.empty()) return problem;
    parsed.push_back(command);
  }
  commands.insert(commands.end(), parsed.begin(), parsed.end());
  return "";
}

std::vector<std::string> command_keys(const std::string& text) {
  const nlohmann::json message = nlohmann::json::parse(text, nullptr, false);
  std::vector<std::string> keys;
  if (message.is_object())
    for (const auto& item : message.items()) keys.push_back(item.key());
  return keys;
}

std::string error_json(const std::string& problem) {
  return error_json(std::vector<std::string>{problem});
}

std::string error_json(const std::vector<std::string>& problems, unsigned long long unlisted) {
  std::string text;
  for (const std::string& problem : problems) text += (text.empty() ? "" : "\n") + problem;
  if (unlisted > 0)
    text += (text.empty() ? "" : "\n") + std::string("and ") + std::to_string(unlisted) +
            " more messages refused (too many bad commands at once to list)";
  return nlohmann::json{{"type", "error"}, {"error", text}, {"errors", problems}}.dump();
}

bool ControlSettings::operator==(const ControlSettings& other) const {
  return blur_radius == other.blur_radius && compute_device == other.compute_device &&
         transfer == other.transfer && states == other.states && clock_s == other.clock_s &&
         colormap == other.colormap;
}

std::string control_table_json() {
  nlohmann::json table = nlohmann::json::array();
  for (const Control& control : all_controls()) {
    nlohmann::json row = {{"key", control.key},
                          {"label", control.label},
                          {"what", control.what},
                          {"not_on_page", control.not_on_page ? control.not_on_page : ""},
                          {"widget", to_string(control.widget)},
                          {"group", to_string(control.group)}};
    if (control.widget == Widget::Choice) row["options"] = control.options();
    if (control.widget == Widget::Number)
      row["range"] = {
          {"low", control.low}, {"high", control.high}, {"zero", control.zero ? control.zero : ""}};
    table.push_back(row);
  }
  return nlohmann::json{{"controls", table}, {"max_blur_radius", kernels::kMaxBlurRadius}}.dump();
}

std::string state_json(const AppState& app, const DeskStats& desk, bool with_notice, const LinkState* link,
                       bool with_settings) {
  nlohmann::json modes = nlohmann::json::array();
  for (const ModeChoice& choice : app.modes)
    modes.push_back(
        {{"name", to_string(choice.mode)}, {"available", choice.available}, {"reason", choice.reason}});
  nlohmann::json scenes = nlohmann::json::array();
  for (const SceneId scene : all_scenes()) scenes.push_back(to_string(scene));
  nlohmann::json phases = nlohmann::json::array();
  for (const PhaseLine& line : app.phases) phases.push_back(phase_json(line));
  nlohmann::json desk_phases = nlohmann::json::array();
  for (const PhaseLine& line : desk.phases) desk_phases.push_back(phase_json(line));
  nlohmann::json compared = nlohmann::json::array();
  for (const ModeComparison& mode : app.compared) {
    nlohmann::json lines = nlohmann::json::array();
    for (const PhaseLine& line : mode.phases) lines.push_back(phase_json(line));
    compared.push_back({{"mode", to_string(mode.mode)}, {"phases", lines}});
  }
  nlohmann::json lanes = nlohmann::json::array();
  for (const LaneState& lane : app.timeline.lanes)
    lanes.push_back({{"lane", to_string(lane.lane)},
                     {"clock", lane.clock},
                     {"placed", lane.placed},
                     {"why_not", lane.why_not},
                     {"uncertainty_ms", lane.uncertainty_ms}});
  nlohmann::json spans = nlohmann::json::array();
  for (const TimelineSpan& span : app.timeline.spans)
    spans.push_back({{"lane", to_string(span.lane)},
                     {"name", span.name},
                     {"start_ms", span.start_ms},
                     {"end_ms", span.end_ms}});
  nlohmann::json filters = nlohmann::json::array();
  for (const kernels::FilterName& entry : kernels::kFilterNames) filters.push_back(entry.name);
  nlohmann::json access_choices = nlohmann::json::array({kBestAccess});
  for (const interop::AccessName& entry : interop::kAccessNames) access_choices.push_back(entry.name);
  nlohmann::json state = {{"type", "state"},
                          {"api", to_string(app.api)},
                          {"api_name", display_name(app.api)},
                          {"adapter", app.adapter},
                          {"cuda_device", app.cuda_device},
                          {"cuda_devices", app.cuda_devices},
                          {"device_switch", app.device_switch},
                          {"scene", app.scene ? nlohmann::json(to_string(*app.scene)) : nlohmann::json()},
                          {"scenes", scenes},
                          {"filter", app.filter},
                          {"filters", filters},
                          {"flags",
                           {{"settable", app.flags.settable},
                            {"why_not", app.flags.why_not},
                            {"map_flags", app.flags.map_flags},
                            {"register_flags", app.flags.register_flags},
                            {"choices", access_choices}}},
                          {"doctor", app.doctor},
                          {"mode", to_string(app.mode)},
                          {"modes", modes},
                          {"size", {app.size.width, app.size.height}},
                          {"frame", app.frame},
                          {"phases", phases},
                          {"compared", compared},
                          {"untimed", app.untimed},
                          {"source", app.source},
                          {"source_name", app.source_name},
                          {"source_status", app.source_status},
                          {"publishers", app.publishers},
                          {"controls", app.controls},
                          {"path", app.path},
                          {"path_reason", app.path_reason},
                          {"timeline",
                           {{"frame", app.timeline.frame},
                            {"frame_ms", app.timeline.frame_ms},
                            {"lanes", lanes},
                            {"spans", spans}}},
                          {"desk",
                           {{"viewers", desk.viewers},
                            {"fps_cap", desk.fps_cap},
                            {"frames_encoded", desk.frames_encoded},
                            {"frames_dropped", desk.frames_dropped},
                            {"phases", desk_phases}}}};
  const ControlSettings& set = app.settings;
  // The table's controls by widget: {KEY: {on | value, why_not}}.
  nlohmann::json switches = nlohmann::json::object(), choices = nlohmann::json::object(),
                 numbers = nlohmann::json::object();
  for (const Control& control : all_controls()) {
    const ControlState& state_of = set.states[static_cast<size_t>(control.kind)];
    if (control.widget == Widget::Switch)
      switches[control.key] = {{"on", state_of.on}, {"why_not", state_of.why_not}};
    else if (control.widget == Widget::Choice)
      choices[control.key] = {{"value", state_of.choice}, {"why_not", state_of.why_not}};
    else if (control.widget == Widget::Number)
      numbers[control.key] = {{"value", state_of.number}, {"why_not", state_of.why_not}};
  }
  if (with_settings)
    state["settings"] = {
        {"blur_radius", set.blur_radius ? nlohmann::json(*set.blur_radius) : nlohmann::json()},
        {"compute_device", set.compute_device},
        {"transfer", set.transfer},
        {"switches", switches},
        {"choices", choices},
        {"numbers", numbers},
        {"clock_s", set.clock_s},
        {"colormap", set.colormap}};
  if (app.viewer) {
    const ViewerTools& tools = *app.viewer;
    nlohmann::json controls = nlohmann::json::array();
    for (const ViewerControlState& control : tools.controls) {
      nlohmann::json value = control.value;
      if (control.kind == "checkbox") value = control.value != 0.0;
      if (control.kind == "choice" && control.value >= 0 &&
          control.value < static_cast<double>(control.options.size()))
        value = control.options[static_cast<size_t>(control.value)];
      controls.push_back({{"name", control.name},
                          {"kind", control.kind},
                          {"low", control.low},
                          {"high", control.high},
                          {"value", value},
                          {"options", control.options}});
    }
    state["viewer"] = {{"fit", tools.fit},
                       {"free", tools.free},
                       {"origin", {tools.origin_x, tools.origin_y}},
                       {"scale", {tools.scale_x, tools.scale_y}},
                       {"image", {tools.image.width, tools.image.height}},
                       {"cursor", tools.cursor ? nlohmann::json(*tools.cursor) : nlohmann::json()},
                       {"readout", tools.readout},
                       {"colorbar", tools.colorbar ? nlohmann::json{{"low", (*tools.colorbar)[0]},
                                                                    {"high", (*tools.colorbar)[1]}}
                                                   : nlohmann::json()},
                       {"index", tools.index},
                       {"frames", tools.frames},
                       {"controls", controls}};
  }
  if (with_notice) state["notice"] = app.notice;
  if (link)
    state["link"] = {{"quality", link->quality},
                     {"scale", link->scale},
                     {"kbit_s", link->kbit_per_s},
                     {"fps", link->frames_per_s},
                     {"paced", link->paced}};
  return state.dump();
}

std::vector<uint8_t> frame_message(unsigned long long index, int width, int height,
                                   const std::vector<EncodedStrip>& strips) {
  size_t bytes = kHeaderBytes + kStripEntryBytes * strips.size();
  for (const EncodedStrip& strip : strips) bytes += strip.jpeg.size();
  std::vector<uint8_t> message;
  message.reserve(bytes);
  for (const char letter : kMagic) message.push_back(static_cast<uint8_t>(letter));
  put_u32(message, index & 0xffffffffu);
  put_u32(message, static_cast<unsigned>(width));
  put_u32(message, static_cast<unsigned>(height));
  put_u32(message, strips.size());
  for (const EncodedStrip& strip : strips) {
    put_u32(message, static_cast<unsigned>(strip.y));
    put_u32(message, static_cast<unsigned>(strip.rows));
    put_u32(message, static_cast<unsigned>(strip.scale));
    put_u32(message, strip.jpeg.size());
  }
  for (const EncodedStrip& strip : strips)
    message.insert(message.end(), strip.jpeg.begin(), strip.jpeg.end());
  return message;
}

std::optional<FrameMessage> parse_frame_message(const uint8_t* data, size_t size, std::string& why) {
  if (size < sizeof kMagic || std::memcmp(data, kMagic, sizeof kMagic) != 0) {
    why = size >= sizeof kMagic && std::memcmp(data, kMagic, 3) == 0
              ? "a frame message of another version (" + std::string(reinterpret_cast<const char*>(data), 4) +
                    "; this desk reads ILF2)"
              : "not a frame message (no ILF2 header)";
    return std::nullopt;
  }
  if (size < kHeaderBytes) {
    why = "a truncated ILF2 header (" + std::to_string(size) + " bytes)";
    return std::nullopt;
  }
  FrameMessage frame;
  frame.index = get_u32(data + 4);
  frame.width = static_cast<int>(get_u32(data + 8));
  frame.height = static_cast<int>(get_u32(data + 12));
  const size_t count = get_u32(data + 16);
  if (frame.width < 1 || frame.height < 1 || frame.width > kMaxImageEdge || frame.height > kMaxImageEdge) {
    why = "frame size " + size_text(frame.width, frame.height) + " is out of range";
    return std::nullopt;
  }
  if (count == 0 || count > static_cast<size_t>(frame.height) ||
      size < kHeaderBytes + kStripEntryBytes * count) {
    why = "truncated strip table (" + std::to_string(count) + " strips)";
    return std::nullopt;
  }
  size_t offset = kHeaderBytes + kStripEntryBytes * count;
  int next_row = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* entry = data + kHeaderBytes + kStripEntryBytes * i;
    EncodedStrip strip;
    strip.y = static_cast<int>(get_u32(entry));
    strip.rows = static_cast<int>(get_u32(entry + 4));
    const unsigned scale = get_u32(entry + 8);
    const size_t bytes = get_u32(entry + 12);
    if (strip.y < next_row || strip.rows < 1 || strip.rows > frame.height - strip.y) {
      why = "strip " + std::to_string(i) + " (rows " + std::to_string(strip.y) + "+" +
            std::to_string(strip.rows) + ") overlaps the strip before it (up to row " +
            std::to_string(next_row) + ") or passes the frame's " + std::to_string(frame.height) + " rows";
      return std::nullopt;
    }
    if (scale > 4 || !valid_strip_scale(static_cast<int>(scale))) {  // > 4 first: no int overflow
      why = "strip " + std::to_string(i) + " has scale " + std::to_string(scale) + ", not 1, 2 or 4";
      return std::nullopt;
    }
    strip.scale = static_cast<int>(scale);
    if (bytes > size - offset) {
      why = "strip " + std::to_string(i) + " is truncated";
      return std::nullopt;
    }
    strip.jpeg.assign(data + offset, data + offset + bytes);
    offset += bytes;
    next_row = strip.y + strip.rows;
    frame.strips.push_back(std::move(strip));
  }
  return frame;
}

bool FrameMessage::whole() const {
  int next_row = 0;
  for (const EncodedStrip& strip : strips) {
    if (strip.y != next_row) return false;
    next_row += strip.rows;
  }
  return next_row == height;
}

std::optional<ViewerMessage> parse_viewer_message(const std::string& text) {
  const nlohmann::json message = nlohmann::json::parse(text, nullptr, false);
  if (!message.is_object() || message.size() != 1) return std::nullopt;
  if (const auto ack = message.find("ack");
      ack != message.end() && ack->is_number_unsigned() && ack->get<unsigned long long>() <= 0xffffffffull)
    return ViewerMessage{ViewerMessage::Kind::Ack, ack->get<unsigned int>()};
  if (const auto refresh = message.find("refresh"); refresh != message.end() && *refresh == true)
    return ViewerMessage{ViewerMessage::Kind::Refresh, 0};
  return std::nullopt;
}

}  // namespace lab::serve
