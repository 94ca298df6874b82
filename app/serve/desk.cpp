// app/serve/desk.cpp — the frame loop's side of the browser desk (app/serve/desk.hpp).
#include "app/serve/desk.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

namespace lab::serve {

Desk::Desk(const ServeAddress& address, ServerOptions options)
    : m_server([&] {
        options.address = address;
        return std::move(options);
      }()) {
  m_server.set_fps_cap(m_fps_cap);
  std::fprintf(stderr, "interop-lab: serving the desk at %s (open it in a browser; Ctrl+C stops)\n",
               m_server.url().c_str());
  if (!address.loopback())
    std::fprintf(stderr,
                 "interop-lab: warning: %s is not a loopback address: anyone who can reach port %d with the "
                 "token can drive this app and see its frames; prefer 127.0.0.1 and ssh -L %d:127.0.0.1:%d\n",
                 address.host.c_str(), m_server.port(), m_server.port(), m_server.port());
  std::fflush(stderr);
}

std::vector<Command> Desk::begin_frame() {
  if (m_fps_cap > 0) {
    std::this_thread::sleep_until(m_next_frame);
    // From now, not from the missed time: a slow frame does not make the next ones rush.
    m_next_frame = std::max(m_next_frame, std::chrono::steady_clock::now()) +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(1.0 / m_fps_cap));
  }
  std::vector<Command> commands = m_server.take_commands();
  for (const Command& command : commands)
    if (command.kind == Command::Kind::Fps) {
      m_fps_cap = command.fps;
      m_server.set_fps_cap(m_fps_cap);
      m_next_frame = std::chrono::steady_clock::now();
    }
  return commands;
}

void Desk::end_frame(Image frame, AppState state, double read_back_ms) {
  m_server.add_read_back_ms(read_back_ms);
  m_server.offer_frame(std::move(frame), std::move(state));
}

void Desk::frame_read_collected(Image image, long long frame, double collect_ms) {
  if (!m_begun || m_begun->frame != frame)
    throw std::logic_error("serve::Desk::frame_read_collected: frame " + std::to_string(frame) +
                           " is not the frame whose read-back began last (" +
                           (m_begun ? std::to_string(m_begun->frame) : std::string("none")) + ")");
  AppState state = std::move(*m_begun);
  m_begun.reset();
  end_frame(std::move(image), std::move(state), collect_ms);
}

}  // namespace lab::serve
