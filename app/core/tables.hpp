// app/core/tables.hpp — the tables every name and mode fact comes from: the graphics APIs, the scenes and the
// modes with the names users type (command line, panel, JSON, --list) and their one-line descriptions, and
// for each mode the facts the app decides by. vocabulary.cpp answers vocabulary.hpp's questions from them;
// the command line's parser reads them for its suggestions and its help. Nothing else needs them.
#pragma once

#include "app/core/names.hpp"
#include "app/core/vocabulary.hpp"

#include <cstddef>
#include <iterator>

namespace lab {

inline constexpr NamedValue<GraphicsApi> kApis[] = {
    {GraphicsApi::Gl, "gl", "OpenGL 4.6 core: a GLFW window, or headless through EGL"},
    {GraphicsApi::Vulkan, "vulkan",
     "Vulkan 1.2, in a GLFW window with the panel or headless: memory and semaphores exported to CUDA, or "
     "copies through host memory"},
    {GraphicsApi::D3d11, "d3d11", "Direct3D 11 (Windows only)"},
    {GraphicsApi::D3d12, "d3d12", "Direct3D 12 (Windows only)"},
    {GraphicsApi::None, "none",
     "no graphics API: the frames in host memory, for the browser desk (--serve) and --screenshot where "
     "there "
     "is no GL or Vulkan; headless, pictures only (--attach, the pattern scene)"},
};
static_assert(std::size(kApis) == kGraphicsApiCount, "kApis needs one row per GraphicsApi");

inline constexpr NamedValue<SceneId> kScenes[] = {
    {SceneId::Wave, "wave",
     "animated height field: CUDA writes positions + normals into a GL vertex buffer through a mapped "
     "pointer"},
    {SceneId::Pattern, "pattern", "procedural image: CUDA writes a GL texture through a surface object"},
    {SceneId::Postprocess, "postprocess",
     "GL renders a lit 3D scene into a texture; CUDA reads it through a texture object and writes a filtered "
     "image (Sobel edges or a separable blur) through a surface object"},
};

// The mode table: a mode's name and description (names.hpp's lookups take it as they take a NamedValue)
// and the facts the rest of the app decides by, so that no file outside the modes' registries and their
// own files switches on a ModeId: its family, whether it has a graph form (--graph), whether it computes on
// a device of its own, and the tier it falls back to.
struct ModeRow {
  ModeId value;
  const char* name;
  const char* description;
  ModeFamily family;
  bool graph_form;      // has_graph_form
  bool compute_device;  // uses_compute_device
  ModeId fallback;      // falls_back_to
};

inline constexpr ModeRow kModes[] = {
    {ModeId::Interop, "interop", "register once, map/unmap every frame (the right way)", ModeFamily::MapUnmap,
     true, false, ModeId::Staging},
    {ModeId::Reregister, "reregister",
     "register + map + unmap + unregister every frame (the anti-pattern, kept to measure it)",
     ModeFamily::MapUnmap, true, false, ModeId::Staging},
    {ModeId::Pbo, "pbo",
     "CUDA writes a mapped GL buffer, GL copies it into the texture or vertex buffer (the cuda-samples way)",
     ModeFamily::MapUnmap, true, false, ModeId::Staging},
    {ModeId::Split, "split",
     "CUDA computes on --compute-device into its own memory; cudaMemcpyPeerAsync (or pinned host memory) "
     "carries it into the GL objects mapped on the GL device (a second GPU for compute)",
     ModeFamily::MapUnmap, false, true, ModeId::Staging},
    {ModeId::Buffer, "buffer",
     "the image lives in a buffer (GL: registered once; Vulkan: a storage buffer CUDA imports): CUDA writes "
     "it through a plain pointer, the graphics API shows it straight from the buffer (no texture copy)",
     ModeFamily::MapUnmap, true, false, ModeId::Staging},
    {ModeId::Staging, "staging",
     "CUDA writes device memory, copies it to pinned host memory, GL uploads from host (no interop at all)",
     ModeFamily::Copy, false, false, ModeId::Cpu},
    {ModeId::Cpu, "cpu",
     "no CUDA: the CPU reference of every kernel, uploaded with glTextureSubImage2D/glNamedBufferSubData "
     "(or the API's own upload)",
     ModeFamily::Cpu, false, false, ModeId::Cpu},
    {ModeId::External, "external",
     "the graphics API allocates exportable memory and semaphores, CUDA imports them once; every frame CUDA "
     "waits on a semaphore, runs the kernels and signals (no register, no map/unmap)",
     ModeFamily::ExternalMemory, true, false, ModeId::Staging},
    {ModeId::Exported, "exported",
     "CUDA allocates exportable memory (cuMemCreate), the graphics API imports it as buffers; semaphores the "
     "graphics API exports order each frame (images are copied from their buffer into the frame)",
     ModeFamily::ExternalMemory, true, false, ModeId::Staging},
    // The stream's present, acquire and return are host calls a graph cannot hold.
    {ModeId::Eglstream, "eglstream",
     "CUDA presents each frame into an EGLStream (FIFO), GL acquires it as an external texture and draws it "
     "(EGL only: --headless on NVIDIA's EGL; images only: the pattern scene)",
     ModeFamily::Stream, false, false, ModeId::Staging},
};
inline constexpr NamedValue<SplitCopy> kSplitCopies[] = {
    {SplitCopy::Peer, "peer", "cudaMemcpyPeerAsync where the devices can reach each other"},
    {SplitCopy::Host, "host", "always through pinned host memory"},
};
inline constexpr NamedValue<PictureFit> kPictureFits[] = {
    {PictureFit::Contain, "contain", "the whole picture, letterboxed"},
    {PictureFit::Stretch, "stretch", "the frame filled, the picture's aspect lost"},
    {PictureFit::Cover, "cover", "the frame filled, the picture cropped"},
    {PictureFit::Actual, "actual", "one picture pixel a frame pixel, centred"},
};

}  // namespace lab
