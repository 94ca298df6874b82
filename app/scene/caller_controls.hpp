// app/scene/caller_controls.hpp — what a caller who feeds a source its pictures (the array source, a Python
// viewer) adds to the panel and the page: its own controls (viewer.slider, .checkbox, .button, .choice):
// what each is, its value, and how many times the user changed it, so that the caller reads the value in its
// loop, or runs its callback once per change (Python at viewer.poll(), on its own thread); and the stack
// its picture is one frame of, whose frame the user may pick. No ImGui here: the panel draws each control
// (app/panel/panel.hpp) and the loop hands the user's change to Registry::change (app/loop/commands.hpp).
#pragma once

#include <string>
#include <vector>

namespace lab::caller {

enum class Kind { Slider = 0, Checkbox = 1, Button = 2, Choice = 3 };

struct Control {
  Kind kind = Kind::Slider;
  std::string name;
  double low = 0.0, high = 1.0;      // a slider's range
  double value = 0.0;                // slider: the number; checkbox: 0 or 1; choice: an option's index;
                                     // button: presses so far
  std::vector<std::string> options;  // a choice's
  long long changes = 0;             // the user's changes (a button's presses)
};

class Registry {
 public:
  // Adds `control` and returns its id, or throws std::invalid_argument naming the field and the fix (an
  // empty or taken name, low not below high, a value out of range, a choice without options).
  int add(Control control);

  // The control of `id`; throws std::invalid_argument for an id never returned by add.
  const Control& at(int id) const;

  // The user changed it (the panel): a slider's value clamped to its range, a checkbox 0 or 1, a choice's
  // index; a button counts a press. Counts a change when the value differs (a press always); returns
  // whether it counted one.
  bool change(int id, double value);

  // The program set it (Python's `control.value = ...`): checked as add checks, counted as no change.
  void set(int id, double value);

  // The id of the control named `name`, or -1 (the page names its controls).
  int find_named(const std::string& name) const;

  // Whether `value` may be set (as set() checks it): throws std::invalid_argument naming the control and the
  // fix, for a page's value, which is refused rather than clamped.
  void check(int id, double value) const;

  const std::vector<Control>& all() const { return m_controls; }

 private:
  Control& find(int id);
  std::vector<Control> m_controls;
};

// The stack (N, H, W[, C]) the picture shown is frame `index` of: the caller says which it shows and how many
// there are; the panel's slider, the arrow keys and the page ask for another (`index`), which the caller
// shows when it next reads it.
struct Stack {
  int index = 0;
  int frames = 1;
};

}  // namespace lab::caller
