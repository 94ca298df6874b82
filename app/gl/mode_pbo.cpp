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

class PboMode final : public gl::Mode {
 public:
  PboMode(const CudaContext& cuda, const AccessSettings& access) : m_cuda(cuda), m_access(access) {}
  ~PboMode() override { on_detach(); }
  PboMode(const PboMode&) = delete;
  PboMode& operator=(const PboMode&) = delete;

  ModeId id() const override { return ModeId::Pbo; }

  void on_attach(Scene& scene) override {
    m_specs = scene.resources();
    try {
      for (const ResourceSpec& spec : m_specs) {
        m_buffers.push_back(create_buffer(spec.bytes, nullptr, 0, std::string("pbo for ") + spec.label));
        // What CUDA registers is the buffer, in the scene object's role (so its flags resolve alike).
        ResourceSpec buffer_spec = spec;
        buffer_spec.kind = ResourceKind::Buffer;
        buffer_spec.gl_name = m_buffers.back().get();
        m_buffer_specs.push_back(buffer_spec);
      }
      m_registrations.register_all(m_buffer_specs, m_access, false);
    } catch (...) {
      on_detach();
      throw;
    }
    m_views.assign(m_specs.size(), CudaResourceView{});
  }

  void on_detach() override {
    m_registrations.clear();  // before the buffers they name
    m_buffer_specs.clear();
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
    detail::map_compute_unmap(m_registrations.resources(), m_cuda.stream, scene, frame, m_views, timers,
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
    // Unmapped buffers with no surface objects on them: nothing to wait for before unregistering.
    detail::apply_access(m_registrations, m_buffer_specs, false, m_access, access, [] {});
  }

  std::vector<RegisteredFlags> registered_flags() const override {
    return detail::registered_flags(m_specs, m_access, " (its buffer)");
  }

 private:
  void copy_into_buffer(size_t i) { copy_gl_object_to_buffer(m_specs[i], m_buffers[i].get()); }
  void copy_from_buffer(size_t i) { copy_buffer_to_gl_object(m_specs[i], m_buffers[i].get()); }

  CudaContext m_cuda;
  AccessSettings m_access;
  std::vector<ResourceSpec> m_specs;
  std::vector<GlBuffer> m_buffers;
  std::vector<ResourceSpec> m_buffer_specs;  // m_specs with each GL object replaced by its buffer
  gl::SceneRegistrations m_registrations;
  std::vector<CudaResourceView> m_views;
};

}  // namespace

std::unique_ptr<gl::Mode> create_pbo_mode(const CudaContext& cuda, const AccessSettings& access) {
  return std::make_unique<PboMode>(cuda, access);
}

}  // namespace lab
