// app/gl/mode_cpu.cpp — the `cpu` mode: no CUDA at all. The scene's CPU reference writes host memory,
// which GL uploads with glNamedBufferSubData / glTextureSubImage2D (inputs come down with
// glGetTextureImage). It is the fallback where CUDA-GL interop is unavailable, and the reference
// every other mode is compared with.
#include "app/gl/mode.hpp"
#include "app/os/out_of_memory.hpp"

#include "interop/error.hpp"

#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace lab {

void upload_to_gl(const ResourceSpec& spec, const void* data) {
  if (spec.kind == ResourceKind::Buffer) {
    glNamedBufferSubData(spec.gl_name, 0, static_cast<GLsizeiptr>(spec.bytes), data);
    return;
  }
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTextureSubImage2D(spec.gl_name, 0, 0, 0, spec.width, spec.height, GL_RGBA, GL_UNSIGNED_BYTE, data);
}

void download_from_gl(const ResourceSpec& spec, void* data) {
  if (spec.kind == ResourceKind::Buffer) {
    glGetNamedBufferSubData(spec.gl_name, 0, static_cast<GLsizeiptr>(spec.bytes), data);
    return;
  }
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(spec.gl_name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(spec.bytes), data);
}

namespace {

class CpuMode final : public gl::Mode {
 public:
  ModeId id() const override { return ModeId::Cpu; }

  void on_attach(Scene& scene) override {
    m_specs = scene.resources();
    m_storage.clear();
    m_views.clear();
    m_has_inputs = false;
    for (const ResourceSpec& spec : m_specs) {
      m_has_inputs = m_has_inputs || spec.role == ResourceRole::Input;
      try {
        m_storage.emplace_back(spec.bytes);
      } catch (const std::bad_alloc&) {
        throw_out_of_memory(std::string("the cpu mode's copy of the ") + spec.label, spec.bytes);
      }
      HostResourceView view;
      view.pointer = m_storage.back().data();
      view.bytes = spec.bytes;
      view.pitch = linear_pitch(spec);
      m_views.push_back(view);
    }
  }

  void on_detach() override {
    m_specs.clear();
    m_storage.clear();
    m_views.clear();
  }

  void produce(Scene& scene, const FrameInfo& frame, FrameTimers& timers) override {
    if (m_has_inputs) {
      GlPhase phase(timers, Phase::GlCopy);
      for (size_t i = 0; i < m_specs.size(); ++i)
        if (m_specs[i].role == ResourceRole::Input) download_from_gl(m_specs[i], m_storage[i].data());
    }
    {
      CpuPhase phase(timers, Phase::Kernel);
      scene.compute_cpu(frame, m_views);
    }
    GlPhase phase(timers, Phase::GlCopy);
    for (size_t i = 0; i < m_specs.size(); ++i)
      if (m_specs[i].role == ResourceRole::Output) upload_to_gl(m_specs[i], m_storage[i].data());
    INTEROP_GL_CHECK("cpu mode upload");
  }

 private:
  std::vector<ResourceSpec> m_specs;
  std::vector<std::vector<uint8_t>> m_storage;
  std::vector<HostResourceView> m_views;
  bool m_has_inputs = false;
};

}  // namespace

std::unique_ptr<gl::Mode> create_cpu_mode() {
  return std::make_unique<CpuMode>();
}

}  // namespace lab
