// tests/loop/null_options.hpp — the options of a loop on the null backend in loop_tests: headless (the null
// backend has nothing to show), no panel, the cpu mode, `scene` at width x height.
#pragma once

#include "app/cli/cli.hpp"
#include "app/core/vocabulary.hpp"

namespace labtest {

inline lab::Options null_options(lab::SceneId scene, int width, int height) {
  lab::Options options;
  options.scene = scene;
  options.mode = lab::ModeId::Cpu;
  options.width = width;
  options.height = height;
  options.headless = true;
  options.no_ui = true;
  options.frames = 1;
  return options;
}

}  // namespace labtest
