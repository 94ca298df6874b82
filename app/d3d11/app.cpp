// app/d3d11/app.cpp — main()'s entry for --api d3d11 (app/d3d11/app.hpp).
#include "app/d3d11/app.hpp"

namespace lab::d3d11 {

int run_app(const Options& options) {
  App app(options);
  return app.run();
}

}  // namespace lab::d3d11
