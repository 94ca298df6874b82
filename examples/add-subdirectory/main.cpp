// examples/add-subdirectory/main.cpp — links the interop library built through add_subdirectory and
// uses it without a GPU or a GL context: desc validation, and the CUDA device list (empty, with its
// reason, on a machine without a CUDA driver). Exit 0 when the library answers as documented.
#include <interop/device.hpp>
#include <interop/error.hpp>
#include <interop/gl.hpp>

#include <cstdio>
#include <string>

int main() {
  interop::TextureRegistrationDesc desc;
  desc.texture = 1;
  desc.internal_format = GL_RGB8;
  const std::string refusal = interop::validate(desc);
  if (refusal.find("use GL_RGBA8") == std::string::npos) {
    std::fprintf(stderr, "uses-interop: an RGB8 texture desc was not refused as documented: '%s'\n",
                 refusal.c_str());
    return 1;
  }
  const interop::CudaDevices cuda = interop::enumerate_cuda_devices();
  if (cuda.devices.empty())
    std::printf("uses-interop: no CUDA device (%s; condition: %s)\n", cuda.error.c_str(),
                interop::to_string(cuda.condition));
  else
    std::printf("uses-interop: %zu CUDA device(s), the first: %s\n", cuda.devices.size(),
                cuda.devices[0].name.c_str());
  std::printf("uses-interop: OK: %s\n", refusal.c_str());
  return 0;
}
