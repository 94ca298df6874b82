// app/core/vocabulary.cpp — the name and mode tables behind vocabulary.hpp: each API, scene and mode with
// the name users type, its one-line description, and the facts the app decides a mode by (its family,
// whether it has a graph form, the tier it falls back to), so no file outside the tables switches on them.
#include "app/core/vocabulary.hpp"

#include "app/core/tables.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {

namespace {

static_assert(std::size(kModes) == kModeCount, "kModes needs one row per ModeId");

// Row i is ModeId i: with the count above, every ModeId has its row, and a lookup by value is an index.
constexpr bool rows_follow_the_enum() {
  for (size_t i = 0; i < std::size(kModes); ++i)
    if (kModes[i].value != static_cast<ModeId>(i)) return false;
  return true;
}
static_assert(rows_follow_the_enum(), "kModes needs its rows in ModeId's order, one per ModeId");

// The tiers end in cpu: exactly one mode falls back to itself, it is the Cpu family, and every other
// mode falls to a mode that needs less (Copy or Cpu) than the mode itself.
constexpr bool tiers_end_in_cpu() {
  size_t last_tiers = 0;
  for (const ModeRow& row : kModes) {
    const ModeRow& next = kModes[static_cast<size_t>(row.fallback)];
    if (row.fallback == row.value) {
      ++last_tiers;
      if (row.family != ModeFamily::Cpu) return false;
    } else if (next.family != ModeFamily::Copy && next.family != ModeFamily::Cpu) {
      return false;
    } else if (row.family == ModeFamily::Copy && next.family != ModeFamily::Cpu) {
      return false;
    }
  }
  return last_tiers == 1;
}
static_assert(tiers_end_in_cpu(), "kModes' fallback column must end in the one cpu mode");

const ModeRow& mode_row(ModeId mode) {
  const size_t index = static_cast<size_t>(mode);
  if (index >= std::size(kModes)) throw std::invalid_argument("not a ModeId: " + std::to_string(index));
  return kModes[index];
}

}  // namespace

bool has_graph_form(ModeId mode) {
  return mode_row(mode).graph_form;
}

ModeFamily mode_family(ModeId mode) {
  return mode_row(mode).family;
}

bool is_cpu_mode(ModeId mode) {
  return mode_family(mode) == ModeFamily::Cpu;
}

ModeId cpu_mode() {
  for (const ModeRow& row : kModes)
    if (row.family == ModeFamily::Cpu) return row.value;
  return ModeId::Cpu;  // not reached: tiers_end_in_cpu holds the table to one
}

ModeId copy_mode() {
  for (const ModeRow& row : kModes)
    if (row.family == ModeFamily::Copy) return row.value;
  return cpu_mode();  // not reached: the table has a Copy row (test_cli's mode table test)
}

bool uses_compute_device(ModeId mode) {
  return mode_row(mode).compute_device;
}

bool shares_graphics_memory(ModeId mode) {
  const ModeFamily family = mode_family(mode);
  return family == ModeFamily::MapUnmap || family == ModeFamily::ExternalMemory;
}

ModeId falls_back_to(ModeId mode) {
  return mode_row(mode).fallback;
}

ModeId mode_named(const std::string& name) {
  if (const std::optional<ModeId> mode = value_named(kModes, name)) return *mode;
  throw std::invalid_argument("no mode is called '" + name + "'; the modes are " + choices_text(kModes));
}

// Which modes each API has, in the order --list and the API's panel show them.
const std::vector<ModeId>& modes_of(GraphicsApi api) {
  static const std::vector<ModeId> gl = {ModeId::Interop,  ModeId::Reregister, ModeId::Pbo, ModeId::Split,
                                         ModeId::Buffer,   ModeId::Staging,    ModeId::Cpu, ModeId::External,
                                         ModeId::Exported, ModeId::Eglstream};
  static const std::vector<ModeId> vulkan = {ModeId::External, ModeId::Exported, ModeId::Buffer,
                                             ModeId::Staging, ModeId::Cpu};
  static const std::vector<ModeId> d3d11 = {ModeId::Interop, ModeId::Reregister, ModeId::Staging, ModeId::Cpu,
                                            ModeId::External};
  static const std::vector<ModeId> d3d12 = {ModeId::External, ModeId::Staging, ModeId::Cpu};
  static const std::vector<ModeId> host = {ModeId::Staging, ModeId::Cpu};  // no graphics API: host memory
  static const std::vector<ModeId> unknown;
  switch (api) {
    case GraphicsApi::Gl:
      return gl;
    case GraphicsApi::Vulkan:
      return vulkan;
    case GraphicsApi::D3d11:
      return d3d11;
    case GraphicsApi::D3d12:
      return d3d12;
    case GraphicsApi::None:
      return host;
  }
  return unknown;  // a cast from a bad integer
}

ModeId best_mode(GraphicsApi api) {
  const std::vector<ModeId>& modes = modes_of(api);
  return modes.empty() ? cpu_mode() : modes.front();
}

bool has_mode(GraphicsApi api, ModeId mode) {
  const std::vector<ModeId>& modes = modes_of(api);
  return std::find(modes.begin(), modes.end(), mode) != modes.end();
}

bool uses_semaphores(ModeId mode) {
  return mode_family(mode) == ModeFamily::ExternalMemory;
}

const char* display_name(GraphicsApi api) {
  switch (api) {
    case GraphicsApi::Gl:
      return "OpenGL";
    case GraphicsApi::Vulkan:
      return "Vulkan";
    case GraphicsApi::D3d11:
      return "Direct3D 11";
    case GraphicsApi::D3d12:
      return "Direct3D 12";
    case GraphicsApi::None:
      return "no graphics API";
  }
  return "?";
}

const char* to_string(GraphicsApi api) {
  return name_of(kApis, api);
}
const char* to_string(SceneId scene) {
  return name_of(kScenes, scene);
}
const char* to_string(ModeId mode) {
  return name_of(kModes, mode);
}
const char* to_string(SplitCopy copy) {
  return name_of(kSplitCopies, copy);
}

const std::vector<GraphicsApi>& all_apis() {
  static const std::vector<GraphicsApi> apis = values_of(kApis);
  return apis;
}

const std::vector<SceneId>& all_scenes() {
  static const std::vector<SceneId> scenes = values_of(kScenes);
  return scenes;
}

const std::vector<ModeId>& all_modes() {
  static const std::vector<ModeId> modes = values_of(kModes);
  return modes;
}

std::optional<GraphicsApi> api_from_string(const std::string& name) {
  return value_named(kApis, name);
}
std::optional<SceneId> scene_from_string(const std::string& name) {
  return value_named(kScenes, name);
}
std::optional<ModeId> mode_from_string(const std::string& name) {
  return value_named(kModes, name);
}

const char* describe(GraphicsApi api) {
  return description_of(kApis, api);
}
const char* describe(SceneId scene) {
  return description_of(kScenes, scene);
}
const char* describe(ModeId mode) {
  return description_of(kModes, mode);
}

}  // namespace lab
