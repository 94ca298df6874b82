// app/gl/scene.cpp — where a GL scene's resources get their storage: GL's own, or memory another API
// allocated and GL imported (ComputedScene::place_resources, for the external mode).
#include "app/gl/scene.hpp"

#include "app/gl/gl_external.hpp"

namespace lab {

GlTexture ComputedScene::resource_texture(size_t index, int width, int height,
                                          const std::string& label) const {
  if (m_memory.empty()) return create_texture_2d(GL_RGBA8, width, height, label);
  return texture_from_memory(m_memory.at(index), width, height, 0, label);
}

GlBuffer ComputedScene::resource_buffer(size_t index, size_t bytes, GLbitfield flags,
                                        const std::string& label) const {
  // Storage in imported memory takes no flags: the modes that write it from the CPU (cpu, staging) do not
  // place it there.
  if (m_memory.empty()) return create_buffer(bytes, nullptr, flags, label);
  return buffer_from_memory(m_memory.at(index), bytes, 0, label);
}

}  // namespace lab
