// app/gl/timing.cpp — GL's timer queries for FrameTimers, and GlPhase. Each timed phase is a GL_TIME_ELAPSED
// query (its duration, as the stats have always had it) inside a pair of GL_TIMESTAMP counters (where it
// ran, for the frame timeline), and GL's clock is read beside the host's with glGetInteger64v(GL_TIMESTAMP).
#include "app/gl/timing.hpp"

#include "app/gl/profiling.hpp"

#include <glad/gl.h>

#include <array>
#include <string>
#include <vector>

namespace lab::gl {
namespace {

class GlTimerQueries final : public GpuTimerQueries {
 public:
  GlTimerQueries() {
    GLint bits = 0;
    glGetQueryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &bits);
    m_timestamps = bits > 0;
  }
  Clock clock() const override { return Clock::Gl; }
  unsigned int create() override {
    Query query;
    glCreateQueries(GL_TIME_ELAPSED, 1, &query.elapsed);
    if (m_timestamps) glCreateQueries(GL_TIMESTAMP, 2, query.stamps.data());
    m_queries.push_back(query);
    return static_cast<unsigned int>(m_queries.size());  // 1-based: 0 is no query
  }
  void begin(unsigned int id) override {
    const Query& query = at(id);
    // Timestamps are not timer queries: they may sit outside (and inside) an active GL_TIME_ELAPSED one.
    if (m_timestamps) glQueryCounter(query.stamps[0], GL_TIMESTAMP);
    glBeginQuery(GL_TIME_ELAPSED, query.elapsed);
  }
  void end(unsigned int id) override {
    glEndQuery(GL_TIME_ELAPSED);
    if (m_timestamps) glQueryCounter(at(id).stamps[1], GL_TIMESTAMP);
  }
  bool available(unsigned int id) override {
    const Query& query = at(id);
    // The end counter comes after the elapsed query's end: once it is there, so is the rest.
    GLuint available = GL_FALSE;
    glGetQueryObjectuiv(m_timestamps ? query.stamps[1] : query.elapsed, GL_QUERY_RESULT_AVAILABLE,
                        &available);
    return available != GL_FALSE;
  }
  double elapsed_ms(unsigned int id) override {
    GLuint64 ns = 0;
    glGetQueryObjectui64v(at(id).elapsed, GL_QUERY_RESULT, &ns);  // waits if the GPU is not there yet
    return static_cast<double>(ns) * 1e-6;
  }
  std::vector<GpuInterval> intervals(unsigned int id) override {
    if (!m_timestamps) return {};
    const Query& query = at(id);
    GLuint64 start = 0, end = 0;
    glGetQueryObjectui64v(query.stamps[0], GL_QUERY_RESULT, &start);
    glGetQueryObjectui64v(query.stamps[1], GL_QUERY_RESULT, &end);
    return {{static_cast<int64_t>(start), static_cast<int64_t>(end)}};
  }
  std::optional<ClockSample> sample_clock(bool, std::string& why_not) override {
    if (!m_timestamps) {
      why_not = "GL_TIMESTAMP has no counter bits on this GL (GL_QUERY_COUNTER_BITS 0)";
      return std::nullopt;
    }
    // GL's time "after all previous commands have reached the GL server": read now, without waiting for
    // the GPU; it lies between the two host reads.
    const int64_t before = host_clock_ns();
    GLint64 gl_ns = 0;
    glGetInteger64v(GL_TIMESTAMP, &gl_ns);
    const int64_t after = host_clock_ns();
    return ClockSample{gl_ns, before + (after - before) / 2, (after - before + 1) / 2};
  }
  void destroy(const std::vector<unsigned int>& ids, bool open) override {
    if (open) glEndQuery(GL_TIME_ELAPSED);  // a query cannot be deleted while it is active
    std::vector<GLuint> names;
    for (const unsigned int id : ids) {
      const Query& query = at(id);
      names.push_back(query.elapsed);
      for (const GLuint stamp : query.stamps)
        if (stamp != 0) names.push_back(stamp);
    }
    glDeleteQueries(static_cast<GLsizei>(names.size()), names.data());
  }

 private:
  struct Query {
    GLuint elapsed = 0;
    std::array<GLuint, 2> stamps{};  // GL_TIMESTAMP counters before and after; 0 without timestamps
  };
  const Query& at(unsigned int id) const { return m_queries.at(id - 1); }
  bool m_timestamps = false;  // GL_TIMESTAMP has counter bits
  std::vector<Query> m_queries;
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

}  // namespace lab::gl
