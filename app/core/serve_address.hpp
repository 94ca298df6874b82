// app/core/serve_address.hpp — the address of --serve [HOST:]PORT: parsed and judged here, without a
// network call, so the command line rejects a bad one (exit 2) before anything starts; app/serve binds it.
#pragma once

#include <string>

namespace lab {

// Where the browser desk listens. Loopback by default: a port that anyone on the network could reach would
// let them drive the app (the token still guards it; app/serve warns when the host is not loopback).
struct ServeAddress {
  std::string host = "127.0.0.1";  // an IPv4 address, or an IPv6 one without its brackets
  int port = 8080;

  bool loopback() const;
  // "127.0.0.1:8080", "[::1]:8080": as a URL writes it.
  std::string authority() const;
};

// Parses "PORT", "HOST:PORT", "[IPV6]:PORT" or "" (the defaults) into `address`. HOST is a numeric IPv4
// address, a bracketed IPv6 one, or "localhost" (127.0.0.1); PORT is 1 to 65535. Returns "" or what is
// wrong with the text and an example of a good one (without the option's name). `any_free_port` also takes
// PORT 0, "any free port" (the bind picks one and the desk prints it): --serve 0 and the Python viewer's
// serve=0 take it.
std::string parse_serve_address(const std::string& text, ServeAddress& address, bool any_free_port = false);

}  // namespace lab
