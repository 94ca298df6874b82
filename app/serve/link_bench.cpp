// app/serve/link_bench.cpp — the desk over a slow link (app/serve/link_bench.hpp): a Server on 127.0.0.1, a
// relay that passes the server's bytes on at the link's rate (its socket's receive buffer kept small, so
// that the server's writes feel the link rather than a kernel buffer), and a Boost.Beast page behind it that
// acks each frame message.
#include "app/serve/link_bench.hpp"

#include "app/core/text.hpp"
#include "app/serve/beast.hpp"
#include "app/serve/protocol.hpp"
#include "app/serve/server.hpp"

#include <memory>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace lab::serve {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kDistinctFrames = 12;
constexpr std::chrono::milliseconds kMoving{5000}, kMovingMeasured{3000};
constexpr std::chrono::milliseconds kStill{3000}, kStillMeasured{1500};

// One connection relayed: the server's bytes to the client at `bits_per_s`, the client's to the server at
// once. Its threads end when either side closes (or close() shuts both down).
class SlowLink {
 public:
  SlowLink(int server_port, double bits_per_s) : m_bits_per_s(bits_per_s) {
    m_acceptor.open(tcp::v4());
    m_acceptor.bind(tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    m_acceptor.listen();
    m_thread = std::thread([this, server_port] {
      beast::error_code error;
      m_acceptor.accept(m_client, error);
      if (error) return;
      m_server.open(tcp::v4(), error);
      m_server.set_option(net::socket_base::receive_buffer_size(64 * 1024), error);
      m_server.connect(
          tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server_port)), error);
      if (error) return;
      std::thread upward([this] { pass(m_client, m_server, 0); });
      pass(m_server, m_client, m_bits_per_s);
      upward.join();
    });
  }
  ~SlowLink() { close(); }
  SlowLink(const SlowLink&) = delete;
  SlowLink& operator=(const SlowLink&) = delete;

  int port() const { return m_acceptor.local_endpoint().port(); }
  void close() {
    beast::error_code ignored;
    m_acceptor.close(ignored);
    m_client.shutdown(tcp::socket::shutdown_both, ignored);
    m_server.shutdown(tcp::socket::shutdown_both, ignored);
    if (m_thread.joinable()) m_thread.join();
  }

 private:
  // Copies `from` to `to`, at `bits_per_s` (0: at once), until one side closes.
  static void pass(tcp::socket& from, tcp::socket& to, double bits_per_s) {
    std::vector<char> chunk(16 * 1024);
    const Clock::time_point start = Clock::now();
    double passed = 0;
    beast::error_code error;
    while (true) {
      const size_t got = from.read_some(net::buffer(chunk), error);
      if (error) break;
      net::write(to, net::buffer(chunk.data(), got), error);
      if (error) break;
      passed += static_cast<double>(got);
      if (bits_per_s > 0)
        std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(passed * 8 / bits_per_s)));
    }
    to.shutdown(tcp::socket::shutdown_send, error);
  }

  double m_bits_per_s;
  net::io_context m_io;
  tcp::acceptor m_acceptor{m_io};
  tcp::socket m_client{m_io};
  tcp::socket m_server{m_io};
  std::thread m_thread;
};

// The page: reads every message, acks each frame message, records when what arrived.
struct AckingClient {
  struct Arrival {
    Clock::time_point at;
    size_t bytes = 0;
    bool frame = false;
  };
  net::io_context io;
  websocket::stream<tcp::socket> ws{io};
  std::mutex mutex;
  std::vector<Arrival> arrivals;
  struct Look {
    Clock::time_point at;
    int quality = 0;
    int scale = 1;
  };
  std::vector<Look> looks;  // the quality and scale of the states' "link"
  std::thread reader;

  AckingClient(int port, const std::string& token) {
    ws.next_layer().connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
    ws.read_message_max(1ull << 30);
    ws.handshake("127.0.0.1", "/?token=" + token);
    reader = std::thread([this] { read(); });
  }
  ~AckingClient() {
    if (reader.joinable()) reader.join();
  }

  void read() {
    beast::error_code error;
    while (true) {
      beast::flat_buffer buffer;
      ws.read(buffer, error);
      if (error) return;
      const Clock::time_point at = Clock::now();
      const std::string bytes = beast::buffers_to_string(buffer.data());
      if (ws.got_text()) {
        const nlohmann::json state = nlohmann::json::parse(bytes, nullptr, false);
        const std::lock_guard<std::mutex> lock(mutex);
        arrivals.push_back({at, bytes.size(), false});
        if (state.is_object() && state.contains("link"))
          looks.push_back({at, state["link"].value("quality", 0), state["link"].value("scale", 1)});
        continue;
      }
      std::string why;
      const std::optional<FrameMessage> frame =
          parse_frame_message(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), why);
      if (!frame) return;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        arrivals.push_back({at, bytes.size(), true});
      }
      ws.text(true);
      ws.write(net::buffer(nlohmann::json{{"ack", frame->index}}.dump()), error);
      if (error) return;
    }
  }

  // Frame messages, all bytes and frame bytes that arrived in [from, to).
  struct Window {
    size_t frames = 0, bytes = 0, frame_bytes = 0;
  };
  Window between(Clock::time_point from, Clock::time_point to) {
    const std::lock_guard<std::mutex> lock(mutex);
    Window window;
    for (const Arrival& arrival : arrivals)
      if (arrival.at >= from && arrival.at < to) {
        window.bytes += arrival.bytes;
        if (arrival.frame) {
          ++window.frames;
          window.frame_bytes += arrival.bytes;
        }
      }
    return window;
  }
};

double seconds_of(Clock::duration duration) {
  return std::chrono::duration<double>(duration).count();
}

// A scale as the rows print it: "1", "1/2", "1/4".
std::string scale_text(int divisor) {
  return divisor <= 1 ? "1" : "1/" + std::to_string(divisor);
}

}  // namespace

LinkBenchCase bench_desk_link(Extent size, double link_bits_per_s, double fps, long long first_index,
                              const RenderAndRead& render) {
  std::vector<std::shared_ptr<const Image>> frames;
  for (long long index = first_index; static_cast<int>(frames.size()) < kDistinctFrames; ++index) {
    if (index > first_index + kDistinctFrames + 2)
      throw std::logic_error("--bench --serve: the link rows got no frames back from the renderer");
    double read_back_ms = 0;
    if (std::optional<BenchFrame> frame = render(index, {[] { return true; }, true}, read_back_ms))
      frames.push_back(std::move(frame->image));
  }

  ServerOptions options;
  options.address.port = 0;
  Server server(options);
  server.set_fps_cap(fps);
  SlowLink link(server.port(), link_bits_per_s);
  LinkBenchCase result;
  result.size = size;
  result.link_mbit_per_s = link_bits_per_s / 1e6;
  result.asked_fps = fps;
  {
    AckingClient page(link.port(), server.token());
    while (server.counts().viewers == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const Clock::duration period =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1 / fps));
    long long index = first_index;
    // Offers frames (the next distinct one each time, or `still`'s) at `fps` for `how_long`.
    const auto offer_for = [&](std::chrono::milliseconds how_long,
                               const std::shared_ptr<const Image>* still) {
      const Clock::time_point start = Clock::now();
      for (Clock::time_point next = start; next < start + how_long; next += period) {
        std::this_thread::sleep_until(next);
        AppState state;
        state.frame = index;
        state.size = size;
        server.offer_frame(still ? *still : frames[static_cast<size_t>(index % kDistinctFrames)], state);
        ++index;
      }
      return start;
    };
    const Clock::time_point moving = offer_for(kMoving, nullptr);
    const Clock::time_point moved = moving + kMoving;
    const AckingClient::Window fast = page.between(moved - kMovingMeasured, moved);
    result.moving_fps = static_cast<double>(fast.frames) / seconds_of(kMovingMeasured);
    result.moving_kbit_per_s = static_cast<double>(fast.bytes) * 8 / 1000 / seconds_of(kMovingMeasured);
    const std::shared_ptr<const Image> last = frames[static_cast<size_t>((index - 1) % kDistinctFrames)];
    const Clock::time_point still = offer_for(kStill, &last);
    const Clock::time_point stilled = still + kStill;
    const AckingClient::Window quiet = page.between(stilled - kStillMeasured, stilled);
    result.still_kib_per_s = static_cast<double>(quiet.bytes) / 1024 / seconds_of(kStillMeasured);
    result.still_paint_kib =
        static_cast<double>(page.between(still, stilled - kStillMeasured).frame_bytes) / 1024;
    {
      const std::lock_guard<std::mutex> lock(page.mutex);
      result.quality_low = 100;
      for (const AckingClient::Look& look : page.looks)
        if (look.at >= moving && look.at < moved) {
          result.quality_low = std::min(result.quality_low, look.quality);
          result.quality_last = look.quality;
          result.scale_most = std::max(result.scale_most, look.scale);
          result.scale_last = look.scale;
        }
      if (result.quality_last == 0) result.quality_low = 0;
    }
    link.close();  // the page's read ends
  }
  return result;
}

std::string link_bench_table(const std::vector<LinkBenchCase>& cases) {
  std::string table;
  char line[320];
  for (const LinkBenchCase& result : cases) {
    std::snprintf(line, sizeof line,
                  "over a %.0f Mbit/s link, %s at %.0f frames/s asked: moving %.1f frames/s at quality %d, "
                  "scale %s (lowest %d, smallest scale %s), %.0f kbit/s; still, after its paint-over (%.0f "
                  "KiB): %.2f KiB/s\n",
                  result.link_mbit_per_s, size_text(result.size.width, result.size.height).c_str(),
                  result.asked_fps, result.moving_fps, result.quality_last,
                  scale_text(result.scale_last).c_str(), result.quality_low,
                  scale_text(result.scale_most).c_str(), result.moving_kbit_per_s, result.still_paint_kib,
                  result.still_kib_per_s);
    table += line;
  }
  return table;
}

}  // namespace lab::serve
