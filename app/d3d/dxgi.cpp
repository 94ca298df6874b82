// app/d3d/dxgi.cpp — the Direct3D backends' shared helpers (dxgi.hpp).
#include "app/d3d/dxgi.hpp"

#include <d3dcompiler.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace lab {
const char* hlsl_source(const char* name);  // assets/shaders/hlsl, embedded at build time
}

namespace lab::d3d {

std::string hresult_text(HRESULT result) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08lX", static_cast<unsigned long>(result));
  return text;
}

void check(HRESULT result, const char* call) {
  if (FAILED(result))
    throw std::runtime_error(std::string(call) + " failed: HRESULT " + hresult_text(result));
}

std::string narrow(const wchar_t* wide) {
  std::string text;
  for (; *wide != 0; ++wide) text.push_back(*wide < 128 ? static_cast<char>(*wide) : '?');
  return text;
}

std::string luid_text(const LUID& luid) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%08lX%08lX", static_cast<unsigned long>(luid.HighPart),
                static_cast<unsigned long>(luid.LowPart));
  return text;
}

std::string adapter_name(const wchar_t* description, const LUID& luid) {
  return narrow(description) + " (LUID " + luid_text(luid) + ")";
}

Microsoft::WRL::ComPtr<IDXGISwapChain1> create_swap_chain(IDXGIFactory2* factory, IUnknown* device,
                                                          HWND window, Extent extent, DXGI_FORMAT format,
                                                          UINT buffers) {
  DXGI_SWAP_CHAIN_DESC1 desc{};
  desc.Width = static_cast<UINT>(extent.width);
  desc.Height = static_cast<UINT>(extent.height);
  desc.Format = format;
  desc.SampleDesc.Count = 1;
  desc.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
  desc.BufferCount = buffers;
  desc.SwapEffect = DXGI_SWAP_EFFECT_FLIP_DISCARD;
  Microsoft::WRL::ComPtr<IDXGISwapChain1> swap_chain;
  LAB_D3D_CHECK(factory->CreateSwapChainForHwnd(device, window, &desc, nullptr, nullptr, &swap_chain));
  // GLFW owns the window's keys (no Alt+Enter fullscreen behind its back).
  LAB_D3D_CHECK(factory->MakeWindowAssociation(window, DXGI_MWA_NO_ALT_ENTER));
  return swap_chain;
}

void copy_matrix(float (&to)[16], const glm::mat4& from) {
  std::memcpy(to, &from[0][0], sizeof to);
}

Microsoft::WRL::ComPtr<ID3DBlob> compile(const char* file, const char* entry, const char* target) {
  const char* source = hlsl_source(file);
  Microsoft::WRL::ComPtr<ID3DBlob> code, errors;
  const HRESULT result =
      D3DCompile(source, std::strlen(source), file, nullptr, nullptr, entry, target,
                 D3DCOMPILE_ENABLE_STRICTNESS | D3DCOMPILE_OPTIMIZATION_LEVEL3, 0, &code, &errors);
  if (FAILED(result)) {
    std::string message =
        errors ? std::string(static_cast<const char*>(errors->GetBufferPointer()), errors->GetBufferSize())
               : "HRESULT " + hresult_text(result);
    throw std::runtime_error(std::string("D3DCompile ") + file + " (" + entry + ", " + target +
                             "): " + message);
  }
  return code;
}

}  // namespace lab::d3d
