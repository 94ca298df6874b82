// app/modes/mode_switch.hpp — what every graphics API's app (app/loop/app.hpp) does
// the same way when something changes live: a mode switch that cannot leave it without a mode, the tier a
// failing mode falls back to, and a new frame size that re-creates the scene's resources under the mode. No
// graphics API, no GPU.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/scene/scene_compute.hpp"

#include <functional>
#include <string>

namespace lab {

// Attaches `wanted` through `attach` (which makes the mode, re-creates the resources it needs and attaches
// it). When that throws std::runtime_error (what availability could not judge before the device was
// asked, e.g. a driver that exports no semaphores), `detach_failed` releases what was half made, `previous`
// is attached again, and the reason is returned, for the panel, after it was said on stderr; "" when
// `wanted` runs. What attaching `previous` throws is the caller's.
std::string attach_or_keep(ModeId wanted, ModeId previous, const std::function<void(ModeId)>& attach,
                           const std::function<void()>& detach_failed);

// The tier a mode gives way to when it fails: staging where it runs (`staging_runs`), else cpu; staging and
// cpu fall to cpu, the last tier. The frame loop (app/loop/app.hpp) falls back by it.
ModeId fallback_tier(ModeId failed, bool staging_runs);
// What falling back says, on stderr and in the panel: "<failed> failed (<what>: <why>); now in <next> mode".
std::string fallback_notice(ModeId failed, const std::string& what, const std::string& why, ModeId next);

// Makes `extent` the renderer's frame size. Where the scene's resources depend on it, the mode detaches
// first (its copies or imports go before the resources they belong to), the scene's scratch memory and
// its resources are re-created at the new size (`special`: exportable or shared, as the mode needs), and
// the mode attaches again.
template <class Renderer, class Mode>
void resize_under_mode(Renderer& renderer, FrameSource& scene, Mode& mode, Extent extent, bool special) {
  if (!scene.resize_recreates_resources()) {
    renderer.resize(extent);
    return;
  }
  mode.detach();
  renderer.resize(extent);
  scene.release_scratch();
  renderer.create_resources(scene.resources(extent), special);
  mode.attach(renderer);
}

}  // namespace lab
