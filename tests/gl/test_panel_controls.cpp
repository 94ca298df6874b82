// tests/gl/test_panel_controls.cpp — the window's panel (app/panel/panel.hpp) against the table of controls
// (app/controls/controls.hpp): drawn without a renderer, its text read back through ImGui's text log, every
// control the table says the panel shows is there under the table's label, in a state where it applies (a
// caller's stack and controls included), and the ones that apply only to a mode, a scene or a source are not
// drawn where they do not apply.
#include "app/controls/controls.hpp"
#include "app/panel/panel.hpp"
#include "app/scene/view.hpp"
#include "tests/support/headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui.h>

#include <array>
#include <regex>
#include <string>
#include <vector>

namespace {

// An ImGui context without a renderer on a 1920x1080 display.
struct HeadlessImGui {
  HeadlessImGui() { lab::testing::create_headless_imgui(1920, 1080); }
  ~HeadlessImGui() { ImGui::DestroyContext(); }
};

// The panel of `model` drawn for two frames (a new window is measured on its first): the text it logged on
// the second, and the commands it returned (none: nothing was clicked).
std::string panel_text(const lab::panel::PanelModel& model, std::vector<lab::Command>& commands) {
  lab::panel::PanelPlace place;
  for (int frame = 0; frame < 2; ++frame) {
    ImGui::NewFrame();
    if (frame == 1) ImGui::LogToClipboard();
    commands = lab::panel::draw_panel(model, place);
    if (frame == 1) ImGui::LogFinish();
    ImGui::Render();
  }
  return ImGui::GetClipboardText();
}

// Whether `text` holds `label` as words of its own (not inside a longer word).
bool shows(const std::string& text, const std::string& label) {
  return std::regex_search(text, std::regex("(^|[^A-Za-z_])" + label + "($|[^A-Za-z_])"));
}

// A caller's controls: one of each kind.
const lab::caller::Registry& caller_controls() {
  static const lab::caller::Registry registry = [] {
    lab::caller::Registry made;
    for (const auto& [kind, name] : {std::pair{lab::caller::Kind::Slider, "exposure"},
                                     {lab::caller::Kind::Checkbox, "show grid"},
                                     {lab::caller::Kind::Button, "reset"},
                                     {lab::caller::Kind::Choice, "palette"}}) {
      lab::caller::Control control;
      control.kind = kind;
      control.name = name;
      if (kind == lab::caller::Kind::Choice) control.options = {"gray", "turbo"};
      made.add(control);
    }
    return made;
  }();
  return registry;
}

// A GL panel in the split mode, on two CUDA devices, with the external modes' semaphores offered, flags
// registered, the postprocess scene's blur and publishers to switch to: every control applies.
lab::panel::PanelModel everything_applies() {
  lab::panel::PanelModel model;
  model.api = lab::GraphicsApi::Gl;
  model.scene = lab::SceneId::Postprocess;
  model.source = "published 'sim'";
  model.source_status = "frame 12 of pid 4242";
  model.published = "sim";
  model.publishers = {"sim", "other"};
  model.picture_readout = "x 12  y 40  0.25";
  model.picture_colorbar = std::array<double, 2>{300.0, 5297.0};
  model.mode = lab::ModeId::Split;
  model.mode_ids = lab::modes_of(lab::GraphicsApi::Gl);
  model.modes.assign(model.mode_ids.size(), lab::ModeAvailability{true, ""});
  model.extent = {1280, 720};
  model.devices = {"0: first", "1: second"};
  model.device = 0;
  model.compute_device = 1;
  model.states[static_cast<size_t>(lab::Command::Kind::SplitCopy)] = lab::choice_state("peer");
  model.states[static_cast<size_t>(lab::Command::Kind::Semaphores)] = lab::choice_state("timeline");
  model.flags = {lab::RegisteredFlags{"the frame", lab::ResourceRole::Output}};
  model.filter = kernels::Filter::Blur;
  model.blur_radius = 6;
  model.stack = lab::caller::Stack{1, 4};
  model.caller_controls = &caller_controls();
  return model;
}

TEST(PanelControls, EveryControlTheTableGivesThePanelIsDrawnUnderItsLabel) {
  const HeadlessImGui context;
  std::vector<lab::Command> commands;
  const std::string text = panel_text(everything_applies(), commands);
  for (const lab::Control& control : lab::all_controls()) {
    if (control.not_on_panel) {
      // A Python viewer's tools are its own window's and page's; the app shows every other control.
      EXPECT_TRUE(lab::viewer_command(control.kind))
          << control.key << " is not on the panel (" << control.not_on_panel
          << "): the panel shows every control of the app's; drop this line if one stops";
      continue;
    }
    EXPECT_TRUE(shows(text, control.label)) << control.key << ": no '" << control.label << "' in\n" << text;
  }
  EXPECT_TRUE(commands.empty()) << "the panel asked for something nobody clicked";
  EXPECT_NE(text.find("x 12  y 40  0.25"), std::string::npos) << "no value under the pointer in\n" << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("(^|\\s)300\\s+5297(\\s|$)"))) << "no colorbar's ends in\n"
                                                                                << text;
  for (const char* name : {"exposure", "show grid", "reset", "palette"})
    EXPECT_TRUE(shows(text, name)) << "the caller's control " << name << " is not drawn in\n" << text;
}

TEST(PanelControls, TheControlsOfAModeOrASceneAreLeftOutWhereTheyDoNotApply) {
  const HeadlessImGui context;
  lab::panel::PanelModel model = everything_applies();
  model.mode = lab::ModeId::Interop;  // no compute device, no copy
  model.states[static_cast<size_t>(lab::Command::Kind::Semaphores)].why_not = "interop uses no semaphores";
  model.flags.clear();
  model.scene = lab::SceneId::Wave;
  model.filter.reset();
  model.blur_radius.reset();
  model.source.clear();
  std::vector<lab::Command> commands;
  const std::string text = panel_text(model, commands);
  for (const lab::Command::Kind kind :
       {lab::Command::Kind::ComputeDevice, lab::Command::Kind::SplitCopy, lab::Command::Kind::Semaphores,
        lab::Command::Kind::MapFlags, lab::Command::Kind::RegisterFlags, lab::Command::Kind::BlurRadius,
        lab::Command::Kind::Source, lab::Command::Kind::Control})
    EXPECT_FALSE(shows(text, lab::control_of(kind).label)) << lab::control_of(kind).key << " drawn in\n"
                                                           << text;
  // The ones that always apply stay.
  for (const lab::Command::Kind kind : {lab::Command::Kind::Mode, lab::Command::Kind::Pause,
                                        lab::Command::Kind::Step, lab::Command::Kind::Fps})
    EXPECT_TRUE(shows(text, lab::control_of(kind).label)) << lab::control_of(kind).key;
}

// The window's pointer over a frame that fills it: the commands one ImGui frame of this input gives.
TEST(PanelControls, ThePointerOverTheFrameZoomsWithTheWheelAndPansWithADrag) {
  const HeadlessImGui context;
  ImGuiIO& io = ImGui::GetIO();
  lab::panel::FramePointer pointer;
  const auto input = [&](float x, float y, float wheel, bool down) {
    io.MousePos = ImVec2(x, y);
    io.MouseWheel = wheel;
    io.MouseDown[0] = down;
    ImGui::NewFrame();
    std::vector<lab::Command> commands = lab::panel::frame_pointer(pointer, {1280, 720});
    ImGui::Render();
    return commands;
  };
  std::vector<lab::Command> commands = input(600.0f, 400.0f, 1.0f, false);
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].kind, lab::Command::Kind::Zoom);
  EXPECT_EQ(commands[0].x, 600.0);
  EXPECT_EQ(commands[0].y, 400.0);
  EXPECT_DOUBLE_EQ(commands[0].factor, lab::view::kWheelZoom) << "one notch";
  ASSERT_TRUE(pointer.at);
  EXPECT_EQ(*pointer.at, (std::array<double, 2>{600.0, 400.0}));

  EXPECT_TRUE(input(600.0f, 400.0f, 0.0f, true).empty()) << "a press alone moves nothing";
  commands = input(630.0f, 380.0f, 0.0f, true);
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].kind, lab::Command::Kind::Pan);
  EXPECT_EQ(commands[0].x, 30.0);
  EXPECT_EQ(commands[0].y, -20.0);
  EXPECT_TRUE(input(630.0f, 380.0f, 0.0f, false).empty());
  EXPECT_TRUE(input(700.0f, 300.0f, 0.0f, false).empty()) << "released: a move is no drag";

  EXPECT_TRUE(input(1500.0f, 300.0f, -1.0f, false).empty()) << "the wheel beyond the frame's right edge";
  EXPECT_FALSE(pointer.at) << "off the frame";
  EXPECT_TRUE(input(1500.0f, 300.0f, 0.0f, true).empty());
  EXPECT_TRUE(input(1400.0f, 300.0f, 0.0f, true).empty()) << "a drag begun off the frame";
}

}  // namespace
