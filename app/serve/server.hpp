// app/serve/server.hpp — the browser desk's server: HTTP and WebSocket on its own thread, JPEG encoding on
// worker threads, the app's frame loop on neither.
//
// HTTP and WebSocket come from Boost.Beast (Debian's libboost-dev 1.74, header-only): one library for both,
// on Boost.Asio's event loop that every C++ networking user knows, kept by Boost and in every distribution.
// civetweb would need a C API and its own threads per connection; libwebsockets a callback protocol that
// suits C more than C++ and its own build options. Beast's asynchronous model gives "one frame in flight per
// viewer" for free: a viewer's next frame goes out when its last write completes.
//
//   GET /, /index.html, /desk.js, /desk.css   the page (assets/desk, embedded in the binary at build time)
//   GET /screenshot.png                       the exact last frame as PNG (X-Interop-Lab-Frame: its index)
//   GET / with Upgrade: websocket             state + frames out, commands in (app/serve/protocol.hpp)
// Every request needs the token: ?token=... in the URL, or the cookie that the page's answer sets (so the
// page's own requests carry it). Anything else gets 403.
//
// Frames: offer_frame() hands the newest frame over and returns at once. An encoder thread takes the newest
// frame offered (older ones waiting are skipped), encodes it in strips on StripEncoder's threads, and makes
// it every viewer's next frame. A viewer whose previous frame is still being written skips to the newest
// once that write completes: a slow viewer drops frames, it never queues them.
#pragma once

#include "app/core/serve_address.hpp"
#include "app/image/image_io.hpp"
#include "app/serve/protocol.hpp"

#include <memory>
#include <string>
#include <vector>

namespace lab::serve {

struct ServerOptions {
  ServeAddress address;    // port 0: any free port (tests); port() says which
  std::string token;       // "" makes a random one (random_token())
  int encode_threads = 0;  // StripEncoder's; 0: one per hardware thread, at most 8
  int jpeg_quality = 85;
  size_t max_queued_commands = 256;  // more are refused with an error message to their viewer
  // "" takes the page's commands; else every command is refused with this reason (a Python viewer's desk:
  // its frames are the caller's, with nothing for a page to switch).
  std::string refuse_commands;
};

// 32 hex digits from std::random_device: 128 bits nobody can guess.
std::string random_token();
// Whether `given` is `token`, in a time that does not depend on where they first differ.
bool token_matches(const std::string& given, const std::string& token);
// The token of a request: the `token` query parameter of `target` ("/?token=abc"), else the
// interop_lab_token cookie of `cookie_header`; "" where neither has one.
std::string request_token(const std::string& target, const std::string& cookie_header);

// Counts since start (the unit tests and the state messages read them).
struct ServerCounts {
  int viewers = 0;
  unsigned long long frames_offered = 0;
  unsigned long long frames_encoded = 0;  // offered frames the encoder got to (the rest were superseded)
  unsigned long long frames_sent = 0;     // frame messages written, over all viewers
  unsigned long long frames_dropped = 0;  // encoded frames a viewer skipped because its last write was slow
  size_t most_frames_in_flight = 0;       // per viewer; by design at most 1
  size_t commands_queued = 0;             // waiting for take_commands()
};

class Server {
 public:
  // Binds and starts listening. Throws std::runtime_error naming the address and the reason (in use, not
  // an address of this machine).
  explicit Server(ServerOptions options);
  // Closes every connection and joins the threads.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  const std::string& token() const;
  // http://HOST:PORT/?token=TOKEN
  std::string url() const;

  // The app thread's newest frame (top row first) and its state: returns at once.
  void offer_frame(Image frame, AppState state);
  // Records the app's read-back of the frame it offers (its timing shows in the state messages).
  void add_read_back_ms(double ms);
  void set_fps_cap(double fps);
  // The commands received since the last call, oldest first.
  std::vector<Command> take_commands();
  ServerCounts counts() const;
  DeskStats desk_stats() const;

  struct Impl;  // server.cpp's: its sessions hold it

 private:
  std::unique_ptr<Impl> m_impl;
};

}  // namespace lab::serve
