// app/cli/cli.hpp — the interop-lab command line: parsing and validation, nothing else. Its exit codes
// (0 success, 1 runtime failure, 2 usage error; README and --help) are what tests and scripts rely on.
#pragma once

#include "app/core/serve_address.hpp"
#include "app/core/vocabulary.hpp"
#include "app/image/diff.hpp"
#include "app/image/image_io.hpp"
#include "interop/access.hpp"
#include "interop/external.hpp"
#include "kernels/postprocess.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {

// A bad value that only the machine can judge (e.g. --device 99): exit code 2, like a parse error.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Frames rendered headless without --frames: enough for a steady picture, then exit (every API's app).
constexpr long long kDefaultHeadlessFrames = 60;

struct BenchSize {
  int width = 0, height = 0;
};

struct Options {
  GraphicsApi api = GraphicsApi::Gl;  // --api: which backend runs (main.cpp dispatches on it)
  SceneId scene = SceneId::Wave;
  // --attach NAME: the frames another process publishes as NAME (app/scene/published_source.hpp) in place
  // of the scene; --attach alone: list what is published (attach_list) and exit
  std::optional<std::string> attach;
  bool attach_list = false;
  // --picture-fit: how the attached picture lies in a frame of another size or aspect (stretch unless
  // given; the panel's and the page's picture fit change it live)
  std::optional<PictureFit> picture_fit;
  kernels::Filter filter = kernels::Filter::Sobel;  // what the postprocess scene applies
  // one of modes_of(api); unset: with gl, the best that works here, interop, else staging, else cpu (with
  // the reason printed); with vulkan, staging where a CUDA device is, else cpu
  std::optional<ModeId> mode;
  // Map flags for every registered resource; unset: each resource's best (write-discard for what CUDA
  // writes, read-only for what it reads).
  std::optional<interop::Access> map_flags;
  int width = 1280;
  int height = 720;
  bool size_given = false;    // --size was given (an attached source takes its publisher's size otherwise)
  std::optional<int> device;  // CUDA device ordinal; unset: the one that drives GL, else 0
  std::optional<int> compute_device;  // the split mode's kernels; unset: the same device as GL's
  SplitCopy split_copy = SplitCopy::Peer;
  // --semaphores: what orders the external mode's frames, one timeline (a value per step) or two binary
  // semaphores
  interop::SemaphoreKind semaphores = interop::SemaphoreKind::Timeline;
  bool headless = false;
  std::optional<long long> frames;  // render this many frames then exit; time = frame / 60
  std::string screenshot;           // PNG of the last frame; "" for none
  // --vsync on|off; unset: on in a window, off with --frames (a fixed frame count runs as fast as it can)
  std::optional<bool> vsync;
  // --screenshot-dir: where the screenshot hotkey and button write interop-lab-NNNN.png; "" = current folder
  std::string screenshot_dir;
  // Where the panel's layout (imgui.ini) is read at start and written at exit. Unset: the user's config
  // folder (ui_layout_path()); "" = nowhere (tests). Ignored without a panel.
  std::optional<std::string> layout_file;
  // --graph: the CUDA modes that have a graph form launch each frame's CUDA work as one CUDA graph
  // (app/scene/frame_graph.hpp); has_graph_form says which.
  bool graph = false;
  // --serve [HOST:]PORT: the browser desk (app/serve) on that address, headless; unset: none. With --bench:
  // measure the desk (on a free loopback port, whatever the address)
  std::optional<ServeAddress> serve;
  bool gl_debug = false;  // --gl-debug (or INTEROP_LAB_GL_DEBUG=1, or a debug build): GL debug output on
  bool no_ui = false;
  // No flag: a caller's window title (the Python viewer's title=); unset: the API's ("interop-lab (Direct3D
  // 12)").
  std::optional<std::string> window_title;
  bool list = false;
  bool doctor = false;       // print the interop report and exit: 0 when CUDA-GL interop works, else 1
  bool doctor_json = false;  // --doctor --json: the report as one JSON document on stdout

  bool bench = false;  // benchmark every available mode x scene x size, headless
  // --sizes, or --size as a list of one; empty: 1280x720, 1920x1080, 3840x2160, 7680x4320
  std::vector<BenchSize> bench_sizes;
  bool bench_window = false;           // --bench-window: measure in a window (the show pass in every frame)
  std::optional<SceneId> bench_scene;  // --scene with --bench: only this scene; unset: every scene
  // (--mode with --bench, in `mode`: only that mode besides the references; unset: every available one)
  // Measured frames per case, after a warm-up; unset: up to 300, stopping after 4 s of a slow case.
  std::optional<long long> bench_frames;
  int bench_repeat = 1;  // --bench-repeat: runs of each case; the table shows the median of their medians
  std::string json;      // --json PATH: every number of the benchmark
  std::string chart;     // --chart PATH: an SVG of frame time per mode and size

  std::optional<DiffOptions> diff;  // `interop-lab diff A.png B.png` (app/image/diff.hpp)
};

// What main() does after parsing: run with `options`, or exit with `exit_code` after printing
// `output` (to stdout for --help/--version/--list, to stderr for errors).
struct ParseResult {
  Options options;
  std::optional<int> exit_code;  // set: do not run; 0 after --help/--version, 2 on a usage error
  std::string output;
};

ParseResult parse_command_line(int argc, const char* const* argv);

// The text of --list (scenes, modes, the graphics APIs with their modes, map flags).
std::string list_text();

// The panel's layout file when --no-ui/headless do not turn it off: $INTEROP_LAB_CONFIG_DIR/imgui.ini
// (tests point it at a scratch folder), else $XDG_CONFIG_HOME/interop-lab/imgui.ini, else
// ~/.config/interop-lab/imgui.ini; "" when none of them is set.
std::string default_layout_path();

}  // namespace lab
