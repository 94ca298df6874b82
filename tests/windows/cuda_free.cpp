// tests/windows/cuda_free.cpp — what the CUDA-free Windows test build (d3d11_frames) links in place of the
// CUDA runtime, the CUDA kernels, the interop library's device memory and Dear ImGui: app/scene_compute.cpp
// is compiled whole, but the test only runs its CPU reference. There is no Windows CUDA runtime on the
// Linux machine that builds this, and no reason to build ImGui for a test without a panel.
// cudaGetDevice answers as a machine without a CUDA device does; everything else is reached only by the
// CUDA path or the panel, which this build never takes: if it ever is, it says so and aborts.
#include "interop/error.hpp"
#include "interop/memory.hpp"
#include "kernels/pattern.hpp"
#include "kernels/postprocess.hpp"
#include "kernels/wave.hpp"

#include <imgui.h>

#include <cstdio>
#include <cstdlib>

namespace {
[[noreturn]] void not_in_this_build(const char* what) {
  std::fprintf(stderr, "d3d11_frames: %s was called, but this CUDA-free test build has neither CUDA nor a panel\n",
               what);
  std::abort();
}
}  // namespace

extern "C" cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  *device = -1;
  return cudaErrorNoDevice;
}

namespace interop {
DeviceBuffer::DeviceBuffer(size_t /*bytes*/) { not_in_this_build("interop::DeviceBuffer"); }
void detail::DeviceMemoryTraits::destroy(Handle /*allocation*/) noexcept { not_in_this_build("cudaFree"); }
void detail::throw_cuda_error(cudaError_t /*error*/, const char* call, const char* /*file*/, int /*line*/) {
  not_in_this_build(call);
}
}  // namespace interop

namespace kernels {
void wave_cuda(WaveVertex* /*vertices*/, const WaveParams& /*params*/, cudaStream_t /*stream*/) {
  not_in_this_build("kernels::wave_cuda");
}
void pattern_cuda(ImageTarget /*target*/, const PatternParams& /*params*/, cudaStream_t /*stream*/) {
  not_in_this_build("kernels::pattern_cuda");
}
void postprocess_cuda(const ImageSource& /*source*/, const ImageTarget& /*target*/, const PostprocessParams& /*params*/,
                      Vec4* /*scratch*/, cudaStream_t /*stream*/) {
  not_in_this_build("kernels::postprocess_cuda");
}
}  // namespace kernels

namespace ImGui {
void TextUnformatted(const char* /*text*/, const char* /*text_end*/) { not_in_this_build("ImGui::TextUnformatted"); }
void SameLine(float /*offset_from_start_x*/, float /*spacing*/) { not_in_this_build("ImGui::SameLine"); }
bool RadioButton(const char* /*label*/, bool /*active*/) { not_in_this_build("ImGui::RadioButton"); }
bool SliderInt(const char* /*label*/, int* /*v*/, int /*v_min*/, int /*v_max*/, const char* /*format*/, int /*flags*/) {
  not_in_this_build("ImGui::SliderInt");
}
}  // namespace ImGui
