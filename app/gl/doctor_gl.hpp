// app/gl/doctor_gl.hpp — GL's part of `interop-lab --doctor` (app/doctor/doctor.hpp): its sections (the GL
// context the app would use, EGL devices and the CUDA device behind each, cudaGLGetDevices, the interop
// probe, peer access and the split mode's path) and its modes, and the report of this build's sources
// that --doctor prints and GL's panel shows in its doctor tab.
#pragma once

#include "app/cli/cli.hpp"
#include "app/doctor/doctor.hpp"

#include <string>
#include <vector>

namespace lab::gl {

// GL's source: it chooses the CUDA device as App does (the one asked for, else the one that drives GL,
// else 0), for the GL context current while the report is collected.
DoctorSource gl_doctor_source();

// The report of `sources` (this build's: app/main.cpp's API table) from inside a running app, for the GL
// context current on this thread: what GL's panel shows. `cuda_device` is the app's device (-1: choose as
// the app does: the one that drives GL, else 0); `platform` is the current platform's description(), shown
// in the GL context section; the split mode's compute device (-1: the GL device) and copy choice fill the
// multi-GPU section.
DoctorReport collect_doctor_report_for_current_context(const std::vector<DoctorSource>& sources,
                                                       int cuda_device, const std::string& platform = "",
                                                       int compute_device = -1,
                                                       SplitCopy split_copy = SplitCopy::Peer);

}  // namespace lab::gl
