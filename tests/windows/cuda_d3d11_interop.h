// tests/windows/cuda_d3d11_interop.h — FOR THE LINUX COMPILE CHECK ONLY; never installed or shipped.
//
// The CUDA Toolkit for Linux has no cuda_d3d11_interop.h (Windows toolkits do), so the mingw-w64 cross
// build (scripts/windows-cross.sh) compiles interop/d3d11.cpp against these declarations instead. They
// copy the signatures of the CUDA Runtime API reference ("Direct3D 11 Interoperability"), and only the
// functions and enum the library calls; a real Windows build includes the toolkit's own header, which
// this file's include guard then keeps out of the way. Nothing built with it is linked: there is no
// Windows CUDA runtime here.
#ifndef __CUDA_D3D11_INTEROP_H__
#define __CUDA_D3D11_INTEROP_H__

#include <cuda_runtime_api.h>
#include <d3d11.h>

enum cudaD3D11DeviceList {
  cudaD3D11DeviceListAll = 1,           // every CUDA device the Direct3D 11 device uses
  cudaD3D11DeviceListCurrentFrame = 2,  // those it uses in the current frame (SLI)
  cudaD3D11DeviceListNextFrame = 3,     // those it uses in the next frame (SLI)
};

extern "C" {
cudaError_t CUDARTAPI cudaD3D11GetDevice(int* device, IDXGIAdapter* pAdapter);
cudaError_t CUDARTAPI cudaD3D11GetDevices(unsigned int* pCudaDeviceCount, int* pCudaDevices,
                                          unsigned int cudaDeviceCount, ID3D11Device* pD3D11Device,
                                          enum cudaD3D11DeviceList deviceList);
cudaError_t CUDARTAPI cudaGraphicsD3D11RegisterResource(struct cudaGraphicsResource** resource,
                                                        ID3D11Resource* pD3DResource, unsigned int flags);
}

#endif  // __CUDA_D3D11_INTEROP_H__
