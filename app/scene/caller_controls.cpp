// app/scene/caller_controls.cpp — the caller's controls' registry (app/scene/caller_controls.hpp).
#include "app/scene/caller_controls.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace lab::caller {

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument(message);
}

// The value `control` may hold, or the reason it may not.
void check_value(const Control& control, double value) {
  const std::string what = "'" + control.name + "'";
  switch (control.kind) {
    case Kind::Slider:
      require(std::isfinite(value) && value >= control.low && value <= control.high,
              "slider " + what + ": value " + number(value) + " is outside " + number(control.low) + ".." +
                  number(control.high) + ": pass one within the range");
      break;
    case Kind::Checkbox:
      require(value == 0.0 || value == 1.0, "checkbox " + what + ": value: pass True or False");
      break;
    case Kind::Choice:
      require(
          value >= 0.0 && value < static_cast<double>(control.options.size()) && value == std::floor(value),
          "choice " + what + ": index " + number(value) + ": pass one of its options");
      break;
    case Kind::Button:
      require(value >= 0.0 && value == std::floor(value), "button " + what + ": presses: a whole number");
      break;
  }
}

}  // namespace

int Registry::add(Control control) {
  require(!control.name.empty(), "a control needs a name: pass a non-empty string, e.g. 'exposure'");
  for (const Control& kept : m_controls)
    require(kept.name != control.name,
            "a control named '" + control.name + "' is in the panel already: give each its own name");
  if (control.kind == Kind::Slider)
    require(std::isfinite(control.low) && std::isfinite(control.high) && control.low < control.high,
            "slider '" + control.name + "': low " + number(control.low) + ", high " + number(control.high) +
                ": pass finite numbers with low below high");
  if (control.kind == Kind::Choice)
    require(!control.options.empty(), "choice '" + control.name + "': pass at least one option");
  check_value(control, control.value);
  control.changes = 0;
  m_controls.push_back(std::move(control));
  return static_cast<int>(m_controls.size()) - 1;
}

const Control& Registry::at(int id) const {
  require(id >= 0 && id < static_cast<int>(m_controls.size()), "no control " + std::to_string(id));
  return m_controls[static_cast<size_t>(id)];
}

Control& Registry::find(int id) {
  return const_cast<Control&>(static_cast<const Registry&>(*this).at(id));
}

bool Registry::change(int id, double value) {
  Control& control = find(id);
  switch (control.kind) {
    case Kind::Button:
      control.value += 1.0;
      ++control.changes;
      return true;
    case Kind::Slider:
      value = std::clamp(value, control.low, control.high);
      break;
    case Kind::Checkbox:
      value = value != 0.0 ? 1.0 : 0.0;
      break;
    case Kind::Choice:
      value = std::clamp(std::floor(value), 0.0, static_cast<double>(control.options.size() - 1));
      break;
  }
  if (!std::isfinite(value) || value == control.value) return false;
  control.value = value;
  ++control.changes;
  return true;
}

int Registry::find_named(const std::string& name) const {
  for (size_t i = 0; i < m_controls.size(); ++i)
    if (m_controls[i].name == name) return static_cast<int>(i);
  return -1;
}

void Registry::check(int id, double value) const {
  check_value(at(id), value);
}

void Registry::set(int id, double value) {
  Control& control = find(id);
  check_value(control, value);
  control.value = value;
}

}  // namespace lab::caller
