// app/scene_wave.hpp — what the wave scene exposes beyond the Scene interface: its grid and camera,
// so tests can project a vertex to the pixel it lands on.
#pragma once

#include "app/platform.hpp"

#include <glm/mat4x4.hpp>

namespace lab {

constexpr int kWaveGrid = 256;  // vertices along each side of the height field

// The camera of the wave scene: perspective for the extent's aspect ratio, looking at the centre.
glm::mat4 wave_view_projection(Extent extent);

// The background the wave scene clears to: whole 8-bit steps, so every driver stores the same bytes
// (a value halfway between two steps may round either way).
constexpr float kClearColor[3] = {20.0f / 255.0f, 20.0f / 255.0f, 26.0f / 255.0f};

}  // namespace lab
