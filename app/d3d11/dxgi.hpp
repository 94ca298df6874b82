// app/d3d11/dxgi.hpp — what both Direct3D backends share (app/d3d11, and app/d3d12, which links
// labd3d11): HRESULT checks that throw with the call and the code, adapter names and LUIDs as the doctor
// and the messages print them, and the embedded HLSL compiled with D3DCompile. Windows only.
#pragma once

#include <d3dcommon.h>
#include <dxgi1_2.h>
#include <windows.h>
#include <wrl/client.h>

#include <glm/mat4x4.hpp>

#include <string>

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

// A column-major matrix as an HLSL constant buffer takes it (the shaders read it as column_major).
void copy_matrix(float (&to)[16], const glm::mat4& from);

// assets/shaders/hlsl/<file>'s `entry` compiled for `target` ("vs_5_0", "ps_5_0"); throws with the
// compiler's log.
Microsoft::WRL::ComPtr<ID3DBlob> compile(const char* file, const char* entry, const char* target);

}  // namespace lab::d3d
