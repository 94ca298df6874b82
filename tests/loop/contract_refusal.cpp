// tests/loop/contract_refusal.cpp — must NOT compile: a backend whose renderer lacks wait_idle(), checked
// against the frame loop's contract (app/loop/contract.hpp). CTest's loop.contract_refuses_a_missing_verb
// builds it and passes only when the build fails naming the verb, so the contract's check is itself
// checked.
#include "app/loop/contract.hpp"
#include "app/null/backend.hpp"

namespace {

// The null renderer with every verb but wait_idle.
class RendererWithoutWaitIdle : private lab::null::Renderer {
 public:
  using lab::null::Renderer::create_resources;
  using lab::null::Renderer::destroy_resources;
  using lab::null::Renderer::download;
  using lab::null::Renderer::draw_cubes;
  using lab::null::Renderer::draw_frame;
  using lab::null::Renderer::PassSync;
  using lab::null::Renderer::read_frame;
  using lab::null::Renderer::Renderer;
  using lab::null::Renderer::resize;
  using lab::null::Renderer::resources;
  using lab::null::Renderer::upload;
};

struct BackendWithoutWaitIdle : lab::null::Backend<> {
  using Renderer = RendererWithoutWaitIdle;
};

static_assert(lab::loop::check_renderer<BackendWithoutWaitIdle::Renderer>(), "");

}  // namespace
