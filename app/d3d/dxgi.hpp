// app/d3d/dxgi.hpp — what both Direct3D backends share (app/d3d11, app/d3d12): HRESULT checks that throw
// with the call and the code, adapter names and LUIDs as the doctor and the messages print them, the fields
// both APIs' texture descriptions name alike, their windows' swap chain, and the embedded HLSL compiled with
// D3DCompile. Windows only.
#pragma once

#include "app/core/vocabulary.hpp"

#include <d3dcommon.h>
#include <dxgi1_2.h>
#include <windows.h>
#include <wrl/client.h>

#include <glm/mat4x4.hpp>

#include <string>
#include <utility>

namespace lab::d3d {

// "0x887A0005"
std::string hresult_text(HRESULT result);
// Throws std::runtime_error "<call> failed: HRESULT 0x..." when `result` failed.
void check(HRESULT result, const char* call);
#define LAB_D3D_CHECK(call) ::lab::d3d::check((call), #call)

// A wide string as ASCII, other characters as '?' (adapter descriptions).
std::string narrow(const wchar_t* wide);
// The adapter's description (ASCII; other characters as '?') and its LUID: "NVIDIA H200 (LUID 0x...)".
std::string adapter_name(const wchar_t* description, const LUID& luid);
std::string luid_text(const LUID& luid);

// An NT handle this process owns (what CreateSharedHandle returns), closed with CloseHandle by its
// destructor. Move-only. CUDA's imports of NT handles do not take them over, unlike POSIX file descriptors:
// the CUDA Runtime API reference leaves closing them to the caller once the import is done.
class SharedHandle {
 public:
  SharedHandle() = default;
  explicit SharedHandle(HANDLE handle) : m_handle(handle) {}
  ~SharedHandle() {
    if (m_handle != nullptr) CloseHandle(m_handle);
  }
  SharedHandle(const SharedHandle&) = delete;
  SharedHandle& operator=(const SharedHandle&) = delete;
  SharedHandle(SharedHandle&& other) noexcept : m_handle(std::exchange(other.m_handle, nullptr)) {}
  SharedHandle& operator=(SharedHandle&& other) noexcept {
    std::swap(m_handle, other.m_handle);
    return *this;
  }
  HANDLE get() const { return m_handle; }

 private:
  HANDLE m_handle = nullptr;
};

// What a Direct3D 11 and a Direct3D 12 description of a 2D texture (D3D11_TEXTURE2D_DESC,
// D3D12_RESOURCE_DESC) name alike: `extent` texels of `format`, one mip level, one sample. The rest (array
// size, usage, binding or flags) is the API's.
template <class TextureDesc>
void describe_texture(TextureDesc& desc, Extent extent, DXGI_FORMAT format) {
  desc.Width = static_cast<decltype(desc.Width)>(extent.width);
  desc.Height = static_cast<UINT>(extent.height);
  desc.MipLevels = 1;
  desc.Format = format;
  desc.SampleDesc.Count = 1;
}

// A window's flip-model swap chain (DXGI_SWAP_EFFECT_FLIP_DISCARD, the only model Direct3D 12 has):
// `buffers` back buffers of `extent` in `format` on `window`, made by `factory` for `device` (what
// presents: Direct3D 11's device, Direct3D 12's direct queue). Alt+Enter is left to GLFW, which owns the
// window's keys.
Microsoft::WRL::ComPtr<IDXGISwapChain1> create_swap_chain(IDXGIFactory2* factory, IUnknown* device,
                                                          HWND window, Extent extent, DXGI_FORMAT format,
                                                          UINT buffers);

// A column-major matrix as an HLSL constant buffer takes it (the shaders read it as column_major).
void copy_matrix(float (&to)[16], const glm::mat4& from);

// assets/shaders/hlsl/<file>'s `entry` compiled for `target` ("vs_5_0", "ps_5_0"); throws with the
// compiler's log.
Microsoft::WRL::ComPtr<ID3DBlob> compile(const char* file, const char* entry, const char* target);

}  // namespace lab::d3d
