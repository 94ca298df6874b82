// app/timing/timing_ui.hpp — the panel's timing tables, the same in every graphics API's panel: the phases of
// the running mode (last, average, p90, and the kernel's and frame's history as plots, and its last frame
// as a timeline strip), and every mode seen in the scene side by side. Dear ImGui widgets; call between
// ImGui::Begin and End.
#pragma once

#include "app/core/vocabulary.hpp"
#include "app/timing/timeline.hpp"
#include "app/timing/timing.hpp"

namespace lab {

// The phases `mode` recorded (its FrameTimers tag is static_cast<int>(mode)), and its last frame's
// timeline strip (draw_timeline).
void draw_timings(const FrameTimers& timers, ModeId mode);
// One frame's timeline (app/timing/timeline.hpp) as a Gantt strip on the window's draw list: one row per
// lane, its spans as bars on the frame's axis; a lane off the frame's clock says why instead.
void draw_timeline(const FrameTimeline& timeline);
// Every mode with frames in `timers`, one row each: averages over each mode's last frames.
void draw_mode_table(const FrameTimers& timers);

// How wide a tooltip's text may run on a display `display_width` pixels wide, in pixels: some 35 characters
// of the font, less where the display is narrower (then its width less the tooltip's padding and a margin),
// so that ImGui, which keeps a tooltip on the display, never cuts its end off.
float tooltip_wrap_width(float display_width, float font_size, float padding);
// A tooltip of `text` over the last item, wrapped at tooltip_wrap_width of ImGui's display: every tooltip
// of the panel, whose reasons and remedies run long.
void wrapped_tooltip(const char* text);

}  // namespace lab
