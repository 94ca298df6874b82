// app/core/names.hpp — the names users type and read (command line, panel, JSON, --list) for the enums
// they choose from. Each enum has one table of {value, name, description}, in the order --list and the
// panel show them; these helpers are the only lookups, so a name is written once and the parser, the
// help text and the panel cannot drift apart. GL-free.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lab {

template <class Enum>
struct NamedValue {
  Enum value;
  const char* name;
  const char* description;  // one line for --list and tooltips; "" where none is shown
};

// The entry's name; "?" for a value outside the table (a cast from a bad integer).
template <class Entry, size_t N, class Enum>
const char* name_of(const Entry (&table)[N], Enum value) {
  for (const Entry& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

template <class Entry, size_t N, class Enum>
const char* description_of(const Entry (&table)[N], Enum value) {
  for (const Entry& entry : table)
    if (entry.value == value) return entry.description;
  return "?";
}

// The value called `name`; nullopt for any other text (names are matched exactly).
template <class Entry, size_t N>
auto value_named(const Entry (&table)[N], std::string_view name) -> std::optional<decltype(table[0].value)> {
  for (const Entry& entry : table)
    if (name == entry.name) return entry.value;
  return std::nullopt;
}

template <class Entry, size_t N>
auto values_of(const Entry (&table)[N]) -> std::vector<decltype(table[0].value)> {
  std::vector<decltype(table[0].value)> values;
  for (const Entry& entry : table) values.push_back(entry.value);
  return values;
}

// "wave, pattern or postprocess": the accepted names for a usage error.
template <class Entry, size_t N>
std::string choices_text(const Entry (&table)[N]) {
  std::string text;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) text += i + 1 == N ? " or " : ", ";
    text += table[i].name;
  }
  return text;
}

}  // namespace lab
