// app/d3d/renderer_base.hpp — what the Direct3D 11 and 12 renderers (app/d3d11/renderer.hpp,
// app/d3d12/renderer.hpp) hold alike: the device they draw on, borrowed (it outlives the renderer), no
// copies, and passes that order themselves, so a mode hands them nothing. Not an interface: the frame
// loop and the modes call each API's Renderer through templates. Header only, no graphics API.
#pragma once

namespace lab::d3d {

template <class DeviceType>
class RendererBase {
 public:
  using Device = DeviceType;
  // The passes order themselves (the immediate context; the queue's fence): a mode hands them nothing.
  struct PassSync {};

  RendererBase(const RendererBase&) = delete;
  RendererBase& operator=(const RendererBase&) = delete;

  Device& device() { return m_device; }

 protected:
  explicit RendererBase(Device& device) : m_device(device) {}
  ~RendererBase() = default;

  Device& m_device;
};

}  // namespace lab::d3d
