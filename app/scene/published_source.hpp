// app/scene/published_source.hpp — the `published` source of frames: another process's frames, watched
// with no copy between the processes (interop-lab --attach NAME; the publisher is interop::Publisher or
// interop_lab.publish, interop/publish.hpp). Each frame the source takes the newest frame announced and
// copies it into the frame's texture (kernels/blit.hpp: flipped to the frames' row order, nearest sampled
// when --size differs from the published size), through CUDA in the CUDA modes and through the CPU
// reference in cpu mode.
//
// Where the picture is read from:
//   device slots   imported once into CUDA (their POSIX FDs, cudaImportExternalMemory) and read by the
//                  blit kernel where they are; cpu mode copies the slot to host memory first (needs CUDA)
//   host slots     mapped (memfd); read by the CPU reference in cpu mode, and copied to the device once
//                  per frame in the CUDA modes
//
// The frame in use stays claimed (interop::Subscriber::next) until a newer one has been copied, so the
// publisher never writes over what is being read; it takes the other slots meanwhile (the newest frame
// wins). When the publisher goes, the last picture stays (copied out of its slots first) and the source
// tries every half second to attach to a publisher of that name again.
//
// It shows every format a publisher publishes: 1, 3 or 4 channels of uint8, uint16, int32, float16 or
// float32. uint8 is copied as it is (gray, RGB opaque, RGBA); the others become RGBA8 first by the Python
// viewer's rule (kernels/convert.hpp, docs/python.md's dtype table: one channel through the gray colormap,
// NaN magenta, +inf white, -inf black), then are copied as uint8x4 frames are. The range: floats 0..1;
// uint16 and int32 the smallest and largest finite value of the first frame shown, kept for the frames
// after it and across a publisher's return with the same dtype and channels; status() says it. The
// conversion runs where the copy does: the CUDA launcher in the CUDA modes, the CPU reference in cpu mode.
#pragma once

#include "app/scene/scene_compute.hpp"

#include <memory>
#include <string>
#include <vector>

namespace lab {

// Attaches to the frames published as `name` in `directory` ("": the user's; interop/publish.hpp). Throws
// interop::Error when nothing is published under that name or the publisher is another user's or on another
// GPU; std::runtime_error for a format this build does not know, and on a system without it (Windows).
std::unique_ptr<FrameSource> create_published_source(const std::string& name,
                                                     const std::string& directory = "");

// What is published now, one line each ("sim  1920x1080 uint8x4  device slots  pid 4242  59.9 frames/s
// 1 viewer"), for `--attach` without a name; "" when nothing is.
std::string published_list_text(const std::string& directory = "");
// The names published now, sorted (a live publisher each: stale sockets are left out); empty on Windows.
// Each listing asks every publisher's socket, so a frame loop lists at most about once a second.
std::vector<std::string> published_names(const std::string& directory = "");
// Where the user's publishers are ($XDG_RUNTIME_DIR/interop-lab), for messages; "" on Windows.
std::string publication_directory();

}  // namespace lab
