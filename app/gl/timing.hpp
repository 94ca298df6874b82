// app/gl/timing.hpp — per-phase timing (app/timing/timing.hpp) in GL terms: GL_TIME_ELAPSED queries (and
// GL_TIMESTAMP counters around them, for the frame timeline) as the
// graphics API's timer queries, and GlPhase, a graphics phase that is also a GL debug group (Nsight
// Graphics, RenderDoc and apitrace show the phases in the GL call list). Needs a current GL 4.5 context
// where the queries are used and deleted.
#pragma once

#include "app/timing/timing.hpp"

#include <memory>

namespace lab::gl {

// GL_TIME_ELAPSED queries (glCreateQueries on first use); their results are read with
// glGetQueryObjectui64v. FrameTimers(gl_timer_queries()) times GL phases with them.
std::unique_ptr<GpuTimerQueries> gl_timer_queries();

class GlPhase {
 public:
  GlPhase(FrameTimers& timers, Phase phase);
  ~GlPhase();
  GlPhase(const GlPhase&) = delete;
  GlPhase& operator=(const GlPhase&) = delete;

 private:
  bool m_debug_group;  // a GL debug group was pushed (KHR_debug is there); before the phase, popped after it
  GraphicsPhase m_phase;
};

}  // namespace lab::gl
