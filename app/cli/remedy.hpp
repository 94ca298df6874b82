// app/cli/remedy.hpp — the interop library's failures in the app's terms. The library says what failed,
// what it means (interop::Condition) and what a program can do; the app adds which of its options does
// it (--mode cpu/staging, --headless, --doctor, --device N, --size). Everywhere the app turns an
// interop::Error or a library probe into a message goes through here.
#pragma once

#include "interop/device.hpp"
#include "interop/error.hpp"

#include <string>

namespace lab {

// The command line's remedy for `condition` ("use --mode cpu"), or "" when it has none. `gl_device`
// is the CUDA device that drives GL, for Condition::GlOnAnotherCudaDevice.
std::string command_line_remedy(interop::Condition condition, int gl_device = -1);

// error.what() and the command line's remedy, when there is one.
std::string describe(const interop::Error& error);

// interop::enumerate_cuda_devices(), its `error` ending with the command line's remedy.
interop::CudaDevices probe_cuda_devices();

// "" when CUDA device `device` exists, else why not: "this machine has 1 CUDA device(s), 0 to 0".
std::string device_refusal(int device, const interop::CudaDevices& cuda);

// Why a CUDA mode cannot run without a CUDA device, as every API's mode table says it: "no CUDA device: "
// and `cuda_error` (why the probe found none), or, when the probe saw no error, how to look and what runs.
std::string no_cuda_device_reason(const std::string& cuda_error);

// interop::probe_gl_interop(ordinal), its `reason` ending with the command line's remedy.
interop::InteropSupport probe_gl_interop(int ordinal);

}  // namespace lab
