// app/gl/doctor_gl.hpp — GL's part of `interop-lab --doctor` (app/doctor/doctor.hpp): its sections (the GL
// context the app would use, EGL devices and the CUDA device behind each, cudaGLGetDevices, the interop
// probe, peer access and the split mode's path) and its modes, and the report of this build's sources
// that --doctor prints and GL's panel shows in its doctor tab.
#pragma once

#include "app/cli/cli.hpp"
#include "app/doctor/doctor.hpp"

#include <string>
#include <vector>

namespace lab {

// GL's source: it chooses the CUDA device as App does (the one asked for, else the one that drives GL,
// else 0), for the GL context current while the report is collected.
DoctorSource gl_doctor_source();
// Every API's source in this build, in the report's order: GL, Vulkan, Direct3D/DXGI (Windows), environment.
std::vector<DoctorSource> doctor_sources();

// Gathers the report for the context `options` describe (window or --headless, --device): creates
// that context (a hidden window, or EGL: with --headless, or where no display is set, saying so in the GL
// context section), and reports why where it cannot. Never throws for what the machine lacks.
DoctorReport collect_doctor_report(const Options& options);
// The same from inside a running app, for the GL context current on this thread. `cuda_device` is
// the app's device (-1: choose as the app does: the one that drives GL, else 0); `platform` is the
// current platform's description(), shown in the GL context section; the split mode's compute device
// (-1: the GL device) and copy choice fill the multi-GPU section.
DoctorReport collect_doctor_report_for_current_context(int cuda_device, const std::string& platform = "",
                                                       int compute_device = -1,
                                                       SplitCopy split_copy = SplitCopy::Peer);
// Prints the report (as JSON with --doctor --json); returns 0 when CUDA-GL interop works, 1 when it does not.
int run_doctor(const Options& options);

}  // namespace lab
