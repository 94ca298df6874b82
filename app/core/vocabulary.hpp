// app/core/vocabulary.hpp — the words the whole app shares: which graphics API shows the frames
// (GraphicsApi), what is computed (SceneId), how results cross (ModeId) and which modes each API has
// (modes_of), how the split mode copies (SplitCopy), with their names and one-line descriptions, and
// the size of a frame (Extent). The command line, the scenes, the modes, the panel, the bench and the
// doctor all speak it; it depends on nothing of theirs. The name tables are in cli.cpp (app/core/names.hpp's
// NamedValue).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace lab {

// A frame's size in pixels: the window's framebuffer or the headless target.
struct Extent {
  int width = 0;
  int height = 0;
  bool empty() const { return width <= 0 || height <= 0; }
  bool operator==(const Extent& other) const { return width == other.width && height == other.height; }
  bool operator!=(const Extent& other) const { return !(*this == other); }
};

// The graphics API that owns the resources and draws the frame (--api). One backend folder each:
// app/gl/, app/vulkan/, app/d3d11/ and app/d3d12/ (the Direct3D ones are Windows-only).
enum class GraphicsApi { Gl, Vulkan, D3d11, D3d12, None };
constexpr size_t kGraphicsApiCount = 5;  // the tables with a row per API check their size against it
enum class SceneId { Wave, Pattern, Postprocess };
// What produces the frames (app/scene/scene_compute.hpp's FrameSource): one of the app's scenes, the
// frames another process publishes (--attach NAME), or pictures a caller of the loop hands in
// (app/scene/array_source.hpp).
enum class SourceKind { Scene, Published, Array };
// Every way a result can reach the graphics API; with the scene, what users switch live in the panel.
// Not every API has every mode: modes_of says which.
enum class ModeId { Interop, Reregister, Pbo, Split, Buffer, Staging, Cpu, External, Exported, Eglstream };
constexpr size_t kModeCount = 10;  // the tables with a row per mode check their size against it
// How the split mode carries results between its compute device and the GL device: Peer is
// cudaMemcpyPeerAsync where the two can reach each other (else through host memory, said why); Host
// always goes through pinned host memory.
enum class SplitCopy { Peer, Host };

// How a picture (another process's frames, a caller's arrays) lies in the frame when its size differs:
// Contain letterboxes it, Stretch fills the frame, Cover fills it and crops, Actual shows it 1:1, centred
// (app/scene/view.hpp).
enum class PictureFit { Contain, Stretch, Cover, Actual };

// How a mode's results reach the graphics API, the fact most rules about a mode turn on: MapUnmap maps
// objects the graphics API registered with CUDA (interop, reregister, pbo, split, buffer), ExternalMemory
// shares memory one side exported and the other imported, ordered by semaphores (external, exported),
// Copy copies through pinned host memory (staging), Cpu computes on the CPU without CUDA (cpu), Stream
// presents into an EGLStream (eglstream). A column of the mode table in cli.cpp.
enum class ModeFamily { MapUnmap, ExternalMemory, Copy, Cpu, Stream };

// Whether `mode` can launch its frame's CUDA work as one CUDA graph (--graph): the modes that map and
// unmap (their kernels between map and unmap) and the external modes (semaphore wait, kernels, signal).
bool has_graph_form(ModeId mode);
ModeFamily mode_family(ModeId mode);
// The mode that needs no CUDA at all (cpu): every API has it, and it is the last tier a failure falls to.
bool is_cpu_mode(ModeId mode);
ModeId cpu_mode();
// The mode that needs a CUDA device and nothing of the graphics API's (staging, the Copy family): the tier
// between the modes that share graphics memory and cpu, and the mode without --mode where the API's device
// says nothing better.
ModeId copy_mode();
// Whether `mode` computes on a CUDA device of its own (--compute-device) and carries its results to the
// graphics API's device (split): that device and how the results travel (SplitCopy) are its settings.
bool uses_compute_device(ModeId mode);
// Whether `mode` leaves its results in memory the graphics API shares with CUDA (registered or imported:
// the MapUnmap and ExternalMemory families), as opposed to copying through the host or computing on it.
bool shares_graphics_memory(ModeId mode);
// The next tier down when `mode` fails, as the mode table says: staging for the modes that share memory,
// cpu for staging and for cpu itself. mode_switch.hpp's fallback_tier also asks whether that tier runs.
ModeId falls_back_to(ModeId mode);
// The mode called `name` in the mode table, for code that names a mode in text (the Python package speaks
// mode names); throws std::invalid_argument for a name the table has not.
ModeId mode_named(const std::string& name);

const char* to_string(GraphicsApi api);
const char* to_string(SceneId scene);
const char* to_string(ModeId mode);
const char* to_string(SplitCopy copy);
std::optional<GraphicsApi> api_from_string(const std::string& name);
std::optional<SceneId> scene_from_string(const std::string& name);
std::optional<ModeId> mode_from_string(const std::string& name);
// Every value, in the order --list and the panel show them.
const std::vector<GraphicsApi>& all_apis();
const std::vector<SceneId>& all_scenes();
const std::vector<ModeId>& all_modes();
// One line each, for --list and the panel's tooltips.
const char* describe(GraphicsApi api);
const char* describe(SceneId scene);
const char* describe(ModeId mode);
// The API's own name for messages: "OpenGL", "Vulkan", "Direct3D 11", "Direct3D 12".
const char* display_name(GraphicsApi api);

// Whether a mode can run here, as every backend judges it.
struct ModeAvailability {
  bool available = false;
  std::string reason;  // why not, with a remedy
};

// The modes `api` has, in the order --list and its panel show them: the one table that the parser,
// --list, the doctor and each backend's availability consult.
const std::vector<ModeId>& modes_of(GraphicsApi api);
// An API's first mode, the best it has, which it runs without --mode where it can (GL: interop).
ModeId best_mode(GraphicsApi api);
bool has_mode(GraphicsApi api, ModeId mode);
// Whether `mode` orders its frames with semaphores that --semaphores picks (external, exported).
bool uses_semaphores(ModeId mode);

}  // namespace lab
