// app/gl/renderer.cpp — GL's resources, draws, copies and read-back (app/gl/renderer.hpp).
#include "app/gl/renderer.hpp"

#include "app/core/text.hpp"
#include "app/gl/gl_external.hpp"
#include "app/os/out_of_memory.hpp"
#include "interop/device.hpp"
#include "interop/error.hpp"
#include "kernels/wave.hpp"

#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace lab::gl {

Renderer::Renderer(Platform& platform) : m_platform(platform) {}

Renderer::~Renderer() = default;

void Renderer::wait_idle() {
  glFinish();
}

void Renderer::create_resources(const std::vector<ResourceDesc>& descs, bool importable) {
  if (importable)
    throw std::logic_error(
        "gl::Renderer::create_resources: GL makes no resource importable; the external mode places them in "
        "imported memory (place_resources)");
  m_memory.clear();
  m_linear_images = false;
  create_storage(descs);
}

void Renderer::place_resources(const Placement& placement) {
  const std::vector<ResourceDesc> descs = descs_of(m_resources);
  m_memory = placement.memory != nullptr ? *placement.memory : std::vector<GLuint>{};
  m_linear_images = placement.linear_images;
  create_storage(descs);
}

void Renderer::destroy_resources() {
  m_cuda_sources.clear();
  m_resources.clear();
  m_storage.clear();
  m_memory.clear();
  m_linear_images = false;
}

void Renderer::create_storage(const std::vector<ResourceDesc>& descs) {
  // Freed before the new ones are made: at 8K each texture is 133 MB.
  m_cuda_sources.clear();  // they name the registrations of the objects going now
  m_resources.clear();
  m_storage.clear();
  m_storage.reserve(descs.size());
  for (size_t i = 0; i < descs.size(); ++i) {
    const ResourceDesc& desc = descs[i];
    const bool imported = !m_memory.empty();
    Storage storage;
    Resource resource;
    resource.desc = desc;
    resource.linear = desc.kind == ResourceKind::Texture2D && m_linear_images;
    if (desc.kind == ResourceKind::Buffer || resource.linear) {
      // Storage in imported memory takes no flags: the modes that write it from the CPU (cpu, staging) do
      // not place it there.
      storage.buffer = imported ? buffer_from_memory(m_memory.at(i), desc.bytes, 0, desc.label)
                                : create_buffer(desc.bytes, nullptr, GL_DYNAMIC_STORAGE_BIT, desc.label);
      resource.gl_name = storage.buffer.get();
      // GL renders into textures only: an image the kernels read is drawn into a target of its own and
      // copied into its buffer (draw_cubes).
      if (resource.linear && desc.role == ResourceRole::Input)
        storage.target = create_offscreen_target(desc.width, desc.height, desc.label);
    } else {
      GlTexture texture = imported
                              ? texture_from_memory(m_memory.at(i), desc.width, desc.height, 0, desc.label)
                              : create_texture_2d(GL_RGBA8, desc.width, desc.height, desc.label);
      resource.gl_name = texture.get();
      // What the kernels read, GL draws: the cubes pass renders into it.
      if (desc.role == ResourceRole::Input)
        storage.target = create_offscreen_target(std::move(texture), desc.width, desc.height, desc.label);
      else
        storage.texture = std::move(texture);
    }
    m_storage.push_back(std::move(storage));
    m_resources.push_back(resource);
  }
}

const Resource& Renderer::resource(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= m_resources.size())
    throw std::out_of_range("gl::Renderer: resource " + std::to_string(index) + " of " +
                            std::to_string(m_resources.size()));
  return m_resources[static_cast<size_t>(index)];
}

void Renderer::upload(int index, const void* data) {
  const Resource& target = resource(index);
  if (target.desc.kind == ResourceKind::Buffer || target.linear) {
    glNamedBufferSubData(target.gl_name, 0, static_cast<GLsizeiptr>(target.desc.bytes), data);
    return;
  }
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTextureSubImage2D(target.gl_name, 0, 0, 0, target.desc.width, target.desc.height, GL_RGBA,
                      GL_UNSIGNED_BYTE, data);
}

void Renderer::download(int index, void* data) {
  const Resource& source = resource(index);
  if (source.desc.kind == ResourceKind::Buffer || source.linear) {
    glGetNamedBufferSubData(source.gl_name, 0, static_cast<GLsizeiptr>(source.desc.bytes), data);
    return;
  }
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(source.gl_name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(source.desc.bytes),
                    data);
}

void Renderer::copy_to_buffer(int index, GLuint buffer) {
  const Resource& source = resource(index);
  if (source.desc.kind == ResourceKind::Buffer || source.linear) {
    glCopyNamedBufferSubData(source.gl_name, buffer, 0, 0, static_cast<GLsizeiptr>(source.desc.bytes));
    return;
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTextureImage(source.gl_name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(source.desc.bytes),
                    nullptr);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
}

void Renderer::copy_from_buffer(int index, GLuint buffer) {
  const Resource& target = resource(index);
  if (target.desc.kind == ResourceKind::Buffer || target.linear) {
    glCopyNamedBufferSubData(buffer, target.gl_name, 0, 0, static_cast<GLsizeiptr>(target.desc.bytes));
    return;
  }
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTextureSubImage2D(target.gl_name, 0, 0, 0, target.desc.width, target.desc.height, GL_RGBA,
                      GL_UNSIGNED_BYTE, nullptr);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

void Renderer::ensure_cubes_pipeline() {
  if (m_cubes_program) return;
  const CubeMesh mesh = cube_mesh();
  m_cubes_index_count = static_cast<GLsizei>(mesh.indices.size());
  m_cubes_vertices =
      create_buffer(mesh.vertices.size() * sizeof(LitVertex), mesh.vertices.data(), 0, "cubes vertices");
  m_cubes_indices =
      create_buffer(mesh.indices.size() * sizeof(uint32_t), mesh.indices.data(), 0, "cubes indices");
  m_cubes_vertex_array = create_vertex_array("cubes");
  const GLuint vao = m_cubes_vertex_array.get();
  glVertexArrayVertexBuffer(vao, 0, m_cubes_vertices.get(), 0, sizeof(LitVertex));
  glVertexArrayElementBuffer(vao, m_cubes_indices.get());
  for (GLuint attribute : {0u, 1u}) {
    glEnableVertexArrayAttrib(vao, attribute);
    glVertexArrayAttribFormat(vao, attribute, 3, GL_FLOAT, GL_FALSE, attribute * 3 * sizeof(float));
    glVertexArrayAttribBinding(vao, attribute, 0);
  }
  m_cubes_program = create_program("lit.vert", "lit.frag");
}

void Renderer::draw_cubes(int target, const CubesView& view, const PassSync&) {
  resource(target);  // throws for an index out of range
  const Storage& storage = m_storage[static_cast<size_t>(target)];
  if (!storage.target.framebuffer)
    throw std::logic_error("gl::Renderer::draw_cubes: resource " + std::to_string(target) +
                           " is not a texture the kernels read");
  ensure_cubes_pipeline();
  glBindFramebuffer(GL_FRAMEBUFFER, storage.target.framebuffer.get());
  glViewport(0, 0, storage.target.width, storage.target.height);
  glClearColor(kCubesClearColor[0], kCubesClearColor[1], kCubesClearColor[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glEnable(GL_CULL_FACE);
  glUseProgram(m_cubes_program.get());
  glUniformMatrix4fv(0, 1, GL_FALSE, glm::value_ptr(view.view_projection));
  glUniform3fv(3, 1, glm::value_ptr(view.eye));
  glBindVertexArray(m_cubes_vertex_array.get());
  for (const CubeInstance& cube : view.cubes) {
    glUniformMatrix4fv(1, 1, GL_FALSE, glm::value_ptr(cube.model));
    glUniform3fv(2, 1, glm::value_ptr(cube.color));
    glDrawElements(GL_TRIANGLES, m_cubes_index_count, GL_UNSIGNED_INT, nullptr);
  }
  glBindVertexArray(0);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  const Resource& drawn = m_resources[static_cast<size_t>(target)];
  if (drawn.linear) pack_into_buffer(storage.target.color.get(), drawn);
}

void Renderer::pack_into_buffer(GLuint texture, const Resource& image) {
  // Into the buffer the kernels read, row 0 first as the texture holds it.
  if (m_memory.empty()) {  // GL's own buffer (the buffer mode): a pixel-pack copy
    glBindBuffer(GL_PIXEL_PACK_BUFFER, image.gl_name);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glGetTextureImage(texture, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(image.desc.bytes), nullptr);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    return;
  }
  // Memory GL imported from CUDA (the exported mode): shader stores. The pixel-pack copy above reached
  // CUDA's memory only where rows are a multiple of 256 bytes (64x48, 3840x2160 on an H200; at 1277x719
  // and 4097x3 most of each row stayed unwritten as CUDA read it, glFinish or not), and a copy from a GL
  // buffer into it reached none of it.
  if (!m_pack_program) m_pack_program = create_compute_program("pack_image.comp");
  glUseProgram(m_pack_program.get());
  glBindTextureUnit(0, texture);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, image.gl_name);
  glUniform2i(0, image.desc.width, image.desc.height);
  constexpr int kGroup = 16;  // pack_image.comp's local size
  glDispatchCompute(static_cast<GLuint>((image.desc.width + kGroup - 1) / kGroup),
                    static_cast<GLuint>((image.desc.height + kGroup - 1) / kGroup), 1);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
  glBindTextureUnit(0, 0);
  glUseProgram(0);
  // The stores are visible to GL's later reads of the buffer; CUDA's wait on the mode's semaphore orders
  // its own.
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT | GL_PIXEL_BUFFER_BARRIER_BIT);
}

void Renderer::ensure_wave_pipeline() {
  if (m_wave_program) return;
  const std::vector<uint32_t> indices = wave_mesh_indices();
  m_wave_index_count = static_cast<GLsizei>(indices.size());
  m_wave_indices = create_buffer(indices.size() * sizeof(uint32_t), indices.data(), 0, "wave indices");
  m_wave_vertex_array = create_vertex_array("wave mesh");
  const GLuint vao = m_wave_vertex_array.get();
  glVertexArrayElementBuffer(vao, m_wave_indices.get());
  glEnableVertexArrayAttrib(vao, 0);
  glVertexArrayAttribFormat(vao, 0, 3, GL_FLOAT, GL_FALSE, offsetof(kernels::WaveVertex, position));
  glVertexArrayAttribBinding(vao, 0, 0);
  glEnableVertexArrayAttrib(vao, 1);
  glVertexArrayAttribFormat(vao, 1, 3, GL_FLOAT, GL_FALSE, offsetof(kernels::WaveVertex, normal));
  glVertexArrayAttribBinding(vao, 1, 0);
  m_wave_program = create_program("wave.vert", "wave.frag");
}

bool Renderer::draws_frame(const DrawPlan& plan) const {
  return plan.draw == SceneDraw::LitMesh || m_platform.is_window();
}

void Renderer::draw_frame(const DrawPlan& plan, const glm::mat4& view_projection, Extent extent,
                          const PassSync&) {
  if (!draws_frame(plan)) return;  // headless, the image is the frame
  if (plan.draw == SceneDraw::LitMesh) {
    glBindFramebuffer(GL_FRAMEBUFFER, m_platform.framebuffer());
    glViewport(0, 0, extent.width, extent.height);
    ensure_wave_pipeline();
    // The vertex buffer the kernels write, bound each frame: a mode may have placed it elsewhere.
    glVertexArrayVertexBuffer(m_wave_vertex_array.get(), 0, resource(plan.mesh_resource).gl_name, 0,
                              sizeof(kernels::WaveVertex));
    glClearColor(kClearColor[0], kClearColor[1], kClearColor[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glUseProgram(m_wave_program.get());
    glUniformMatrix4fv(0, 1, GL_FALSE, glm::value_ptr(view_projection));
    glBindVertexArray(m_wave_vertex_array.get());
    glDrawElements(GL_TRIANGLES, m_wave_index_count, GL_UNSIGNED_INT, nullptr);
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
    return;
  }
  show_image(plan, extent);
}

void Renderer::show_image(const DrawPlan& plan, Extent extent) {
  glBindFramebuffer(GL_FRAMEBUFFER, m_platform.framebuffer());
  glViewport(0, 0, extent.width, extent.height);
  const Resource& image = resource(plan.image_resource);
  if (!m_show_vertex_array)
    m_show_vertex_array = create_vertex_array("show pass");  // no attributes, but core GL needs a VAO
  // Opaque and covering every pixel: no clear, no depth, no blending. A triangle measured faster than
  // glBlitNamedFramebuffer from the texture (0.61 against 0.68 ms at 3840x2160 on an H200).
  if (image.linear) {
    if (!m_show_buffer_program)
      m_show_buffer_program = create_program("fullscreen.vert", "buffer_image.frag");
    glUseProgram(m_show_buffer_program.get());
    glUniform2i(0, image.desc.width, image.desc.height);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, image.gl_name);
  } else {
    if (!m_show_program) m_show_program = create_program("fullscreen.vert", "textured.frag");
    glUseProgram(m_show_program.get());
    glBindTextureUnit(0, image.gl_name);
  }
  glBindVertexArray(m_show_vertex_array.get());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  if (image.linear) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
}

GLuint Renderer::frame_image(const DrawPlan& plan) const {
  if (plan.draw != SceneDraw::ShowImage) return 0;
  const Resource& image = resource(plan.image_resource);
  return image.linear ? 0 : image.gl_name;
}

Image Renderer::read_frame(const DrawPlan& plan, Extent extent) const {
  Image image;
  image.width = extent.width;
  image.height = extent.height;
  const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
  try {
    image.rgba.resize(bytes);
  } catch (const std::bad_alloc&) {
    throw_out_of_memory("reading back the " + size_text(extent.width, extent.height) + " frame", bytes);
  }
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  if (plan.draw == SceneDraw::ShowImage && !m_platform.is_window()) {
    const Resource& frame = resource(plan.image_resource);
    if (frame.linear) {
      if (frame.desc.bytes != image.rgba.size())
        throw std::logic_error("gl::Renderer::read_frame: the image is " +
                               size_text(frame.desc.width, frame.desc.height) + ", the frame " +
                               size_text(extent.width, extent.height));
      glGetNamedBufferSubData(frame.gl_name, 0, static_cast<GLsizeiptr>(frame.desc.bytes), image.rgba.data());
      INTEROP_GL_CHECK("glGetNamedBufferSubData");
      flip_rows(image);
      return image;
    }
    glGetTextureImage(frame.gl_name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(image.rgba.size()),
                      image.rgba.data());
    INTEROP_GL_CHECK("glGetTextureImage");
    flip_rows(image);
    return image;
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, m_platform.framebuffer());
  if (m_platform.framebuffer() == 0) glReadBuffer(GL_BACK);  // the back buffer, before the swap
  glReadPixels(0, 0, extent.width, extent.height, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
  INTEROP_GL_CHECK("glReadPixels");
  flip_rows(image);
  return image;
}

void Renderer::set_cuda_source(int index, const CudaFrameSource& source) {
  resource(index);  // throws for an index that is not a resource
  if (m_cuda_sources.size() < m_resources.size()) m_cuda_sources.resize(m_resources.size());
  m_cuda_sources[static_cast<size_t>(index)] = source;
}

std::optional<CudaFrameSource> Renderer::cuda_frame_source(const DrawPlan& plan, Extent extent) const {
  if (m_platform.is_window() || extent.empty()) return std::nullopt;
  if (plan.draw == SceneDraw::ShowImage) {
    // The image is the frame: the mode's registration of it, if it has one.
    const size_t index = static_cast<size_t>(plan.image_resource);
    if (plan.image_resource < 0 || index >= m_cuda_sources.size() || !m_cuda_sources[index].has_frame())
      return std::nullopt;
    const ResourceDesc& desc = m_resources[index].desc;
    if (desc.width != extent.width || desc.height != extent.height) return std::nullopt;
    return m_cuda_sources[index];
  }
  // GL drew the frame into the offscreen framebuffer: the read-back's own registration of its colour.
  const cudaGraphicsResource_t registered = framebuffer_registration(extent);
  if (!registered) return std::nullopt;
  CudaFrameSource source;
  source.registered = registered;
  source.map_flags = cudaGraphicsMapFlagsReadOnly;
  source.stream = m_cuda_frame_stream->stream;
  source.device = m_cuda_frame_stream->device;
  return source;
}

cudaGraphicsResource_t Renderer::framebuffer_registration(Extent extent) const {
  if (!m_cuda_frame_stream || m_platform.framebuffer() == 0 || extent != m_platform.framebuffer_extent())
    return nullptr;
  GLint type = GL_NONE;
  GLint color = 0;
  glGetNamedFramebufferAttachmentParameteriv(m_platform.framebuffer(), GL_COLOR_ATTACHMENT0,
                                             GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
  if (type != GL_TEXTURE) return nullptr;
  glGetNamedFramebufferAttachmentParameteriv(m_platform.framebuffer(), GL_COLOR_ATTACHMENT0,
                                             GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &color);
  INTEROP_GL_CHECK("glGetNamedFramebufferAttachmentParameteriv(the frame's colour)");
  const GLuint texture = static_cast<GLuint>(color);
  if (!m_framebuffer_registration || texture != m_registered_color || extent != m_registered_extent ||
      m_cuda_frame_stream->device != m_registered_device) {
    m_framebuffer_registration = {};
    std::optional<interop::ScopedDevice> on_device;
    if (m_cuda_frame_stream->device >= 0) on_device.emplace(m_cuda_frame_stream->device);
    interop::TextureRegistrationDesc desc;
    desc.texture = texture;
    desc.internal_format = GL_RGBA8;
    desc.access = interop::Access::ReadOnly;
    m_framebuffer_registration = interop::GlTextureRegistration(desc);
    m_registered_color = texture;
    m_registered_extent = extent;
    m_registered_device = m_cuda_frame_stream->device;
  }
  return m_framebuffer_registration.resource();
}

int Renderer::reads_under_way() const {
  return static_cast<int>(m_cuda_read_back.under_way()) + (m_read_back.pending() ? 1 : 0);
}

void Renderer::limit_frames_ahead(int frames) {
  m_frames_ahead.emplace_back(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
  INTEROP_GL_CHECK("glFenceSync(frames ahead)");
  while (m_frames_ahead.size() > static_cast<size_t>(std::max(frames, 0))) {
    GlSync oldest = std::move(m_frames_ahead.front());
    m_frames_ahead.pop_front();
    wait_for_fence(oldest.get(), "frames ahead");
  }
}

bool Renderer::can_begin_read() const {
  return !m_read_back.pending() && !m_cuda_read_back.full();
}

bool Renderer::read_frame_done() {
  if (m_cuda_read_back.pending()) return m_cuda_read_back.done();
  return m_read_back.done();
}

std::optional<FrameRead> Renderer::end_read_frame() {
  if (m_cuda_read_back.pending()) return m_cuda_read_back.end();
  return m_read_back.end();
}

std::vector<StepTime> Renderer::take_read_back_steps() {
  std::vector<StepTime> steps = m_cuda_read_back.steps().take();
  for (StepTime& step : m_read_back.steps().take()) steps.push_back(std::move(step));
  return steps;
}

void Renderer::begin_read_frame(const DrawPlan& plan, Extent extent, long long frame) {
  if (!can_begin_read())
    throw std::logic_error("gl::Renderer::begin_read_frame: frame " + std::to_string(frame) +
                           " begun while the reads before it are not collected; end_read_frame() first");
  if (const std::optional<CudaFrameSource> source = cuda_frame_source(plan, extent)) {
    m_cuda_read_back.begin(*source, extent, frame);
    return;
  }
  // GL's read after CUDA's (the mode switched): those go first, dropped, so that reads stay in order.
  while (m_cuda_read_back.pending()) m_cuda_read_back.end();
  // The source read_frame reads, copied into the read-back buffer instead of host memory; in a window too, an
  // image is read from itself, not from the window, which the panel covers by the time the desk reads it.
  m_read_back.begin(extent, frame, [&](GLuint pack_buffer) {
    const size_t bytes = static_cast<size_t>(extent.width) * extent.height * 4;
    if (plan.draw == SceneDraw::ShowImage) {
      const Resource& image = resource(plan.image_resource);
      if (image.linear) {
        if (image.desc.bytes != bytes)
          throw std::logic_error("gl::Renderer::begin_read_frame: the image is " +
                                 size_text(image.desc.width, image.desc.height) + ", the frame " +
                                 size_text(extent.width, extent.height));
        glCopyNamedBufferSubData(image.gl_name, pack_buffer, 0, 0, static_cast<GLsizeiptr>(bytes));
        return;
      }
      glBindBuffer(GL_PIXEL_PACK_BUFFER, pack_buffer);
      glGetTextureImage(image.gl_name, 0, GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(bytes), nullptr);
      glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
      return;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, m_platform.framebuffer());
    if (m_platform.framebuffer() == 0) glReadBuffer(GL_BACK);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pack_buffer);
    glReadPixels(0, 0, extent.width, extent.height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  });
}

}  // namespace lab::gl
