// app/mode_pbo.cpp — the `pbo` mode, the cuda-samples way: CUDA never touches the scene's GL objects.
// Each one gets a GL buffer of the same size, registered once; the kernels write (or read) that mapped
// buffer as linear memory, and GL copies between it and the real object: glTextureSubImage2D from a
// bound GL_PIXEL_UNPACK_BUFFER for textures, glCopyNamedBufferSubData for vertex buffers (and the
// reverse, glGetTextureImage into a GL_PIXEL_PACK_BUFFER, for what the kernels read).
#include "app/gl_objects.hpp"
#include "app/mode_detail.hpp"

#include "interop/error.hpp"
#include "interop/gl.hpp"

#include <optional>
#include <vector>

namespace lab {

// GL object -> a buffer, for what the kernels read.
void copy_gl_object_to_buffer(const ResourceSpec& spec, GLuint buffer) {
  if (spec.kind == ResourceKind::Buffer) {
    glCopyNamedBufferSubData(spec.gl_name, buffer, 0, 0, static_cast<GLsizeiptr>(spec.bytes));
    return;
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(spec.gl_name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(spec.bytes), nullptr);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
}

// A buffer -> GL object, for what the kernels wrote.
void copy_buffer_to_gl_object(const ResourceSpec& spec, GLuint buffer) {
  if (spec.kind == ResourceKind::Buffer) {
    glCopyNamedBufferSubData(buffer, spec.gl_name, 0, 0, static_cast<GLsizeiptr>(spec.bytes));
    return;
  }
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTextureSubImage2D(spec.gl_name, 0, 0, 0, spec.width, spec.height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

namespace {

class PboMode final : public Mode {
 public:
  PboMode(const CudaContext& cuda, const AccessSettings& access) : m_cuda(cuda), m_access(access) {}
  ~PboMode() override { on_detach(); }
  PboMode(const PboMode&) = delete;
  PboMode& operator=(const PboMode&) = delete;

  ModeId id() const override { return ModeId::Pbo; }

  void on_attach(Scene& scene) override {
    m_specs = scene.resources();
    try {
      for (const ResourceSpec& spec : m_specs) m_buffers.push_back(create_buffer(spec.bytes, nullptr, 0, std::string("pbo for ") + spec.label));
      register_all();
    } catch (...) {
      on_detach();
      throw;
    }
    m_views.assign(m_specs.size(), CudaResourceView{});
  }

  void on_detach() override {
    m_resources.clear();
    m_registrations.clear();  // before the buffers they name
    m_buffers.clear();
    m_views.clear();
    m_specs.clear();
  }

  void produce(Scene& scene, const FrameInfo& frame, FrameTimers& timers) override {
    if (has_role(m_specs, ResourceRole::Input)) {
      GlPhase phase(timers, Phase::GlCopy);
      for (size_t i = 0; i < m_specs.size(); ++i)
        if (m_specs[i].role == ResourceRole::Input) copy_into_buffer(i);
    }
    detail::map_compute_unmap(m_resources, m_cuda.stream, scene, frame, m_views, timers,
                              [this](const interop::ScopedMap& mapped) {
                                for (size_t i = 0; i < m_specs.size(); ++i) {
                                  const interop::MappedPointer pointer = mapped.pointer(i);
                                  m_views[i].pointer = pointer.data;
                                  m_views[i].bytes = pointer.size;
                                  m_views[i].pitch = linear_pitch(m_specs[i]);
                                }
                              });
    GlPhase phase(timers, Phase::GlCopy);
    for (size_t i = 0; i < m_specs.size(); ++i)
      if (m_specs[i].role == ResourceRole::Output) copy_from_buffer(i);
    INTEROP_GL_CHECK("pbo mode copies");
  }

  void apply_access(const AccessSettings& access) override {
    const bool reregister = access.register_access != m_access.register_access;
    m_access = access;
    if (m_registrations.empty()) return;
    if (reregister) {
      m_resources.clear();
      m_registrations.clear();
      register_all();
    } else {
      apply_map_access();
    }
  }

  std::vector<RegisteredFlags> registered_flags() const override {
    return detail::registered_flags(m_specs, m_access, " (its buffer)");
  }

 private:
  void register_all() {
    for (size_t i = 0; i < m_specs.size(); ++i) {
      m_registrations.emplace_back(interop::BufferRegistrationDesc{
          m_buffers[i].get(), resolve_access(m_access.register_access, m_specs[i].role)});
      m_resources.push_back(m_registrations.back().resource());
    }
    apply_map_access();
  }

  void apply_map_access() {
    for (size_t i = 0; i < m_registrations.size(); ++i) {
      const interop::Access access = resolve_access(m_access.map_access, m_specs[i].role);
      if (m_registrations[i].map_access() != access) m_registrations[i].set_map_access(access);
    }
  }

  void copy_into_buffer(size_t i) { copy_gl_object_to_buffer(m_specs[i], m_buffers[i].get()); }
  void copy_from_buffer(size_t i) { copy_buffer_to_gl_object(m_specs[i], m_buffers[i].get()); }

  CudaContext m_cuda;
  AccessSettings m_access;
  std::vector<ResourceSpec> m_specs;
  std::vector<GlBuffer> m_buffers;
  std::vector<interop::GlBufferRegistration> m_registrations;
  std::vector<cudaGraphicsResource_t> m_resources;
  std::vector<CudaResourceView> m_views;
};

}  // namespace

std::unique_ptr<Mode> create_pbo_mode(const CudaContext& cuda, const AccessSettings& access) {
  return std::make_unique<PboMode>(cuda, access);
}

}  // namespace lab
