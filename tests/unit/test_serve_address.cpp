// tests/unit/test_serve_address.cpp — --serve [HOST:]PORT: the address parser (app/core/serve_address.hpp)
// and the command line around it (app/cli/cli.cpp): defaults, each accepted form, each refusal with its
// reason, and the options --serve refuses. No network, no GPU.
#include "app/cli/cli.hpp"
#include "app/core/serve_address.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

lab::ParseResult parse(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"interop-lab"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return lab::parse_command_line(static_cast<int>(argv.size()), argv.data());
}

lab::ServeAddress parsed(const std::string& text) {
  lab::ServeAddress address;
  address.host = "unset";
  const std::string problem = lab::parse_serve_address(text, address);
  EXPECT_EQ(problem, "") << text;
  return address;
}

std::string refusal(const std::string& text) {
  lab::ServeAddress address;
  return lab::parse_serve_address(text, address);
}

TEST(ServeAddressTest, AcceptsEachForm) {
  EXPECT_EQ(parsed("").authority(), "127.0.0.1:8080");
  EXPECT_EQ(parsed("9000").authority(), "127.0.0.1:9000");
  EXPECT_EQ(parsed("0.0.0.0:80").authority(), "0.0.0.0:80");
  EXPECT_EQ(parsed("localhost:8081").host, "127.0.0.1");
  const lab::ServeAddress ipv6 = parsed("[::1]:65535");
  EXPECT_EQ(ipv6.host, "::1");
  EXPECT_EQ(ipv6.port, 65535);
  EXPECT_EQ(ipv6.authority(), "[::1]:65535");
}

TEST(ServeAddressTest, KnowsLoopback) {
  EXPECT_TRUE(parsed("127.0.0.1:1").loopback());
  EXPECT_TRUE(parsed("127.1.2.3:1").loopback());
  EXPECT_TRUE(parsed("[::1]:1").loopback());
  EXPECT_FALSE(parsed("0.0.0.0:1").loopback());
  EXPECT_FALSE(parsed("192.168.1.4:1").loopback());
  EXPECT_FALSE(parsed("[::]:1").loopback());
}

TEST(ServeAddressTest, RefusesBadOnesWithTheReason) {
  EXPECT_NE(refusal("0").find("from 1 to 65535"), std::string::npos);
  EXPECT_NE(refusal("65536").find("from 1 to 65535"), std::string::npos);
  EXPECT_NE(refusal("http").find("not a port"), std::string::npos);
  EXPECT_NE(refusal("127.0.0.1:").find("not a port"), std::string::npos);
  EXPECT_NE(refusal(":8080").find("host before ':' is empty"), std::string::npos);
  EXPECT_NE(refusal("example.com:8080").find("not a numeric IPv4 address"), std::string::npos);
  EXPECT_NE(refusal("256.0.0.1:8080").find("not a numeric IPv4 address"), std::string::npos);
  EXPECT_NE(refusal("1.2.3:8080").find("not a numeric IPv4 address"), std::string::npos);
  EXPECT_NE(refusal("::1:8080").find("in brackets"), std::string::npos);
  EXPECT_NE(refusal("[::1:8080").find("closing ']'"), std::string::npos);
  EXPECT_NE(refusal("[::1]8080").find("needs :PORT"), std::string::npos);
  EXPECT_NE(refusal("[zz::1]:8080").find("not an IPv6 address"), std::string::npos);
  EXPECT_NE(refusal("[1::2::3]:8080").find("not an IPv6 address"), std::string::npos);
}

// The Python viewer's serve=0: port 0 asks the bind for any free port; every other rule is the CLI's.
TEST(ServeAddressTest, AnyFreePortTakesPortZeroOnlyWhenAsked) {
  lab::ServeAddress address;
  EXPECT_EQ(lab::parse_serve_address("0", address, true), "");
  EXPECT_EQ(address.authority(), "127.0.0.1:0");
  EXPECT_EQ(lab::parse_serve_address("[::1]:0", address, true), "");
  EXPECT_EQ(address.authority(), "[::1]:0");
  EXPECT_NE(lab::parse_serve_address("65536", address, true).find("from 0 to 65535 (0: any free port)"),
            std::string::npos);
  EXPECT_NE(lab::parse_serve_address("example.com:0", address, true).find("not a numeric IPv4 address"),
            std::string::npos);
  EXPECT_NE(refusal("0").find("from 1 to 65535 ("), std::string::npos);
}

TEST(ServeCliTest, ServeAloneServesOnLoopbackHeadless) {
  const lab::ParseResult result = parse({"--api", "vulkan", "--serve"});
  ASSERT_FALSE(result.exit_code.has_value()) << result.output;
  ASSERT_TRUE(result.options.serve.has_value());
  EXPECT_EQ(result.options.serve->authority(), "127.0.0.1:8080");
  EXPECT_TRUE(result.options.headless);
}

// An empty value is refused like every other option's (an unset shell variable must not quietly mean the
// default); --serve alone, or before another option, is the default.
TEST(ServeCliTest, AnEmptyAddressIsAUsageErrorWithAnExample) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--serve", ""}, std::vector<std::string>{"--api", "vulkan", "--serve", ""},
        std::vector<std::string>{"--serve", "", "--mode", "cpu"}}) {
    const lab::ParseResult result = parse(args);
    ASSERT_EQ(result.exit_code, 2) << "accepted: " << testing::PrintToString(args);
    EXPECT_EQ(result.output.substr(0, result.output.find('\n')),
              "interop-lab: --serve '': give a port or HOST:PORT, e.g. --serve 8080 (--serve alone serves on "
              "127.0.0.1:8080)");
  }
  const lab::ParseResult before_another = parse({"--serve", "--mode", "cpu"});
  ASSERT_FALSE(before_another.exit_code.has_value()) << before_another.output;
  EXPECT_EQ(before_another.options.serve->authority(), "127.0.0.1:8080");
}

TEST(ServeCliTest, TakesAnAddress) {
  const lab::ParseResult result = parse({"--api", "vulkan", "--serve", "0.0.0.0:9001", "--mode", "cpu"});
  ASSERT_FALSE(result.exit_code.has_value()) << result.output;
  EXPECT_EQ(result.options.serve->authority(), "0.0.0.0:9001");
}

// --serve 0: any free port, as the Python viewer's serve=0 (the desk prints the port the bind took).
TEST(ServeCliTest, PortZeroIsAnyFreePort) {
  for (const char* value : {"0", "127.0.0.1:0", "[::1]:0"}) {
    const lab::ParseResult result = parse({"--api", "vulkan", "--serve", value});
    ASSERT_FALSE(result.exit_code.has_value()) << value << ": " << result.output;
    EXPECT_EQ(result.options.serve->port, 0) << value;
  }
  const lab::ParseResult too_high = parse({"--api", "vulkan", "--serve", "65536"});
  ASSERT_EQ(too_high.exit_code, 2);
  EXPECT_NE(too_high.output.find("from 0 to 65535 (0: any free port)"), std::string::npos) << too_high.output;
}

TEST(ServeCliTest, BenchServeMeasuresTheDesk) {
  const lab::ParseResult result = parse({"--api", "vulkan", "--bench", "--serve", "--sizes", "64x48"});
  ASSERT_FALSE(result.exit_code.has_value()) << result.output;
  EXPECT_TRUE(result.options.bench);
  EXPECT_TRUE(result.options.serve.has_value());
}

TEST(ServeCliTest, WithoutServeThereIsNone) {
  const lab::ParseResult result = parse({"--api", "vulkan", "--headless"});
  EXPECT_FALSE(result.options.serve.has_value());
}

void expect_usage_error(const std::vector<std::string>& args, const std::string& says) {
  const lab::ParseResult result = parse(args);
  ASSERT_TRUE(result.exit_code.has_value()) << "accepted: " << args.back();
  EXPECT_EQ(*result.exit_code, 2);
  EXPECT_NE(result.output.find(says), std::string::npos) << result.output;
}

TEST(ServeCliTest, RefusesWhatCannotBeServed) {
  expect_usage_error({"--serve", "99999"}, "--serve '99999' is not a port");
  expect_usage_error({"--serve", "example.com:80"}, "--serve 'example.com' is not a numeric IPv4 address");
  expect_usage_error({"--api", "d3d11", "--serve"}, "Direct3D 11 has no desk");
  expect_usage_error({"--api", "d3d12", "--serve", "8080"}, "Direct3D 12 has no desk");
  expect_usage_error({"--serve", "--bench", "--bench-window"}, "drop --bench-window");
  expect_usage_error({"--api", "vulkan", "--serve", "--bench", "--json", "b.json"}, "prints its table only");
  expect_usage_error({"--api", "vulkan", "--serve", "--vsync", "on"}, "drop --vsync");
  expect_usage_error({"--api", "vulkan", "--serve", "--screenshot-dir", "."}, "drop --screenshot-dir");
  expect_usage_error({"--doctor", "--serve"}, "--serve does nothing with --doctor");
}

}  // namespace
