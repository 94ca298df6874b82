// app/d3d12/app.cpp — main()'s entry for --api d3d12 (app/d3d12/app.hpp).
#include "app/d3d12/app.hpp"

namespace lab::d3d12 {

int run_app(const Options& options) {
  App app(options);
  return app.run();
}

}  // namespace lab::d3d12
