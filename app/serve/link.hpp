// app/serve/link.hpp — one viewer's link as the desk measures it, and the JPEG quality that keeps its frame
// rate. A page acknowledges each frame message it drew ({"ack": index}); the desk keeps at most
// most_in_flight of them unacknowledged, so a slow link holds back that viewer's next frame (newest wins)
// rather than filling socket buffers, and never the app or the other viewers. Over the last second it
// measures what the socket took (kbit/s, acknowledged) and the frames the page drew per second. The quality:
// while newer frames keep waiting on the link (more than a quarter of the time) and fewer frames arrive than
// asked for, it steps down (10 when far behind, else 5); after the link has had room for a while it steps
// back up by 5, waiting longer after each step up that had to be undone, so that it settles instead of
// swinging, and shorter after each one that held (1 to 16 s). The scale: when the quality is at its lowest
// and the link still falls behind, the picture's edges are halved (scale 1 -> 1/2 -> 1/4, a quarter of the
// pixels each step, at most one step a second so that the smaller frames are measured first); the quality
// stays at its lowest and climbs again at the smaller scale as the link allows. A step back up to the larger
// scale waits for clear headroom: the quality back at the top at the smaller scale with the link still idle,
// and is taken at the lowest quality (four times the pixels at quality 20 take about the bytes of a quarter
// of them at 85: 44 and 42 KB for a smooth 1080p picture), so that the steps up and down are far apart and
// the scale does not swing. No sockets: the server (app/serve/server.cpp) calls it on its network thread, the
// unit tests with their own clock.
#pragma once

#include "app/serve/stripes.hpp"

#include <chrono>
#include <cstddef>
#include <deque>

namespace lab::serve {

struct LinkOptions {
  int top_quality = 85;  // the desk's ServerOptions::jpeg_quality: where it starts, and the most it picks
  int lowest_quality = 20;
  size_t most_in_flight = 2;              // frame messages sent and not yet acknowledged
  std::chrono::milliseconds period{250};  // how often the quality may change
  int most_downscale = 4;                 // the smallest scale is 1 / this: 1 (never scaled), 2 or 4
};

class LinkControl {
 public:
  explicit LinkControl(LinkOptions options = {});

  // A new frame of the app reached this viewer (it may be superseded before it goes out).
  void offered(SteadyClock::time_point now);
  // The message of frame `index`, `bytes` long, went out.
  void sent(size_t bytes, unsigned int index, SteadyClock::time_point now);
  // The page drew the message of frame `index`: it and those before it are no longer in flight (a
  // paint-over repeats an index; the oldest of that index goes). An index not in flight changes nothing.
  void acknowledged(unsigned int index, SteadyClock::time_point now);
  // A frame that changed no stripe the page holds: it is up to date without a message.
  void up_to_date(SteadyClock::time_point now);
  // Whether a newer frame is waiting for the link (most_in_flight messages unacknowledged), from `now` on.
  void waiting(bool waits, SteadyClock::time_point now);

  bool may_send() const { return m_in_flight.size() < m_options.most_in_flight; }
  size_t in_flight() const { return m_in_flight.size(); }

  // Once a period: the quality and the scale for frames at `asked_fps` (0: as many as the app offers).
  void update(SteadyClock::time_point now, double asked_fps);
  int quality() const { return m_quality; }
  // What the frame's edges are divided by before encoding: 1, 2 or 4 (most_downscale at most).
  int scale() const { return m_scale; }
  // Over the last second: acknowledged kbit/s, and frames drawn (or up to date) per second.
  double kbit_per_s(SteadyClock::time_point now) const;
  double frames_per_s(SteadyClock::time_point now) const;

 private:
  struct Event {
    SteadyClock::time_point at;
    size_t bytes = 0;
  };
  void forget_before(SteadyClock::time_point now);
  static double rate(const std::deque<Event>& events, SteadyClock::time_point now);

  LinkOptions m_options;
  int m_quality;
  int m_scale = 1;
  struct InFlight {
    unsigned int index = 0;
    size_t bytes = 0;
  };
  std::deque<InFlight> m_in_flight;  // oldest first
  std::deque<Event> m_delivered, m_offered;
  SteadyClock::time_point m_last_update, m_last_lower, m_last_raise, m_last_rescale;
  std::chrono::milliseconds m_raise_after{2000};
  bool m_started = false;
  // Time spent with a frame waiting on the link since the last update, and since when it waits now.
  SteadyClock::duration m_waited{};
  bool m_waiting = false;
  SteadyClock::time_point m_waiting_since;
};

}  // namespace lab::serve
