// app/mode_interop.cpp — the `interop` mode, the right way: each GL object is registered with CUDA
// once (on attach), and every frame maps all of them in one cudaGraphicsMapResources call on the
// frame's stream, runs the kernels on the mapped pointers / arrays, and unmaps. Unmapping orders the
// CUDA work before GL's next use of the objects; nothing waits on the CPU.
#include "app/mode.hpp"

#include "interop/error.hpp"
#include "interop/gl.hpp"
#include "interop/mapping.hpp"
#include "interop/surface.hpp"

#include <variant>
#include <vector>

namespace lab {
namespace {

// A mapped texture's cudaArray is usually the same every frame, so its surface / texture object is
// kept and re-created only when the array changes.
struct ArrayBinding {
  cudaArray_t array = nullptr;
  interop::SurfaceObject surface;
  interop::TextureObject texture;
};

class InteropMode final : public Mode {
 public:
  explicit InteropMode(const CudaContext& cuda) : m_cuda(cuda) {}
  ~InteropMode() override { on_detach(); }

  InteropMode(const InteropMode&) = delete;
  InteropMode& operator=(const InteropMode&) = delete;

  ModeId id() const override { return ModeId::Interop; }

  void on_attach(Scene& scene) override {
    try {
      register_all(scene);
    } catch (...) {
      on_detach();  // a failure halfway leaves nothing registered
      throw;
    }
  }

  void register_all(Scene& scene) {
    m_specs = scene.resources();
    for (const ResourceSpec& spec : m_specs) {
      const interop::Access access =
          spec.role == ResourceRole::Input ? interop::Access::ReadOnly : interop::Access::WriteDiscard;
      if (spec.kind == ResourceKind::Buffer) {
        m_registrations.emplace_back(interop::GlBufferRegistration({spec.gl_name, access}));
      } else {
        interop::TextureRegistrationDesc desc;
        desc.texture = spec.gl_name;
        desc.internal_format = spec.internal_format;
        desc.access = access;
        desc.surface_load_store = spec.role == ResourceRole::Output;
        m_registrations.emplace_back(interop::GlTextureRegistration(desc));
      }
      m_resources.push_back(resource_of(m_registrations.back()));
    }
    m_bindings.resize(m_specs.size());
    m_views.resize(m_specs.size());
  }

  void on_detach() override {
    // Surface/texture objects may still be used by queued kernels: let them finish first.
    if (!m_bindings.empty()) INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_cuda.stream));
    m_bindings.clear();
    m_views.clear();
    m_resources.clear();
    m_registrations.clear();  // unregisters, before the scene may delete the GL objects
    m_specs.clear();
  }

  void produce(Scene& scene, const FrameInfo& frame) override {
    interop::ScopedMap mapped(m_resources, m_cuda.stream);
    for (size_t i = 0; i < m_specs.size(); ++i) {
      CudaResourceView& view = m_views[i];
      if (m_specs[i].kind == ResourceKind::Buffer) {
        const interop::MappedPointer pointer = mapped.pointer(i);
        view.pointer = pointer.data;
        view.bytes = pointer.size;
      } else {
        bind_array(i, mapped.array(i));
      }
    }
    scene.compute_cuda(frame, m_views, m_cuda.stream);
    INTEROP_CUDA_CHECK(cudaGetLastError());  // a failed launch, reported at its frame
    mapped.unmap();
  }

 private:
  using Registration = std::variant<interop::GlBufferRegistration, interop::GlTextureRegistration>;

  static cudaGraphicsResource_t resource_of(const Registration& registration) {
    return std::visit([](const auto& r) { return r.resource(); }, registration);
  }

  void bind_array(size_t index, cudaArray_t array) {
    ArrayBinding& binding = m_bindings[index];
    if (binding.array != array) {
      if (binding.array != nullptr) INTEROP_CUDA_CHECK(cudaStreamSynchronize(m_cuda.stream));
      binding = ArrayBinding{};
      binding.array = array;
      if (m_specs[index].role == ResourceRole::Output) {
        binding.surface = interop::SurfaceObject(array);
      } else {
        interop::TextureObjectDesc desc;
        desc.read_mode = cudaReadModeNormalizedFloat;
        binding.texture = interop::TextureObject(array, desc);
      }
    }
    m_views[index].surface = binding.surface.get();
    m_views[index].texture = binding.texture.get();
  }

  CudaContext m_cuda;
  std::vector<ResourceSpec> m_specs;
  std::vector<Registration> m_registrations;
  std::vector<cudaGraphicsResource_t> m_resources;
  std::vector<ArrayBinding> m_bindings;
  std::vector<CudaResourceView> m_views;
};

}  // namespace

std::unique_ptr<Mode> create_interop_mode(const CudaContext& cuda) { return std::make_unique<InteropMode>(cuda); }

}  // namespace lab
