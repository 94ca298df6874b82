// interop/d3d11.hpp — registration of Direct3D 11 buffers and textures with CUDA
// (cudaGraphicsD3D11RegisterResource), as move-only RAII types, and the CUDA devices behind a D3D11
// device or DXGI adapter.
//
// The same life as a GL registration (interop/gl.hpp): register once, map every frame with ScopedMap
// (interop/mapping.hpp: a buffer yields a pointer, a texture cudaArrays), unregister before the resource
// is released, and never let Direct3D touch a resource while it is mapped. CUDA holds its own reference
// on the resource while it is registered, but the resource stays the caller's.
//
// What CUDA can register is decided by the resource's D3D11 desc. The check is plain C++ over the desc's
// integers (D3d11ResourceFacts), so it runs and is tested where Direct3D does not exist; on Windows the
// registration reads the facts from the resource and refuses, before calling CUDA, with a message that
// names the field and the fix ("D3d11ResourceFacts.format: DXGI_FORMAT_R8G8B8_... cannot be registered
// with CUDA; use DXGI_FORMAT_R8G8B8A8_UNORM").
//
// Needs (Windows): the CUDA Toolkit's cuda_d3d11_interop.h, a D3D11 device on the adapter of a CUDA
// device (interop::cuda_devices_of(device) says which; a WARP or another vendor's adapter has none).
#pragma once

#include "interop/access.hpp"

#include <cstdint>
#include <string>
#include <vector>

#ifdef _WIN32
#include "interop/owner.hpp"

#include <cuda_runtime_api.h>
#include <d3d11.h>
#endif

namespace interop {

// D3D11_RESOURCE_DIMENSION without Direct3D's header; the values are Direct3D's.
enum class D3d11Dimension : uint32_t { Buffer = 1, Texture1D = 2, Texture2D = 3, Texture3D = 4 };

// What decides whether CUDA can register a D3D11 resource: the fields of its D3D11_BUFFER_DESC or
// D3D11_TEXTURE{1,2,3}D_DESC, as Direct3D's integers.
struct D3d11ResourceFacts {
  D3d11Dimension dimension = D3d11Dimension::Texture2D;
  uint32_t format = 0;        // DXGI_FORMAT (textures; buffers have none)
  uint32_t usage = 0;         // D3D11_USAGE: 0 is D3D11_USAGE_DEFAULT
  uint32_t bind_flags = 0;    // D3D11_BIND_FLAG bits
  uint32_t misc_flags = 0;    // D3D11_RESOURCE_MISC_FLAG bits
  uint32_t sample_count = 1;  // Texture2D: SampleDesc.Count
  uint64_t byte_width = 0;    // Buffer: ByteWidth
};

// How CUDA will use the resource: register and map flags in one (interop/access.hpp), plus the texture
// hints of cudaGraphicsRegisterFlags.
struct D3d11RegistrationUse {
  Access access = Access::ReadWrite;
  bool surface_load_store = false;  // textures: CUDA writes through a surface object
  bool texture_gather = false;      // textures: CUDA reads with tex2Dgather
};

// "" when CUDA can register a resource of these facts for this use, else one message naming the field
// and the fix. No Direct3D or CUDA call.
std::string validate(const D3d11ResourceFacts& facts, const D3d11RegistrationUse& use);

// "DXGI_FORMAT_R8G8B8A8_UNORM" for 28; hex for formats it does not know.
std::string dxgi_format_name(uint32_t format);
// Whether cudaGraphicsD3D11RegisterResource takes a texture of this DXGI_FORMAT: 1, 2 or 4 channels of
// 8, 16 or 32-bit integer or floating-point data (the CUDA Runtime API reference's rule).
bool dxgi_format_registrable(uint32_t format);

// The cudaGraphicsRegisterFlags a use asks for: its hints (surface load/store, texture gather). The
// access is not among them (cudaGraphicsD3D11RegisterResource takes no read-only or write-discard flag):
// a registration applies it as the resource's map flags (cudaGraphicsResourceSetMapFlags).
unsigned int register_flags(const D3d11RegistrationUse& use);

#ifdef _WIN32

// The facts of a live resource (GetDesc of its buffer or texture interface).
D3d11ResourceFacts facts_of(ID3D11Resource* resource);

struct D3d11BufferRegistrationDesc {
  ID3D11Buffer* buffer = nullptr;  // borrowed: release it only after the registration is destroyed
  Access access = Access::ReadWrite;
};

struct D3d11TextureRegistrationDesc {
  ID3D11Resource* texture = nullptr;  // an ID3D11Texture1D/2D/3D; borrowed like the buffer above
  D3d11RegistrationUse use;
};

std::string validate(const D3d11BufferRegistrationDesc& desc);   // reads the buffer's desc
std::string validate(const D3d11TextureRegistrationDesc& desc);  // reads the texture's desc

namespace detail {
struct D3d11ResourceTraits {
  using Handle = cudaGraphicsResource_t;
  static void destroy(Handle resource) noexcept;  // cudaGraphicsUnregisterResource, reported
};
// Validate (throwing interop::Error with validate()'s message), then register.
cudaGraphicsResource_t register_d3d11_object(const D3d11BufferRegistrationDesc& desc);
cudaGraphicsResource_t register_d3d11_object(const D3d11TextureRegistrationDesc& desc);
Access access_of(const D3d11BufferRegistrationDesc& desc);
Access access_of(const D3d11TextureRegistrationDesc& desc);
void set_map_flags(cudaGraphicsResource_t resource, Access access);  // cudaGraphicsResourceSetMapFlags
}  // namespace detail

// A D3D11 buffer or texture registered with CUDA, as its desc says. Unregisters in its destructor; copy
// is deleted, a move empties the source (one owner unregisters). resource() goes into ScopedMap.
template <class Desc>
class D3d11Registration {
 public:
  D3d11Registration() = default;
  explicit D3d11Registration(const Desc& desc)
      : m_desc(desc),
        m_resource(detail::register_d3d11_object(desc)),
        m_map_access(detail::access_of(desc)) {}

  cudaGraphicsResource_t resource() const { return m_resource.get(); }
  explicit operator bool() const { return static_cast<bool>(m_resource); }
  const Desc& desc() const { return m_desc; }
  // Changes how the next map treats the contents (cudaGraphicsResourceSetMapFlags); not while mapped.
  void set_map_access(Access access) {
    detail::set_map_flags(m_resource.get(), access);
    m_map_access = access;
  }
  Access map_access() const { return m_map_access; }

 private:
  Desc m_desc;
  Owner<detail::D3d11ResourceTraits> m_resource;
  Access m_map_access = Access::ReadWrite;
};

using D3d11BufferRegistration = D3d11Registration<D3d11BufferRegistrationDesc>;
using D3d11TextureRegistration = D3d11Registration<D3d11TextureRegistrationDesc>;

// The CUDA devices that the D3D11 device renders on (cudaD3D11GetDevices, all frames); empty when it
// renders on none (WARP, another vendor's GPU, a GPU in TCC mode).
std::vector<int> cuda_devices_of(ID3D11Device* device);
// The CUDA device of a DXGI adapter (cudaD3D11GetDevice), or -1 when the adapter is no CUDA device.
int cuda_device_of(IDXGIAdapter* adapter);

#endif  // _WIN32

}  // namespace interop
