// app/serve/server.cpp — the desk's server (app/serve/server.hpp): Boost.Beast HTTP and WebSocket sessions
// on one Asio thread (so sessions and the newest frame need no locks among themselves), an encoder thread
// over StripEncoder, and the mutex-guarded hand-over points to the app thread (the offered frame, the
// commands, the counts). The Host, Origin and connection checks against hostile pages and clients are here
// too (the header says which).
#include "app/serve/server.hpp"

#include "app/core/text.hpp"
#include "app/serve/assets.hpp"
#include "app/serve/beast.hpp"
#include "app/serve/jpeg.hpp"
#include "app/serve/link.hpp"
#include "app/serve/stripes.hpp"
#include "app/timing/timing.hpp"
#include "kernels/stripe_hash.hpp"

#include <boost/asio/ip/host_name.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#if !defined(_WIN32)
#include <ifaddrs.h>
#include <netinet/in.h>
#endif

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <tuple>
#include <utility>

namespace lab::serve {

namespace http = beast::http;

namespace {

constexpr const char* kCookieName = "interop_lab_token";
constexpr size_t kMaxCommandBytes = 64 * 1024;  // a command is a few dozen bytes
// The reasons of refused messages waiting for a viewer, in bytes: they go out as one reply; past this, the
// refused messages are counted in that reply rather than listed (a reason quotes the value it refuses).
constexpr size_t kMaxRefusalBytes = 64 * 1024;
// After a failed accept (out of file descriptors, most likely: the connection waits in the listen backlog)
// the next try; trying at once would spin.
constexpr std::chrono::milliseconds kAcceptRetry{100};
// How long an authorised answer (a screenshot of several MB) may take to be read by its client.
constexpr std::chrono::seconds kResponseTimeout{60};

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

PhaseLine phase_line(const char* name, const PhaseStats& stats) {
  return {name, "cpu", stats.last_ms, stats.median_ms, stats.p90_ms, stats.samples, stats.measured};
}

// The value of `key` in a "a=1&b=2" query or a "a=1; b=2" cookie header; nullopt where it is absent.
std::optional<std::string> field_value(const std::string& text, const std::string& key, char separator) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    const size_t first = item.find_first_not_of(' ');
    item = first == std::string::npos ? "" : item.substr(first);
    if (item.compare(0, key.size() + 1, key + "=") == 0) return item.substr(key.size() + 1);
    start = end + 1;
  }
  return std::nullopt;
}

// The host of a Host header, lower case, without its port and an IPv6 address's brackets: "[::1]:8080" ->
// "::1", "LocalHost:80" -> "localhost"; "" for a malformed one.
std::string host_of(const std::string& header) {
  const std::string host = lowercase(header);
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string::npos || (close + 1 < host.size() && host[close + 1] != ':')) return "";
    return host.substr(1, close - 1);
  }
  const size_t colon = host.find(':');
  // One colon: a port; more: an IPv6 address without brackets, no name.
  if (colon != std::string::npos && host.find(':', colon + 1) == std::string::npos)
    return host.substr(0, colon);
  return host;
}

std::optional<net::ip::address> address_of(const std::string& text) {
  beast::error_code error;
  const net::ip::address address = net::ip::make_address(text, error);
  if (error) return std::nullopt;
  return address;
}

// The addresses of this machine's interfaces, as text (on Windows: those its host name resolves to).
std::vector<std::string> interface_addresses() {
  std::vector<std::string> addresses;
#if defined(_WIN32)
  net::io_context io;
  tcp::resolver resolver(io);
  beast::error_code error;
  for (const auto& entry : resolver.resolve(net::ip::host_name(error), "", error))
    addresses.push_back(entry.endpoint().address().to_string());
#else
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return addresses;
  for (const ifaddrs* entry = list; entry; entry = entry->ifa_next) {
    if (!entry->ifa_addr) continue;
    if (entry->ifa_addr->sa_family == AF_INET) {
      const auto* ipv4 = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
      addresses.push_back(net::ip::make_address_v4(ntohl(ipv4->sin_addr.s_addr)).to_string());
    } else if (entry->ifa_addr->sa_family == AF_INET6) {
      const auto* ipv6 = reinterpret_cast<const sockaddr_in6*>(entry->ifa_addr);
      net::ip::address_v6::bytes_type bytes;
      std::copy(std::begin(ipv6->sin6_addr.s6_addr), std::end(ipv6->sin6_addr.s6_addr), bytes.begin());
      addresses.push_back(net::ip::make_address_v6(bytes).to_string());
    }
  }
  freeifaddrs(list);
#endif
  return addresses;
}

// The hosts as a Host header writes them: "127.0.0.1, localhost, [::1]".
std::string host_list(const std::vector<std::string>& hosts) {
  std::string text;
  for (const std::string& host : hosts)
    text += (text.empty() ? "" : ", ") + (host.find(':') != std::string::npos ? "[" + host + "]" : host);
  return text;
}

// Whether a frame came with the GPU's stripe hashes, one per stripe of its height; else take_source hashes
// it on the CPU.
bool has_stripe_hashes(const Image& image, const std::vector<uint64_t>& hashes) {
  return hashes.size() == static_cast<size_t>(kernels::stripe_count(image.height));
}

}  // namespace

std::vector<std::string> allowed_hosts(const ServeAddress& address) {
  std::vector<std::string> hosts = {lowercase(address.host)};
  const std::optional<net::ip::address> bound = address_of(address.host);
  const bool wildcard = bound && bound->is_unspecified();
  if (address.loopback() || wildcard)
    for (const char* name : {"localhost", "127.0.0.1", "::1"}) hosts.push_back(name);
  if (!address.loopback()) {
    beast::error_code error;
    const std::string name = net::ip::host_name(error);
    if (!error && !name.empty()) hosts.push_back(lowercase(name));
  }
  if (wildcard)
    for (const std::string& interface_address : interface_addresses()) hosts.push_back(interface_address);
  std::vector<std::string> unique;
  for (const std::string& host : hosts)
    if (std::find(unique.begin(), unique.end(), host) == unique.end()) unique.push_back(host);
  return unique;
}

std::vector<std::string> desk_urls(const ServeAddress& address, int port, const std::string& token,
                                   const std::string& host_name, const std::vector<std::string>& interfaces) {
  const auto url_of = [&](const std::string& host) {
    ServeAddress shown;
    shown.host = host;
    shown.port = port;
    return "http://" + shown.authority() + "/?token=" + token;
  };
  const std::optional<net::ip::address> bound = address_of(address.host);
  if (!bound || !bound->is_unspecified()) return {url_of(address.host)};
  std::vector<std::string> urls;
  if (!host_name.empty()) urls.push_back(url_of(lowercase(host_name)));
  for (const bool ipv4 : {true, false})
    for (const std::string& text : interfaces) {
      const std::optional<net::ip::address> each = address_of(text);
      if (!each || each->is_loopback() || each->is_unspecified() || each->is_v4() != ipv4) continue;
      if (each->is_v6() && (bound->is_v4() || each->to_v6().is_link_local() || each->to_v6().is_v4_mapped()))
        continue;
      const std::string url = url_of(each->to_string());
      if (std::find(urls.begin(), urls.end(), url) == urls.end()) urls.push_back(url);
    }
  if (urls.empty()) urls.push_back(url_of(bound->is_v4() ? "127.0.0.1" : "::1"));
  return urls;
}

bool host_allowed(const std::string& host, const std::vector<std::string>& allowed) {
  const std::string name = host_of(host);
  if (name.empty()) return false;
  const std::optional<net::ip::address> address = address_of(name);
  for (const std::string& each : allowed) {
    if (!address) {
      if (name == each) return true;
    } else if (const std::optional<net::ip::address> allowed_address = address_of(each)) {
      if (*address == *allowed_address) return true;
    }
  }
  return false;
}

bool origin_allowed(const std::string& origin, const std::string& host) {
  return origin.empty() || lowercase(origin) == "http://" + lowercase(host);
}

std::string random_token() {
  std::random_device random;
  std::string token;
  constexpr char kHex[] = "0123456789abcdef";
  for (int word = 0; word < 4; ++word) {
    const unsigned int bits = random();
    for (int nibble = 0; nibble < 8; ++nibble) token += kHex[(bits >> (4 * nibble)) & 0xf];
  }
  return token;
}

std::string page_with_token(const std::string& page, const std::string& token) {
  std::string tokened = page;
  for (const char* link : {"href=\"desk.css\"", "src=\"desk.js\""}) {
    const std::string plain(link);
    const size_t at = tokened.find(plain);
    if (at == std::string::npos) continue;
    tokened.replace(at, plain.size(), plain.substr(0, plain.size() - 1) + "?token=" + token + "\"");
  }
  return tokened;
}

bool token_matches(const std::string& given, const std::string& token) {
  if (token.empty() || given.size() != token.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < token.size(); ++i) difference |= static_cast<unsigned char>(given[i] ^ token[i]);
  return difference == 0;
}

std::string request_token(const std::string& target, const std::string& cookie_header) {
  if (const size_t query = target.find('?'); query != std::string::npos)
    if (std::optional<std::string> token = field_value(target.substr(query + 1), "token", '&')) return *token;
  return field_value(cookie_header, kCookieName, ';').value_or("");
}

// A frame of the app as the encoder took it, with its stripe hashes: what each viewer plans its next message
// from (app/serve/stripes.hpp).
struct SourceFrame {
  unsigned long long sequence = 0;  // 1, 2, ... in the order the encoder took them
  unsigned long long offer = 0;     // the offer_frame call it came from: 1, 2, ...
  std::shared_ptr<const Image> image;
  std::vector<uint64_t> hashes;  // kernels/stripe_hash.hpp's, one per stripe
  AppState state;
};

class WebSocketSession;

// One viewer's next message: the stripes it planned, encoded for it (runs of the same source, rows and
// quality that several viewers plan alike are encoded once).
struct EncodeJob {
  std::weak_ptr<WebSocketSession> viewer;
  std::shared_ptr<const SourceFrame> source;
  std::vector<StripeRun> runs;
};

struct EncodedFrame {
  std::shared_ptr<const SourceFrame> source;
  std::vector<uint8_t> message;  // protocol.hpp's frame message
  AppState state;                // the source's, with the encode in the desk's lane of its timeline
};

// A connection's place among ServerOptions::max_connections: taken when it is accepted, given back when its
// session (HTTP, then the WebSocket it became) ends.
class ConnectionSlot {
 public:
  explicit ConnectionSlot(std::atomic<int>& open) : m_open(&open) { ++*m_open; }
  ConnectionSlot(ConnectionSlot&& other) noexcept : m_open(std::exchange(other.m_open, nullptr)) {}
  ConnectionSlot(const ConnectionSlot&) = delete;
  ConnectionSlot& operator=(const ConnectionSlot&) = delete;
  ConnectionSlot& operator=(ConnectionSlot&&) = delete;
  ~ConnectionSlot() {
    if (m_open) --*m_open;
  }

 private:
  std::atomic<int>* m_open;
};

struct Server::Impl {
  explicit Impl(ServerOptions server_options);
  ~Impl();

  // On the Asio thread.
  void accept();
  // A connection just accepted: an HTTP session, or beyond max_connections a 503 and closed.
  void admit(tcp::socket socket);
  http::response<http::string_body> answer(const http::request<http::string_body>& request);
  bool authorized(const http::request<http::string_body>& request) const;
  // "" when `request` may be answered (or become a WebSocket), else the 403's text: a Host that is not the
  // desk's, no token, a WebSocket of another page's Origin.
  std::string refusal(const http::request<http::string_body>& request) const;
  void publish(std::shared_ptr<const SourceFrame> frame);
  void add_viewer(const std::shared_ptr<WebSocketSession>& viewer);
  std::string state_text(const AppState& state, bool with_notice, const LinkState* link,
                         bool with_settings) const {
    return state_json(state, desk_stats(), with_notice, link, with_settings);
  }
  // A viewer's planned stripes, for the encoder thread (any thread).
  void request_encode(EncodeJob job);
  // A page's message: "" when its commands were queued, else why not, for the page's error reply.
  std::string receive(const std::string& text);

  // On the encoder thread.
  void encode_loop();
  std::shared_ptr<SourceFrame> take_source(std::shared_ptr<const Image> image, AppState state,
                                           unsigned long long offer, std::vector<uint64_t> hashes);
  void encode(const EncodeJob& job);

  DeskStats desk_stats() const;

  ServerOptions options;
  int port = 0;
  std::vector<std::string> hosts;  // allowed_hosts(options.address)

  // The app thread's hand-over, under `mutex`.
  mutable std::mutex mutex;
  std::condition_variable offered;
  std::shared_ptr<const Image> pending_image;  // not yet taken by the encoder
  AppState pending_state;
  std::vector<uint64_t> pending_hashes;     // the GPU's, or empty
  unsigned long long pending_offer = 0;     // pending_image's offer_frame call: 1, 2, ...
  unsigned long long last_offer = 0;        // last_image's
  std::shared_ptr<const Image> last_image;  // the screenshot's
  long long last_frame = -1;
  AppState last_state;                // last_image's
  std::vector<uint64_t> last_hashes;  // last_image's GPU hashes, or empty
  bool last_unencoded = false;  // last_image came when nobody watched: the next viewer gets it (add_viewer)
  bool stopping = false;
  std::deque<Command> commands;
  std::deque<EncodeJob> jobs;
  PhaseWindow read_back_ms, hash_ms, encode_ms, send_ms;
  double fps_cap = 0.0;

  std::atomic<int> viewer_count{0};
  std::atomic<int> connection_count{0};  // ConnectionSlots held
  std::atomic<unsigned long long> frames_offered{0}, frames_encoded{0}, frames_sent{0}, frames_dropped{0};
  std::atomic<unsigned long long> messages_refused{0}, connections_refused{0}, accept_failures{0};
  std::atomic<size_t> most_in_flight{0};
  // frame_wanted's: the newest offer a viewer planned a message from (written on the Asio thread), and when
  // the newest was offered (steady_clock ticks, on the app's thread).
  std::atomic<unsigned long long> taken_offer{0};
  std::atomic<long long> offered_at{0};

  // Asio thread only.
  std::shared_ptr<const SourceFrame> latest;
  std::vector<std::weak_ptr<WebSocketSession>> viewers;

  StripEncoder encoder;
  // Encoder thread only: when the last frames were encoded on the host clock, for the timeline of the frame
  // a state message shows (a loop's timeline is of a frame some frames back).
  struct Encode {
    long long frame = -1;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  static constexpr size_t kEncodesKept = 16;  // as the desk's read-backs (app/serve/desk.hpp)
  std::deque<Encode> encodes;
  // Encoder thread only: the JPEGs of the source last encoded for, by rows, quality and scale, for the next
  // viewer that plans the same run.
  unsigned long long cached_source = 0;
  std::map<std::tuple<int, int, int, int>, std::vector<uint8_t>> cached_runs;
  // After everything the sessions touch: destroying the context destroys the sessions its pending handlers
  // hold, which still count themselves out of viewer_count. The acceptor goes before its context.
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  net::steady_timer accept_retry{io};
  std::thread encode_thread;
  std::thread io_thread;  // started last, joined in ~Impl
};

// A WebSocket viewer: its reads queue commands (or are its own acks and requests); its writes send its
// messages one at a time, always planned from the newest frame: a whole frame with its state while it does
// not ack, else the stripes that changed since what it holds (app/serve/stripes.hpp), paced by its acks
// (app/serve/link.hpp), its state with them at most kStateEvery and once a second while nothing changes.
class WebSocketSession : public std::enable_shared_from_this<WebSocketSession> {
 public:
  WebSocketSession(tcp::socket socket, ConnectionSlot slot, Server::Impl& server)
      : m_ws(std::move(socket)),
        m_slot(std::move(slot)),
        m_server(server),
        m_link(LinkOptions{server.options.jpeg_quality}),
        m_timer(m_ws.get_executor()) {}
  ~WebSocketSession() {
    if (m_open) --m_server.viewer_count;
  }

  void run(http::request<http::string_body> request) {
    m_request = std::move(request);
    websocket::stream_base::timeout timeout =
        websocket::stream_base::timeout::suggested(beast::role_type::server);
    timeout.handshake_timeout = m_server.options.request_timeout;
    timeout.idle_timeout = m_server.options.viewer_idle_timeout;
    timeout.keep_alive_pings = true;
    m_ws.set_option(timeout);
    m_ws.read_message_max(kMaxCommandBytes);
    m_ws.async_accept(m_request, beast::bind_front_handler(&WebSocketSession::on_accept, shared_from_this()));
  }

  // The first frame this viewer may get: the one of offer_frame call `offer` or a later one, not an older
  // frame encoded while someone else watched.
  void start_at_offer(unsigned long long offer) { m_first_offer = offer; }

  // A new frame, a reply, an encoded message, an ack or a due paint-over: whatever may go out now does.
  void send_next() {
    if (!m_open) return;
    const auto now = SteadyClock::now();
    if (!m_ready) plan(now);  // encoded while the last message is being written
    if (m_writing) return;
    if (!m_refusals.empty() || m_refusals_unlisted > 0) {
      // Every message refused since the last reply went out, in one reply.
      m_text = error_json(m_refusals, m_refusals_unlisted);
      m_refusals.clear();
      m_refusal_bytes = 0;
      m_refusals_unlisted = 0;
      write_text([](WebSocketSession& self) { self.send_next(); });
      return;
    }
    if (m_ready) {
      m_send_start = std::chrono::steady_clock::now();
      // The state before the frame: always for a viewer that does not ack (it reads them as pairs), else
      // when the last is old enough or the notice is news.
      const bool notice_is_news = m_ready->state.notice_serial != m_sent_notice;
      if (!m_paced || notice_is_news || now - m_state_sent >= kStateEvery) {
        m_state_sequence = m_ready->source->sequence;
        write_state(m_ready->state, notice_is_news, [](WebSocketSession& self) { self.write_frame(); });
      } else {
        write_frame();
      }
      return;
    }
    if (m_encoding || !m_paced || !m_planned) return;
    // Nothing changed: the state alone, once a second, so that the page's numbers move on. A Python viewer
    // serves a frame only when something changed, maybe only its state (the readout under the page's
    // cursor): that state goes out within kStateEvery.
    const bool news = m_planned->state.viewer && m_planned->sequence != m_state_sequence;
    const auto every = news ? kStateEvery : kStillStateEvery;
    if (now - m_state_sent >= every) {
      const bool notice_is_news = m_planned->state.notice_serial != m_sent_notice;
      m_state_sequence = m_planned->sequence;
      write_state(m_planned->state, notice_is_news, [](WebSocketSession& self) { self.send_next(); });
      return;
    }
    wake_at(m_state_sent + every);
  }

  // The message the encoder made of this viewer's plan.
  void encoded(std::shared_ptr<const EncodedFrame> frame) {
    m_encoding = false;
    m_ready = std::move(frame);
    send_next();
  }

 private:
  static constexpr std::chrono::milliseconds kStateEvery{200};
  static constexpr std::chrono::milliseconds kStillStateEvery{1000};

  // Plans a message from the newest frame when this viewer may have one: a newer frame, a due paint-over,
  // or a whole frame asked for; hands its stripes to the encoder.
  void plan(SteadyClock::time_point now) {
    const std::shared_ptr<const SourceFrame>& source = m_server.latest;
    if (m_encoding || !source || source->offer < m_first_offer) return;
    const bool newer = !m_planned || source->sequence != m_planned->sequence;
    if (newer && source->sequence != m_counted_sequence) {
      m_counted_sequence = source->sequence;
      m_link.offered(now);
    }
    const std::optional<SteadyClock::time_point> paint_over = m_book.next_paint_over();
    const bool painting = m_paced && paint_over && *paint_over <= now;
    if (!newer && !painting && !m_refresh) {
      if (m_paced && paint_over) wake_at(*paint_over);
      return;
    }
    if (m_paced && !m_link.may_send()) {
      m_link.waiting(true, now);  // an ack lets it go (on_read)
      return;
    }
    m_link.waiting(false, now);
    if (m_paced) {
      double fps_cap = 0;
      {
        const std::lock_guard<std::mutex> lock(m_server.mutex);
        fps_cap = m_server.fps_cap;
      }
      m_link.update(now, fps_cap);
    }
    if (!m_paced || m_refresh) m_book.forget();  // a viewer that does not ack gets every frame whole
    m_refresh = false;
    if (m_planned && source->sequence > m_planned->sequence + 1)
      m_server.frames_dropped += source->sequence - m_planned->sequence - 1;
    m_planned = source;
    if (source->offer > m_server.taken_offer) m_server.taken_offer = source->offer;  // written here only
    // A viewer that does not ack gets whole frames at scale 1; a new scale sends the whole picture again.
    const int quality = m_paced ? m_link.quality() : m_server.options.jpeg_quality;
    const int scale = m_paced ? m_link.scale() : 1;
    std::vector<StripeRun> runs = m_book.plan(source->hashes, source->image->width, source->image->height,
                                              quality, now, m_server.encoder.threads(), scale);
    if (runs.empty()) {
      m_link.up_to_date(now);
      if (const std::optional<SteadyClock::time_point> due = m_book.next_paint_over()) wake_at(*due);
      return;
    }
    m_encoding = true;
    m_server.request_encode({weak_from_this(), source, std::move(runs)});
  }

  // send_next() again at `when` (the earliest asked for wins; an earlier wake already set stays).
  void wake_at(SteadyClock::time_point when) {
    if (m_wake_armed && m_wake <= when) return;
    m_wake_armed = true;
    m_wake = when;
    m_timer.expires_at(when);
    m_timer.async_wait([self = shared_from_this()](beast::error_code error) {
      if (error) return;  // replaced by an earlier wake, or the server stopping
      self->m_wake_armed = false;
      self->send_next();
    });
  }

  void on_accept(beast::error_code error) {
    if (error) return;
    m_open = true;
    ++m_server.viewer_count;
    m_server.add_viewer(shared_from_this());
    read();
    send_next();
  }

  void read() {
    m_ws.async_read(m_read_buffer, beast::bind_front_handler(&WebSocketSession::on_read, shared_from_this()));
  }

  void on_read(beast::error_code error, size_t) {
    if (error) {
      close();
      return;
    }
    if (m_ws.got_text()) {
      const std::string text = beast::buffers_to_string(m_read_buffer.data());
      if (const std::optional<ViewerMessage> own = parse_viewer_message(text)) {
        if (own->kind == ViewerMessage::Kind::Ack) {
          m_paced = true;  // from its first ack on, changed stripes only, paced by its acks
          m_link.acknowledged(own->frame, SteadyClock::now());
        } else {
          m_refresh = true;
        }
      } else if (std::string refused = m_server.receive(text); !refused.empty()) {
        ++m_server.messages_refused;
        if (m_refusal_bytes + refused.size() <= kMaxRefusalBytes) {
          m_refusal_bytes += refused.size();
          m_refusals.push_back(std::move(refused));
        } else {
          ++m_refusals_unlisted;
        }
      }
    }
    m_read_buffer.consume(m_read_buffer.size());
    send_next();
    read();
  }

  LinkState link_state() const {
    const auto now = SteadyClock::now();
    return {m_paced ? m_link.quality() : m_server.options.jpeg_quality, m_paced ? m_link.scale() : 1,
            m_link.kbit_per_s(now), m_link.frames_per_s(now), m_paced};
  }

  template <class Then>
  void write_state(const AppState& state, bool notice_is_news, Then then) {
    // The notice once per viewer: in its first state after the desk's count of notices moved (a viewer new
    // to the desk gets the current one), not again in every state after it.
    m_sent_notice = state.notice_serial;
    const LinkState link = link_state();
    // The settings when they changed since the last state sent.
    const bool settings_are_news = !m_sent_settings || *m_sent_settings != state.settings;
    m_text = m_server.state_text(state, notice_is_news, &link, settings_are_news);
    m_sent_settings = state.settings;
    m_state_sent = SteadyClock::now();
    write_text(then);
  }

  template <class Then>
  void write_text(Then then) {
    m_writing = true;
    m_ws.text(true);
    m_ws.async_write(net::buffer(m_text), [self = shared_from_this(), then](beast::error_code error, size_t) {
      self->m_writing = false;
      if (error) return self->close();
      then(*self);
    });
  }

  void write_frame() {
    m_writing = true;
    m_sending = std::move(m_ready);
    ++m_in_flight;
    if (m_in_flight > m_server.most_in_flight) m_server.most_in_flight = m_in_flight;
    if (m_paced)
      m_link.sent(m_sending->message.size(), static_cast<unsigned int>(m_sending->source->state.frame),
                  SteadyClock::now());
    // The next message is encoded while this one is written: a frame that came while this one was encoded
    // (the usual case when the loop is faster than the encoder) would otherwise wait for the write's end,
    // so that encode and write took turns.
    plan(SteadyClock::now());
    m_ws.binary(true);
    m_ws.async_write(
        net::buffer(m_sending->message), [self = shared_from_this()](beast::error_code error, size_t) {
          self->m_writing = false;
          self->m_sending.reset();
          --self->m_in_flight;
          if (error) return self->close();
          ++self->m_server.frames_sent;
          {
            const std::lock_guard<std::mutex> lock(self->m_server.mutex);
            self->m_server.send_ms.push(static_cast<float>(milliseconds_since(self->m_send_start)));
          }
          self->send_next();
        });
  }

  void close() {
    if (!m_open) return;
    m_open = false;
    --m_server.viewer_count;
    beast::error_code ignored;
    m_timer.cancel(ignored);
  }

  websocket::stream<beast::tcp_stream> m_ws;
  ConnectionSlot m_slot;
  Server::Impl& m_server;
  http::request<http::string_body> m_request;  // the upgrade, alive until the handshake is answered
  beast::flat_buffer m_read_buffer;
  bool m_open = false;
  bool m_writing = false;
  // Why the page's messages since the last reply were refused (kMaxRefusalBytes of them; the rest counted).
  std::vector<std::string> m_refusals;
  size_t m_refusal_bytes = 0;
  unsigned long long m_refusals_unlisted = 0;
  unsigned long long m_first_offer = 0;  // start_at_offer's
  std::string m_text;                    // the text message being written
  // The frame: planned from m_planned, encoding, then ready to go out, then being written (one at a time).
  std::shared_ptr<const SourceFrame> m_planned;
  unsigned long long m_state_sequence = 0;  // the source frame whose state went out last
  bool m_encoding = false;
  std::shared_ptr<const EncodedFrame> m_ready;
  std::shared_ptr<const EncodedFrame> m_sending;
  size_t m_in_flight = 0;                          // frame messages begun and not completed
  unsigned long long m_counted_sequence = 0;       // the last source counted as offered to this viewer
  unsigned long long m_sent_notice = 0;            // the notice_serial of the last notice sent to this viewer
  std::optional<ControlSettings> m_sent_settings;  // the settings of the last state sent to this viewer
  std::chrono::steady_clock::time_point m_send_start;
  SteadyClock::time_point m_state_sent;
  bool m_paced = false;    // it acks: changed stripes only, paced by its acks
  bool m_refresh = false;  // it asked for a whole frame
  StripeBook m_book;
  LinkControl m_link;
  net::steady_timer m_timer;  // paint-overs and the still state fall due on it
  bool m_wake_armed = false;
  SteadyClock::time_point m_wake;
};

// One HTTP connection: requests answered in turn, or handed to a WebSocketSession on an upgrade.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, ConnectionSlot slot, Server::Impl& server)
      : m_stream(std::move(socket)), m_slot(std::move(slot)), m_server(server) {}

  void read() {
    m_parser.emplace();
    m_parser->body_limit(kMaxCommandBytes);
    // A request not in full by then (a client that connects and says nothing, or dribbles) is closed.
    m_stream.expires_after(m_server.options.request_timeout);
    http::async_read(m_stream, m_buffer, *m_parser,
                     beast::bind_front_handler(&HttpSession::on_read, shared_from_this()));
  }

 private:
  void on_read(beast::error_code error, size_t) {
    if (error) {
      beast::error_code ignored;
      m_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
      return;
    }
    http::request<http::string_body> request = m_parser->release();
    if (websocket::is_upgrade(request) && m_server.refusal(request).empty()) {
      m_stream.expires_never();
      std::make_shared<WebSocketSession>(m_stream.release_socket(), std::move(m_slot), m_server)
          ->run(std::move(request));
      return;
    }
    auto response = std::make_shared<http::response<http::string_body>>(m_server.answer(request));
    if (websocket::is_upgrade(request)) response->keep_alive(false);
    m_stream.expires_after(kResponseTimeout);
    http::async_write(m_stream, *response,
                      [self = shared_from_this(), response](beast::error_code failed, size_t) {
                        if (failed) return;
                        if (response->need_eof()) {
                          beast::error_code ignored;
                          self->m_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
                          return;
                        }
                        self->read();
                      });
  }

  beast::tcp_stream m_stream;
  ConnectionSlot m_slot;
  Server::Impl& m_server;
  beast::flat_buffer m_buffer;
  std::optional<http::request_parser<http::string_body>> m_parser;
};

Server::Impl::Impl(ServerOptions server_options)
    : options(std::move(server_options)), encoder(options.encode_threads, options.jpeg_quality) {
  if (options.token.empty()) options.token = random_token();
  hosts = allowed_hosts(options.address);
  const std::string where = options.address.authority();
  beast::error_code error;
  const net::ip::address address = net::ip::make_address(options.address.host, error);
  if (error)
    throw std::runtime_error("--serve " + where + ": " + options.address.host + " is not an IP address");
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(options.address.port));
  const auto fail = [&](const char* step) {
    throw std::runtime_error("--serve " + where + ": cannot " + step + ": " + error.message() +
                             (error == net::error::address_in_use ? "; pick another port (e.g. --serve 8081)"
                              : error == boost::system::errc::address_not_available
                                  ? "; give an address of this machine (127.0.0.1, or 0.0.0.0 for all)"
                                  : ""));
  };
  acceptor.open(endpoint.protocol(), error);
  if (error) fail("open a socket");
  acceptor.set_option(net::socket_base::reuse_address(true), error);
  acceptor.bind(endpoint, error);
  if (error) fail("listen");
  acceptor.listen(net::socket_base::max_listen_connections, error);
  if (error) fail("listen");
  port = acceptor.local_endpoint().port();
  accept();
  encode_thread = std::thread(&Impl::encode_loop, this);
  io_thread = std::thread([this] { io.run(); });
}

Server::Impl::~Impl() {
  {
    const std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  offered.notify_all();
  encode_thread.join();
  io.stop();
  io_thread.join();
}

void Server::Impl::accept() {
  acceptor.async_accept(io, [this](beast::error_code error, tcp::socket socket) {
    if (error == net::error::operation_aborted || !acceptor.is_open()) return;  // closed
    if (error) {
      // Out of file descriptors (EMFILE, ENFILE) or memory: the connection stays in the listen backlog. Try
      // again shortly: returning here would stop the desk accepting for good.
      ++accept_failures;
      accept_retry.expires_after(kAcceptRetry);
      accept_retry.async_wait([this](beast::error_code waited) {
        if (!waited) accept();
      });
      return;
    }
    admit(std::move(socket));
    accept();
  });
}

void Server::Impl::admit(tcp::socket socket) {
  if (connection_count >= options.max_connections) {
    ++connections_refused;
    const std::string text = "503: the desk has " + std::to_string(options.max_connections) +
                             " connections open, its most; close a page of it or try again shortly\n";
    const std::string reply =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Connection: close\r\nContent-Length: " +
        std::to_string(text.size()) + "\r\n\r\n" + text;
    // A fresh socket's send buffer takes the few bytes at once; without blocking, in any case.
    beast::error_code ignored;
    socket.non_blocking(true, ignored);
    socket.write_some(net::buffer(reply), ignored);
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
    return;
  }
  std::make_shared<HttpSession>(std::move(socket), ConnectionSlot(connection_count), *this)->read();
}

bool Server::Impl::authorized(const http::request<http::string_body>& request) const {
  return token_matches(
      request_token(std::string(request.target()), std::string(request[http::field::cookie])), options.token);
}

std::string Server::Impl::refusal(const http::request<http::string_body>& request) const {
  const std::string host(request[http::field::host]);
  if (!host_allowed(host, hosts))
    return "403: the Host " + (host.empty() ? std::string("(none)") : "\"" + host + "\"") +
           " is not a name of this desk, which answers to " + host_list(hosts) +
           "; open the URL interop-lab printed (a page that reaches the desk through another name is "
           "refused)";
  if (!authorized(request))
    return "403: this needs the desk's token: open the URL interop-lab printed when it started "
           "(http://HOST:PORT/?token=...)";
  if (websocket::is_upgrade(request)) {
    const std::string origin(request[http::field::origin]);
    if (!origin_allowed(origin, host))
      return "403: a WebSocket from the page of " + origin + " is not the desk's own page (http://" + host +
             "); open the URL interop-lab printed";
  }
  return "";
}

http::response<http::string_body> Server::Impl::answer(const http::request<http::string_body>& request) {
  http::response<http::string_body> response{http::status::ok, request.version()};
  response.set(http::field::server, "interop-lab");
  response.set(http::field::cache_control, "no-store");
  response.set("X-Content-Type-Options", "nosniff");
  response.keep_alive(request.keep_alive());
  const auto say = [&](http::status status, const std::string& text) {
    response.result(status);
    response.set(http::field::content_type, "text/plain; charset=utf-8");
    response.body() = text + "\n";
  };
  const std::string target(request.target());
  const std::string path = target.substr(0, target.find('?'));
  if (request.method() != http::verb::get) {
    say(http::status::method_not_allowed, "interop-lab's desk answers GET only");
  } else if (const std::string refused = refusal(request); !refused.empty()) {
    say(http::status::forbidden, refused);
  } else if (path == "/screenshot.png") {
    std::shared_ptr<const Image> image;
    long long frame = -1;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      image = last_image;
      frame = last_frame;
    }
    if (!image) {
      say(http::status::service_unavailable, "no frame yet; try again once the first frame is drawn");
    } else {
      const std::vector<uint8_t> png = encode_png(*image);
      response.set(http::field::content_type, "image/png");
      response.set(http::field::content_disposition,
                   "attachment; filename=\"interop-lab-frame-" + std::to_string(frame) + ".png\"");
      response.set("X-Interop-Lab-Frame", std::to_string(frame));
      response.body().assign(png.begin(), png.end());
    }
  } else if (path == "/controls.json") {
    response.set(http::field::content_type, "application/json");
    response.body() = control_table_json();
  } else if (const std::optional<DeskAsset> asset = desk_asset(path == "/" ? "index.html" : path.substr(1))) {
    response.set(http::field::content_type, asset->content_type);
    // The page's own requests (its script, its socket, the screenshot) carry the token as a cookie.
    // Inside another site's page (an iframe) the cookie is not sent: the page's links carry the token too.
    const bool page = path == "/" || path == "/index.html";
    if (page)
      response.set(http::field::set_cookie,
                   std::string(kCookieName) + "=" + options.token + "; Path=/; HttpOnly; SameSite=Strict");
    response.body() =
        page ? page_with_token(std::string(asset->body), options.token) : std::string(asset->body);
  } else {
    say(http::status::not_found,
        path + ": not part of interop-lab's desk (it serves /, /screenshot.png and /controls.json)");
  }
  response.prepare_payload();
  return response;
}

std::string Server::Impl::receive(const std::string& text) {
  if (!options.refuse_commands.empty() && options.accept_commands.empty()) return options.refuse_commands;
  std::vector<Command> parsed;
  if (std::string problem = parse_commands(text, parsed); !problem.empty()) {
    if (options.refuse_commands.empty()) return problem;
    // A malformed command this desk takes is told what is wrong with it; any other, why the desk takes none.
    const std::vector<std::string> keys = command_keys(text);
    const bool taken = !keys.empty() && std::all_of(keys.begin(), keys.end(), [&](const std::string& key) {
      const std::optional<Command::Kind> kind = control_named(key);
      return kind && std::find(options.accept_commands.begin(), options.accept_commands.end(), *kind) !=
                         options.accept_commands.end();
    });
    return taken ? problem : options.refuse_commands;
  }
  if (!options.refuse_commands.empty())
    for (const Command& command : parsed)
      if (std::find(options.accept_commands.begin(), options.accept_commands.end(), command.kind) ==
          options.accept_commands.end())
        return options.refuse_commands;
  const std::lock_guard<std::mutex> lock(mutex);
  if (commands.size() + parsed.size() > options.max_queued_commands)
    return "the app is " + std::to_string(commands.size()) +
           " commands behind; this one was dropped, send it again in a moment";
  commands.insert(commands.end(), parsed.begin(), parsed.end());
  return "";
}

void Server::Impl::publish(std::shared_ptr<const SourceFrame> frame) {
  latest = std::move(frame);
  std::vector<std::weak_ptr<WebSocketSession>> alive;
  for (const std::weak_ptr<WebSocketSession>& viewer : viewers)
    if (const std::shared_ptr<WebSocketSession> session = viewer.lock()) {
      session->send_next();
      alive.push_back(viewer);
    }
  viewers = std::move(alive);
}

void Server::Impl::add_viewer(const std::shared_ptr<WebSocketSession>& viewer) {
  viewers.push_back(viewer);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    // Its first frame is the app's newest: `latest` may be a frame taken while someone else watched, long
    // ago (the app went on drawing, unencoded, for nobody).
    viewer->start_at_offer(last_offer);
    // The last frame went unencoded, as nobody watched: offer it again, or a picture shown once (a Python
    // viewer's) would never reach a page opened after it.
    if (!last_unencoded || pending_image) return;
    last_unencoded = false;
    pending_image = last_image;
    pending_state = last_state;
    pending_offer = last_offer;
    pending_hashes = last_hashes;
  }
  offered.notify_one();
}

void Server::Impl::request_encode(EncodeJob job) {
  {
    const std::lock_guard<std::mutex> lock(mutex);
    jobs.push_back(std::move(job));
  }
  offered.notify_one();
}

std::shared_ptr<SourceFrame> Server::Impl::take_source(std::shared_ptr<const Image> image, AppState state,
                                                       unsigned long long offer,
                                                       std::vector<uint64_t> hashes) {
  auto source = std::make_shared<SourceFrame>();
  const auto start = std::chrono::steady_clock::now();
  // The GPU's hashes where they came and fit the frame; else the CPU's, the stripes shared among threads.
  const int stripes = kernels::stripe_count(image->height);
  if (!has_stripe_hashes(*image, hashes)) {
    hashes.assign(static_cast<size_t>(stripes), 0);
    const int workers = std::clamp(encoder.threads(), 1, std::max(1, stripes));
    std::vector<std::thread> helpers;
    const auto hash_share = [&](int worker) {
      const int first = stripes * worker / workers, end = stripes * (worker + 1) / workers;
      const int y = first * kernels::kStripeRows;
      const int rows = std::min(image->height, end * kernels::kStripeRows) - y;
      if (rows > 0)
        kernels::stripe_hashes_cpu(image->pixel(0, y), image->width, rows,
                                   static_cast<size_t>(image->width) * 4,
                                   &hashes[static_cast<size_t>(first)]);
    };
    for (int worker = 1; worker < workers; ++worker) helpers.emplace_back(hash_share, worker);
    hash_share(0);
    for (std::thread& helper : helpers) helper.join();
    const std::lock_guard<std::mutex> lock(mutex);
    hash_ms.push(static_cast<float>(milliseconds_since(start)));
  }
  source->sequence = ++frames_encoded;
  source->offer = offer;
  source->image = std::move(image);
  source->hashes = std::move(hashes);
  source->state = std::move(state);
  return source;
}

void Server::Impl::encode(const EncodeJob& job) {
  const SourceFrame& source = *job.source;
  const auto start = std::chrono::steady_clock::now();
  const int64_t start_ns = host_clock_ns();
  if (cached_source != source.sequence) {
    cached_source = source.sequence;
    cached_runs.clear();
  }
  // Runs at a smaller scale are downscaled from the frame by the encoder's workers, each its own rows.
  std::vector<StripEncoder::Part> parts;
  for (const StripeRun& run : job.runs)
    if (!cached_runs.count({run.y, run.rows, run.quality, run.scale}))
      parts.push_back({run.y, run.rows, run.quality, run.scale});
  auto frame = std::make_shared<EncodedFrame>();
  try {
    const std::vector<EncodedStrip> encoded = encoder.encode(*source.image, parts);
    for (size_t i = 0; i < parts.size(); ++i)
      cached_runs[{parts[i].y, parts[i].rows, parts[i].quality, parts[i].scale}] = encoded[i].jpeg;
    std::vector<EncodedStrip> strips;
    for (const StripeRun& run : job.runs)
      strips.push_back({run.y, run.rows, cached_runs[{run.y, run.rows, run.quality, run.scale}], run.scale});
    frame->message = frame_message(static_cast<unsigned long long>(source.state.frame), source.image->width,
                                   source.image->height, strips);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "interop-lab: desk: frame %lld not sent: %s\n", source.state.frame, error.what());
    cached_runs.clear();
    frame.reset();
  }
  if (frame) {
    // The encode of the frame the timeline shows, where that frame was encoded (this one, or one of the
    // last few; a frame superseded before the encoder took it has none), in the desk's lane.
    if (!parts.empty()) {
      if (encodes.size() == kEncodesKept) encodes.pop_front();
      encodes.push_back({source.state.frame, start_ns, host_clock_ns()});
      const std::lock_guard<std::mutex> lock(mutex);
      encode_ms.push(static_cast<float>(milliseconds_since(start)));
    }
    frame->source = job.source;
    frame->state = source.state;
    for (const Encode& each : encodes)
      if (each.frame == frame->state.timeline.frame)
        add_host_span(frame->state.timeline, Lane::Desk, "encode", each.start_ns, each.end_ns);
  }
  // A frame that failed goes to its viewer as nothing: it plans again from the next frame.
  net::post(io,
            [viewer = job.viewer, frame = std::shared_ptr<const EncodedFrame>(std::move(frame))]() mutable {
              if (const std::shared_ptr<WebSocketSession> session = viewer.lock())
                session->encoded(std::move(frame));
            });
}

void Server::Impl::encode_loop() {
  while (true) {
    std::shared_ptr<const Image> image;
    AppState state;
    unsigned long long offer = 0;
    std::vector<uint64_t> hashes;
    std::deque<EncodeJob> taken;
    {
      std::unique_lock<std::mutex> lock(mutex);
      offered.wait(lock, [this] { return stopping || pending_image || !jobs.empty(); });
      if (stopping) return;
      // The viewers waiting for their message first, then the newest frame.
      taken.swap(jobs);
      if (pending_image) {
        image = std::move(pending_image);
        state = std::move(pending_state);
        offer = pending_offer;
        hashes = std::move(pending_hashes);
        // Nobody to send it to: the frame stays the screenshot's, unencoded, until a viewer connects. Judged
        // under the lock that add_viewer takes after counting itself, so a viewer cannot slip in between.
        last_unencoded = viewer_count == 0 && image == last_image;
        if (viewer_count == 0) image.reset();
      }
    }
    // A frame that came without the GPU's stripe hashes (Vulkan's, GL's pixel-pack read) is hashed on a
    // thread of its own while the viewers' messages are encoded: the encoder thread then spends the longer
    // of the two on a frame, not their sum.
    std::future<std::shared_ptr<SourceFrame>> hashed;
    if (image && !taken.empty() && !has_stripe_hashes(*image, hashes))
      hashed = std::async(std::launch::async, [&] {
        return take_source(std::move(image), std::move(state), offer, std::move(hashes));
      });
    for (const EncodeJob& job : taken) encode(job);
    std::shared_ptr<const SourceFrame> source;
    if (hashed.valid())
      source = hashed.get();
    else if (image)
      source = take_source(std::move(image), std::move(state), offer, std::move(hashes));
    if (!source) continue;
    net::post(io, [this, source = std::move(source)]() mutable { publish(std::move(source)); });
  }
}

DeskStats Server::Impl::desk_stats() const {
  DeskStats stats;
  stats.viewers = viewer_count;
  stats.frames_encoded = frames_encoded;
  stats.frames_dropped = frames_dropped;
  const std::lock_guard<std::mutex> lock(mutex);
  stats.fps_cap = fps_cap;
  stats.phases = {phase_line("read-back", read_back_ms.stats()), phase_line("encode", encode_ms.stats()),
                  phase_line("send", send_ms.stats()), phase_line("hash", hash_ms.stats())};
  return stats;
}

Server::Server(ServerOptions options) : m_impl(std::make_unique<Impl>(std::move(options))) {}

Server::~Server() = default;

int Server::port() const {
  return m_impl->port;
}

const std::string& Server::token() const {
  return m_impl->options.token;
}

std::string Server::url() const {
  return urls().front();
}

std::vector<std::string> Server::urls() const {
  beast::error_code error;
  const std::string host_name = net::ip::host_name(error);
  return desk_urls(m_impl->options.address, m_impl->port, m_impl->options.token, error ? "" : host_name,
                   interface_addresses());
}

void Server::offer_frame(std::shared_ptr<const Image> image, AppState state,
                         std::vector<uint64_t> stripe_hashes) {
  if (!image) throw std::logic_error("serve::Server::offer_frame: no frame");
  const unsigned long long offer = ++m_impl->frames_offered;
  m_impl->offered_at = std::chrono::steady_clock::now().time_since_epoch().count();
  {
    const std::lock_guard<std::mutex> lock(m_impl->mutex);
    m_impl->last_image = image;
    m_impl->last_frame = state.frame;
    m_impl->last_state = state;
    m_impl->last_offer = offer;
    m_impl->last_hashes = stripe_hashes;
    m_impl->pending_image = std::move(image);  // an older one still waiting is skipped
    m_impl->pending_state = std::move(state);
    m_impl->pending_offer = offer;
    m_impl->pending_hashes = std::move(stripe_hashes);
  }
  m_impl->offered.notify_one();
}

bool Server::frame_wanted() const {
  // Nothing offered yet: the first frame is wanted at once (steady_clock's epoch may be the machine's boot,
  // so the time since "0" says nothing).
  const long long offered_at = m_impl->offered_at.load();
  if (offered_at == 0) return true;
  const std::chrono::steady_clock::duration since_offer =
      std::chrono::steady_clock::now().time_since_epoch() - std::chrono::steady_clock::duration(offered_at);
  if (m_impl->viewer_count == 0) return since_offer >= m_impl->options.unwatched_frame_every;
  if (m_impl->taken_offer >= m_impl->frames_offered) return true;
  return since_offer >= m_impl->options.frame_wanted_after;
}

void Server::add_read_back_ms(double ms) {
  const std::lock_guard<std::mutex> lock(m_impl->mutex);
  m_impl->read_back_ms.push(static_cast<float>(ms));
}

void Server::set_fps_cap(double fps) {
  const std::lock_guard<std::mutex> lock(m_impl->mutex);
  m_impl->fps_cap = fps;
}

std::vector<Command> Server::take_commands() {
  const std::lock_guard<std::mutex> lock(m_impl->mutex);
  std::vector<Command> taken(m_impl->commands.begin(), m_impl->commands.end());
  m_impl->commands.clear();
  return taken;
}

ServerCounts Server::counts() const {
  ServerCounts counts;
  counts.viewers = m_impl->viewer_count;
  counts.frames_offered = m_impl->frames_offered;
  counts.frames_encoded = m_impl->frames_encoded;
  counts.frames_sent = m_impl->frames_sent;
  counts.frames_dropped = m_impl->frames_dropped;
  counts.most_frames_in_flight = m_impl->most_in_flight;
  counts.messages_refused = m_impl->messages_refused;
  counts.connections = m_impl->connection_count;
  counts.connections_refused = m_impl->connections_refused;
  counts.accept_failures = m_impl->accept_failures;
  const std::lock_guard<std::mutex> lock(m_impl->mutex);
  counts.commands_queued = m_impl->commands.size();
  return counts;
}

DeskStats Server::desk_stats() const {
  return m_impl->desk_stats();
}

}  // namespace lab::serve
