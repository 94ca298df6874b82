// app/null/renderer.cpp — the null renderer: host memory and counters (renderer.hpp).
#include "app/null/renderer.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace lab::null {

Renderer::Renderer(Device& /*device: it holds nothing*/, Extent extent) : m_extent(extent) {}

void Renderer::create_resources(const std::vector<ResourceDesc>& descs, bool /*importable*/) {
  m_resources.clear();
  for (const ResourceDesc& desc : descs) m_resources.push_back({desc, std::vector<uint8_t>(desc.bytes, 0)});
}

Resource& Renderer::resource(int index) {
  if (index < 0 || static_cast<size_t>(index) >= m_resources.size())
    throw std::out_of_range("null renderer: no resource " + std::to_string(index));
  return m_resources[static_cast<size_t>(index)];
}

const Resource& Renderer::resource(int index) const {
  return const_cast<Renderer*>(this)->resource(index);  // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

void Renderer::upload(int index, const void* data) {
  Resource& target = resource(index);
  std::memcpy(target.bytes.data(), data, target.bytes.size());
}

void Renderer::download(int index, void* data) const {
  const Resource& source = resource(index);
  std::memcpy(data, source.bytes.data(), source.bytes.size());
}

void Renderer::draw_cubes(int target, const CubesView&, const PassSync&) {
  resource(target);  // a plan that names no resource is the caller's error, as in every API
  ++m_cubes_passes;
}

void Renderer::draw_frame(const DrawPlan&, const glm::mat4&, const PassSync&) {
  ++m_frame_passes;
}

Image Renderer::read_frame(const DrawPlan& plan) const {
  Image frame;
  if (plan.draw == SceneDraw::ShowImage) {
    const Resource& image = resource(plan.image_resource);
    frame.width = image.desc.width;
    frame.height = image.desc.height;
    frame.rgba = image.bytes;
    flip_rows(frame);  // texture row 0 is the bottom of the screen, in every API
    return frame;
  }
  frame.width = m_extent.width;
  frame.height = m_extent.height;
  frame.rgba.resize(static_cast<size_t>(frame.width) * static_cast<size_t>(frame.height) * 4);
  uint8_t clear[4] = {0, 0, 0, 255};
  for (int channel = 0; channel < 3; ++channel)
    clear[channel] = static_cast<uint8_t>(std::lround(kClearColor[channel] * 255.0f));
  for (size_t i = 0; i < frame.rgba.size(); i += 4) std::memcpy(&frame.rgba[i], clear, 4);
  return frame;
}

}  // namespace lab::null
