// tests/unit/test_desk.cpp — the frame loop's side of the browser desk (app/serve/desk.hpp) without an app:
// apply_commands on two stand-in loops, one with GL's live flags and device switches and one without (as
// Vulkan's), and the state helpers (flags, filter, device names) on what the loops hold.
#include "app/loop/commands.hpp"
#include "app/serve/desk.hpp"

#include <gtest/gtest.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using lab::serve::Command;

// A scene with or without the postprocess filter; it computes nothing.
class StandInScene final : public lab::SceneCompute {
 public:
  explicit StandInScene(lab::SceneId id) : m_id(id) {
    if (id == lab::SceneId::Postprocess) m_filter = kernels::Filter::Sobel;
  }
  lab::SceneId id() const override { return m_id; }
  std::vector<lab::ResourceDesc> resources(lab::Extent) const override { return {}; }
  bool resize_recreates_resources() const override { return false; }
  lab::DrawPlan draw_plan() const override { return {}; }
  void compute_cuda(const lab::FrameInfo&, const std::vector<lab::CudaResourceView>&, cudaStream_t) override {
  }
  void compute_cpu(const lab::FrameInfo&, const std::vector<lab::HostResourceView>&) override {}
  std::optional<kernels::Filter> filter() const override { return m_filter; }
  bool set_filter(kernels::Filter filter) override {
    if (!m_filter) return false;
    m_filter = filter;
    return true;
  }
  std::optional<int> blur_radius() const override {
    return m_filter ? std::optional<int>(m_radius) : std::nullopt;
  }
  bool set_blur_radius(int radius) override {
    if (!m_filter) return false;
    m_radius = radius;
    return true;
  }

 private:
  lab::SceneId m_id;
  std::optional<kernels::Filter> m_filter;
  int m_radius = 6;
};

// What app/loop/app.hpp's loop offers every command: scene, mode, size, the fps cap, the split mode's
// choices, semaphores, graph, timing, vsync, the animation clock, the screenshot, the scene itself. Each
// verb keeps what it was asked.
struct LoopWithoutSwitches {
  StandInScene scene_compute{lab::SceneId::Wave};
  std::optional<lab::SceneId> scene_asked;
  std::optional<lab::Extent> size_asked;
  std::optional<double> fps_asked;
  int fps_calls = 0;
  std::optional<int> compute_device_asked;
  std::optional<lab::SplitCopy> split_copy_asked;
  std::optional<interop::SemaphoreKind> semaphores_asked;
  std::optional<bool> graph_asked, timing_asked, vsync_asked, paused_asked;
  int steps = 0;
  int screenshots = 0;
  void set_fps_cap(double fps) {
    fps_asked = fps;
    ++fps_calls;
  }
  std::string request_compute_device(int device) {
    if (device > 1) return "compute device " + std::to_string(device) + ": there is no such device";
    compute_device_asked = device;
    return "";
  }
  void request_split_copy(lab::SplitCopy copy) { split_copy_asked = copy; }
  void request_semaphores(interop::SemaphoreKind kind) { semaphores_asked = kind; }
  void request_graph(bool on) { graph_asked = on; }
  void set_timing(bool on) { timing_asked = on; }
  std::string set_vsync(bool on) {
    vsync_asked = on;
    return "";
  }
  void set_paused(bool on) { paused_asked = on; }
  void step() { ++steps; }
  void request_screenshot() { ++screenshots; }
  std::string request_scene(lab::SceneId scene) {
    scene_asked = scene;
    return "";
  }
  std::optional<lab::ModeId> mode_asked;
  lab::ModeAvailability request_mode(lab::ModeId mode) {
    if (mode != lab::ModeId::Cpu) return lab::ModeAvailability{false, "needs a CUDA device"};
    mode_asked = mode;
    return lab::ModeAvailability{true, ""};
  }
  void resize(lab::Extent size) { size_asked = size; }
  lab::SceneCompute& scene() { return scene_compute; }
};

// GL's app adds the flags and the device, each refused with a reason as GL's are.
struct LoopWithSwitches : LoopWithoutSwitches {
  lab::AccessSettings access;
  std::optional<int> device_asked;
  std::string request_map_access(std::optional<interop::Access> wanted) {
    if (wanted == interop::Access::ReadOnly) return "read-only cannot apply to what CUDA writes";
    access.map_access = wanted;
    return "";
  }
  std::string request_register_access(std::optional<interop::Access> wanted) {
    access.register_access = wanted;
    return "";
  }
  std::string request_device(int device) {
    if (device > 0) return "CUDA device " + std::to_string(device) + ": there is no such device";
    device_asked = device;
    return "";
  }
};

std::vector<Command> commands_of(const std::string& text) {
  std::vector<Command> commands;
  EXPECT_EQ(lab::serve::parse_commands(text, commands), "") << text;
  return commands;
}

TEST(DeskCommandsTest, FlagsReachTheLoopAndARefusalSaysWhy) {
  LoopWithSwitches loop;
  EXPECT_EQ(lab::loop::apply_commands(loop, commands_of(R"({"map_flags":"write-discard"})")), "");
  EXPECT_EQ(loop.access.map_access, interop::Access::WriteDiscard);
  EXPECT_EQ(lab::serve::flags_state(loop.access).map_flags, "write-discard");

  const std::string refused = lab::loop::apply_commands(loop, commands_of(R"({"map_flags":"read-only"})"));
  EXPECT_NE(refused.find("map flags read-only refused: read-only cannot apply"), std::string::npos)
      << refused;
  EXPECT_EQ(loop.access.map_access, interop::Access::WriteDiscard);  // unchanged

  EXPECT_EQ(lab::loop::apply_commands(loop, commands_of(R"({"register_flags":"none","map_flags":"best"})")),
            "");
  EXPECT_EQ(loop.access.register_access, interop::Access::ReadWrite);
  EXPECT_FALSE(loop.access.map_access.has_value());
  const lab::serve::FlagsState flags = lab::serve::flags_state(loop.access);
  EXPECT_TRUE(flags.settable);
  EXPECT_EQ(flags.map_flags, lab::serve::kBestAccess);
  EXPECT_EQ(flags.register_flags, "none");
}

TEST(DeskCommandsTest, ALoopWithoutFlagsOrDeviceSwitchesRefusesThemWithTheReason) {
  LoopWithoutSwitches loop;
  const std::string flags = lab::loop::apply_commands(loop, commands_of(R"({"map_flags":"none"})"));
  EXPECT_NE(flags.find("map flags none refused: this graphics API registers nothing"), std::string::npos)
      << flags;
  const std::string device = lab::loop::apply_commands(loop, commands_of(R"({"device":0})"));
  EXPECT_NE(device.find("chosen at start (--device N)"), std::string::npos) << device;
  EXPECT_FALSE(lab::serve::no_flags().settable);
  EXPECT_EQ(lab::serve::no_flags().why_not, lab::serve::kNoFlags);
  // The commands it has still apply, in the same message.
  EXPECT_NE(lab::loop::apply_commands(loop, commands_of(R"({"device":0,"scene":"pattern"})")), "");
  EXPECT_EQ(loop.scene_asked, lab::SceneId::Pattern);
}

TEST(DeskCommandsTest, DeviceCommandsGoThroughRequestDevice) {
  LoopWithSwitches loop;
  EXPECT_EQ(lab::loop::apply_commands(loop, commands_of(R"({"device":0})")), "");
  EXPECT_EQ(loop.device_asked, 0);
  const std::string refused = lab::loop::apply_commands(loop, commands_of(R"({"device":3})"));
  EXPECT_EQ(refused, "CUDA device 3: there is no such device");
}

// app/loop/app.hpp's loop switches publishers (request_source), refusing a name nothing publishes.
struct LoopWithSources : LoopWithoutSwitches {
  std::vector<std::string> published = {"sim", "other"};
  std::string source_asked;
  std::string request_source(const std::string& name) {
    if (std::find(published.begin(), published.end(), name) == published.end())
      return "source " + name + ": nothing is published by that name";
    source_asked = name;
    return "";
  }
};

TEST(DeskCommandsTest, SourceCommandsGoThroughRequestSourceAndALoopWithoutOneRefusesThem) {
  LoopWithSources loop;
  EXPECT_EQ(lab::loop::apply_commands(loop, commands_of(R"({"source":"other"})")), "");
  EXPECT_EQ(loop.source_asked, "other");
  EXPECT_EQ(lab::loop::apply_commands(loop, commands_of(R"({"source":"nobody"})")),
            "source nobody: nothing is published by that name");
  EXPECT_EQ(loop.source_asked, "other");
  LoopWithoutSwitches without;
  const std::string refused = lab::loop::apply_commands(without, commands_of(R"({"source":"sim"})"));
  EXPECT_EQ(refused, "source sim refused: this app shows no published frames");
}

TEST(DeskCommandsTest, TheFilterChangesOnlyInTheScenesThatHaveOne) {
  LoopWithoutSwitches loop;
  const std::string refused = lab::loop::apply_commands(loop, commands_of(R"({"filter":"blur"})"));
  EXPECT_NE(refused.find("the wave scene has no filter"), std::string::npos) << refused;
  EXPECT_EQ(lab::serve::filter_name(loop.scene()), "");

  loop.scene_compute = StandInScene(lab::SceneId::Postprocess);
  EXPECT_EQ(lab::serve::filter_name(loop.scene()), "sobel");
  EXPECT_EQ(lab::loop::apply_commands(loop, commands_of(R"({"filter":"blur"})")), "");
  EXPECT_EQ(lab::serve::filter_name(loop.scene()), "blur");
}

// Every control of the table (app/controls/controls.hpp) parses from the page's JSON and reaches the loop's
// verb for it: one value each, which the loop must then hold.
TEST(DeskCommandsTest, EveryControlOfTheTableReachesItsVerb) {
  using Kind = lab::Command::Kind;
  struct EveryVerbLoop : LoopWithSwitches {
    std::string source_asked;
    std::string request_source(const std::string& name) {
      source_asked = name;
      return "";
    }
    // A picture's tools (app/loop/app.hpp's move_view, hover, set_picture_fit): what each was asked.
    std::vector<Kind> moves;
    std::string move_view(const lab::Command& command) {
      moves.push_back(command.kind);
      return "";
    }
    std::optional<std::array<double, 2>> hovered;
    std::string hover(const lab::Command& command) {
      hovered = std::array<double, 2>{command.x, command.y};
      return "";
    }
    std::optional<lab::PictureFit> fit_asked;
    std::string set_picture_fit(lab::PictureFit fit) {
      fit_asked = fit;
      return "";
    }
    // The caller's tools (app/loop/app.hpp's caller_command): a stack's frame, a caller's control.
    std::vector<lab::Command> caller_asked;
    std::string caller_command(const lab::Command& command) {
      caller_asked.push_back(command);
      return "";
    }
  } loop;
  loop.scene_compute = StandInScene(lab::SceneId::Postprocess);
  const std::vector<std::pair<std::string, std::function<bool()>>> samples = {
      {R"({"scene":"pattern"})", [&] { return loop.scene_asked == lab::SceneId::Pattern; }},
      {R"({"source":"other"})", [&] { return loop.source_asked == "other"; }},
      {R"({"mode":"cpu"})", [&] { return loop.mode_asked == lab::ModeId::Cpu; }},
      {R"({"map_flags":"none"})", [&] { return loop.access.map_access == interop::Access::ReadWrite; }},
      {R"({"register_flags":"write-discard"})",
       [&] { return loop.access.register_access == interop::Access::WriteDiscard; }},
      {R"({"filter":"blur"})", [&] { return lab::serve::filter_name(loop.scene()) == "blur"; }},
      {R"({"blur_radius":9})", [&] { return loop.scene().blur_radius() == 9; }},
      {R"({"size":[320,200]})",
       [&] {
         return loop.size_asked == lab::Extent{320, 200};
       }},
      {R"({"fps":24})", [&] { return loop.fps_asked == 24.0; }},
      {R"({"device":0})", [&] { return loop.device_asked == 0; }},
      {R"({"compute_device":1})", [&] { return loop.compute_device_asked == 1; }},
      {R"({"split_copy":"host"})", [&] { return loop.split_copy_asked == lab::SplitCopy::Host; }},
      {R"({"semaphores":"binary"})", [&] { return loop.semaphores_asked == interop::SemaphoreKind::Binary; }},
      {R"({"graph":true})", [&] { return loop.graph_asked == true; }},
      {R"({"timing":false})", [&] { return loop.timing_asked == false; }},
      {R"({"vsync":false})", [&] { return loop.vsync_asked == false; }},
      {R"({"pause":true})", [&] { return loop.paused_asked == true; }},
      {R"({"step":true})", [&] { return loop.steps == 1; }},
      {R"({"screenshot":true})", [&] { return loop.screenshots == 1; }},
      {R"({"picture_fit":"contain"})", [&] { return loop.fit_asked == lab::PictureFit::Contain; }},
      {R"({"zoom":[10,20,1.25]})", [&] { return loop.moves == std::vector<Kind>{Kind::Zoom}; }},
      {R"({"pan":[3,-4]})", [&] { return loop.moves.back() == Kind::Pan; }},
      {R"({"actual_size":[5,6]})", [&] { return loop.moves.back() == Kind::ActualSize; }},
      {R"({"fit":true})", [&] { return loop.moves.back() == Kind::Fit; }},
      {R"({"hover":[7,8]})",
       [&] {
         return loop.hovered == std::array<double, 2>{7.0, 8.0};
       }},
      {R"({"index":2})",
       [&] {
         return !loop.caller_asked.empty() && loop.caller_asked.back().kind == Kind::Index &&
                loop.caller_asked.back().index == 2;
       }},
      {R"({"control":{"name":"gain","value":0.5}})",
       [&] {
         return !loop.caller_asked.empty() && loop.caller_asked.back().kind == Kind::Control &&
                loop.caller_asked.back().name == "gain" && loop.caller_asked.back().number == 0.5;
       }},
  };
  std::vector<Kind> covered;
  for (const auto& [text, holds] : samples) {
    const std::vector<lab::Command> commands = commands_of(text);
    ASSERT_EQ(commands.size(), 1u) << text;
    covered.push_back(commands[0].kind);
    EXPECT_EQ(lab::loop::apply_commands(loop, commands), "") << text;
    EXPECT_TRUE(holds()) << text << " did not reach the loop";
  }
  for (const lab::Control& control : lab::all_controls())
    EXPECT_NE(std::find(covered.begin(), covered.end(), control.kind), covered.end())
        << control.key << ": a control of the table with no sample here";
}

// A loop whose sources never have a caller (the stand-ins here) refuses a stack's frame and a caller's
// control, saying what it lacks.
TEST(DeskCommandsTest, ALoopWithoutCallersToolsRefusesAStacksFrameAndACallersControl) {
  LoopWithoutSwitches loop;
  EXPECT_EQ(lab::loop::apply_commands(loop, commands_of(R"({"index":2})")),
            "index refused: this app's source has no stack");
  EXPECT_EQ(lab::loop::apply_commands(loop, commands_of(R"({"control":{"name":"gain","value":0.5}})")),
            "control refused: this app's source has no caller's controls");
}

TEST(DeskCommandsTest, TheSwitchesTakeTrueOrFalseAndTheActionsOnlyTrue) {
  std::vector<lab::Command> commands;
  EXPECT_EQ(lab::serve::parse_commands(R"({"pause":1})", commands), "pause: 1 is not true or false");
  EXPECT_EQ(lab::serve::parse_commands(R"({"step":false})", commands),
            "step: false is not true (step takes nothing else)");
  EXPECT_EQ(lab::serve::parse_commands(R"({"blur_radius":33})", commands),
            "blur_radius: 33 is not a radius from 0 to 32 pixels");
  EXPECT_EQ(lab::serve::parse_commands(R"({"split_copy":"carrier pigeon"})", commands),
            "split_copy: \"carrier pigeon\" is not a copy path; choose peer, host");
  EXPECT_EQ(lab::serve::parse_commands(R"({"semaphores":3})", commands),
            "semaphores: 3 is not a semaphore kind; choose timeline, binary");
  EXPECT_TRUE(commands.empty());
}

TEST(DeskCommandsTest, AViewersPageCommandsCarryTheirPointsFactorsAndValues) {
  using Kind = lab::Command::Kind;
  std::vector<lab::Command> commands;
  ASSERT_EQ(lab::serve::parse_commands(R"({"zoom":[12.5,40,0.8]})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"pan":[-3,4.5]})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"actual_size":[1,2]})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"hover":[30,31]})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"hover":null})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"index":4})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"control":{"name":"gain","value":2.5}})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"control":{"name":"on","value":false}})", commands), "");
  ASSERT_EQ(lab::serve::parse_commands(R"({"control":{"name":"cmap","value":"turbo"}})", commands), "");
  ASSERT_EQ(commands.size(), 9u);
  EXPECT_EQ(commands[0].kind, Kind::Zoom);
  EXPECT_EQ(commands[0].x, 12.5);
  EXPECT_EQ(commands[0].y, 40.0);
  EXPECT_EQ(commands[0].factor, 0.8);
  EXPECT_EQ(commands[1].kind, Kind::Pan);
  EXPECT_EQ(commands[1].x, -3.0);
  EXPECT_EQ(commands[1].y, 4.5);
  EXPECT_EQ(commands[2].kind, Kind::ActualSize);
  EXPECT_EQ(commands[2].x, 1.0);
  EXPECT_EQ(commands[3].kind, Kind::Hover);
  EXPECT_TRUE(commands[3].on);
  EXPECT_EQ(commands[3].y, 31.0);
  EXPECT_EQ(commands[4].kind, Kind::Hover);
  EXPECT_FALSE(commands[4].on);
  EXPECT_EQ(commands[5].index, 4);
  EXPECT_EQ(commands[6].name, "gain");
  EXPECT_EQ(commands[6].value, lab::Command::Value::Number);
  EXPECT_EQ(commands[6].number, 2.5);
  EXPECT_EQ(commands[7].value, lab::Command::Value::Boolean);
  EXPECT_FALSE(commands[7].on);
  EXPECT_EQ(commands[8].value, lab::Command::Value::Text);
  EXPECT_EQ(commands[8].text, "turbo");
}

TEST(DeskCommandsTest, TheKeysOfAMessageAreItsObjectsAndNoneOfAnythingElse) {
  EXPECT_EQ(lab::serve::command_keys(R"({"zoom":[1,2],"pan":3})"), (std::vector<std::string>{"pan", "zoom"}));
  EXPECT_TRUE(lab::serve::command_keys("[1,2]").empty());
  EXPECT_TRUE(lab::serve::command_keys("not json").empty());
}

TEST(DeskCommandsTest, AViewersPageCommandsOfTheWrongShapeAreRefusedNamingTheForm) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {R"({"zoom":[1,2]})", "zoom: [1,2] is not [x, y, factor]"},
      {R"({"zoom":[1,2,0]})", "a factor from 0.015625 to 64, e.g. [640, 360, 1.25]"},
      {R"({"zoom":[1,2,100]})", "zoom: [1,2,100] is not [x, y, factor]"},
      {R"({"zoom":[1e9,2,2]})", "is not [x, y, factor]: a point of the frame"},
      {R"({"pan":"left"})", "pan: \"left\" is not [x, y]: an offset in the frame's pixels, e.g. [12, -4]"},
      {R"({"actual_size":[1,"2"]})", "actual_size: [1,\"2\"] is not [x, y]: a point of the frame"},
      {R"({"hover":[1]})", "hover: [1] is not [x, y], a point of the frame in its pixels"},
      {R"({"fit":"cover"})", "fit: \"cover\" is not true (fit takes nothing else)"},
      {R"({"index":-1})", "index: -1 is not a frame of a stack: a whole number from 0 to 1073741824"},
      {R"({"index":1.5})", "index: 1.5 is not a frame of a stack"},
      {R"({"control":{"name":"gain"}})",
       "control: {\"name\":\"gain\"} is not {\"name\": NAME, \"value\": VALUE}"},
      {R"({"control":{"name":"","value":1}})", "is not {\"name\": NAME, \"value\": VALUE}"},
      {R"({"control":{"name":"gain","value":[1]}})", "a finite number (a slider), true or false"},
      {R"({"control":["gain",1]})", "control: [\"gain\",1] is not {\"name\": NAME"},
  };
  for (const auto& [text, reason] : refused) {
    std::vector<lab::Command> commands;
    const std::string problem = lab::serve::parse_commands(text, commands);
    EXPECT_NE(problem.find(reason), std::string::npos) << text << ": " << problem;
    EXPECT_TRUE(commands.empty()) << text;
  }
}

TEST(DeskCommandsTest, TheBlurRadiusChangesOnlyInTheScenesThatHaveOne) {
  LoopWithoutSwitches loop;
  const std::string refused = lab::loop::apply_commands(loop, commands_of(R"({"blur_radius":4})"));
  EXPECT_EQ(refused, "blur_radius 4 refused: the wave scene has no blur; the postprocess scene has");
}

TEST(DeskCommandsTest, DeviceNamesFollowTheOrdinalsAndSayWhichDriveTheGraphics) {
  interop::CudaDevices devices;
  devices.devices.resize(2);
  devices.devices[0].ordinal = 0;
  devices.devices[0].name = "first";
  devices.devices[1].ordinal = 1;
  devices.devices[1].name = "second";
  const std::vector<std::string> names = lab::serve::device_names(devices, {1});
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], "0: first");
  EXPECT_EQ(names[1], "1: second (drives the graphics)");
  EXPECT_TRUE(lab::serve::device_names(interop::CudaDevices{}).empty());
}

// The desk's page as a WebSocket: it sends commands and reads the state messages (the frames skipped).
struct PageSocket {
  boost::asio::io_context io;
  boost::beast::websocket::stream<boost::asio::ip::tcp::socket> ws{io};

  explicit PageSocket(const lab::serve::Server& server) {
    ws.next_layer().connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"),
                                                           static_cast<unsigned short>(server.port())));
    ws.read_message_max(64 * 1024 * 1024);
    ws.handshake("127.0.0.1", "/?token=" + server.token());
  }
  void send(const std::string& text) {
    ws.text(true);
    ws.write(boost::asio::buffer(text));
  }
  nlohmann::json next_state() {
    while (true) {
      boost::beast::flat_buffer buffer;
      ws.read(buffer);
      if (!ws.got_text()) continue;
      nlohmann::json message = nlohmann::json::parse(boost::beast::buffers_to_string(buffer.data()));
      if (message["type"] == "state") return message;
    }
  }
};

template <class Done>
bool eventually(Done done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// GL's loop whose frame-rate cap is the desk's, as app/loop/app.hpp's set_fps_cap makes it with --serve.
struct LoopOnDesk : LoopWithSwitches {
  lab::serve::Desk* desk = nullptr;
  void set_fps_cap(double fps) {
    LoopWithSwitches::set_fps_cap(fps);
    desk->set_fps_cap(fps);
  }
};

// GL's app on the desk, frame by frame as app/loop/app.hpp runs it: the page's commands applied (a refusal
// becomes the loop's notice, which stays), then the frame and the state after it handed to the desk.
struct DeskedLoop {
  lab::serve::Desk desk;
  LoopOnDesk loop;
  std::string loop_notice;
  lab::ModeId mode = lab::ModeId::Interop;
  long long frame = 0;

  DeskedLoop() : desk(any_port(), one_encoder()) {
    desk.set_fps_cap(0.0);
    loop.desk = &desk;
  }
  static lab::ServeAddress any_port() {
    lab::ServeAddress address;
    address.port = 0;
    return address;
  }
  static lab::serve::ServerOptions one_encoder() {
    lab::serve::ServerOptions options;
    options.encode_threads = 1;
    return options;
  }
  // One frame, once the page's `commands` messages reached the desk.
  void run_frame(size_t commands = 0) {
    EXPECT_TRUE(eventually([&] { return desk.server().counts().commands_queued >= commands; }));
    if (std::string refused = lab::loop::apply_commands(loop, desk.begin_frame()); !refused.empty())
      loop_notice = refused;
    lab::serve::AppState state;
    state.api = lab::GraphicsApi::Gl;
    state.mode = mode;
    state.frame = frame++;
    state.flags = lab::serve::flags_state(loop.access);
    state.notice = loop_notice;
    lab::Image image;
    image.width = image.height = 16;
    image.rgba.assign(16 * 16 * 4, 128);
    desk.end_frame(std::move(image), std::move(state), 0.1);
  }
};

// A refused command's notice goes to each page once, not in every state after it, and the next command that
// succeeds clears it (the page shows a notice until a state carries another, "" included).
TEST(DeskNoticeTest, ANoticeIsSentOnceAndACommandThatSucceedsClearsIt) {
  DeskedLoop app;
  PageSocket page(app.desk.server());
  ASSERT_TRUE(eventually([&] { return app.desk.server().counts().viewers == 1; }));
  app.run_frame();
  EXPECT_FALSE(page.next_state().contains("notice")) << "a notice before anything was refused";

  page.send(R"({"map_flags":"read-only"})");
  app.run_frame(1);
  const nlohmann::json refused = page.next_state();
  ASSERT_TRUE(refused.contains("notice"));
  const std::string reason = refused["notice"];
  EXPECT_NE(reason.find("map flags read-only refused: read-only cannot apply"), std::string::npos) << reason;
  for (int i = 0; i < 3; ++i) {
    app.run_frame();
    EXPECT_FALSE(page.next_state().contains("notice")) << "the old notice repeated";
  }
  // A page opened now gets the notice that stands, once: with the newest frame, which it gets at once.
  PageSocket later(app.desk.server());
  EXPECT_EQ(later.next_state().value("notice", "(none)"), reason);
  app.run_frame();
  EXPECT_FALSE(page.next_state().contains("notice"));
  EXPECT_FALSE(later.next_state().contains("notice"));

  // The next command succeeds (the loop's own notice stays what it was): the notice clears, once.
  page.send(R"({"map_flags":"write-discard"})");
  app.run_frame(1);
  EXPECT_EQ(page.next_state().value("notice", "(none)"), "");
  EXPECT_EQ(later.next_state().value("notice", "(none)"), "");
  app.run_frame();
  EXPECT_FALSE(page.next_state().contains("notice"));
  later.next_state();

  // The same refusal again is news again, though the loop's notice text did not change.
  page.send(R"({"map_flags":"read-only"})");
  app.run_frame(1);
  EXPECT_EQ(page.next_state().value("notice", "(none)"), reason);
}

// The page's frame-rate cap is set once, by apply_commands through the loop's set_fps_cap (which sets the
// desk's, as the app's does): begin_frame hands it over with the page's other commands and sets nothing.
TEST(DeskCommandsTest, ThePagesCapIsSetOnceThroughTheLoop) {
  DeskedLoop app;
  PageSocket page(app.desk.server());
  ASSERT_TRUE(eventually([&] { return app.desk.server().counts().viewers == 1; }));
  page.send(R"({"fps":24})");
  ASSERT_TRUE(eventually([&] { return app.desk.server().counts().commands_queued >= 1; }));
  const lab::serve::FrameCommands taken = app.desk.begin_frame();
  ASSERT_EQ(taken.commands.size(), 1u);
  EXPECT_EQ(taken.commands[0].kind, Command::Kind::Fps);
  EXPECT_EQ(app.desk.fps_cap(), 0.0) << "begin_frame set the page's cap itself";
  EXPECT_EQ(lab::loop::apply_commands(app.loop, taken), "");
  EXPECT_EQ(app.loop.fps_calls, 1);
  EXPECT_EQ(app.desk.fps_cap(), 24.0);
  // The state after it says the new cap to the page.
  app.run_frame();
  EXPECT_EQ(page.next_state()["desk"]["fps_cap"], 24.0);
  EXPECT_EQ(app.loop.fps_calls, 1);
}

// GL's flags mean something only in the modes that register with CUDA: elsewhere (cpu) the page greys them
// with why.
TEST(DeskNoticeTest, TheFlagsSayWhyNotInAModeThatRegistersNothing) {
  DeskedLoop app;
  PageSocket page(app.desk.server());
  ASSERT_TRUE(eventually([&] { return app.desk.server().counts().viewers == 1; }));
  app.run_frame();
  EXPECT_EQ(page.next_state()["flags"]["why_not"], "");
  app.mode = lab::ModeId::Cpu;
  app.run_frame();
  const std::string why = page.next_state()["flags"]["why_not"];
  EXPECT_NE(why.find("the cpu mode registers nothing with CUDA"), std::string::npos) << why;
  EXPECT_NE(why.find("interop, reregister, pbo, split, buffer"), std::string::npos) << why;
}

// The desk's timeline lane names how each frame was read back (GL's by CUDA or through its pixel-pack
// buffer): in the lanes the desk makes for a frame, and in the loop's timeline of a frame gone by.
TEST(DeskReadBackTest, TheDeskLaneNamesHowTheFrameWasRead) {
  DeskedLoop app;
  PageSocket page(app.desk.server());
  ASSERT_TRUE(eventually([&] { return app.desk.server().counts().viewers == 1; }));
  const auto read_back_spans = [](const nlohmann::json& state) {  // the desk lane's (the server adds encode)
    std::vector<std::string> names;
    for (const nlohmann::json& span : state["timeline"]["spans"])
      if (span["lane"] == "desk" && span["name"].get<std::string>().rfind("read-back", 0) == 0)
        names.push_back(span["name"]);
    return names;
  };
  const auto collect = [&](long long frame, const std::string& way, std::optional<long long> timeline_of) {
    lab::serve::AppState state;
    state.api = lab::GraphicsApi::Gl;
    state.frame = frame;
    if (timeline_of) {
      lab::TimelineBuilder builder(*timeline_of, lab::host_clock_ns() - 5'000'000);
      state.timeline = builder.build(lab::host_clock_ns());
    }
    app.desk.frame_read_begun(std::move(state));
    lab::Image image;
    image.width = image.height = 16;
    image.rgba.assign(16 * 16 * 4, 7);
    app.desk.frame_read_collected(std::make_shared<const lab::Image>(std::move(image)), frame, 0.2, {0x1234u},
                                  way);
  };
  collect(0, "CUDA", std::nullopt);
  EXPECT_EQ(read_back_spans(page.next_state()), std::vector<std::string>{"read-back (CUDA)"});
  collect(1, "PBO", std::nullopt);
  EXPECT_EQ(read_back_spans(page.next_state()), std::vector<std::string>{"read-back (PBO)"});
  collect(2, "", std::nullopt);  // an API with one way
  EXPECT_EQ(read_back_spans(page.next_state()), std::vector<std::string>{"read-back"});
  collect(3, "PBO", 0);  // the loop's timeline of frame 0, read by CUDA
  EXPECT_EQ(read_back_spans(page.next_state()), std::vector<std::string>{"read-back (CUDA)"});
}

// A renderer that reads frames late, as far as serve::LateReader asks: up to `slots` reads under way, each
// done when the test says.
struct LateRenderer {
  struct Read {
    long long frame = 0;
    bool done = false;
  };
  size_t slots = 2;
  std::deque<Read> under_way;     // oldest first
  int looks = 0;                  // read_frame_done calls
  int begins = 0;                 // begin_read_frame calls
  std::vector<int> frames_ahead;  // limit_frames_ahead's arguments

  void begin_read_frame(const lab::DrawPlan&, long long frame) {
    ASSERT_TRUE(can_begin_read()) << "frame " << frame << " begun with every slot taken";
    under_way.push_back({frame, false});
    ++begins;
  }
  int reads_under_way() const { return static_cast<int>(under_way.size()); }
  bool can_begin_read() const { return under_way.size() < slots; }
  bool read_frame_done() {
    ++looks;
    return !under_way.empty() && under_way.front().done;
  }
  std::optional<lab::FrameRead> end_read_frame() {
    if (under_way.empty()) return std::nullopt;
    lab::FrameRead read;
    read.frame = under_way.front().frame;
    read.image = std::make_shared<const lab::Image>();
    under_way.pop_front();
    return read;
  }
  void limit_frames_ahead(int frames) { frames_ahead.push_back(frames); }
  void finish_all() {
    for (Read& read : under_way) read.done = true;
  }
  std::vector<long long> frames_under_way() const {
    std::vector<long long> frames;
    for (const Read& read : under_way) frames.push_back(read.frame);
    return frames;
  }
};
static_assert(lab::serve::ReadsFramesLate<LateRenderer>::value);

struct LateReaderTest : ::testing::Test {
  LateRenderer renderer;
  lab::serve::LateReader reader;
  long long frame = 0;
  // One frame of a loop: its read begins if the reader says so.
  lab::serve::LateRead step(bool wanted, bool wait = false) {
    const long long index = frame++;
    return reader.step(
        renderer, wanted, [&] { renderer.begin_read_frame({}, index); }, wait);
  }
};

// The desk's read-back never waits on a copy: a read not done stays under way, one done is collected and
// handed over, and reads begin while the renderer has a slot and fewer than kDepth frames are on their way.
// Every frame first keeps the GPU at most kFramesAhead frames behind.
TEST_F(LateReaderTest, AReadNotDoneStaysUnderWayAndOneDoneIsHandedOver) {
  lab::serve::LateRead read = step(true);  // frame 0 begins
  EXPECT_FALSE(read.collected);
  EXPECT_TRUE(read.begun);
  read = step(true);  // frame 0 not done; frame 1 begins too
  EXPECT_FALSE(read.collected);
  EXPECT_TRUE(read.begun);
  EXPECT_EQ(renderer.looks, 1);
  read = step(true);  // both slots taken: frame 2 is not read
  EXPECT_FALSE(read.collected);
  EXPECT_FALSE(read.begun);
  EXPECT_EQ(renderer.frames_under_way(), (std::vector<long long>{0, 1}));
  renderer.under_way.front().done = true;
  read =
      step(true);  // frame 0 handed over; frame 3 begins in the free slot (1, 3 and the offer: 3 on the way)
  ASSERT_TRUE(read.collected);
  EXPECT_EQ(read.collected->frame, 0);
  EXPECT_GE(read.read_back_ms, 0.0);
  EXPECT_TRUE(read.begun);
  EXPECT_EQ(renderer.frames_under_way(), (std::vector<long long>{1, 3}));
  EXPECT_EQ(renderer.frames_ahead, std::vector<int>(4, lab::serve::LateReader::kFramesAhead));
}

// Frames collected while the desk wants none are held, oldest first, and handed over one at a time as the
// viewers take them; while kDepth frames are on their way (held, and the offer not taken), none is read.
TEST_F(LateReaderTest, FramesCollectedWhileTheDeskWantsNoneAreHeldUntilItDoes) {
  step(true);  // frame 0 begins
  renderer.finish_all();
  lab::serve::LateRead read = step(true);  // frame 0 handed over; frame 1 begins
  ASSERT_TRUE(read.collected);
  EXPECT_EQ(read.collected->frame, 0);
  EXPECT_TRUE(read.begun);
  read = step(false);  // frame 0 not yet taken: frame 2 begins (1, 2 and the offer on their way)
  EXPECT_TRUE(read.begun);
  renderer.finish_all();
  read = step(false);  // 1 and 2 collected and held: three on their way, frame 3 not read
  EXPECT_FALSE(read.collected);
  EXPECT_FALSE(read.begun);
  EXPECT_TRUE(renderer.under_way.empty());
  read = step(false);
  EXPECT_FALSE(read.collected);
  EXPECT_FALSE(read.begun);
  read = step(true);  // a viewer took frame 0: frame 1 handed over (the oldest held), frame 5 begins
  ASSERT_TRUE(read.collected);
  EXPECT_EQ(read.collected->frame, 1);
  EXPECT_TRUE(read.begun);
  read = step(true);  // and frame 2 next
  ASSERT_TRUE(read.collected);
  EXPECT_EQ(read.collected->frame, 2);
  EXPECT_EQ(renderer.frames_under_way(), (std::vector<long long>{5, 6}));
  EXPECT_EQ(renderer.begins, 5);
}

// A renderer with one slot still gets frames read ahead: those collected are held while its slot reads on.
TEST_F(LateReaderTest, ARendererWithOneSlotReadsAheadOfTheDesk) {
  renderer.slots = 1;
  step(false);  // an offer waits for a viewer (not wanted): frame 0 begins
  renderer.finish_all();
  lab::serve::LateRead read = step(false);  // frame 0 held; frame 1 begins in the free slot
  EXPECT_FALSE(read.collected);
  EXPECT_TRUE(read.begun);
  renderer.finish_all();
  read = step(false);  // frame 1 held too: three on their way, frame 2 not read
  EXPECT_FALSE(read.begun);
  read = step(true);  // taken: frame 0 handed over, frame 3 begins
  ASSERT_TRUE(read.collected);
  EXPECT_EQ(read.collected->frame, 0);
  EXPECT_TRUE(read.begun);
  EXPECT_EQ(renderer.frames_under_way(), (std::vector<long long>{3}));
}

// Waiting (the benchmark's link rows): the oldest read is collected though not said done, without a look,
// and a read begins whenever a slot is free.
TEST_F(LateReaderTest, WaitingCollectsTheOldestReadAndBeginsWheneverASlotIsFree) {
  step(true, true);  // frame 0 begins
  lab::serve::LateRead read = step(true, true);
  ASSERT_TRUE(read.collected);
  EXPECT_EQ(read.collected->frame, 0);
  EXPECT_TRUE(read.begun);
  read = step(true, true);
  ASSERT_TRUE(read.collected);
  EXPECT_EQ(read.collected->frame, 1);
  EXPECT_TRUE(read.begun);
  EXPECT_EQ(renderer.looks, 0);
}

}  // namespace
