// app/gl/mode_pbo.cpp — the `pbo` mode, the cuda-samples way: CUDA never touches the scene's GL objects.
// Each one gets a GL buffer of the same size, registered once; the kernels write (or read) that mapped
// buffer as linear memory, and GL copies between it and the real object: glTextureSubImage2D from a
// bound GL_PIXEL_UNPACK_BUFFER for textures, glCopyNamedBufferSubData for vertex buffers (and the
// reverse, glGetTextureImage into a GL_PIXEL_PACK_BUFFER, for what the kernels read).
#include "app/gl/gl_objects.hpp"
#include "app/gl/mode_detail.hpp"

#include "interop/error.hpp"
#include "interop/gl.hpp"

#include <optional>
#include <vector>

namespace lab::gl {

namespace {

class PboMode final : public gl::Mode {
 public:
  PboMode(const CudaContext& cuda, const AccessSettings& access) : m_cuda(cuda), m_access(access) {
    if (cuda.graph) m_graph.emplace();
  }
  ~PboMode() override { detach(); }
  PboMode(const PboMode&) = delete;
  PboMode& operator=(const PboMode&) = delete;

  ModeId id() const override { return ModeId::Pbo; }

  void attach(gl::Renderer& renderer) override {
    m_renderer = &renderer;
    m_specs = gl::descs_of(renderer.resources());
    try {
      for (const gl::Resource& resource : renderer.resources()) {
        const ResourceDesc& spec = resource.desc;
        m_buffers.push_back(create_buffer(spec.bytes, nullptr, 0, std::string("pbo for ") + spec.label));
        // What CUDA registers is the buffer, in the scene object's role (so its flags resolve alike).
        gl::Resource buffer_spec = resource;
        buffer_spec.desc.kind = ResourceKind::Buffer;
        buffer_spec.gl_name = m_buffers.back().get();
        m_buffer_specs.push_back(buffer_spec);
      }
      m_registrations.register_all(m_buffer_specs, m_access, false);
    } catch (...) {
      detach();
      throw;
    }
    m_views.assign(m_specs.size(), CudaResourceView{});
  }

  void detach() override {
    if (m_renderer != nullptr) m_renderer->clear_cuda_sources();  // they name the registrations going now
    m_renderer = nullptr;
    m_registrations.clear();  // before the buffers they name
    m_buffer_specs.clear();
    m_buffers.clear();
    m_views.clear();
    m_specs.clear();
  }

  void produce(gl::Renderer& renderer, FrameSource& scene, const FrameInfo& frame,
               FrameTimers& timers) override {
    if (has_role(m_specs, ResourceRole::Input)) {
      GlPhase phase(timers, Phase::GlCopy);
      for (size_t i = 0; i < m_specs.size(); ++i)
        if (m_specs[i].role == ResourceRole::Input)
          renderer.copy_to_buffer(static_cast<int>(i), m_buffers[i].get());
    }
    detail::map_compute_unmap(
        m_registrations.resources(), m_cuda.stream, scene, frame, m_views, timers,
        [this](const interop::ScopedMap& mapped) {
          for (size_t i = 0; i < m_specs.size(); ++i) {
            const interop::MappedPointer pointer = mapped.pointer(i);
            m_views[i].pointer = pointer.data;
            m_views[i].bytes = pointer.size;
            m_views[i].pitch = linear_pitch(m_specs[i]);
          }
        },
        m_graph ? &*m_graph : nullptr);
    {
      GlPhase phase(timers, Phase::GlCopy);
      for (size_t i = 0; i < m_specs.size(); ++i)
        if (m_specs[i].role == ResourceRole::Output)
          renderer.copy_from_buffer(static_cast<int>(i), m_buffers[i].get());
      INTEROP_GL_CHECK("pbo mode copies");
    }
    // Each image's buffer holds what its texture was given: the desk reads the frame from there.
    m_registrations.expose_images(renderer, m_specs, true, m_cuda.stream, m_cuda.device);
  }

  void apply_access(const AccessSettings& access) override {
    // Unmapped buffers with no surface objects on them: nothing to wait for before unregistering.
    detail::apply_access(m_registrations, m_buffer_specs, false, m_access, access, [] {});
  }

  std::vector<RegisteredFlags> registered_flags() const override {
    return lab::registered_flags(m_specs, m_access, " (its buffer)");
  }

 private:
  CudaContext m_cuda;
  AccessSettings m_access;
  std::vector<ResourceDesc> m_specs;
  std::vector<GlBuffer> m_buffers;
  std::vector<gl::Resource> m_buffer_specs;  // m_specs with each GL object replaced by its buffer
  gl::SceneRegistrations m_registrations;
  std::vector<CudaResourceView> m_views;
  std::optional<FrameGraph> m_graph;   // --graph
  gl::Renderer* m_renderer = nullptr;  // attached to: told the frame's CUDA sources, cleared at detach
};

}  // namespace

std::unique_ptr<gl::Mode> create_pbo_mode(const CudaContext& cuda, const AccessSettings& access) {
  return std::make_unique<PboMode>(cuda, access);
}

}  // namespace lab::gl
