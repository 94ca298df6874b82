// app/gl/mode_buffer.cpp — the `buffer` mode: the scene's images live in linear memory. Attached, it asks
// GL's renderer to hold every image in a GL buffer (gl::Placement::linear_images) and registers the
// buffers with CUDA once; every frame it maps them in one call, the kernels write plain pointers (rows
// tightly packed, as any array library views memory) and it unmaps; the show pass reads the buffer as a
// shader storage buffer (assets/shaders/buffer_image.frag). No texture, no cudaArray, and no copy into a
// texture, which the pbo mode pays for; what the kernels read (the postprocess scene's cubes) GL renders
// into a texture of its own and packs into its buffer, as a rasteriser draws into textures only.
#include "app/gl/mode_detail.hpp"
#include "interop/error.hpp"

#include <memory>
#include <optional>
#include <vector>

namespace lab::gl {
namespace {

class BufferMode final : public gl::Mode {
 public:
  BufferMode(const CudaContext& cuda, const AccessSettings& access) : m_cuda(cuda), m_access(access) {
    if (cuda.graph) m_graph.emplace();
  }
  ~BufferMode() override { detach(); }
  BufferMode(const BufferMode&) = delete;
  BufferMode& operator=(const BufferMode&) = delete;

  ModeId id() const override { return ModeId::Buffer; }

  void attach(gl::Renderer& renderer) override {
    try {
      m_placed = &renderer;
      renderer.place_resources({nullptr, /*linear_images=*/true});
      m_resources.take(renderer);
      m_registrations.register_all(m_resources.objects, m_access, false);
    } catch (...) {
      detach();  // a failure halfway leaves nothing registered and the images back in textures
      throw;
    }
    m_views.assign(m_resources.size(), CudaResourceView{});
  }

  void detach() override {
    if (m_placed == nullptr) return;
    m_placed->clear_cuda_sources();  // they name the registrations going now
    if (!m_registrations.empty()) INTEROP_CUDA_REPORT(cudaStreamSynchronize(m_cuda.stream));
    m_registrations.clear();  // before the buffers they name
    m_placed->place_resources({});
    m_placed = nullptr;
    m_views.clear();
    m_resources.clear();
  }

  void produce(gl::Renderer& renderer, FrameSource& scene, const FrameInfo& frame,
               FrameTimers& timers) override {
    detail::map_compute_unmap(
        m_registrations.resources(), m_cuda.stream, scene, frame, m_views, timers,
        [this](const interop::ScopedMap& mapped) {
          for (size_t i = 0; i < m_resources.descs.size(); ++i) {
            const interop::MappedPointer pointer = mapped.pointer(i);
            m_views[i] = linear_view(pointer.data, m_resources.descs[i]);
          }
        },
        m_graph ? &*m_graph : nullptr);
    m_registrations.expose_images(renderer, m_resources.descs, true, m_cuda.stream,
                                  m_cuda.device);  // the desk's read
  }

  void apply_access(const AccessSettings& access) override {
    // Unmapped buffers with no surface objects on them: nothing to wait for before unregistering.
    detail::apply_access(m_registrations, m_resources.objects, false, m_access, access, [] {});
  }

  std::vector<RegisteredFlags> registered_flags() const override {
    return lab::registered_flags(m_resources.descs, m_access, " (in a buffer)");
  }

  std::string transfer() const override {
    return "images in GL buffers, written through mapped pointers and shown from the buffer";
  }

 private:
  CudaContext m_cuda;
  AccessSettings m_access;
  gl::Renderer* m_placed = nullptr;  // its images are in buffers while attached
  gl::SceneResources m_resources;    // the renderer's, from attach to detach
  gl::SceneRegistrations m_registrations;
  std::vector<CudaResourceView> m_views;
  std::optional<FrameGraph> m_graph;  // --graph
};

}  // namespace

std::unique_ptr<gl::Mode> create_buffer_mode(const CudaContext& cuda, const AccessSettings& access) {
  return std::make_unique<BufferMode>(cuda, access);
}

}  // namespace lab::gl
