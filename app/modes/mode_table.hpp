// app/modes/mode_table.hpp — what every API's mode table shares (GL's kGlModes, Vulkan's kVulkanModes,
// Direct3D's kD3d11CudaModes and kD3d12CudaModes): a row per mode, found by its `id`, listed in the table's
// order (which the tests hold to modes_of).
#pragma once

#include "app/core/vocabulary.hpp"

#include <cstddef>
#include <vector>

namespace lab {

// The row of `rows` for `mode`, or nullptr where the table has none.
template <class Row, size_t N>
const Row* mode_row_of(const Row (&rows)[N], ModeId mode) {
  for (const Row& row : rows)
    if (row.id == mode) return &row;
  return nullptr;
}

// The modes of `rows`, in its order.
template <class Row, size_t N>
std::vector<ModeId> modes_of_table(const Row (&rows)[N]) {
  std::vector<ModeId> modes;
  for (const Row& row : rows) modes.push_back(row.id);
  return modes;
}

}  // namespace lab
