// app/timing/timing_ui.hpp — the panel's timing tables, the same in every graphics API's panel: the phases of
// the running mode (last, average, p90, and the kernel's and frame's history as plots), and every mode
// seen in the scene side by side. Dear ImGui widgets; call between ImGui::Begin and End.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/timing/timing.hpp"

namespace lab {

// The phases `mode` recorded (its FrameTimers tag is static_cast<int>(mode)).
void draw_timings(const FrameTimers& timers, ModeId mode);
// Every mode with frames in `timers`, one row each: averages over each mode's last frames.
void draw_mode_table(const FrameTimers& timers);

}  // namespace lab
