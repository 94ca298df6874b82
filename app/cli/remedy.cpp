// app/cli/remedy.cpp — command-line remedies for the interop library's conditions.
#include "app/cli/remedy.hpp"

namespace lab {

namespace {

std::string with_remedy(const std::string& text, const std::string& remedy) {
  if (text.empty() || remedy.empty()) return text;
  return text + "; " + remedy;
}

}  // namespace

std::string command_line_remedy(interop::Condition condition, int gl_device) {
  using interop::Condition;
  switch (condition) {
    case Condition::NoCudaDevice:
      return "use --mode cpu";
    case Condition::CudaDriverMissing:
      return "until then, use --mode cpu";
    case Condition::InvalidCudaDevice:
      return "--list or --doctor shows the devices";
    case Condition::GlNotOnCudaDevice:
      return "--headless renders on the NVIDIA EGL device; or use --mode staging/cpu (--doctor says more)";
    case Condition::GlOnAnotherCudaDevice:
      return gl_device >= 0 ? "pick --device " + std::to_string(gl_device) + ", or use --mode cpu"
                            : "pick the --device that drives GL (--doctor lists them), or use --mode cpu";
    case Condition::OutOfMemory:
      return "use a smaller --size, or free memory (other GPU programs, ulimit -v)";
    case Condition::NotRegistrable:
    case Condition::NoStorage:
    case Condition::AlreadyMapped:
    case Condition::WrongMappedView:
    case Condition::UnregisterOrder:
    case Condition::NoCurrentGlContext:
    case Condition::GlInteropOnOtherWindowSystem:  // the app makes one GL context per process
      return "this is a bug in interop-lab: --mode staging or cpu avoids it; please report it";
    case Condition::ContextCorrupt:  // main() says to restart
    case Condition::InvalidDesc:     // the desc's message names the field and the fix
    case Condition::None:
      break;
  }
  return "";
}

std::string describe(const interop::Error& error) {
  return with_remedy(error.what(), command_line_remedy(error.condition()));
}

interop::CudaDevices probe_cuda_devices() {
  interop::CudaDevices cuda = interop::enumerate_cuda_devices();
  cuda.error = with_remedy(cuda.error, command_line_remedy(cuda.condition));
  return cuda;
}

interop::InteropSupport probe_gl_interop(int ordinal) {
  interop::InteropSupport support = interop::probe_gl_interop(ordinal);
  if (!support.usable)
    support.reason = with_remedy(support.reason, command_line_remedy(support.condition, support.gl_device));
  return support;
}

std::string device_refusal(int device, const interop::CudaDevices& cuda) {
  const int count = static_cast<int>(cuda.devices.size());
  if (count == 0) return "this machine has no CUDA device (" + cuda.error + ")";
  if (device < 0 || device >= count)
    return "this machine has " + std::to_string(count) + " CUDA device(s), 0 to " + std::to_string(count - 1);
  return "";
}

std::string no_cuda_device_reason(const std::string& cuda_error) {
  return "no CUDA device: " + (cuda_error.empty()
                                   ? std::string("none is visible to this process (check nvidia-smi "
                                                 "and CUDA_VISIBLE_DEVICES); use --mode cpu")
                                   : cuda_error);
}

}  // namespace lab
