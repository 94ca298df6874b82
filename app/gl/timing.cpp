// app/gl/timing.cpp — GL's timer queries for FrameTimers, and GlPhase.
#include "app/gl/timing.hpp"

#include "app/gl/profiling.hpp"

#include <glad/gl.h>

namespace lab {
namespace {

class GlTimerQueries final : public GpuTimerQueries {
 public:
  Clock clock() const override { return Clock::Gl; }
  unsigned int create() override {
    GLuint query = 0;
    glCreateQueries(GL_TIME_ELAPSED, 1, &query);
    return query;
  }
  void begin(unsigned int query) override { glBeginQuery(GL_TIME_ELAPSED, query); }
  void end(unsigned int) override { glEndQuery(GL_TIME_ELAPSED); }
  bool available(unsigned int query) override {
    GLuint available = GL_FALSE;
    glGetQueryObjectuiv(query, GL_QUERY_RESULT_AVAILABLE, &available);
    return available != GL_FALSE;
  }
  double elapsed_ms(unsigned int query) override {
    GLuint64 ns = 0;
    glGetQueryObjectui64v(query, GL_QUERY_RESULT, &ns);  // waits if the GPU is not there yet
    return static_cast<double>(ns) * 1e-6;
  }
  void destroy(const std::vector<unsigned int>& queries, bool open) override {
    if (open) glEndQuery(GL_TIME_ELAPSED);  // a query cannot be deleted while it is active
    glDeleteQueries(static_cast<GLsizei>(queries.size()), queries.data());
  }
};

}  // namespace

std::unique_ptr<GpuTimerQueries> gl_timer_queries() {
  return std::make_unique<GlTimerQueries>();
}

GlPhase::GlPhase(FrameTimers& timers, Phase phase)
    : m_debug_group(push_gl_debug_group(to_string(phase))), m_phase(timers, phase) {}

GlPhase::~GlPhase() {
  pop_gl_debug_group(m_debug_group);
}

}  // namespace lab
