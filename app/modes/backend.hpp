// app/modes/backend.hpp — the optional half of the contract between a graphics API and the one frame loop
// (app/loop/app.hpp). An API's Backend derives from BackendDefaults and declares what differs; the loop calls
// every verb below unconditionally, so what an API lacks is this default, not a trait the loop detects. The
// required half (the types, the device, the renderer, the presenter, the mode table) and the check of both
// halves are in app/loop/contract.hpp, which the loop asserts for every Backend it is instantiated with.
//
// Today only GL's Backend overrides these (app/gl/backend.hpp); the null backend (app/null) and Vulkan and
// Direct3D take every default. The defaults are written as templates over the device and renderer types
// so that one struct serves every API.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/modes/mode.hpp"
#include "app/scene/scene_compute.hpp"
#include "app/timing/timing.hpp"

#include <optional>
#include <string>
#include <vector>

namespace lab {

// What an API's device says of the CUDA device when it says nothing (every API but GL).
struct NoCudaProbe {};

// The mode a run starts in without --mode: `mode`, the panel's notice and the line said on stderr (both ""
// where there is nothing to explain).
struct ModeChoice {
  ModeId mode = ModeId::Cpu;
  std::string notice;
  std::string log;
};

// The profiling scope of an API without one: nothing (its destructor keeps the unused scope quiet).
struct NoProfileScope {
  ~NoProfileScope() {}  // NOLINT(modernize-use-equals-default): a trivial one would warn unused
};

struct BackendDefaults {
  // Whether request_device may move the CUDA work to another device live (the mode, the streams, the timers
  // and the scene's scratch re-created there). Without it the API's device was picked for the CUDA device at
  // start (Vulkan by UUID, Direct3D by LUID), and a switch is refused saying so.
  static constexpr bool kCudaDeviceSwitch = false;
  // Whether the map and register flags are the user's to set (GL's register/map modes; the panel's and the
  // page's flags). Without it both UIs show that there are none.
  static constexpr bool kAccessFlags = false;

  // What the API's device says of the CUDA device (GL: the interop probe). An API that declares its own
  // CudaProbe has its modes judged after its device is made (the --mode check waits for it) and again after
  // a device switch, and mode_availability takes it; probe_summary(probe) is the switch's notice.
  using CudaProbe = NoCudaProbe;
  template <class Device>
  static NoCudaProbe probe_cuda(const CudaContext&, Device&, const std::string& /*cuda_error*/) {
    return {};
  }
  static std::string probe_summary(const NoCudaProbe&) { return ""; }

  // A rule that depends on what the source carries (a mode that handles some resources only), judged after
  // mode_availability; a scene switch the running mode cannot run moves it one tier down, saying why.
  static ModeAvailability scene_availability(ModeId, const FrameSource&, Extent) { return {true, ""}; }

  // The mode without --mode (GL: its best tier, and why not higher). The default is the copy mode with a
  // CUDA device, else cpu.
  template <class Probe>
  static ModeChoice default_mode(const CudaContext& cuda, const Probe&) {
    return {cuda.device >= 0 ? copy_mode() : cpu_mode(), "", ""};
  }

  // The CUDA devices that drive the API's device (GL: cudaGLGetDevices); the first is used without --device
  // and each is named so in the panel and the page. Empty: the API cannot say.
  template <class Device>
  static std::vector<int> cuda_devices_of(Device&) {
    return {};
  }

  // The doctor's report for the panel's tab and the page from `sources` (this build's, as main's API table
  // lists them: app/doctor/doctor.hpp's DoctorSource), made where either shows it and again after a device
  // or split switch; nullopt where the API has none (the panel and the page then show no doctor).
  template <class Device, class Sources>
  static std::nullopt_t doctor_report(const CudaContext&, Device&, const Sources&) {
    return std::nullopt;
  }

  // What must happen before anything else (GL: the allocator's setting).
  static void at_start() {}

  // An RAII scope the profilers see around each frame, switch, attach and present (GL: an NVTX range and a
  // GL debug group). `name` is a callable that makes the name: an API without a scope never calls it.
  template <class Name>
  static NoProfileScope profile_scope(const Name&) {
    return {};
  }
  // Checks around a frame (GL: its debug output, whose error ends the frame with an exception).
  template <class Device>
  static void before_frame(Device&) {}
  template <class Device>
  static void after_frame(Device&, long long /*index*/) {}

  // The timing scope of the graphics passes (GL's also opens a debug group).
  using GraphicsPhase = lab::GraphicsPhase;
  // Whether the renderer's frame pass draws anything for `plan` (GL: not for its image headless, which is
  // the frame); a pass that does nothing is not timed.
  template <class Renderer>
  static bool draws_frame(const Renderer&, const DrawPlan&) {
    return true;
  }
};

}  // namespace lab
