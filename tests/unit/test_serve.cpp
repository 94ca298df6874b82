// tests/unit/test_serve.cpp — the browser desk's library (app/serve) without a GPU and without the app: the
// token, the page's commands and the state, JPEG strips (layout, round trip, assembly), and a real server on
// a loopback port driven by a Boost.Beast client: the page, 403 without the token, the WebSocket's state and
// frame, a command queued for the app, the screenshot, and a slow viewer that skips frames. Against hostile
// pages and clients: a Host not the desk's (DNS rebinding), a WebSocket of another page's Origin, more
// connections than the cap, a silent connection, the process out of file descriptors, an oversize frame,
// a burst of bad commands, and a viewer's first frame after nobody watched.
#include "app/image/image_io.hpp"
#include "app/serve/assets.hpp"
#include "app/serve/jpeg.hpp"
#include "app/serve/protocol.hpp"
#include "app/serve/server.hpp"
#include "kernels/stripe_hash.hpp"

#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

#include <gtest/gtest.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/host_name.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using lab::Image;
using lab::serve::Command;

// A smooth computed image (gradients and waves): what JPEG keeps within a few levels.
Image gradient_image(int width, int height) {
  Image image{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 4)};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      uint8_t* pixel = &image.rgba[(static_cast<size_t>(y) * width + x) * 4];
      pixel[0] = static_cast<uint8_t>(255 * x / std::max(1, width - 1));
      pixel[1] = static_cast<uint8_t>(255 * y / std::max(1, height - 1));
      pixel[2] = static_cast<uint8_t>(128 + 100 * std::sin(x / 23.0) * std::cos(y / 31.0));
      pixel[3] = 255;
    }
  return image;
}

// Noise: as large a JPEG as an image of its size makes, so a few frames fill any socket's buffers.
Image noise_image(int width, int height, unsigned seed) {
  Image image{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 4)};
  std::mt19937 random(seed);
  for (uint8_t& byte : image.rgba) byte = static_cast<uint8_t>(random());
  return image;
}

struct Difference {
  int largest = 0;
  double mean = 0;
};

Difference difference(const Image& a, const Image& b) {
  Difference result;
  double sum = 0;
  size_t count = 0;
  for (size_t i = 0; i < a.rgba.size(); ++i) {
    if (i % 4 == 3) continue;  // JPEG has no alpha: decoded as opaque
    const int delta = std::abs(int(a.rgba[i]) - int(b.rgba[i]));
    result.largest = std::max(result.largest, delta);
    sum += delta;
    ++count;
  }
  result.mean = sum / static_cast<double>(count);
  return result;
}

// Polls `done` until it holds or 20 s have passed (a bound for a hung server, not a measurement).
bool eventually(const std::function<bool()>& done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// A control the table draws by its Group (a Switch, an Action, a Choice or a Number) needs no line of the
// page's own: the app's page offers it, the control table says its widget, group, options or range, and its
// state is in the settings.
TEST(ServeProtocolTest, TheTablesGroupedControlsReachThePageWithTheirState) {
  using Kind = lab::Command::Kind;
  const std::vector<std::string> offered = lab::serve::app_controls();
  const nlohmann::json table = nlohmann::json::parse(lab::serve::control_table_json());
  lab::serve::AppState app;
  app.settings.states[static_cast<size_t>(Kind::Graph)] = lab::switch_state(false, "no graph form here");
  app.settings.states[static_cast<size_t>(Kind::Pause)] = lab::switch_state(true);
  app.settings.states[static_cast<size_t>(Kind::SplitCopy)] = lab::choice_state("host", "not the split mode");
  app.settings.states[static_cast<size_t>(Kind::Fps)] = lab::number_state(24.0);
  const nlohmann::json state = nlohmann::json::parse(lab::serve::state_json(app, lab::serve::DeskStats{}));
  int grouped = 0;
  for (const lab::Control& control : lab::all_controls()) {
    const nlohmann::json& row = table["controls"][static_cast<size_t>(control.kind)];
    EXPECT_EQ(row["key"], control.key);
    EXPECT_EQ(row["widget"], lab::to_string(control.widget)) << control.key;
    EXPECT_EQ(row["group"], lab::to_string(control.group)) << control.key;
    EXPECT_EQ(control.widget == lab::Widget::Choice, control.options != nullptr)
        << control.key << ": a Choice, and only a Choice, names its options";
    if (control.widget == lab::Widget::Switch) {
      EXPECT_TRUE(state["settings"]["switches"].contains(control.key)) << control.key;
    }
    if (control.widget == lab::Widget::Choice) {
      EXPECT_TRUE(state["settings"]["choices"].contains(control.key)) << control.key;
      EXPECT_EQ(row["options"], nlohmann::json(control.options())) << control.key;
    }
    if (control.widget == lab::Widget::Number) {
      EXPECT_TRUE(state["settings"]["numbers"].contains(control.key)) << control.key;
      EXPECT_EQ(row["range"]["high"], control.high) << control.key;
    }
    if (control.group == lab::Group::None || control.not_on_page) continue;
    ++grouped;
    EXPECT_NE(std::find(offered.begin(), offered.end(), control.key), offered.end()) << control.key;
  }
  EXPECT_EQ(grouped, 8) << "fps, split_copy, semaphores, graph, timing, pause, step, picture_fit";
  EXPECT_EQ(state["settings"]["switches"]["graph"]["why_not"], "no graph form here");
  EXPECT_EQ(state["settings"]["switches"]["pause"]["on"], true);
  EXPECT_EQ(state["settings"]["switches"]["timing"]["on"], false);
  EXPECT_EQ(state["settings"]["choices"]["split_copy"]["value"], "host");
  EXPECT_EQ(state["settings"]["choices"]["split_copy"]["why_not"], "not the split mode");
  EXPECT_EQ(table["controls"][static_cast<size_t>(Kind::SplitCopy)]["options"],
            nlohmann::json::array({"peer", "host"}));
  EXPECT_EQ(state["settings"]["numbers"]["fps"]["value"], 24.0);
  EXPECT_EQ(table["controls"][static_cast<size_t>(Kind::Fps)]["range"]["zero"], "none");
}

TEST(ServeTokenTest, RandomTokensAre128BitsOfHex) {
  const std::string first = lab::serve::random_token();
  const std::string second = lab::serve::random_token();
  EXPECT_EQ(first.size(), 32u);
  EXPECT_EQ(first.find_first_not_of("0123456789abcdef"), std::string::npos) << first;
  EXPECT_NE(first, second);
}

TEST(ServeTokenTest, MatchesOnlyTheToken) {
  EXPECT_TRUE(lab::serve::token_matches("abc123", "abc123"));
  EXPECT_FALSE(lab::serve::token_matches("abc124", "abc123"));
  EXPECT_FALSE(lab::serve::token_matches("abc12", "abc123"));
  EXPECT_FALSE(lab::serve::token_matches("", ""));  // no token configured admits nobody
}

TEST(ServeTokenTest, ComesFromTheQueryOrTheCookie) {
  using lab::serve::request_token;
  EXPECT_EQ(request_token("/?token=abc", ""), "abc");
  EXPECT_EQ(request_token("/screenshot.png?x=1&token=def", ""), "def");
  EXPECT_EQ(request_token("/desk.js", "theme=dark; interop_lab_token=ghi"), "ghi");
  EXPECT_EQ(request_token("/?token=abc", "interop_lab_token=ghi"), "abc");
  EXPECT_EQ(request_token("/desk.js", "other=1"), "");
  EXPECT_EQ(request_token("/?tokens=abc", ""), "");
}

TEST(ServeProtocolTest, ParsesEachCommand) {
  std::vector<Command> commands;
  ASSERT_EQ(lab::serve::parse_commands(R"({"scene":"pattern"})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"mode":"staging"})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"size":[640,360]})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"fps":30})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"map_flags":"read-only"})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"register_flags":"best"})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"device":1})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"filter":"blur"})", commands), "");
  ASSERT_EQ(commands.size(), 8u);
  EXPECT_EQ(commands[4].kind, Command::Kind::MapFlags);
  EXPECT_EQ(commands[4].access, std::optional<interop::Access>(interop::Access::ReadOnly));
  EXPECT_EQ(commands[5].kind, Command::Kind::RegisterFlags);
  EXPECT_FALSE(commands[5].access.has_value());  // "best": each resource's own
  EXPECT_EQ(commands[6].kind, Command::Kind::Device);
  EXPECT_EQ(commands[6].device, 1);
  EXPECT_EQ(commands[7].kind, Command::Kind::Filter);
  EXPECT_EQ(commands[7].filter, kernels::Filter::Blur);
  EXPECT_EQ(commands[0].kind, Command::Kind::Scene);
  EXPECT_EQ(commands[0].scene, lab::SceneId::Pattern);
  EXPECT_EQ(commands[1].kind, Command::Kind::Mode);
  EXPECT_EQ(commands[1].mode, lab::ModeId::Staging);
  EXPECT_EQ(commands[2].kind, Command::Kind::Size);
  EXPECT_EQ(commands[2].size, (lab::Extent{640, 360}));
  EXPECT_EQ(commands[3].kind, Command::Kind::Fps);
  EXPECT_EQ(commands[3].number, 30.0);
}

TEST(ServeProtocolTest, RefusesBadCommandsWithTheReasonAndQueuesNothing) {
  const auto refusal = [](const std::string& text) {
    std::vector<Command> commands;
    const std::string problem = lab::serve::parse_commands(text, commands);
    EXPECT_TRUE(commands.empty()) << text;
    return problem;
  };
  EXPECT_NE(refusal("{").find("not JSON"), std::string::npos);
  EXPECT_NE(refusal("[1]").find("expected an object"), std::string::npos);
  EXPECT_NE(refusal(R"({"scene":"nope"})").find("choose wave"), std::string::npos);
  EXPECT_NE(refusal(R"({"mode":3})").find("is not a mode"), std::string::npos);
  EXPECT_NE(refusal(R"({"size":[0,10]})").find("from 1 to 16384"), std::string::npos);
  EXPECT_NE(refusal(R"({"size":[10]})").find("[width, height]"), std::string::npos);
  // A frame's memory is bounded, not only its edges: 16384x16384 is 1 GiB a copy.
  const std::string oversize = refusal(R"({"size":[16384,16384]})");
  EXPECT_NE(oversize.find("268435456 pixels (1024 MiB a frame)"), std::string::npos) << oversize;
  EXPECT_NE(oversize.find("at most 33177600 pixels (7680x4320, 127 MiB a frame)"), std::string::npos)
      << oversize;
  EXPECT_NE(refusal(R"({"size":[7681,4320]})").find("at most 33177600 pixels"), std::string::npos);
  EXPECT_NE(refusal(R"({"fps":1000})").find("from 1 to 240, or 0 for none"), std::string::npos);
  EXPECT_NE(refusal(R"({"fps":0.01})").find("from 1 to 240, or 0 for none"), std::string::npos);
  EXPECT_NE(refusal(R"({"scene":"wave","launch":1})").find("'launch' is not a command"), std::string::npos);
  EXPECT_NE(refusal(R"({"map_flags":"read-mostly"})").find("choose best, none, read-only, write-discard"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"register_flags":null})").find("register_flags: null is not a flags choice"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"map_flags":["read-only"]})").find("is not a flags choice"), std::string::npos);
  EXPECT_NE(refusal(R"({"device":-1})").find("from 0 to 63"), std::string::npos);
  EXPECT_NE(refusal(R"({"device":64})").find("from 0 to 63"), std::string::npos);
  EXPECT_NE(refusal(R"({"device":0.5})").find("is not a CUDA device ordinal"), std::string::npos);
  EXPECT_NE(refusal(R"({"device":"0"})").find("is not a CUDA device ordinal"), std::string::npos);
  EXPECT_NE(refusal(R"({"filter":"sharpen"})").find("choose sobel, blur"), std::string::npos);
  EXPECT_NE(refusal(R"({"filter":{"name":"blur"}})").find("is not a filter"), std::string::npos);
  // One bad key refuses the whole message: the good key beside it is not queued either.
  EXPECT_NE(refusal(R"({"filter":"blur","device":1e9})").find("device"), std::string::npos);
  // Within the budget, either edge may be long.
  std::vector<Command> commands;
  EXPECT_EQ(lab::serve::parse_commands(R"({"size":[7680,4320]})", commands), "");
  EXPECT_EQ(lab::serve::parse_commands(R"({"size":[16384,2025]})", commands), "");
  EXPECT_EQ(commands.size(), 2u);
}

TEST(ServeProtocolTest, ASourceCommandNamesAPublicationAndABadNameIsRefused) {
  std::vector<Command> commands;
  ASSERT_EQ(lab::serve::parse_commands(R"({"source":"sim-2.b"})", commands), "");
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].kind, Command::Kind::Source);
  EXPECT_EQ(commands[0].source, "sim-2.b");
  for (const char* bad : {R"({"source":"a/b"})", R"({"source":""})", R"({"source":7})"}) {
    std::vector<Command> refused;
    const std::string problem = lab::serve::parse_commands(bad, refused);
    EXPECT_NE(problem.find("is not a publication's name"), std::string::npos) << bad << ": " << problem;
    EXPECT_TRUE(refused.empty()) << bad;
  }
  std::vector<Command> unknown;
  // An unknown key names every key of the control table.
  EXPECT_EQ(lab::serve::parse_commands(R"({"sauce":"sim"})", unknown),
            "'sauce' is not a command; the page sends " + lab::control_keys());
  EXPECT_NE(lab::control_keys().find("source"), std::string::npos);
}

TEST(ServeProtocolTest, AReplyToSeveralRefusalsCarriesEveryReason) {
  const nlohmann::json one = nlohmann::json::parse(lab::serve::error_json("first"));
  EXPECT_EQ(one["type"], "error");
  EXPECT_EQ(one["error"], "first");
  EXPECT_EQ(one["errors"], nlohmann::json::array({"first"}));
  const nlohmann::json several = nlohmann::json::parse(lab::serve::error_json({"first", "second"}, 3));
  EXPECT_EQ(several["error"],
            "first\nsecond\nand 3 more messages refused (too many bad commands at once to list)");
  EXPECT_EQ(several["errors"], nlohmann::json::array({"first", "second"}));
}

TEST(ServeProtocolTest, StateSaysWhatTheAppShows) {
  lab::serve::AppState app;
  app.scene = lab::SceneId::Postprocess;
  app.mode = lab::ModeId::Cpu;
  app.modes = {{lab::ModeId::Staging, false, "needs a CUDA device"}, {lab::ModeId::Cpu, true, ""}};
  app.size = {320, 200};
  app.frame = 42;
  // A draw whose GL timer saw no work: the page says "not measured here" from the state's own flag.
  app.phases = {{"kernel", "cpu", 1.5f, 1.25f, 2.0f, 10}, {"draw", "gl", 0.0f, 0.001f, 0.002f, 10, false}};
  lab::serve::DeskStats desk;
  desk.viewers = 2;
  desk.frames_dropped = 7;
  const nlohmann::json state = nlohmann::json::parse(lab::serve::state_json(app, desk));
  EXPECT_EQ(state["type"], "state");
  EXPECT_EQ(state["scene"], "postprocess");
  EXPECT_EQ(state["mode"], "cpu");
  EXPECT_EQ(state["frame"], 42);
  EXPECT_EQ(state["size"][0], 320);
  EXPECT_EQ(state["modes"][0]["name"], "staging");
  EXPECT_EQ(state["modes"][0]["available"], false);
  EXPECT_EQ(state["modes"][0]["reason"], "needs a CUDA device");
  EXPECT_EQ(state["phases"][0]["median_ms"], 1.25);
  EXPECT_EQ(state["phases"][0]["measured"], true);
  EXPECT_EQ(state["phases"][1]["measured"], false);
  EXPECT_EQ(state["desk"]["viewers"], 2);
  EXPECT_EQ(state["desk"]["frames_dropped"], 7);
  EXPECT_EQ(state["scenes"].size(), lab::all_scenes().size());
  // The app offers every control; a Python viewer's state says it is one and what applies to it.
  EXPECT_EQ(state["source"], "app");
  EXPECT_EQ(state["controls"].size(), app.controls.size());
  lab::serve::AppState viewer;
  viewer.source = "viewer";
  viewer.controls = {"screenshot"};
  viewer.path = "staging";
  viewer.path_reason = "CUDA-GL interop is unavailable: llvmpipe";
  const nlohmann::json viewer_state = nlohmann::json::parse(lab::serve::state_json(viewer, desk));
  EXPECT_EQ(viewer_state["source"], "viewer");
  EXPECT_EQ(viewer_state["controls"], nlohmann::json::array({"screenshot"}));
  EXPECT_EQ(viewer_state["path"], "staging");
  EXPECT_EQ(viewer_state["path_reason"], viewer.path_reason);
  EXPECT_EQ(state["publishers"], nlohmann::json::array());
  // Another process's frames (--attach): the publication's name, how it is doing, who else publishes.
  lab::serve::AppState attached;
  attached.scene = std::nullopt;
  attached.source = "published";
  attached.source_name = "sim";
  attached.source_status = "640x360 uint8x4, host slots, frame 12 of pid 42, 3 skipped";
  attached.publishers = {"other", "sim"};
  const nlohmann::json attached_state = nlohmann::json::parse(lab::serve::state_json(attached, desk));
  EXPECT_TRUE(attached_state["scene"].is_null());
  EXPECT_EQ(attached_state["source"], "published");
  EXPECT_EQ(attached_state["source_name"], "sim");
  EXPECT_EQ(attached_state["source_status"], attached.source_status);
  EXPECT_EQ(attached_state["publishers"], nlohmann::json::array({"other", "sim"}));
  EXPECT_EQ(state["flags"]["settable"], false);
  EXPECT_EQ(state["flags"]["map_flags"], "best");
  EXPECT_EQ(state["flags"]["choices"].size(), std::size(interop::kAccessNames) + 1);
  EXPECT_EQ(state["filters"].size(), std::size(kernels::kFilterNames));
}

TEST(ServeProtocolTest, AViewersStateCarriesItsToolsAndTheAppsHasNone) {
  lab::serve::AppState app;
  EXPECT_FALSE(
      nlohmann::json::parse(lab::serve::state_json(app, lab::serve::DeskStats{})).contains("viewer"));
  lab::serve::AppState viewer;
  viewer.source = "viewer";
  lab::serve::ViewerTools tools;
  tools.fit = "cover";
  tools.free = true;
  tools.origin_x = -10.5;
  tools.scale_x = tools.scale_y = 2.5;
  tools.image = {64, 32};
  tools.cursor = std::array<int, 2>{3, 4};
  tools.readout = "x 3  y 4  0.25";
  tools.colorbar = std::array<double, 2>{-1.0, 7.5};
  tools.index = 2;
  tools.frames = 5;
  tools.controls = {{"gain", "slider", 0.0, 4.0, 1.5, {}},
                    {"on", "checkbox", 0.0, 1.0, 1.0, {}},
                    {"reset", "button", 0.0, 1.0, 3.0, {}},
                    {"cmap", "choice", 0.0, 1.0, 1.0, {"gray", "turbo"}}};
  viewer.viewer = tools;
  viewer.settings.colormap = std::string(1536, 'f');
  const nlohmann::json state = nlohmann::json::parse(lab::serve::state_json(viewer, lab::serve::DeskStats{}));
  const nlohmann::json& shown = state["viewer"];
  EXPECT_EQ(shown["fit"], "cover");
  EXPECT_EQ(shown["free"], true);
  EXPECT_EQ(shown["origin"], nlohmann::json::array({-10.5, 0.0}));
  EXPECT_EQ(shown["scale"], nlohmann::json::array({2.5, 2.5}));
  EXPECT_EQ(shown["image"], nlohmann::json::array({64, 32}));
  EXPECT_EQ(shown["cursor"], nlohmann::json::array({3, 4}));
  EXPECT_EQ(shown["readout"], "x 3  y 4  0.25");
  EXPECT_EQ(shown["colorbar"]["low"], -1.0);
  EXPECT_EQ(shown["colorbar"]["high"], 7.5);
  EXPECT_EQ(shown["index"], 2);
  EXPECT_EQ(shown["frames"], 5);
  ASSERT_EQ(shown["controls"].size(), 4u);
  // Each value typed as the page sends it back: a number, true or false, presses, an option's name.
  EXPECT_EQ(shown["controls"][0]["value"], 1.5);
  EXPECT_EQ(shown["controls"][0]["high"], 4.0);
  EXPECT_EQ(shown["controls"][1]["value"], true);
  EXPECT_EQ(shown["controls"][2]["value"], 3.0);
  EXPECT_EQ(shown["controls"][3]["value"], "turbo");
  EXPECT_EQ(shown["controls"][3]["options"], nlohmann::json::array({"gray", "turbo"}));
  EXPECT_EQ(state["settings"]["colormap"].get<std::string>().size(), 1536u);
  // Off the picture, no cursor; no colorbar for three or four channels.
  viewer.viewer->cursor.reset();
  viewer.viewer->colorbar.reset();
  const nlohmann::json off = nlohmann::json::parse(lab::serve::state_json(viewer, lab::serve::DeskStats{}));
  EXPECT_TRUE(off["viewer"]["cursor"].is_null());
  EXPECT_TRUE(off["viewer"]["colorbar"].is_null());
  // The colormap is a setting: a state without the settings (unchanged since the last) leaves it out.
  const nlohmann::json without =
      nlohmann::json::parse(lab::serve::state_json(viewer, lab::serve::DeskStats{}, true, nullptr, false));
  EXPECT_FALSE(without.contains("settings"));
  lab::serve::ControlSettings other = viewer.settings;
  other.colormap = std::string(1536, '0');
  EXPECT_NE(other, viewer.settings);
}

TEST(ServeProtocolTest, StateCarriesTheControlsThePageShows) {
  lab::serve::AppState app;
  app.cuda_device = 1;
  app.cuda_devices = {"0: first", "1: second"};
  app.filter = "blur";
  app.flags.settable = true;
  app.flags.map_flags = "write-discard";
  app.doctor = "CUDA\n  driver: 13.0\n";
  const nlohmann::json state = nlohmann::json::parse(lab::serve::state_json(app, lab::serve::DeskStats{}));
  EXPECT_EQ(state["cuda_device"], 1);
  EXPECT_EQ(state["cuda_devices"][1], "1: second");
  EXPECT_EQ(state["device_switch"], "");
  EXPECT_EQ(state["filter"], "blur");
  EXPECT_EQ(state["flags"]["settable"], true);
  EXPECT_EQ(state["flags"]["map_flags"], "write-discard");
  EXPECT_EQ(state["flags"]["register_flags"], "best");
  EXPECT_EQ(state["doctor"], app.doctor);
}

TEST(ServeProtocolTest, StateCarriesTheFramesTimeline) {
  lab::serve::AppState app;
  lab::TimelineBuilder builder(9, 1'000'000);
  builder.place_lane(lab::Lane::Desk, "cpu", lab::TimelineBuilder::host_clock());
  builder.add_span(lab::Lane::Desk, "read-back", 2'000'000, 2'500'000);
  builder.refuse_lane(lab::Lane::Cuda, "cuda", "durations only");
  app.timeline = builder.build(17'000'000);
  const nlohmann::json state = nlohmann::json::parse(lab::serve::state_json(app, lab::serve::DeskStats{}));
  const nlohmann::json& timeline = state["timeline"];
  EXPECT_EQ(timeline["frame"], 9);
  EXPECT_DOUBLE_EQ(timeline["frame_ms"].get<double>(), 16.0);
  ASSERT_EQ(timeline["lanes"].size(), 2u);
  EXPECT_EQ(timeline["lanes"][0]["lane"], "cuda");
  EXPECT_EQ(timeline["lanes"][0]["placed"], false);
  EXPECT_EQ(timeline["lanes"][0]["why_not"], "durations only");
  EXPECT_EQ(timeline["lanes"][1]["lane"], "desk");
  ASSERT_EQ(timeline["spans"].size(), 1u);
  EXPECT_EQ(timeline["spans"][0]["name"], "read-back");
  EXPECT_DOUBLE_EQ(timeline["spans"][0]["start_ms"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(timeline["spans"][0]["end_ms"].get<double>(), 1.5);
}

TEST(ServeJpegTest, StripsTileTheFrameOnBlockRows) {
  for (const int height : {1, 15, 16, 127, 128, 300, 720, 1080, 2160})
    for (const int workers : {1, 2, 3, 8}) {
      const std::vector<std::pair<int, int>> strips = lab::serve::strip_layout(height, workers);
      ASSERT_FALSE(strips.empty());
      EXPECT_LE(static_cast<int>(strips.size()), workers);
      int next = 0;
      for (size_t i = 0; i < strips.size(); ++i) {
        EXPECT_EQ(strips[i].first, next) << height << " rows, " << workers << " workers";
        if (i + 1 < strips.size()) {
          EXPECT_EQ(strips[i].second % 16, 0);
        }
        next += strips[i].second;
      }
      EXPECT_EQ(next, height);
    }
  EXPECT_EQ(lab::serve::strip_layout(2160, 4).size(), 4u);  // a 4K frame on four workers: four strips
}

TEST(ServeJpegTest, RoundTripStaysWithinTolerance) {
  const Image image = gradient_image(333, 200);
  lab::serve::JpegEncoder encoder;
  const std::vector<uint8_t> jpeg = encoder.encode(image.rgba.data(), image.width, image.height, 90);
  const Image decoded = lab::serve::decode_jpeg(jpeg.data(), jpeg.size());
  ASSERT_EQ(decoded.width, image.width);
  ASSERT_EQ(decoded.height, image.height);
  const Difference diff = difference(image, decoded);
  EXPECT_LE(diff.largest, 16);
  EXPECT_LT(diff.mean, 2.0);
  EXPECT_LT(jpeg.size(), image.rgba.size() / 4);
}

TEST(ServeJpegTest, CorruptJpegIsRefused) {
  const std::vector<uint8_t> junk(100, 7);
  EXPECT_THROW(lab::serve::decode_jpeg(junk.data(), junk.size()), std::runtime_error);
}

TEST(ServeJpegTest, StripEncoderFramesAssembleToTheImage) {
  const Image image = gradient_image(640, 1000);
  lab::serve::StripEncoder encoder(3, 90);
  const std::vector<lab::serve::EncodedStrip> strips = encoder.encode(image);
  EXPECT_EQ(strips.size(), 3u);
  const std::vector<uint8_t> message = lab::serve::frame_message(17, image.width, image.height, strips);
  std::string why;
  const std::optional<lab::serve::FrameMessage> frame =
      lab::serve::parse_frame_message(message.data(), message.size(), why);
  ASSERT_TRUE(frame) << why;
  EXPECT_EQ(frame->index, 17u);
  EXPECT_EQ(frame->strips.size(), strips.size());
  const Image assembled = lab::serve::assemble_frame(*frame);
  ASSERT_EQ(assembled.height, image.height);
  const Difference diff = difference(image, assembled);
  EXPECT_LE(diff.largest, 16);
  EXPECT_LT(diff.mean, 2.0);
  // The same frame in one strip: the strips' edges add no visible seam.
  lab::serve::StripEncoder whole(1, 90);
  const Image single = lab::serve::assemble_frame(*lab::serve::parse_frame_message(
      lab::serve::frame_message(17, image.width, image.height, whole.encode(image)).data(),
      message.size() * 2, why));
  EXPECT_LT(difference(single, assembled).mean, 1.0);
}

TEST(ServeJpegTest, MalformedFrameMessagesAreRefused) {
  const Image image = gradient_image(64, 300);
  lab::serve::StripEncoder encoder(2, 80);
  const std::vector<uint8_t> message = lab::serve::frame_message(1, 64, 300, encoder.encode(image));
  std::string why;
  EXPECT_FALSE(lab::serve::parse_frame_message(message.data(), 10, why));
  EXPECT_NE(why.find("ILF2"), std::string::npos);
  EXPECT_FALSE(lab::serve::parse_frame_message(message.data(), message.size() - 1, why));
  EXPECT_NE(why.find("truncated"), std::string::npos);
  std::vector<uint8_t> overlap = message;
  overlap[20 + 16] -= 1;  // the second strip starts a row early, over the first one's last row
  EXPECT_FALSE(lab::serve::parse_frame_message(overlap.data(), overlap.size(), why));
  EXPECT_NE(why.find("overlaps"), std::string::npos);
  std::vector<uint8_t> past = message;
  past[20 + 16] += 1;  // the second strip starts a row late and ends past the frame
  EXPECT_FALSE(lab::serve::parse_frame_message(past.data(), past.size(), why));
  EXPECT_NE(why.find("passes the frame's 300 rows"), std::string::npos);
}

// A client of the server on the loopback interface, as a browser would be.
struct HttpAnswer {
  unsigned status = 0;
  std::string body;
  std::string header(const char* name) const { return std::string(fields[name]); }
  http::fields fields;
};

tcp::endpoint loopback_port(int port) {
  return tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port));
}

using Headers = std::vector<std::pair<http::field, std::string>>;

// GET `target` with Host `host` (and `extra` headers); status 0 when no answer came within 10 s (a server
// that stopped answering).
HttpAnswer http_get(int port, const std::string& target, const std::string& cookie = "",
                    const std::string& host = "127.0.0.1", const Headers& extra = {}) {
  net::io_context io;
  beast::tcp_stream stream(io);
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, host);
  if (!cookie.empty()) request.set(http::field::cookie, cookie);
  for (const auto& [field, value] : extra) request.set(field, value);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  HttpAnswer answer;
  stream.expires_after(std::chrono::seconds(10));
  stream.async_connect(loopback_port(port), [&](beast::error_code error) {
    if (error) return;
    http::async_write(stream, request, [&](beast::error_code written, size_t) {
      if (written) return;
      http::async_read(stream, buffer, parser, [&](beast::error_code read, size_t) {
        if (read) return;
        answer.status = parser.get().result_int();
        answer.body = parser.get().body();
        for (const auto& field : parser.get()) answer.fields.set(field.name_string(), field.value());
      });
    });
  });
  io.run();
  return answer;
}

// A WebSocket upgrade as a browser page sends it (`origin`: "" for none), answered 101 or refused with a
// status and why.
HttpAnswer upgrade_get(int port, const std::string& target, const std::string& host,
                       const std::string& origin, const std::string& cookie = "") {
  Headers headers = {{http::field::connection, "Upgrade"},
                     {http::field::upgrade, "websocket"},
                     {http::field::sec_websocket_version, "13"},
                     {http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ=="}};
  if (!origin.empty()) headers.emplace_back(http::field::origin, origin);
  return http_get(port, target, cookie, host, headers);
}

// What a connection received until the server closed it, or until `bound` passed (`closed` false).
struct Received {
  bool closed = false;
  std::string text;
  double seconds = 0;
};

Received read_until_closed(net::io_context& io, tcp::socket& socket, std::chrono::milliseconds bound) {
  Received received;
  const auto start = std::chrono::steady_clock::now();
  std::string buffer;
  net::async_read(socket, net::dynamic_buffer(buffer), [&](beast::error_code error, size_t) {
    received.closed = error == net::error::eof || error == net::error::connection_reset;
  });
  io.restart();
  io.run_for(bound);
  if (!io.stopped()) {
    socket.cancel();
    io.restart();
    io.run();
  }
  received.text = buffer;
  received.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return received;
}

lab::serve::ServerOptions loopback_options() {
  lab::serve::ServerOptions options;
  options.address.port = 0;  // any free port
  options.encode_threads = 2;
  return options;
}

lab::serve::AppState state_of_frame(long long frame) {
  lab::serve::AppState state;
  state.scene = lab::SceneId::Pattern;
  state.frame = frame;
  return state;
}

TEST(ServeServerTest, ServesThePageOnlyWithTheToken) {
  lab::serve::Server server(loopback_options());
  const std::string token = server.token();
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()) + "/?token=" + token);

  const HttpAnswer page = http_get(server.port(), "/?token=" + token);
  EXPECT_EQ(page.status, 200u);
  EXPECT_EQ(page.body,
            lab::serve::page_with_token(std::string(lab::serve::desk_asset("index.html")->body), token));
  EXPECT_NE(page.header("Set-Cookie").find("interop_lab_token=" + token), std::string::npos);
  // The page's own requests carry the cookie, and (for a page in another site's iframe, which is sent no
  // SameSite=Strict cookie) the token in their links.
  const HttpAnswer script = http_get(server.port(), "/desk.js", "interop_lab_token=" + token);
  EXPECT_EQ(script.status, 200u);
  EXPECT_EQ(script.body, std::string(lab::serve::desk_asset("desk.js")->body));
  EXPECT_NE(page.body.find("src=\"desk.js?token=" + token + "\""), std::string::npos);
  EXPECT_NE(page.body.find("href=\"desk.css?token=" + token + "\""), std::string::npos);
  EXPECT_EQ(http_get(server.port(), "/desk.js?token=" + token).status, 200u);
  EXPECT_EQ(http_get(server.port(), "/desk.css?token=" + token).status, 200u);

  EXPECT_EQ(http_get(server.port(), "/").status, 403u);
  EXPECT_EQ(http_get(server.port(), "/?token=" + token + "0").status, 403u);
  EXPECT_EQ(http_get(server.port(), "/desk.js", "interop_lab_token=wrong").status, 403u);
  EXPECT_EQ(http_get(server.port(), "/screenshot.png").status, 403u);
  EXPECT_EQ(http_get(server.port(), "/nothing?token=" + token).status, 404u);
  EXPECT_EQ(http_get(server.port(), "/screenshot.png?token=" + token).status, 503u);  // no frame yet
}

TEST(ServeServerTest, RefusesAnAddressInUse) {
  lab::serve::Server first(loopback_options());
  lab::serve::ServerOptions same = loopback_options();
  same.address.port = first.port();
  try {
    lab::serve::Server second(same);
    FAIL() << "a second server listened on port " << first.port();
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("pick another port"), std::string::npos) << error.what();
  }
}

TEST(ServeServerTest, AWebSocketWithoutTheTokenIsRefused) {
  lab::serve::Server server(loopback_options());
  net::io_context io;
  websocket::stream<tcp::socket> ws(io);
  ws.next_layer().connect(
      tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server.port())));
  websocket::response_type response;
  beast::error_code error;
  ws.handshake(response, "127.0.0.1", "/?token=wrong", error);
  EXPECT_EQ(error, websocket::error::upgrade_declined) << error.message();
  EXPECT_EQ(server.counts().viewers, 0);
}

// A viewer: the WebSocket of the page, read message by message.
struct Viewer {
  net::io_context io;
  websocket::stream<tcp::socket> ws{io};

  explicit Viewer(const lab::serve::Server& server, int receive_buffer = 0) {
    tcp::socket& socket = ws.next_layer();
    socket.open(tcp::v4());
    if (receive_buffer > 0) socket.set_option(net::socket_base::receive_buffer_size(receive_buffer));
    socket.connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server.port())));
    ws.read_message_max(256 * 1024 * 1024);
    ws.handshake("127.0.0.1", "/?token=" + server.token());
  }

  // The next text message, parsed; nullopt when none came within `bound` (the socket is then no more use).
  std::optional<nlohmann::json> read_text_within(std::chrono::seconds bound) {
    beast::flat_buffer buffer;
    bool read = false;
    ws.async_read(buffer, [&](beast::error_code error, size_t) { read = !error; });
    io.restart();
    io.run_for(bound);
    if (!io.stopped()) {
      ws.next_layer().cancel();
      io.restart();
      io.run();
    }
    if (!read || !ws.got_text()) return std::nullopt;
    return nlohmann::json::parse(beast::buffers_to_string(buffer.data()));
  }

  // The next text message, parsed.
  nlohmann::json read_text() {
    beast::flat_buffer buffer;
    ws.read(buffer);
    EXPECT_TRUE(ws.got_text());
    return nlohmann::json::parse(beast::buffers_to_string(buffer.data()));
  }

  // The next state + frame pair.
  std::pair<nlohmann::json, lab::serve::FrameMessage> read_frame() {
    nlohmann::json state = read_text();
    beast::flat_buffer buffer;
    ws.read(buffer);
    EXPECT_FALSE(ws.got_text());
    const std::string bytes = beast::buffers_to_string(buffer.data());
    std::string why;
    const std::optional<lab::serve::FrameMessage> frame =
        lab::serve::parse_frame_message(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), why);
    EXPECT_TRUE(frame) << why;
    return {std::move(state), frame.value_or(lab::serve::FrameMessage{})};
  }
};

TEST(ServeServerTest, AViewerGetsTheFrameAndItsCommandsReachTheApp) {
  lab::serve::Server server(loopback_options());
  Viewer viewer(server);
  ASSERT_TRUE(eventually([&] { return server.counts().viewers == 1; }));

  const Image image = gradient_image(320, 400);
  server.add_read_back_ms(0.5);
  server.offer_frame(image, state_of_frame(5));
  const auto [state, frame] = viewer.read_frame();
  EXPECT_EQ(state["type"], "state");
  EXPECT_EQ(state["scene"], "pattern");
  EXPECT_EQ(state["frame"], 5);
  EXPECT_EQ(state["desk"]["viewers"], 1);
  EXPECT_EQ(state["desk"]["phases"][0]["phase"], "read-back");
  EXPECT_EQ(state["desk"]["phases"][0]["samples"], 1);
  EXPECT_EQ(frame.index, 5u);
  const Image shown = lab::serve::assemble_frame(frame);
  ASSERT_EQ(shown.width, image.width);
  EXPECT_LT(difference(image, shown).mean, 2.0);

  viewer.ws.text(true);
  viewer.ws.write(net::buffer(std::string(R"({"scene":"postprocess","fps":24})")));
  std::vector<Command> commands;
  ASSERT_TRUE(eventually([&] {
    for (const Command& command : server.take_commands()) commands.push_back(command);
    return commands.size() >= 2;
  }));
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].kind, Command::Kind::Fps);  // in the keys' alphabetical order
  EXPECT_EQ(commands[0].number, 24.0);
  EXPECT_EQ(commands[1].kind, Command::Kind::Scene);
  EXPECT_EQ(commands[1].scene, lab::SceneId::Postprocess);

  viewer.ws.write(net::buffer(std::string(R"({"mode":"warp"})")));
  const nlohmann::json reply = viewer.read_text();
  EXPECT_EQ(reply["type"], "error");
  EXPECT_NE(reply["error"].get<std::string>().find("not a mode"), std::string::npos);
  EXPECT_EQ(server.counts().commands_queued, 0u);

  // The screenshot is the exact frame, as PNG.
  const HttpAnswer png = http_get(server.port(), "/screenshot.png?token=" + server.token());
  EXPECT_EQ(png.status, 200u);
  EXPECT_EQ(png.header("X-Interop-Lab-Frame"), "5");
  const std::vector<uint8_t> expected = lab::encode_png(image);
  EXPECT_EQ(png.body, std::string(expected.begin(), expected.end()));
}

// A frame offered while nobody watched (a Python viewer that showed one picture) reaches the page opened
// after.
// The encoder puts each frame's encode in the desk's lane of the timeline that shows that frame: the frame's
// own timeline, or (as GL's loop hands over) a later state's timeline of a frame gone by.
TEST(ServeServerTest, TheEncodeOfTheFrameATimelineShowsIsInItsDeskLane) {
  lab::serve::Server server(loopback_options());
  Viewer viewer(server);
  ASSERT_TRUE(eventually([&] { return server.counts().viewers == 1; }));
  const auto timeline_of = [](long long frame) {
    lab::TimelineBuilder builder(frame, lab::host_clock_ns());
    builder.place_lane(lab::Lane::Desk, "cpu", lab::TimelineBuilder::host_clock());
    return builder.build(lab::host_clock_ns());
  };
  const auto encodes_in = [](const nlohmann::json& state) {
    std::vector<nlohmann::json> found;
    for (const nlohmann::json& span : state["timeline"]["spans"])
      if (span["name"] == "encode") found.push_back(span);
    return found;
  };

  lab::serve::AppState first = state_of_frame(7);
  first.timeline = timeline_of(7);
  server.offer_frame(gradient_image(64, 48), first);
  const nlohmann::json own = viewer.read_frame().first;
  const double received_ms = static_cast<double>(lab::host_clock_ns() - first.timeline.start_host_ns) / 1e6;
  ASSERT_EQ(encodes_in(own).size(), 1u) << own["timeline"].dump();
  const nlohmann::json span = encodes_in(own)[0];
  EXPECT_EQ(span["lane"], "desk");
  // Encoded after the timeline's zero (made before the frame was offered) and before the viewer had it.
  EXPECT_GE(span["start_ms"].get<double>(), 0.0);
  EXPECT_LE(span["start_ms"].get<double>(), span["end_ms"].get<double>());
  EXPECT_LE(span["end_ms"].get<double>(), received_ms);

  lab::serve::AppState later = state_of_frame(8);
  later.timeline = timeline_of(7);  // frame 7's timeline, handed over with frame 8
  server.offer_frame(gradient_image(64, 48), later);
  const nlohmann::json behind = viewer.read_frame().first;
  ASSERT_EQ(encodes_in(behind).size(), 1u) << behind["timeline"].dump();
  EXPECT_EQ(behind["timeline"]["frame"], 7);

  lab::serve::AppState unseen = state_of_frame(9);
  unseen.timeline = timeline_of(3);  // a frame this server never encoded: no encode to show
  server.offer_frame(gradient_image(64, 48), unseen);
  EXPECT_TRUE(encodes_in(viewer.read_frame().first).empty());
}

TEST(ServeServerTest, AViewerThatConnectsLaterGetsTheLastFrame) {
  lab::serve::Server server(loopback_options());
  const Image image = gradient_image(96, 64);
  server.offer_frame(image, state_of_frame(3));
  ASSERT_TRUE(eventually([&] { return server.counts().frames_offered == 1; }));
  EXPECT_EQ(server.counts().frames_encoded, 0u);  // nobody to encode it for
  Viewer late(server);
  const auto [state, frame] = late.read_frame();
  EXPECT_EQ(state["frame"], 3);
  EXPECT_EQ(frame.index, 3u);
  EXPECT_LT(difference(image, lab::serve::assemble_frame(frame)).mean, 2.0);
  EXPECT_EQ(server.counts().frames_encoded, 1u);
}

TEST(ServeServerTest, ADeskThatTakesNoCommandsSaysWhy) {
  lab::serve::ServerOptions options = loopback_options();
  options.refuse_commands = "this desk shows a viewer's frames: nothing to switch";
  lab::serve::Server server(options);
  Viewer viewer(server);
  viewer.ws.text(true);
  viewer.ws.write(net::buffer(std::string(R"({"scene":"wave"})")));
  const nlohmann::json reply = viewer.read_text();
  EXPECT_EQ(reply["type"], "error");
  EXPECT_EQ(reply["error"], options.refuse_commands);
  EXPECT_EQ(server.counts().commands_queued, 0u);
  EXPECT_TRUE(server.take_commands().empty());
}

TEST(ServeServerTest, SeveralViewersSeeTheSameFrames) {
  lab::serve::Server server(loopback_options());
  Viewer first(server);
  Viewer second(server);
  ASSERT_TRUE(eventually([&] { return server.counts().viewers == 2; }));
  const Image image = gradient_image(200, 150);
  server.offer_frame(image, state_of_frame(9));
  const auto [first_state, first_frame] = first.read_frame();
  const auto [second_state, second_frame] = second.read_frame();
  EXPECT_EQ(first_frame.index, 9u);
  EXPECT_EQ(second_frame.index, 9u);
  EXPECT_EQ(first_state["desk"]["viewers"], 2);
  ASSERT_EQ(first_frame.strips.size(), second_frame.strips.size());
  for (size_t i = 0; i < first_frame.strips.size(); ++i)
    EXPECT_EQ(first_frame.strips[i].jpeg, second_frame.strips[i].jpeg);  // encoded once, sent to both
  second.ws.close(websocket::close_code::normal);
  EXPECT_TRUE(eventually([&] { return server.counts().viewers == 1; }));
}

TEST(ServeServerTest, ASlowViewerSkipsFramesInsteadOfQueueingThem) {
  lab::serve::ServerOptions options = loopback_options();
  options.jpeg_quality = 95;
  lab::serve::Server server(options);
  // A small receive buffer and frames of several MB: the server's write of one frame outlasts many offers.
  Viewer slow(server, 16 * 1024);
  ASSERT_TRUE(eventually([&] { return server.counts().viewers == 1; }));
  constexpr int kFrames = 24;
  const Image image = noise_image(1600, 1600, 1);
  for (int i = 0; i < kFrames; ++i) {
    const unsigned long long encoded = server.counts().frames_encoded;
    server.offer_frame(image, state_of_frame(i));
    ASSERT_TRUE(eventually([&] { return server.counts().frames_encoded > encoded; }));  // none skipped here
  }
  // Now the viewer reads: the frames it gets, up to the last one.
  std::vector<unsigned> received;
  while (received.empty() || received.back() != kFrames - 1)
    received.push_back(slow.read_frame().second.index);
  ASSERT_TRUE(eventually([&] { return server.counts().frames_sent == received.size(); }));
  const lab::serve::ServerCounts counts = server.counts();
  EXPECT_EQ(counts.frames_encoded, static_cast<unsigned long long>(kFrames));
  EXPECT_GT(counts.frames_dropped, 0u);
  EXPECT_EQ(counts.frames_dropped + received.size(), static_cast<unsigned long long>(kFrames));
  EXPECT_LT(received.size(), static_cast<size_t>(kFrames) / 2);
  EXPECT_EQ(counts.most_frames_in_flight, 1u);
  EXPECT_TRUE(std::is_sorted(received.begin(), received.end()));
}

// A frame read back for the desk is wanted while nobody watches, once a viewer has taken the newest one
// offered, and after the newest got older than frame_wanted_after; not while every viewer is still busy with
// an older frame (the loop's LateReader then reads nothing back).
TEST(ServeServerTest, AFrameIsWantedOnceAViewerTookTheNewestOrItGotOld) {
  lab::serve::ServerOptions options = loopback_options();
  options.jpeg_quality = 95;
  options.frame_wanted_after = std::chrono::hours(1);
  lab::serve::Server server(options);
  EXPECT_TRUE(server.frame_wanted());  // nobody watches: the newest is kept for the first viewer
  // A viewer that reads nothing yet, with a small receive buffer: the write of a frame of some 10 MB stalls
  // (more than the socket's buffers take).
  Viewer stalled(server, 16 * 1024);
  ASSERT_TRUE(eventually([&] { return server.counts().viewers == 1; }));
  const Image image = noise_image(3200, 3200, 1);
  server.offer_frame(image, state_of_frame(0));
  EXPECT_TRUE(eventually([&] { return server.frame_wanted(); }));  // taken: its write began
  server.offer_frame(image, state_of_frame(1));
  EXPECT_TRUE(eventually([&] { return server.frame_wanted(); }));  // taken: encoded while 0 is written
  ASSERT_TRUE(eventually([&] { return server.counts().frames_encoded == 2; }));
  server.offer_frame(image, state_of_frame(2));  // frame 1 waits to be written: 2 is not taken
  for (int look = 0; look < 20; ++look) {
    EXPECT_FALSE(server.frame_wanted()) << "look " << look;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // The viewer reads: frame 1 goes out, frame 2 is taken, and another frame is wanted.
  std::vector<unsigned> received;
  while (received.empty() || received.back() != 2) received.push_back(stalled.read_frame().second.index);
  EXPECT_TRUE(server.frame_wanted());

  // The same stall with frames wanted again after 20 ms: the newest, not taken, is old enough.
  options.frame_wanted_after = std::chrono::milliseconds(20);
  lab::serve::Server hurried(options);
  Viewer waiting(hurried, 16 * 1024);
  ASSERT_TRUE(eventually([&] { return hurried.counts().viewers == 1; }));
  for (int frame = 0; frame < 2; ++frame) {
    hurried.offer_frame(image, state_of_frame(frame));
    ASSERT_TRUE(eventually([&] { return hurried.counts().frames_encoded > static_cast<unsigned>(frame); }));
  }
  hurried.offer_frame(image, state_of_frame(2));
  EXPECT_TRUE(eventually([&] { return hurried.frame_wanted(); }));
}

// A frame offered while the one before is still being encoded is encoded as soon as that one's write begins,
// not after the write: encode and write overlap (a viewer that reads slowly, or a 4K frame, would otherwise
// cost an encode plus a write per frame). The viewer reads nothing, so the write of frame 0 stalls: frame 1
// is taken (another frame wanted) only if its encode began during that write. Three rounds: without the
// overlap a round passes only when frame 1 reached the viewer just after frame 0's state went out.
TEST(ServeServerTest, TheNextFrameIsEncodedWhileTheOneBeforeIsWritten) {
  const Image image = noise_image(3200, 3200, 1);
  // The stripes' hashes come with each frame, as a GPU's do, so the encoder publishes frame 1 at once, while
  // frame 0's message is still on its way to the socket (hashing on the CPU would delay it past that).
  std::vector<uint64_t> hashes(static_cast<size_t>(kernels::stripe_count(image.height)));
  kernels::stripe_hashes_cpu(image.rgba.data(), image.width, image.height,
                             static_cast<size_t>(image.width) * 4, hashes.data());
  const auto frame = std::make_shared<const Image>(image);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    lab::serve::ServerOptions options = loopback_options();
    options.jpeg_quality = 95;
    options.frame_wanted_after = std::chrono::hours(1);
    lab::serve::Server server(options);
    Viewer stalled(server, 16 * 1024);
    ASSERT_TRUE(eventually([&] { return server.counts().viewers == 1; }));
    server.offer_frame(frame, state_of_frame(0), hashes);
    ASSERT_TRUE(eventually([&] { return server.frame_wanted(); }));  // frame 0 taken: its encode begins
    server.offer_frame(frame, state_of_frame(1), hashes);            // comes while frame 0 is encoded
    ASSERT_TRUE(eventually([&] { return server.frame_wanted(); }));  // frame 1 taken during 0's write
    EXPECT_EQ(server.counts().frames_sent, 0u);                      // frame 0's write has not ended
    // Both come, in order, once the viewer reads.
    std::vector<unsigned> received;
    while (received.empty() || received.back() != 1) received.push_back(stalled.read_frame().second.index);
    EXPECT_EQ(received, (std::vector<unsigned>{0, 1}));
  }
}

// With nobody watching, a frame is wanted only once the newest offered got older than unwatched_frame_every:
// an app with no page open reads back a few frames a second, and the first page still gets a recent one.
TEST(ServeServerTest, AnUnwatchedServerWantsAFrameOnlyOnceTheNewestGotOld) {
  lab::serve::ServerOptions options = loopback_options();
  options.unwatched_frame_every = std::chrono::hours(1);
  lab::serve::Server server(options);
  EXPECT_TRUE(server.frame_wanted());  // nothing offered yet
  server.offer_frame(noise_image(64, 64, 1), state_of_frame(0));
  EXPECT_FALSE(server.frame_wanted());  // the newest is recent
  options.unwatched_frame_every = std::chrono::milliseconds(20);
  lab::serve::Server quick(options);
  quick.offer_frame(noise_image(64, 64, 1), state_of_frame(0));
  EXPECT_TRUE(eventually([&] { return quick.frame_wanted(); }));  // 20 ms on
  // A viewer that took the newest wants the next at once.
  Viewer watching(server);
  ASSERT_TRUE(eventually([&] { return server.counts().viewers == 1; }));
  server.offer_frame(noise_image(64, 64, 2), state_of_frame(1));
  EXPECT_TRUE(eventually([&] { return server.frame_wanted(); }));
}

// DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 sends Host: evil.example.
TEST(ServeHostTest, TheHostMustNameTheDesk) {
  using lab::serve::host_allowed;
  lab::ServeAddress loopback;
  const std::vector<std::string> local = lab::serve::allowed_hosts(loopback);
  for (const char* host :
       {"127.0.0.1", "127.0.0.1:8080", "localhost", "LocalHost:9000", "[::1]:8080", "::1", "[0:0::1]"})
    EXPECT_TRUE(host_allowed(host, local)) << host;
  for (const char* host : {"", "evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.",
                           "[::1", "[::1]x", "10.0.0.1", "127.0.0.2"})
    EXPECT_FALSE(host_allowed(host, local)) << host;

  lab::ServeAddress one;
  one.host = "192.0.2.7";
  const std::vector<std::string> remote = lab::serve::allowed_hosts(one);
  EXPECT_TRUE(host_allowed("192.0.2.7:8080", remote));
  EXPECT_FALSE(host_allowed("localhost:8080", remote));  // not bound there: no page of it comes that way
  EXPECT_FALSE(host_allowed("evil.example", remote));

  // Every interface: this machine's own name and addresses too.
  lab::ServeAddress every;
  every.host = "0.0.0.0";
  const std::vector<std::string> all = lab::serve::allowed_hosts(every);
  const std::string name = net::ip::host_name();
  EXPECT_TRUE(host_allowed(name + ":8080", all)) << name;
  EXPECT_TRUE(host_allowed("localhost:8080", all));
  EXPECT_TRUE(host_allowed("127.0.0.1", all));  // an address of the loopback interface
  EXPECT_FALSE(host_allowed("evil.example", all));
}

// A wildcard bind's URL would be http://0.0.0.0:P, which opens nowhere: the desk names the machine instead,
// by its host name and each address a browser elsewhere can reach it at.
TEST(ServeHostTest, AWildcardBindsURLsNameTheMachine) {
  const std::vector<std::string> interfaces = {"127.0.0.1",   "192.168.1.20", "::1",         "fe80::1",
                                               "2001:db8::7", "10.0.0.5",     "192.168.1.20"};
  lab::ServeAddress any_ipv4;
  any_ipv4.host = "0.0.0.0";
  EXPECT_EQ(lab::serve::desk_urls(any_ipv4, 8123, "tok", "Lab-Box", interfaces),
            (std::vector<std::string>{"http://lab-box:8123/?token=tok", "http://192.168.1.20:8123/?token=tok",
                                      "http://10.0.0.5:8123/?token=tok"}));
  lab::ServeAddress any_ipv6;
  any_ipv6.host = "::";
  EXPECT_EQ(
      lab::serve::desk_urls(any_ipv6, 8123, "tok", "", interfaces),
      (std::vector<std::string>{"http://192.168.1.20:8123/?token=tok", "http://10.0.0.5:8123/?token=tok",
                                "http://[2001:db8::7]:8123/?token=tok"}));
  // A machine with nothing but loopback: loopback's URL, not the wildcard's.
  EXPECT_EQ(lab::serve::desk_urls(any_ipv4, 8123, "tok", "", {"127.0.0.1", "::1"}),
            (std::vector<std::string>{"http://127.0.0.1:8123/?token=tok"}));
  // Any other bind is its own URL.
  lab::ServeAddress loopback;
  loopback.port = 1;  // the port given is the one the bind took
  EXPECT_EQ(lab::serve::desk_urls(loopback, 8123, "tok", "lab-box", interfaces),
            (std::vector<std::string>{"http://127.0.0.1:8123/?token=tok"}));
  lab::ServeAddress ipv6;
  ipv6.host = "::1";
  EXPECT_EQ(lab::serve::desk_urls(ipv6, 9, "tok", "lab-box", interfaces),
            (std::vector<std::string>{"http://[::1]:9/?token=tok"}));
}

// The server says its real port for port 0, and for a wildcard bind the URLs of this machine.
TEST(ServeServerTest, ItsURLsCarryThePortTheBindTook) {
  lab::serve::ServerOptions options = loopback_options();
  options.address.host = "0.0.0.0";
  lab::serve::Server server(options);
  ASSERT_GT(server.port(), 0);
  const std::vector<std::string> urls = server.urls();
  ASSERT_FALSE(urls.empty());
  EXPECT_EQ(server.url(), urls.front());
  for (const std::string& url : urls) {
    EXPECT_EQ(url.find("0.0.0.0"), std::string::npos) << url;
    EXPECT_NE(url.find(":" + std::to_string(server.port()) + "/?token=" + server.token()), std::string::npos)
        << url;
  }
}

TEST(ServeHostTest, TheOriginMustBeTheDesksOwnPage) {
  using lab::serve::origin_allowed;
  EXPECT_TRUE(origin_allowed("", "127.0.0.1:8080"));  // no browser page: a client holding the token
  EXPECT_TRUE(origin_allowed("http://127.0.0.1:8080", "127.0.0.1:8080"));
  EXPECT_TRUE(origin_allowed("http://LOCALHOST:8080", "localhost:8080"));
  EXPECT_FALSE(origin_allowed("http://127.0.0.1:9999", "127.0.0.1:8080"));  // another port: the same site
  EXPECT_FALSE(origin_allowed("http://localhost:8080", "127.0.0.1:8080"));
  EXPECT_FALSE(origin_allowed("https://127.0.0.1:8080", "127.0.0.1:8080"));
  EXPECT_FALSE(origin_allowed("null", "127.0.0.1:8080"));
}

TEST(ServeServerTest, AHostThatIsNotTheDesksIsRefused) {
  lab::serve::Server server(loopback_options());
  const std::string port = std::to_string(server.port());
  const std::string page = "/?token=" + server.token();
  for (const std::string& host : std::vector<std::string>{"evil.example", "evil.example:" + port}) {
    const HttpAnswer answer = http_get(server.port(), page, "", host);
    EXPECT_EQ(answer.status, 403u) << host;
    EXPECT_NE(
        answer.body.find("the Host \"" + host +
                         "\" is not a name of this desk, which answers to 127.0.0.1, localhost, [::1];"),
        std::string::npos)
        << answer.body;
    EXPECT_EQ(answer.header("Set-Cookie"), "");  // the token does not reach the other site's page
  }
  for (const std::string& host :
       std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port})
    EXPECT_EQ(http_get(server.port(), page, "", host).status, 200u) << host;

  // The WebSocket too.
  const HttpAnswer upgrade = upgrade_get(server.port(), page, "evil.example:" + port, "");
  EXPECT_EQ(upgrade.status, 403u);
  EXPECT_NE(upgrade.body.find("is not a name of this desk"), std::string::npos) << upgrade.body;
  net::io_context io;
  websocket::stream<tcp::socket> ws(io);
  ws.next_layer().connect(loopback_port(server.port()));
  beast::error_code error;
  ws.handshake("evil.example:" + port, page, error);
  EXPECT_EQ(error, websocket::error::upgrade_declined) << error.message();
  EXPECT_EQ(server.counts().viewers, 0);
  EXPECT_EQ(upgrade_get(server.port(), page, "127.0.0.1:" + port, "").status, 101u);
}

// Cross-site WebSocket hijacking: a page on another port of 127.0.0.1 is the same site, so its socket
// carries the desk's cookie; its Origin gives it away.
TEST(ServeServerTest, AWebSocketOfAnotherPagesOriginIsRefused) {
  lab::serve::Server server(loopback_options());
  const std::string host = "127.0.0.1:" + std::to_string(server.port());
  // The token as a cookie alone, as a browser page sends it.
  const std::string cookie = "interop_lab_token=" + server.token();
  const HttpAnswer other = upgrade_get(server.port(), "/", host, "http://127.0.0.1:1", cookie);
  EXPECT_EQ(other.status, 403u);
  EXPECT_NE(
      other.body.find("a WebSocket from the page of http://127.0.0.1:1 is not the desk's own page (http://" +
                      host + ")"),
      std::string::npos)
      << other.body;
  EXPECT_EQ(upgrade_get(server.port(), "/", host, "null", cookie).status, 403u);
  // The desk's own page, and a client without an Origin.
  EXPECT_EQ(upgrade_get(server.port(), "/", host, "http://" + host, cookie).status, 101u);
  EXPECT_EQ(upgrade_get(server.port(), "/", host, "", cookie).status, 101u);

  // A Beast client from the other page is not let in either.
  net::io_context io;
  websocket::stream<tcp::socket> ws(io);
  ws.next_layer().connect(loopback_port(server.port()));
  ws.set_option(websocket::stream_base::decorator([cookie](websocket::request_type& request) {
    request.set(http::field::origin, "http://127.0.0.1:1");
    request.set(http::field::cookie, cookie);
  }));
  beast::error_code error;
  ws.handshake(host, "/", error);
  EXPECT_EQ(error, websocket::error::upgrade_declined) << error.message();
  EXPECT_EQ(server.counts().viewers, 0);
}

TEST(ServeServerTest, ConnectionsBeyondTheCapAreRefused) {
  lab::serve::ServerOptions options = loopback_options();
  options.max_connections = 3;
  lab::serve::Server server(options);
  net::io_context io;
  std::vector<tcp::socket> held;
  for (int i = 0; i < options.max_connections; ++i) {
    held.emplace_back(io);
    held.back().connect(loopback_port(server.port()));
  }
  ASSERT_TRUE(eventually([&] { return server.counts().connections == options.max_connections; }));

  tcp::socket extra(io);
  extra.connect(loopback_port(server.port()));
  const Received refused = read_until_closed(io, extra, std::chrono::seconds(10));
  EXPECT_TRUE(refused.closed);
  EXPECT_EQ(refused.text.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u) << refused.text;
  EXPECT_NE(refused.text.find("503: the desk has 3 connections open, its most"), std::string::npos);
  EXPECT_EQ(server.counts().connections_refused, 1u);
  EXPECT_EQ(server.counts().connections, options.max_connections);

  // One closed: the next is served.
  held.pop_back();
  ASSERT_TRUE(eventually([&] { return server.counts().connections == options.max_connections - 1; }));
  EXPECT_EQ(http_get(server.port(), "/?token=" + server.token()).status, 200u);
}

TEST(ServeServerTest, AConnectionThatSendsNoRequestInTimeIsClosed) {
  lab::serve::ServerOptions options = loopback_options();
  options.request_timeout = std::chrono::milliseconds(300);
  lab::serve::Server server(options);
  net::io_context io;
  tcp::socket silent(io);
  silent.connect(loopback_port(server.port()));
  tcp::socket dribbling(io);
  dribbling.connect(loopback_port(server.port()));
  net::write(dribbling, net::buffer(std::string("GET /?token=" + server.token() + " HTTP/1.1\r\n")));
  for (tcp::socket* socket : {&silent, &dribbling}) {
    const Received received = read_until_closed(io, *socket, std::chrono::seconds(10));
    EXPECT_TRUE(received.closed);
    EXPECT_EQ(received.text, "");  // nothing answered, not even for the token it began with
    EXPECT_LT(received.seconds, 5.0);
  }
  EXPECT_TRUE(eventually([&] { return server.counts().connections == 0; }));
}

// A viewer gone without closing (its machine off the network), or one that stopped reading, holds a
// connection until its ping goes unanswered.
TEST(ServeServerTest, AViewerThatAnswersNoPingIsClosed) {
  lab::serve::ServerOptions options = loopback_options();
  options.viewer_idle_timeout = std::chrono::milliseconds(400);
  lab::serve::Server server(options);
  Viewer answering(server);
  Viewer silent(server);
  ASSERT_TRUE(eventually([&] { return server.counts().viewers == 2; }));
  // The answering one reads (a read answers pings) for three timeouts; the silent one never does.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1200);
  while (std::chrono::steady_clock::now() < until) {
    server.offer_frame(gradient_image(32, 16), state_of_frame(1));
    answering.read_frame();
  }
  EXPECT_TRUE(eventually([&] { return server.counts().viewers == 1; }));
  EXPECT_TRUE(eventually([&] { return server.counts().connections == 1; }));
}

#if !defined(_WIN32)
// Lowers this process's limit of file descriptors so that none more can be made (every one below the lowest
// free one is taken), and restores it.
class NoFreeFileDescriptors {
 public:
  NoFreeFileDescriptors() {
    EXPECT_EQ(getrlimit(RLIMIT_NOFILE, &m_saved), 0);
    const int lowest_free = ::open("/dev/null", O_RDONLY);
    EXPECT_GE(lowest_free, 0);
    ::close(lowest_free);
    rlimit lowered = m_saved;
    lowered.rlim_cur = static_cast<rlim_t>(lowest_free);
    EXPECT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
  }
  ~NoFreeFileDescriptors() { restore(); }
  void restore() {
    if (m_restored) return;
    m_restored = true;
    EXPECT_EQ(setrlimit(RLIMIT_NOFILE, &m_saved), 0);
  }
  NoFreeFileDescriptors(const NoFreeFileDescriptors&) = delete;
  NoFreeFileDescriptors& operator=(const NoFreeFileDescriptors&) = delete;

 private:
  rlimit m_saved{};
  bool m_restored = false;
};

TEST(ServeServerTest, AcceptingGoesOnAfterTheProcessRanOutOfFileDescriptors) {
  lab::serve::ServerOptions options = loopback_options();
  options.request_timeout = std::chrono::milliseconds(500);
  lab::serve::Server server(options);
  net::io_context io;
  std::vector<tcp::socket> clients;  // made while descriptors are free: connecting takes none more
  for (int i = 0; i < 3; ++i) {
    clients.emplace_back(io);
    clients.back().open(tcp::v4());
  }
  {
    NoFreeFileDescriptors pressure;
    for (tcp::socket& client : clients) client.connect(loopback_port(server.port()));  // the backlog's
    ASSERT_TRUE(eventually([&] { return server.counts().accept_failures > 0; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // several retries, all failing
    EXPECT_EQ(server.counts().connections, 0);
  }
  clients.clear();
  // Descriptors free again: the desk accepts and answers.
  EXPECT_EQ(http_get(server.port(), "/?token=" + server.token()).status, 200u);
}

#endif  // the limit of file descriptors is POSIX's

TEST(ServeServerTest, AnOversizeFrameIsRefusedWithTheReason) {
  lab::serve::Server server(loopback_options());
  Viewer viewer(server);
  viewer.ws.text(true);
  viewer.ws.write(net::buffer(std::string(R"({"size":[16384,16384]})")));
  const std::optional<nlohmann::json> reply = viewer.read_text_within(std::chrono::seconds(10));
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["type"], "error");
  EXPECT_NE((*reply)["error"].get<std::string>().find("the desk takes at most 33177600 pixels (7680x4320"),
            std::string::npos)
      << reply->dump();
  EXPECT_EQ(server.counts().commands_queued, 0u);
  viewer.ws.write(net::buffer(std::string(R"({"size":[3840,2160]})")));
  ASSERT_TRUE(eventually([&] { return server.counts().commands_queued == 1; }));
}

// The app went on drawing while nobody watched: the next viewer's first frame is the app's newest, not the
// last one encoded for the viewer before.
TEST(ServeServerTest, AViewerGetsTheCurrentFrameNotTheLastOneEncoded) {
  lab::serve::Server server(loopback_options());
  {
    Viewer first(server);
    ASSERT_TRUE(eventually([&] { return server.counts().viewers == 1; }));
    server.offer_frame(gradient_image(64, 48), state_of_frame(174));
    EXPECT_EQ(first.read_frame().second.index, 174u);
    first.ws.close(websocket::close_code::normal);
    ASSERT_TRUE(eventually([&] { return server.counts().viewers == 0; }));
  }
  for (long long frame = 175; frame <= 365; ++frame) {
    lab::serve::AppState state = state_of_frame(frame);
    state.scene = lab::SceneId::Wave;
    server.offer_frame(gradient_image(64, 48), state);
  }
  Viewer next(server);
  const auto [state, frame] = next.read_frame();
  EXPECT_EQ(frame.index, 365u);
  EXPECT_EQ(state["frame"], 365);
  EXPECT_EQ(state["scene"], "wave");
}

// A page's burst of bad commands while its socket is busy with a frame: every reason reaches it.
TEST(ServeServerTest, EveryReasonOfABurstOfBadCommandsIsSent) {
  lab::serve::ServerOptions options = loopback_options();
  options.jpeg_quality = 95;
  lab::serve::Server server(options);
  // A frame of several MB to a viewer that does not read yet: the server's write of it waits, and the
  // replies to the commands queue behind it.
  Viewer viewer(server, 16 * 1024);
  ASSERT_TRUE(eventually([&] { return server.counts().viewers == 1; }));
  server.offer_frame(noise_image(2048, 2048, 2), state_of_frame(1));
  ASSERT_TRUE(eventually([&] { return server.counts().most_frames_in_flight == 1; }));
  constexpr int kBad = 20;
  viewer.ws.text(true);
  for (int i = 0; i < kBad; ++i)
    viewer.ws.write(net::buffer("{\"scene\":\"nowhere-" + std::to_string(i) + "\"}"));
  ASSERT_TRUE(eventually([&] { return server.counts().messages_refused == static_cast<unsigned>(kBad); }));

  EXPECT_EQ(viewer.read_frame().second.index, 1u);
  std::vector<std::string> reasons;
  for (int reply = 0; reply < kBad && reasons.size() < static_cast<size_t>(kBad); ++reply) {
    const std::optional<nlohmann::json> error = viewer.read_text_within(std::chrono::seconds(5));
    if (!error) break;
    EXPECT_EQ((*error)["type"], "error");
    for (const nlohmann::json& reason : (*error)["errors"]) reasons.push_back(reason.get<std::string>());
  }
  ASSERT_EQ(reasons.size(), static_cast<size_t>(kBad));
  for (int i = 0; i < kBad; ++i)
    EXPECT_NE(reasons[i].find("\"nowhere-" + std::to_string(i) + "\" is not a scene"), std::string::npos)
        << reasons[i];
}

}  // namespace
