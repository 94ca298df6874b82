// interop/d3d11.cpp — D3D11 resource registration with CUDA: desc validation (everywhere) and the
// registrations and device queries (Windows).
#include "interop/d3d11.hpp"

#include <cstdio>

#ifdef _WIN32
#include "interop/error.hpp"

#include <cuda_d3d11_interop.h>

#include <atomic>
#endif

namespace interop {
namespace {

struct DxgiFormatName {
  uint32_t format;
  const char* name;
  bool registrable;
};

// The formats CUDA registers (1, 2 or 4 channels of 8, 16 or 32-bit integer or float data) and the common
// ones it does not, so that messages name both. Values are DXGI_FORMAT's (checked against dxgiformat.h
// where Direct3D's headers exist, below).
constexpr DxgiFormatName kDxgiFormats[] = {
    {2, "DXGI_FORMAT_R32G32B32A32_FLOAT", true},
    {3, "DXGI_FORMAT_R32G32B32A32_UINT", true},
    {4, "DXGI_FORMAT_R32G32B32A32_SINT", true},
    {10, "DXGI_FORMAT_R16G16B16A16_FLOAT", true},
    {11, "DXGI_FORMAT_R16G16B16A16_UNORM", true},
    {12, "DXGI_FORMAT_R16G16B16A16_UINT", true},
    {13, "DXGI_FORMAT_R16G16B16A16_SNORM", true},
    {14, "DXGI_FORMAT_R16G16B16A16_SINT", true},
    {16, "DXGI_FORMAT_R32G32_FLOAT", true},
    {17, "DXGI_FORMAT_R32G32_UINT", true},
    {18, "DXGI_FORMAT_R32G32_SINT", true},
    {28, "DXGI_FORMAT_R8G8B8A8_UNORM", true},
    {30, "DXGI_FORMAT_R8G8B8A8_UINT", true},
    {31, "DXGI_FORMAT_R8G8B8A8_SNORM", true},
    {32, "DXGI_FORMAT_R8G8B8A8_SINT", true},
    {34, "DXGI_FORMAT_R16G16_FLOAT", true},
    {35, "DXGI_FORMAT_R16G16_UNORM", true},
    {36, "DXGI_FORMAT_R16G16_UINT", true},
    {37, "DXGI_FORMAT_R16G16_SNORM", true},
    {38, "DXGI_FORMAT_R16G16_SINT", true},
    {41, "DXGI_FORMAT_R32_FLOAT", true},
    {42, "DXGI_FORMAT_R32_UINT", true},
    {43, "DXGI_FORMAT_R32_SINT", true},
    {49, "DXGI_FORMAT_R8G8_UNORM", true},
    {50, "DXGI_FORMAT_R8G8_UINT", true},
    {51, "DXGI_FORMAT_R8G8_SNORM", true},
    {52, "DXGI_FORMAT_R8G8_SINT", true},
    {54, "DXGI_FORMAT_R16_FLOAT", true},
    {56, "DXGI_FORMAT_R16_UNORM", true},
    {57, "DXGI_FORMAT_R16_UINT", true},
    {58, "DXGI_FORMAT_R16_SNORM", true},
    {59, "DXGI_FORMAT_R16_SINT", true},
    {61, "DXGI_FORMAT_R8_UNORM", true},
    {62, "DXGI_FORMAT_R8_UINT", true},
    {63, "DXGI_FORMAT_R8_SNORM", true},
    {64, "DXGI_FORMAT_R8_SINT", true},
    {87, "DXGI_FORMAT_B8G8R8A8_UNORM", true},
    // Not registrable: three channels, packed, sRGB-encoded, typeless (CUDA needs the channel type to
    // describe the array), depth and stencil.
    {0, "DXGI_FORMAT_UNKNOWN", false},
    {1, "DXGI_FORMAT_R32G32B32A32_TYPELESS", false},
    {6, "DXGI_FORMAT_R32G32B32_FLOAT", false},
    {9, "DXGI_FORMAT_R16G16B16A16_TYPELESS", false},
    {24, "DXGI_FORMAT_R10G10B10A2_UNORM", false},
    {26, "DXGI_FORMAT_R11G11B10_FLOAT", false},
    {27, "DXGI_FORMAT_R8G8B8A8_TYPELESS", false},
    {29, "DXGI_FORMAT_R8G8B8A8_UNORM_SRGB", false},
    {39, "DXGI_FORMAT_R32_TYPELESS", false},
    {40, "DXGI_FORMAT_D32_FLOAT", false},
    {45, "DXGI_FORMAT_D24_UNORM_S8_UINT", false},
    {55, "DXGI_FORMAT_D16_UNORM", false},
    {85, "DXGI_FORMAT_B5G6R5_UNORM", false},
    {88, "DXGI_FORMAT_B8G8R8X8_UNORM", false},
    {91, "DXGI_FORMAT_B8G8R8A8_UNORM_SRGB", false},
};

const DxgiFormatName* find_format(uint32_t format) {
  for (const DxgiFormatName& entry : kDxgiFormats)
    if (entry.format == format) return &entry;
  return nullptr;
}

// The registrable format closest to one that is not, for the message.
const char* suggested_format(uint32_t format) {
  switch (format) {
    case 6:
      return "DXGI_FORMAT_R32G32B32A32_FLOAT";
    case 26:
      return "DXGI_FORMAT_R16G16B16A16_FLOAT";
    case 40:
    case 45:
    case 55:
      return "DXGI_FORMAT_R32_FLOAT (copy the depth into a colour texture first)";
    case 39:
      return "DXGI_FORMAT_R32_FLOAT (or create the texture with a typed format)";
    case 1:
      return "DXGI_FORMAT_R32G32B32A32_FLOAT (or create the texture with a typed format)";
    case 9:
      return "DXGI_FORMAT_R16G16B16A16_FLOAT (or create the texture with a typed format)";
    case 91:
    case 88:
      return "DXGI_FORMAT_B8G8R8A8_UNORM";
    default:
      return "DXGI_FORMAT_R8G8B8A8_UNORM";
  }
}

// D3D11's values, named here so the check needs no Direct3D header (checked below where it exists).
constexpr uint32_t kUsageDefault = 0;
constexpr uint32_t kBindDepthStencil = 0x40;
constexpr uint32_t kMiscShared = 0x2;
constexpr uint32_t kMiscSharedKeyedMutex = 0x100;
constexpr uint32_t kMiscSharedNtHandle = 0x800;

std::string usage_name(uint32_t usage) {
  switch (usage) {
    case 0:
      return "D3D11_USAGE_DEFAULT";
    case 1:
      return "D3D11_USAGE_IMMUTABLE";
    case 2:
      return "D3D11_USAGE_DYNAMIC";
    case 3:
      return "D3D11_USAGE_STAGING";
    default:
      return "D3D11_USAGE " + std::to_string(usage);
  }
}

const char* dimension_name(D3d11Dimension dimension) {
  switch (dimension) {
    case D3d11Dimension::Buffer:
      return "buffer";
    case D3d11Dimension::Texture1D:
      return "Texture1D";
    case D3d11Dimension::Texture2D:
      return "Texture2D";
    case D3d11Dimension::Texture3D:
      return "Texture3D";
  }
  return "resource";
}

}  // namespace

std::string dxgi_format_name(uint32_t format) {
  if (const DxgiFormatName* entry = find_format(format)) return entry->name;
  char hex[32];
  std::snprintf(hex, sizeof hex, "DXGI_FORMAT 0x%X", static_cast<unsigned>(format));
  return hex;
}

bool dxgi_format_registrable(uint32_t format) {
  const DxgiFormatName* entry = find_format(format);
  return entry != nullptr && entry->registrable;
}

std::string validate(const D3d11ResourceFacts& facts, const D3d11RegistrationUse& use) {
  const bool buffer = facts.dimension == D3d11Dimension::Buffer;
  const std::string what = dimension_name(facts.dimension);
  if (facts.usage != kUsageDefault)
    return "D3d11ResourceFacts.usage: a " + what + " of " + usage_name(facts.usage) +
           " cannot be registered with CUDA; create it with D3D11_USAGE_DEFAULT (and copy it to a "
           "D3D11_USAGE_STAGING one where the CPU reads it)";
  if ((facts.misc_flags & (kMiscShared | kMiscSharedKeyedMutex | kMiscSharedNtHandle)) != 0)
    return "D3d11ResourceFacts.misc_flags: a shared " + what +
           " (D3D11_RESOURCE_MISC_SHARED*) cannot be registered with CUDA; create it without sharing, or "
           "import the shared handle with cudaImportExternalMemory (interop/external.hpp)";
  if ((facts.bind_flags & kBindDepthStencil) != 0)
    return "D3d11ResourceFacts.bind_flags: a D3D11_BIND_DEPTH_STENCIL " + what +
           " cannot be registered with CUDA; bind it as D3D11_BIND_SHADER_RESOURCE, D3D11_BIND_RENDER_TARGET "
           "or D3D11_BIND_UNORDERED_ACCESS (copy the depth into a DXGI_FORMAT_R32_FLOAT texture)";
  if (buffer) {
    if (facts.byte_width == 0)
      return "D3d11ResourceFacts.byte_width is 0: CUDA registers buffers with storage";
    if (use.surface_load_store || use.texture_gather)
      return "D3d11RegistrationUse: surface_load_store and texture_gather are for textures; a buffer is "
             "mapped as a pointer";
    return "";
  }
  if (!dxgi_format_registrable(facts.format))
    return "D3d11ResourceFacts.format: " + dxgi_format_name(facts.format) +
           " cannot be registered with CUDA (it takes 1, 2 or 4 channels of 8, 16 or 32-bit integer or "
           "float data); use " +
           suggested_format(facts.format);
  if (facts.sample_count > 1)
    return "D3d11ResourceFacts.sample_count is " + std::to_string(facts.sample_count) +
           ": a multisampled texture cannot be registered with CUDA; resolve it (ResolveSubresource) into a "
           "single-sampled texture and register that";
  if (use.surface_load_store && use.access == Access::ReadOnly)
    return "D3d11RegistrationUse.surface_load_store with access ReadOnly: surface writes need ReadWrite or "
           "WriteDiscard access";
  if (use.texture_gather && use.access == Access::WriteDiscard)
    return "D3d11RegistrationUse.texture_gather with access WriteDiscard: a gathered texture is read; use "
           "ReadOnly or ReadWrite";
  return "";
}

unsigned int register_flags(const D3d11RegistrationUse& use) {
  // cudaGraphicsD3D11RegisterResource takes hints only (the CUDA reference lists none, surface load/store
  // and texture gather); the access becomes the resource's map flags once it is registered.
  unsigned int flags = 0;                  // cudaGraphicsRegisterFlagsNone
  if (use.surface_load_store) flags |= 4;  // cudaGraphicsRegisterFlagsSurfaceLoadStore
  if (use.texture_gather) flags |= 8;      // cudaGraphicsRegisterFlagsTextureGather
  return flags;
}

#ifdef _WIN32

// The numbers above are Direct3D's and CUDA's.
static_assert(DXGI_FORMAT_R8G8B8A8_UNORM == 28 && DXGI_FORMAT_B8G8R8A8_UNORM == 87 &&
              DXGI_FORMAT_R32G32B32A32_FLOAT == 2 && DXGI_FORMAT_R8_SINT == 64 &&
              DXGI_FORMAT_D32_FLOAT == 40 && DXGI_FORMAT_R16_SINT == 59 &&
              DXGI_FORMAT_B8G8R8A8_UNORM_SRGB == 91 && DXGI_FORMAT_R11G11B10_FLOAT == 26);
static_assert(D3D11_USAGE_DEFAULT == kUsageDefault && D3D11_BIND_DEPTH_STENCIL == kBindDepthStencil &&
              D3D11_RESOURCE_MISC_SHARED == kMiscShared &&
              D3D11_RESOURCE_MISC_SHARED_KEYEDMUTEX == kMiscSharedKeyedMutex &&
              D3D11_RESOURCE_MISC_SHARED_NTHANDLE == kMiscSharedNtHandle);
static_assert(static_cast<uint32_t>(D3D11_RESOURCE_DIMENSION_BUFFER) ==
                  static_cast<uint32_t>(D3d11Dimension::Buffer) &&
              static_cast<uint32_t>(D3D11_RESOURCE_DIMENSION_TEXTURE3D) ==
                  static_cast<uint32_t>(D3d11Dimension::Texture3D));
static_assert(cudaGraphicsRegisterFlagsReadOnly == 1 && cudaGraphicsRegisterFlagsWriteDiscard == 2 &&
              cudaGraphicsRegisterFlagsSurfaceLoadStore == 4 && cudaGraphicsRegisterFlagsTextureGather == 8);

namespace detail {
std::atomic<int>& registration_counter();  // defined in gl.cpp: live_registrations() counts D3D11 ones too
}

D3d11ResourceFacts facts_of(ID3D11Resource* resource) {
  D3d11ResourceFacts facts;
  D3D11_RESOURCE_DIMENSION dimension = D3D11_RESOURCE_DIMENSION_UNKNOWN;
  resource->GetType(&dimension);
  facts.dimension = static_cast<D3d11Dimension>(dimension);
  const auto take = [&facts](const auto& desc) {
    facts.usage = static_cast<uint32_t>(desc.Usage);
    facts.bind_flags = desc.BindFlags;
    facts.misc_flags = desc.MiscFlags;
  };
  switch (dimension) {
    case D3D11_RESOURCE_DIMENSION_BUFFER: {
      D3D11_BUFFER_DESC desc{};
      static_cast<ID3D11Buffer*>(resource)->GetDesc(&desc);
      take(desc);
      facts.byte_width = desc.ByteWidth;
      break;
    }
    case D3D11_RESOURCE_DIMENSION_TEXTURE1D: {
      D3D11_TEXTURE1D_DESC desc{};
      static_cast<ID3D11Texture1D*>(resource)->GetDesc(&desc);
      take(desc);
      facts.format = static_cast<uint32_t>(desc.Format);
      break;
    }
    case D3D11_RESOURCE_DIMENSION_TEXTURE2D: {
      D3D11_TEXTURE2D_DESC desc{};
      static_cast<ID3D11Texture2D*>(resource)->GetDesc(&desc);
      take(desc);
      facts.format = static_cast<uint32_t>(desc.Format);
      facts.sample_count = desc.SampleDesc.Count;
      break;
    }
    case D3D11_RESOURCE_DIMENSION_TEXTURE3D: {
      D3D11_TEXTURE3D_DESC desc{};
      static_cast<ID3D11Texture3D*>(resource)->GetDesc(&desc);
      take(desc);
      facts.format = static_cast<uint32_t>(desc.Format);
      break;
    }
    default:
      break;
  }
  return facts;
}

std::string validate(const D3d11BufferRegistrationDesc& desc) {
  if (desc.buffer == nullptr)
    return "D3d11BufferRegistrationDesc.buffer is null: create the buffer (ID3D11Device::CreateBuffer) "
           "before "
           "registering it";
  D3d11RegistrationUse use;
  use.access = desc.access;
  return validate(facts_of(desc.buffer), use);
}

std::string validate(const D3d11TextureRegistrationDesc& desc) {
  if (desc.texture == nullptr)
    return "D3d11TextureRegistrationDesc.texture is null: create the texture (ID3D11Device::CreateTexture2D) "
           "before registering it";
  const D3d11ResourceFacts facts = facts_of(desc.texture);
  if (facts.dimension == D3d11Dimension::Buffer)
    return "D3d11TextureRegistrationDesc.texture is a buffer: register it with D3d11BufferRegistrationDesc";
  return validate(facts, desc.use);
}

void detail::D3d11ResourceTraits::destroy(Handle resource) noexcept {
  INTEROP_CUDA_REPORT(cudaGraphicsUnregisterResource(resource));
  --registration_counter();
}

namespace {
// Registers with the hints of `use` and makes its access the resource's map flags; a failure of the
// latter unregisters again, so nothing stays registered.
cudaGraphicsResource_t register_resource(ID3D11Resource* resource, const D3d11RegistrationUse& use) {
  cudaGraphicsResource_t registered = nullptr;
  INTEROP_CUDA_CHECK(cudaGraphicsD3D11RegisterResource(&registered, resource, register_flags(use)));
  ++detail::registration_counter();
  if (use.access != Access::ReadWrite) {
    try {
      detail::set_map_flags(registered, use.access);
    } catch (...) {
      detail::D3d11ResourceTraits::destroy(registered);
      throw;
    }
  }
  return registered;
}
}  // namespace

cudaGraphicsResource_t detail::register_d3d11_object(const D3d11BufferRegistrationDesc& desc) {
  if (std::string problem = validate(desc); !problem.empty())
    throw_invalid_desc("validate", problem, __FILE__, __LINE__);
  D3d11RegistrationUse use;
  use.access = desc.access;
  return register_resource(desc.buffer, use);
}

cudaGraphicsResource_t detail::register_d3d11_object(const D3d11TextureRegistrationDesc& desc) {
  if (std::string problem = validate(desc); !problem.empty())
    throw_invalid_desc("validate", problem, __FILE__, __LINE__);
  return register_resource(desc.texture, desc.use);
}

Access detail::access_of(const D3d11BufferRegistrationDesc& desc) {
  return desc.access;
}
Access detail::access_of(const D3d11TextureRegistrationDesc& desc) {
  return desc.use.access;
}

void detail::set_map_flags(cudaGraphicsResource_t resource, Access access) {
  unsigned int flags = cudaGraphicsMapFlagsNone;
  if (access == Access::ReadOnly) flags = cudaGraphicsMapFlagsReadOnly;
  if (access == Access::WriteDiscard) flags = cudaGraphicsMapFlagsWriteDiscard;
  INTEROP_CUDA_CHECK(cudaGraphicsResourceSetMapFlags(resource, flags));
}

// Compiled here once, so that every build of the library (and the mingw-w64 check) compiles them.
template class D3d11Registration<D3d11BufferRegistrationDesc>;
template class D3d11Registration<D3d11TextureRegistrationDesc>;

std::vector<int> cuda_devices_of(ID3D11Device* device) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return {};  // no CUDA device at all: none can be behind the D3D11 device either
  }
  std::vector<int> devices(static_cast<size_t>(count));
  unsigned int found = 0;
  const cudaError_t error = cudaD3D11GetDevices(
      &found, devices.data(), static_cast<unsigned int>(devices.size()), device, cudaD3D11DeviceListAll);
  // No CUDA device behind the D3D11 device (WARP, another vendor) is an answer, not a failure.
  if (error == cudaErrorNoDevice) {
    cudaGetLastError();
    return {};
  }
  INTEROP_CUDA_CHECK(error);
  devices.resize(found);
  return devices;
}

int cuda_device_of(IDXGIAdapter* adapter) {
  int device = -1;
  const cudaError_t error = cudaD3D11GetDevice(&device, adapter);
  if (error == cudaErrorNoDevice || error == cudaErrorInvalidValue) {
    cudaGetLastError();
    return -1;
  }
  INTEROP_CUDA_CHECK(error);
  return device;
}

#endif  // _WIN32

}  // namespace interop
