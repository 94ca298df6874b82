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
// page's own requests carry it). Anything else gets 403. So does a request whose Host is not a name of the
// desk (allowed_hosts: a page of another site that a DNS name rebound to 127.0.0.1 would carry its own name),
// and a WebSocket whose Origin is another page's (a page on another port of 127.0.0.1 is the same site and
// gets the cookie; the desk's own page has the Origin http://<Host>; a client without an Origin, holding the
// token in its URL, is no browser page).
//
// Hostile clients: at most max_connections are open at once (one more is answered 503 and closed); an HTTP
// request not read in full within request_timeout is closed, and a viewer that answers no ping within
// viewer_idle_timeout; accepting never stops: when the process runs out of file descriptors the accept is
// tried again a little later.
//
// Frames: offer_frame() hands the newest frame over and returns at once. An encoder thread takes the newest
// frame offered (older ones waiting are skipped) and hashes its stripes (or takes the GPU's hashes that came
// with it). Each viewer plans its own next message from the newest frame (newest wins: a slow viewer drops
// frames, it never queues them, and never holds up the app or another viewer): a viewer that does not ack
// gets it whole at jpeg_quality once its previous write completed; a page that acks each frame it drew gets
// the stripes that changed since the picture it holds, stripes still for a while painted over at a high
// quality, at most two messages unacknowledged, at the quality its link keeps up with (app/serve/stripes.hpp,
// app/serve/link.hpp). The encoder thread encodes each plan's runs on StripEncoder's threads (a run several
// viewers planned alike once).
#pragma once

#include "app/core/serve_address.hpp"
#include "app/image/image_io.hpp"
#include "app/serve/protocol.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace lab::serve {

struct ServerOptions {
  ServeAddress address;    // port 0: any free port (tests); port() says which
  std::string token;       // "" makes a random one (random_token())
  int encode_threads = 0;  // StripEncoder's; 0: one per hardware thread, at most 16
  // Whole frames' quality, and the most a page's link gets (it starts there).
  int jpeg_quality = 85;
  size_t max_queued_commands = 256;  // more are refused with an error message to their viewer
  // "" takes the page's commands; else every command is refused with this reason (a Python viewer's desk:
  // its frames are the caller's, with nothing for a page to switch), but those of `accept_commands`.
  std::string refuse_commands;
  std::vector<Command::Kind> accept_commands;
  // Connections open at once, HTTP and WebSocket: a browser keeps a few per page; one more is answered 503
  // and closed, so that a flood of connections cannot take every file descriptor of the app.
  int max_connections = 64;
  // How old the newest frame offered may get before frame_wanted() asks for another while no viewer has
  // taken it (a viewer waiting on its link then gets a recent frame when it may send).
  std::chrono::milliseconds frame_wanted_after{50};
  // While no viewer watches, how old the newest frame offered may get before frame_wanted() asks for another:
  // the first page to open (and GET /screenshot.png) gets a frame at most this old, and an unwatched app
  // reads back a few frames a second, not every frame (GPU work that slows whatever shares the GPU).
  std::chrono::milliseconds unwatched_frame_every{250};
  // How long an HTTP request may take to arrive in full, and a kept-alive connection may wait for the next;
  // the connection is closed after it.
  std::chrono::milliseconds request_timeout{5000};
  // A viewer's WebSocket from which nothing came for this long is closed; it is pinged at half of it, which
  // a browser (and any WebSocket client) answers, so only a viewer that is gone or stopped reading goes.
  std::chrono::milliseconds viewer_idle_timeout{60000};
};

// The names and addresses a request's Host may give for a desk bound to `address` (lower case, IPv6 ones
// without brackets): the bound address; for a loopback bind also localhost, 127.0.0.1 and ::1; for a wildcard
// bind (0.0.0.0, ::) those and this machine's host name and its interfaces' addresses; for another address
// this machine's host name too.
std::vector<std::string> allowed_hosts(const ServeAddress& address);
// Whether the Host header `host` ("127.0.0.1:8080", "[::1]:8080", "localhost") names one of `allowed`: its
// port is not looked at (an ssh tunnel's local port differs), an address is compared as an address.
bool host_allowed(const std::string& host, const std::vector<std::string>& allowed);
// Whether a WebSocket upgrade's Origin header (`origin`, "" when absent) is the desk's own page's for a
// request to Host `host`: http://<host>, or none at all.
bool origin_allowed(const std::string& origin, const std::string& host);

// The URLs of a desk bound to `address` on `port`, each with `token`, under which the machine can be reached:
// the bound address's own; for a wildcard bind (0.0.0.0, ::), which no browser opens, this machine's
// `host_name` and its `interfaces`' addresses instead (IPv4 ones only for 0.0.0.0), less loopback and IPv6
// link-local ones (a URL cannot name their zone); where none is left, 127.0.0.1's (or [::1]'s).
std::vector<std::string> desk_urls(const ServeAddress& address, int port, const std::string& token,
                                   const std::string& host_name, const std::vector<std::string>& interfaces);

// 32 hex digits from std::random_device: 128 bits nobody can guess.
std::string random_token();
// The desk's page (index.html) with `token` on the links to its stylesheet and script: a page shown inside
// another site's page (a notebook's iframe) gets no SameSite=Strict cookie, so its own requests carry the
// token as its URL did. The token goes in as it is, as a URL carries it (random_token's: hex digits).
std::string page_with_token(const std::string& page, const std::string& token);
// Whether `given` is `token`, in a time that does not depend on where they first differ.
bool token_matches(const std::string& given, const std::string& token);
// The token of a request: the `token` query parameter of `target` ("/?token=abc"), else the
// interop_lab_token cookie of `cookie_header`; "" where neither has one.
std::string request_token(const std::string& target, const std::string& cookie_header);

// Counts since start (the unit tests and the state messages read them).
struct ServerCounts {
  int viewers = 0;
  unsigned long long frames_offered = 0;
  unsigned long long frames_encoded = 0;    // offered frames the encoder took (the rest were superseded)
  unsigned long long frames_sent = 0;       // frame messages written, over all viewers
  unsigned long long frames_dropped = 0;    // encoded frames a viewer skipped because its last write was slow
  size_t most_frames_in_flight = 0;         // per viewer; by design at most 1
  size_t commands_queued = 0;               // waiting for take_commands()
  unsigned long long messages_refused = 0;  // a page's messages answered with an error
  int connections = 0;                      // open now, HTTP and WebSocket
  unsigned long long connections_refused = 0;  // beyond max_connections
  unsigned long long accept_failures = 0;      // accepts that failed (out of file descriptors...), retried
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
  // http://HOST:PORT/?token=TOKEN: the first of urls()
  std::string url() const;
  // desk_urls of this machine: the bound address's URL, or for a wildcard bind its host name's and
  // addresses'.
  std::vector<std::string> urls() const;

  // The app thread's newest frame (top row first) and its state: returns at once.
  // `stripe_hashes`: kernels/stripe_hash.hpp's hashes of the frame where the read-back computed them on the
  // GPU (empty: none; the changed-stripe sending hashes on the CPU then).
  // The frame is shared, not copied: the server's threads hold it while they encode and send it, and the
  // newest for the screenshot (a pooled frame, app/image/frame_pool.hpp, goes back when they let it go).
  void offer_frame(std::shared_ptr<const Image> frame, AppState state,
                   std::vector<uint64_t> stripe_hashes = {});
  void offer_frame(Image frame, AppState state, std::vector<uint64_t> stripe_hashes = {}) {
    offer_frame(std::make_shared<const Image>(std::move(frame)), std::move(state), std::move(stripe_hashes));
  }
  // Whether a frame offered now would be taken: no viewer is watching and the newest is older than
  // ServerOptions::unwatched_frame_every (it is kept for the next viewer and the screenshot), or a viewer has
  // planned a message from the newest frame offered (so the next one is wanted: it comes by the time that
  // message is out), or the newest is older than ServerOptions::frame_wanted_after. Any thread.
  bool frame_wanted() const;
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
