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
