// app/core/serve_address.cpp — parsing --serve [HOST:]PORT (app/core/serve_address.hpp). Names other than
// localhost are refused rather than resolved: what to bind must not depend on a name server.
#include "app/core/serve_address.hpp"

#include <algorithm>
#include <cctype>

namespace lab {

namespace {

constexpr const char* kExample = "e.g. 8080, 127.0.0.1:8080 or [::1]:8080";

// A decimal number of 1 to `digits` digits, or -1.
long parse_decimal(const std::string& text, size_t digits) {
  if (text.empty() || text.size() > digits) return -1;
  if (!std::all_of(text.begin(), text.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return -1;
  return std::stol(text);
}

bool is_ipv4(const std::string& host) {
  int parts = 0;
  size_t start = 0;
  while (true) {
    const size_t dot = host.find('.', start);
    const std::string part = host.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const long value = parse_decimal(part, 3);
    if (value < 0 || value > 255) return false;
    ++parts;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts == 4;
}

// Hex groups and colons with at most one "::" (and an IPv4 tail): the shape of an IPv6 address; the bind
// judges the rest.
bool looks_like_ipv6(const std::string& host) {
  if (host.size() < 2 || host.find(':') == std::string::npos) return false;
  if (!std::all_of(host.begin(), host.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
      }))
    return false;
  const size_t gap = host.find("::");
  return gap == std::string::npos || host.find("::", gap + 1) == std::string::npos;
}

}  // namespace

bool ServeAddress::loopback() const {
  return host.rfind("127.", 0) == 0 || host == "::1";
}

std::string ServeAddress::authority() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string parse_serve_address(const std::string& text, ServeAddress& address, bool any_free_port) {
  ServeAddress parsed;
  if (text.empty()) {
    address = parsed;
    return "";
  }
  std::string port_text = text;
  if (text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos)
      return "'" + text + "': an IPv6 address needs its closing ']' before :PORT (" + kExample + ")";
    if (close + 1 >= text.size() || text[close + 1] != ':')
      return "'" + text + "': needs :PORT after the IPv6 address (" + kExample + ")";
    parsed.host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
    if (!looks_like_ipv6(parsed.host))
      return "'" + parsed.host + "' is not an IPv6 address (" + kExample + ")";
  } else if (const size_t colon = text.rfind(':'); colon != std::string::npos) {
    if (text.find(':') != colon)
      return "'" + text + "': write an IPv6 address in brackets, [ADDRESS]:PORT (" + kExample + ")";
    parsed.host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (parsed.host == "localhost") parsed.host = "127.0.0.1";
    if (parsed.host.empty()) return "'" + text + "': the host before ':' is empty (" + kExample + ")";
    if (!is_ipv4(parsed.host))
      return "'" + parsed.host +
             "' is not a numeric IPv4 address: give the address to listen on (127.0.0.1 for this machine "
             "only, 0.0.0.0 for every interface), " +
             kExample;
  }
  const long port = parse_decimal(port_text, 5);
  const long lowest = any_free_port ? 0 : 1;
  if (port < lowest || port > 65535)
    return "'" + port_text + "' is not a port: give a whole number from " + std::to_string(lowest) +
           " to 65535" + (any_free_port ? " (0: any free port)" : "") + " (" + kExample + ")";
  parsed.port = static_cast<int>(port);
  address = parsed;
  return "";
}

}  // namespace lab
