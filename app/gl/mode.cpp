// app/gl/mode.cpp — GL's mode table (which modes run here, and the factory) and the split mode's path.
#include "app/gl/mode.hpp"

#include "app/cli/remedy.hpp"
#include "app/modes/cpu_mode.hpp"
#include "app/modes/mode_table.hpp"
#include "app/modes/staging_mode.hpp"

#include "interop/device.hpp"

#include <stdexcept>

namespace lab::gl {

std::unique_ptr<gl::Mode> create_interop_mode(const CudaContext& cuda, const AccessSettings& access);
std::unique_ptr<gl::Mode> create_reregister_mode(const CudaContext& cuda, const AccessSettings& access);
std::unique_ptr<gl::Mode> create_pbo_mode(const CudaContext& cuda, const AccessSettings& access);
std::unique_ptr<gl::Mode> create_split_mode(const CudaContext& cuda, const AccessSettings& access);
std::unique_ptr<gl::Mode> create_buffer_mode(const CudaContext& cuda, const AccessSettings& access);
std::unique_ptr<gl::Mode> create_external_mode(const CudaContext& cuda, interop::SemaphoreKind kind);
std::unique_ptr<gl::Mode> create_exported_mode(const CudaContext& cuda, interop::SemaphoreKind kind);
std::unique_ptr<gl::Mode> create_eglstream_mode(const CudaContext& cuda);
#ifdef _WIN32
// EGLStreams are EGL's, which GL on Windows has not.
ModeAvailability eglstream_support() {
  return {false, "EGLStreams need EGL, which GL on Windows has not; use --mode interop"};
}
ModeAvailability eglstream_scene_availability(const std::vector<ResourceDesc>&) {
  return {true, ""};
}
std::unique_ptr<gl::Mode> create_eglstream_mode(const CudaContext&) {
  throw std::runtime_error("--mode eglstream is unavailable: " + eglstream_support().reason);
}
#endif

SplitPath choose_split_path(int compute_device, int gl_device, SplitCopy requested) {
  const std::string devices =
      "device " + std::to_string(compute_device) + " -> device " + std::to_string(gl_device);
  if (requested == SplitCopy::Host)
    return {false, devices + " through pinned host memory (--split-copy host)"};
  if (compute_device == gl_device)
    return {true, devices + " by cudaMemcpy3DPeerAsync within one device (one GPU: the copy alone costs)"};
  if (interop::can_access_peer(compute_device, gl_device) &&
      interop::can_access_peer(gl_device, compute_device))
    return {true, devices + " by cudaMemcpyPeerAsync (peer access both ways)"};
  return {false, devices +
                     " through pinned host memory: the devices cannot access each other's memory "
                     "(cudaDeviceCanAccessPeer: no; they need NVLink or a PCIe switch that allows it)"};
}

namespace {

// What a GL mode needs beyond the CUDA device, in the order mode_availability asks it.
enum class Needs {
  Nothing,     // cpu
  CudaDevice,  // staging
  Interop,     // the modes that map GL objects registered with CUDA
  External,    // GL's import of memory and semaphores (external, exported)
  EglStream,   // an EGL context that consumes EGLStreams, and CUDA working with it
};

using Factory = std::unique_ptr<gl::Mode> (*)(const CudaContext&, const AccessSettings&);

// GL's mode table: a row per mode of modes_of(GL), in that order (test_doctor checks both).
struct GlModeRow {
  ModeId id;
  Needs needs;
  Factory create;  // with the register and map flags of the modes that register
};

const GlModeRow kGlModes[] = {
    {ModeId::Interop, Needs::Interop, create_interop_mode},
    {ModeId::Reregister, Needs::Interop, create_reregister_mode},
    {ModeId::Pbo, Needs::Interop, create_pbo_mode},
    {ModeId::Split, Needs::Interop, create_split_mode},
    {ModeId::Buffer, Needs::Interop, create_buffer_mode},
    // GL's uploads are done when glTextureSubImage2D returns: timed as the copy they are.
    {ModeId::Staging, Needs::CudaDevice,
     [](const CudaContext& cuda, const AccessSettings&) -> std::unique_ptr<gl::Mode> {
       return std::make_unique<StagingMode<gl::Renderer>>(cuda.stream, Phase::GlCopy, /*time_uploads=*/true);
     }},
    {ModeId::Cpu, Needs::Nothing,
     [](const CudaContext&, const AccessSettings&) -> std::unique_ptr<gl::Mode> {
       return std::make_unique<CpuMode<gl::Renderer>>(Phase::GlCopy, /*time_uploads=*/true);
     }},
    {ModeId::External, Needs::External,
     [](const CudaContext& cuda, const AccessSettings&) {
       return create_external_mode(cuda, cuda.semaphores);
     }},
    {ModeId::Exported, Needs::External,
     [](const CudaContext& cuda, const AccessSettings&) {
       return create_exported_mode(cuda, cuda.semaphores);
     }},
    {ModeId::Eglstream, Needs::EglStream,
     [](const CudaContext& cuda, const AccessSettings&) { return create_eglstream_mode(cuda); }},
};

}  // namespace

const std::vector<ModeId>& gl_mode_table_order() {
  static const std::vector<ModeId> order = modes_of_table(kGlModes);
  return order;
}

std::unique_ptr<gl::Mode> create_mode(ModeId id, const CudaContext& cuda, const AccessSettings& access) {
  if (const GlModeRow* row = mode_row_of(kGlModes, id)) return row->create(cuda, access);
  throw std::invalid_argument("unknown mode");
}

ModeAvailability scene_mode_availability(ModeId mode, const std::vector<ResourceDesc>& resources) {
  if (mode == ModeId::Eglstream) return eglstream_scene_availability(resources);
  // GL's exported frames of the postprocess scene (its input GL renders into CUDA's memory) equal the cpu
  // frames on the H200 at 64x48, 1277x719, 4097x3 and 3840x2160 since the compute pack, but at 640x360
  // every pixel differed: refused until that is understood, rather than shown wrong.
  const auto has_input = [&resources] {
    for (const ResourceDesc& resource : resources)
      if (resource.role == ResourceRole::Input) return true;
    return false;
  };
  if (mode == ModeId::Exported && has_input())
    return {false,
            "GL's exported mode does not run a scene whose input GL renders (postprocess): its frames did "
            "not equal the cpu frames at every size on the H200; use --mode external or buffer, or "
            "--api vulkan --mode exported"};
  return {true, ""};
}

ModeAvailability mode_availability(ModeId mode, int cuda_device, const interop::InteropSupport& interop,
                                   const std::string& cuda_error, const interop::InteropSupport& external) {
  const GlModeRow* row = mode_row_of(kGlModes, mode);
  if (row == nullptr)
    return {false, "mode " + std::to_string(static_cast<int>(mode)) +
                       " is none of --list's modes: pick one of those"};
  const std::string no_device = no_cuda_device_reason(cuda_error);
  switch (row->needs) {
    case Needs::Nothing:
      return {true, ""};
    case Needs::CudaDevice:
      if (cuda_device >= 0) return {true, ""};
      return {false, no_device};
    case Needs::Interop:
      if (cuda_device < 0) return {false, no_device};
      if (interop.usable) return {true, ""};
      if (interop.reason.empty())
        return {false,
                "CUDA-GL interop was not probed for this GL context: --doctor says why it cannot work; "
                "use --mode staging or cpu"};
      return {false, interop.reason};
    case Needs::External:
      // GL imports the memory and Vulkan's semaphores; whether the device's VMM allocations export (exported)
      // is asked when the mode attaches (the doctor's "VMM export" line says it too).
      if (cuda_device < 0) return {false, no_device};
      if (external.usable) return {true, ""};
      if (external.reason.empty())
        return {false, std::string("the GL ") + to_string(mode) +
                           " mode was not probed for this GL context: --doctor says what it needs; "
                           "use --api vulkan for " +
                           to_string(mode)};
      return {false, external.reason};
    case Needs::EglStream: {
      // What the GL context lacks first: on Mesa that (no EGL_KHR_stream) is the reason, CUDA or not.
      const ModeAvailability support = eglstream_support();
      if (!support.available) return support;
      if (cuda_device < 0) return {false, no_device};
      if (!interop.usable && !interop.reason.empty())
        return {false, "CUDA cannot work with this GL context (" + interop.reason + ")"};
      return {true, ""};
    }
  }
  return {false, "unknown mode"};
}

}  // namespace lab::gl
