// app/d3d/doctor_dxgi.hpp — the doctor's Direct3D/DXGI section on Windows: the DXGI adapters here and
// what Direct3D 11 and 12 create on each (app/d3d/doctor_dxgi.cpp), judged against the CUDA devices the
// caller describes by app/d3d/dxgi_report.hpp's rules. CUDA-free: the caller gathers the CUDA devices' facts
// (cudaGetDeviceProperties: luid, luidDeviceNodeMask, tccDriver). Windows only (library labdxgidoctor).
#pragma once

#include "app/d3d/dxgi_report.hpp"

#include <string>
#include <vector>

namespace lab::d3d {

// Every adapter IDXGIFactory1::EnumAdapters1 lists, with the highest D3D11 feature level a device gets on
// it and whether D3D12 creates a device on it (capability checks: no device is kept). Never throws: what
// fails is said in DxgiFacts::error or the adapter's d3d11_error / d3d12_error.
DxgiFacts gather_dxgi_facts();

// The section for `cuda` on this machine's adapters: the report, and its lines as the doctor prints them.
DxgiReport dxgi_doctor_report(const std::vector<CudaDeviceFacts>& cuda);
std::vector<std::string> dxgi_doctor_lines(const std::vector<CudaDeviceFacts>& cuda);

}  // namespace lab::d3d
