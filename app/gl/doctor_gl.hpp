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
// The sources of the report GL's panel shows, in the report's order: GL, Vulkan, Direct3D/DXGI (Windows),
// environment. (--doctor takes this build's from the API table, app/main.cpp.)
std::vector<DoctorSource> doctor_sources();

// The report of doctor_sources() for the context `options` describe (app/doctor/doctor.hpp).
DoctorReport collect_doctor_report(const Options& options);
// The same from inside a running app, for the GL context current on this thread. `cuda_device` is
// the app's device (-1: choose as the app does: the one that drives GL, else 0); `platform` is the
// current platform's description(), shown in the GL context section; the split mode's compute device
// (-1: the GL device) and copy choice fill the multi-GPU section.
DoctorReport collect_doctor_report_for_current_context(int cuda_device, const std::string& platform = "",
                                                       int compute_device = -1,
                                                       SplitCopy split_copy = SplitCopy::Peer);

}  // namespace lab::gl
