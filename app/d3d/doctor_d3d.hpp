// app/d3d/doctor_d3d.hpp — the Direct3D/DXGI source of `interop-lab --doctor` (app/doctor/doctor.hpp) on
// Windows: the DXGI adapters, what Direct3D 11 and 12 create on each, and the CUDA device with each one's
// LUID.
#pragma once

#include "app/doctor/doctor.hpp"

namespace lab::d3d {

DoctorSource dxgi_doctor_source();

}  // namespace lab::d3d
