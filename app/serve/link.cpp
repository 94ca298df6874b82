// app/serve/link.cpp — a viewer's link measured and its quality chosen (app/serve/link.hpp).
#include "app/serve/link.hpp"

#include <algorithm>

namespace lab::serve {

namespace {

constexpr std::chrono::seconds kWindow{1};
constexpr std::chrono::milliseconds kShortestRaiseWait{1000};
constexpr std::chrono::milliseconds kLongestRaiseWait{16000};
// Between two steps of the scale: the frames of the new scale measured over the window first.
constexpr std::chrono::seconds kRescaleWait = kWindow;

}  // namespace

LinkControl::LinkControl(LinkOptions options) : m_options(options), m_quality(options.top_quality) {
  m_options.most_downscale = options.most_downscale >= 4 ? 4 : options.most_downscale >= 2 ? 2 : 1;
}

void LinkControl::offered(SteadyClock::time_point now) {
  m_offered.push_back({now, 0});
  forget_before(now);
}

void LinkControl::sent(size_t bytes, unsigned int index, SteadyClock::time_point now) {
  m_in_flight.push_back({index, bytes});
  forget_before(now);
}

void LinkControl::acknowledged(unsigned int index, SteadyClock::time_point now) {
  const auto acked = std::find_if(m_in_flight.begin(), m_in_flight.end(),
                                  [&](const InFlight& message) { return message.index == index; });
  if (acked == m_in_flight.end()) return;  // not in flight: a confused page, counted as nothing
  for (auto message = m_in_flight.begin(); message <= acked; ++message)
    m_delivered.push_back({now, message->bytes});
  m_in_flight.erase(m_in_flight.begin(), acked + 1);
  forget_before(now);
}

void LinkControl::up_to_date(SteadyClock::time_point now) {
  m_delivered.push_back({now, 0});
  forget_before(now);
}

void LinkControl::waiting(bool waits, SteadyClock::time_point now) {
  if (waits == m_waiting) return;
  if (waits)
    m_waiting_since = now;
  else
    m_waited += now - m_waiting_since;
  m_waiting = waits;
}

void LinkControl::forget_before(SteadyClock::time_point now) {
  for (std::deque<Event>* events : {&m_delivered, &m_offered})
    while (!events->empty() && now - events->front().at > kWindow) events->pop_front();
}

double LinkControl::rate(const std::deque<Event>& events, SteadyClock::time_point now) {
  size_t count = 0;
  for (const Event& event : events)
    if (now - event.at <= kWindow) ++count;
  return static_cast<double>(count) / std::chrono::duration<double>(kWindow).count();
}

double LinkControl::kbit_per_s(SteadyClock::time_point now) const {
  size_t bytes = 0;
  for (const Event& event : m_delivered)
    if (now - event.at <= kWindow) bytes += event.bytes;
  return static_cast<double>(bytes) * 8.0 / 1000.0 / std::chrono::duration<double>(kWindow).count();
}

double LinkControl::frames_per_s(SteadyClock::time_point now) const {
  return rate(m_delivered, now);
}

void LinkControl::update(SteadyClock::time_point now, double asked_fps) {
  if (!m_started) {
    m_started = true;
    m_last_update = m_last_lower = m_last_raise = m_last_rescale = now;
    m_waited = {};
    if (m_waiting) m_waiting_since = now;
    return;
  }
  const SteadyClock::duration period = now - m_last_update;
  if (period < m_options.period) return;
  SteadyClock::duration waited = m_waited;
  if (m_waiting) {
    waited += now - m_waiting_since;
    m_waiting_since = now;
  }
  m_waited = {};
  m_last_update = now;
  forget_before(now);
  const double waited_share =
      std::chrono::duration<double>(waited).count() / std::chrono::duration<double>(period).count();
  const double offered = rate(m_offered, now);
  const double target = asked_fps > 0 ? std::min(asked_fps, offered) : offered;
  const double drawn = frames_per_s(now);
  if (waited_share > 0.25 && drawn < 0.9 * target) {
    // The link holds frames back: smaller ones. A step up that had to be undone soon waits longer next time.
    if (now - m_last_raise < m_raise_after && m_last_raise > m_last_lower)
      m_raise_after = std::min(m_raise_after * 2, kLongestRaiseWait);
    if (m_quality > m_options.lowest_quality) {
      m_quality = std::max(m_options.lowest_quality, m_quality - (drawn < 0.6 * target ? 10 : 5));
    } else if (m_scale < m_options.most_downscale && now - m_last_rescale >= kRescaleWait) {
      // The lowest quality is still too much: a quarter of the pixels, at the lowest quality.
      m_scale *= 2;
      m_last_rescale = now;
    }
    m_last_lower = now;
  } else if (waited_share < 0.05 && (m_quality < m_options.top_quality || m_scale > 1) &&
             now - m_last_lower >= m_raise_after && now - m_last_raise >= m_raise_after) {
    // The step up before this one held: the link has room again, the next may come sooner.
    if (m_last_raise > m_last_lower) m_raise_after = std::max(kShortestRaiseWait, m_raise_after / 2);
    if (m_quality < m_options.top_quality) {
      m_quality = std::min(m_options.top_quality, m_quality + 5);
    } else {
      // The top quality at a smaller scale, and room still: the larger scale, from the lowest quality.
      m_scale /= 2;
      m_quality = m_options.lowest_quality;
      m_last_rescale = now;
    }
    m_last_raise = now;
  }
}

}  // namespace lab::serve
