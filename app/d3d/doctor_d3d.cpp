// app/d3d/doctor_d3d.cpp — the Direct3D/DXGI section of the doctor's report on Windows: the DXGI adapters and
// the CUDA device with each one's LUID (cudaGetDeviceProperties: luid, luidDeviceNodeMask, tccDriver), judged
// by app/d3d/dxgi_report.hpp's rules over the adapters' facts (doctor_dxgi.cpp).
#include "app/d3d/doctor_d3d.hpp"

#include "app/d3d/doctor_dxgi.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <utility>

namespace lab::d3d {
namespace {

// The DXGI adapters and the CUDA device with each one's LUID (app/d3d/dxgi_report.hpp says how it is judged).
DoctorSection dxgi_section(const interop::CudaDevices& cuda) {
  std::vector<CudaDeviceFacts> facts;
  for (const interop::CudaDeviceInfo& info : cuda.devices) {
    cudaDeviceProp properties{};
    // A device listed but without properties now is left out, not described by guess.
    if (cudaGetDeviceProperties(&properties, info.ordinal) != cudaSuccess) continue;
    CudaDeviceFacts device;
    device.ordinal = info.ordinal;
    device.name = info.name;
    std::memcpy(device.luid.data(), properties.luid, device.luid.size());
    device.node_mask = properties.luidDeviceNodeMask;
    device.tcc = properties.tccDriver != 0;
    device.pci_bus_id = info.pci_bus_id;
    facts.push_back(std::move(device));
  }
  DoctorSection section{kDxgiSectionTitle, {}};
  for (DxgiLine& line : dxgi_doctor_report(facts).lines)
    section.lines.push_back({std::move(line.key), std::move(line.value)});
  return section;
}
}  // namespace

DoctorSource dxgi_doctor_source() {
  return {
      "DXGI",
      [](DoctorCollection& collection) { return std::vector<DoctorSection>{dxgi_section(collection.cuda)}; },
      {},
      {}};
}

}  // namespace lab::d3d
