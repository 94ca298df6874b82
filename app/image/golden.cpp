// app/image/golden.cpp — golden JSON parsing and validation (see golden.hpp). Every check turns into a
// GoldenError naming the key, so a hand-edited or damaged golden says exactly what to fix.
#include "app/image/golden.hpp"

#include "app/image/image_io.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>

namespace lab {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& key, const std::string& problem) {
  throw GoldenError(key + ": " + problem + " (scripts/update-goldens.sh writes goldens)");
}

const json& member(const json& object, const std::string& prefix, const char* key) {
  const auto found = object.find(key);
  if (found == object.end()) fail(prefix + key, "missing");
  return *found;
}

std::string string_at(const json& object, const std::string& prefix, const char* key) {
  const json& value = member(object, prefix, key);
  if (!value.is_string()) fail(prefix + key, "must be a string, not " + value.dump());
  return value.get<std::string>();
}

// A whole number in [low, high]; above `high`, the message ends in `too_high` when one is given. Checked
// before converting: get<int>() of 1e300 or 2^64-1 would be undefined behaviour or a wrapped value.
long long whole_number_at(const json& object, const std::string& prefix, const char* key, long long low,
                          long long high, const std::string& too_high = "") {
  const json& value = member(object, prefix, key);
  const std::string name = prefix + key;
  if (!value.is_number_integer()) fail(name, "must be a whole number, not " + value.dump());
  const std::string range = "must be from " + std::to_string(low) + " to " + std::to_string(high);
  const bool above = value.is_number_unsigned()
                         ? value.get<std::uint64_t>() > static_cast<std::uint64_t>(high)
                         : value.get<std::int64_t>() > high;
  if (above) fail(name, "is " + value.dump() + "; " + (too_high.empty() ? range : too_high));
  // nlohmann stores every non-negative integer as unsigned.
  const bool below = value.is_number_unsigned()
                         ? low > 0 && value.get<std::uint64_t>() < static_cast<std::uint64_t>(low)
                         : value.get<std::int64_t>() < low;
  if (below) fail(name, "is " + value.dump() + "; " + range);
  return value.get<std::int64_t>();
}

std::string cap_note(const std::string& cap) {
  return "the cap is " + cap + " (a golden this loose would pass a wrong image)";
}

GoldenTolerance tolerance_at(const json& object, const char* key) {
  const json& tolerance = member(object, "", key);
  if (!tolerance.is_object()) fail(key, "must be an object {\"max_diff\": N, \"max_fraction\": F}");
  const std::string prefix = std::string(key) + ".";
  GoldenTolerance result;
  result.max_diff = static_cast<int>(whole_number_at(tolerance, prefix, "max_diff", 0, kGoldenMaxDiffCap,
                                                     cap_note(std::to_string(kGoldenMaxDiffCap))));

  const json& max_fraction = member(tolerance, prefix, "max_fraction");
  const std::string name = prefix + "max_fraction";
  if (!max_fraction.is_number()) fail(name, "must be a number, not " + max_fraction.dump());
  std::ostringstream cap;
  cap << kGoldenMaxFractionCap;
  result.max_fraction = max_fraction.get<double>();
  if (result.max_fraction > kGoldenMaxFractionCap)
    fail(name, "is " + max_fraction.dump() + "; " + cap_note(cap.str()));
  if (!(result.max_fraction >= 0.0))
    fail(name, "is " + max_fraction.dump() + "; must be from 0 to " + cap.str());
  return result;
}

}  // namespace

GoldenRecord parse_golden_json(const std::string& text) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& error) {
    throw GoldenError(std::string("not valid JSON: ") + error.what());
  }
  if (!root.is_object()) throw GoldenError("must be a JSON object, not " + std::string(root.type_name()));
  try {
    GoldenRecord record;
    record.scene = string_at(root, "", "scene");
    record.image = string_at(root, "", "image");
    record.width = static_cast<int>(whole_number_at(root, "", "width", 1, kMaxImageEdge));
    record.height = static_cast<int>(whole_number_at(root, "", "height", 1, kMaxImageEdge));
    record.frame = whole_number_at(root, "", "frame", 0, std::numeric_limits<long long>::max());
    if (root.contains("filter")) record.filter = string_at(root, "", "filter");
    record.renderer = string_at(root, "", "renderer");
    record.version = string_at(root, "", "interop_lab_version");
    record.same_renderer = tolerance_at(root, "tolerance");
    record.other_renderer = tolerance_at(root, "other_renderer_tolerance");
    return record;
  } catch (const json::exception& error) {
    // dump() of a string that is no valid UTF-8 cannot happen after parse, but no json error may escape.
    throw GoldenError(std::string("unexpected JSON: ") + error.what());
  }
}

GoldenRecord read_golden_json(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw GoldenError(path + ": cannot be opened");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw GoldenError(path + ": cannot be read");
  try {
    return parse_golden_json(text.str());
  } catch (const GoldenError& error) {
    throw GoldenError(path + ": " + error.what());
  }
}

}  // namespace lab
