// app/mode_switch.hpp — a live mode switch that cannot leave an app without a mode, the same in every
// graphics API's app (app/vulkan/app.cpp, app/d3d11/app_core.hpp). No graphics API, no GPU.
#pragma once

#include "app/vocabulary.hpp"

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

}  // namespace lab
