// app/serve/beast.hpp — the Boost.Beast and Asio names the desk's server (server.cpp) and its benchmarks
// (desk_bench.cpp, link_bench.cpp) write: the WebSocket stream over a TCP socket. Included by those .cpp
// files only.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

namespace lab::serve {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

}  // namespace lab::serve
