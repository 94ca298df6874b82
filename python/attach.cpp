// python/attach.cpp — the C ABI of interop_lab.Viewer.attach: the app's own frame loop (lab::gl::App, the GL
// backend) with the published source (app/scene/published_source.hpp) in place of a scene, so a Python
// process watches another process's frames exactly as `interop-lab --attach NAME` does: the same modes,
// timings, panel and screenshot. Every call runs on the app's own GL context (python/gl_context.hpp).
#include "app/core/serve_address.hpp"
#include "app/gl/app/app.hpp"
#include "app/image/image_io.hpp"
#include "app/loop/commands.hpp"
#include "app/serve/protocol.hpp"
#include "python/errors.hpp"
#include "python/gl_context.hpp"
#include "python/protocol_abi.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Attached {
  std::unique_ptr<lab::gl::App> app;
  long long frame = 0;
  ilab::GlContext context;
  ilab::OwnerThread owner;
};

constexpr const char* kAttached = "this attached interop_lab viewer";
using ilab::copy_text;

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

// Attaches to the frames published as `name`. `mode`: "" for the app's default (interop where it works,
// else staging, else cpu), else a GL mode's name; width/height 0: the publisher's size; headless 0 opens a
// window with the panel; `serve`: null for no desk, else the address --serve takes ("[HOST:]PORT", 0: any
// free port, "": 127.0.0.1:8080), headless, each frame rendered handed to the browser desk as interop-lab
// --attach --serve does.
int ilab_attach_open(const char* name, const char* mode, int width, int height, int headless,
                     const char* serve, void** out) {
  return ilab::guarded([&] {
    *out = nullptr;
    lab::Options options;
    options.attach = name != nullptr ? name : "";
    if (mode != nullptr && mode[0] != '\0') {
      const std::optional<lab::ModeId> id = lab::mode_from_string(mode);
      if (!id || !lab::has_mode(lab::GraphicsApi::Gl, *id))
        throw std::invalid_argument(std::string("mode '") + mode + "' is no GL mode");
      options.mode = *id;
    }
    if ((width == 0) != (height == 0)) throw std::invalid_argument("give both width and height, or neither");
    if (width < 0 || height < 0 || width > lab::kMaxImageEdge || height > lab::kMaxImageEdge)
      throw std::invalid_argument("size " + std::to_string(width) + "x" + std::to_string(height) +
                                  ": each edge from 1 to " + std::to_string(lab::kMaxImageEdge));
    if (width > 0) {
      options.width = width;
      options.height = height;
      options.size_given = true;
    }
    if (serve != nullptr) {
      if (headless == 0)
        throw std::invalid_argument(
            "a served viewer renders headless, as interop-lab --serve does: drop window=True");
      lab::ServeAddress address;
      const std::string problem = lab::parse_serve_address(serve, address, true);
      if (!problem.empty()) throw std::invalid_argument(problem);
      options.serve = address;
    }
    options.headless = headless != 0;
    options.no_ui = options.headless;
    options.layout_file = "";  // a Python viewer leaves the app's panel layout alone
    const ilab::GlContext previous = ilab::GlContext::current();
    ilab::GlContext mine;
    const ilab::RestoreOnExit restore_on_exit(previous, mine);
    auto attached = std::make_unique<Attached>();
    attached->app = std::make_unique<lab::gl::App>(options);
    mine = attached->context = ilab::GlContext::current();
    *out = attached.release();
  });
}

// Renders the next frame as interop-lab --attach does (App::run_frame): the newest published one, after
// waiting up to a frame's time for one where nothing new came, presented, and served where it serves; *open
// is 0 once the window was closed.
int ilab_attach_render(void* handle, int* open) {
  return ilab::guarded([&] {
    Attached& attached = *static_cast<Attached*>(handle);
    const ilab::ScopedContext current(attached.context, attached.owner, kAttached);
    *open = attached.app->window_closed() ? 0 : 1;
    if (*open && attached.app->run_frame(attached.frame)) ++attached.frame;
  });
}

// The served desk's URL with its token ("" when not serving).
int ilab_attach_url(void* handle, char* url, uint64_t url_size) {
  return ilab::guarded([&] {
    Attached& attached = *static_cast<Attached*>(handle);
    copy_text(attached.app->desk_url(), url, url_size);
  });
}

// The frame rendered last, top row first, RGBA8: `bytes` must be width * height * 4 (rgba null: the size).
int ilab_attach_read_frame(void* handle, uint8_t* rgba, uint64_t bytes, int* width, int* height) {
  return ilab::guarded([&] {
    Attached& attached = *static_cast<Attached*>(handle);
    const ilab::ScopedContext current(attached.context, attached.owner, kAttached);
    const lab::Image image = attached.app->read_frame();
    *width = image.width;
    *height = image.height;
    if (rgba == nullptr) return;
    if (bytes != image.rgba.size()) throw std::invalid_argument("the frame needs width * height * 4 bytes");
    std::memcpy(rgba, image.rgba.data(), image.rgba.size());
  });
}

// What the source says ("uint8x4, device slots, frame 12 of pid 4242, 0 skipped", "publisher gone ...") and
// the mode the app runs.
int ilab_attach_status(void* handle, char* status, uint64_t status_size, char* mode, uint64_t mode_size) {
  return ilab::guarded([&] {
    Attached& attached = *static_cast<Attached*>(handle);
    copy_text(attached.app->source().status(), status, status_size);
    copy_text(lab::to_string(attached.app->mode_id()), mode, mode_size);
  });
}

// One message of the page's protocol ({"zoom": [x, y, 1.25]}, {"hover": [x, y]}, {"mode": "cpu"}:
// app/serve/protocol.hpp), applied as the page's and the panel's commands are (app/loop/commands.hpp), from
// the next frame on. 0: taken, and `refused` says why the app refused the last command it refused ("" when it
// took them all); 1: a message the protocol does not take, what is wrong in ilab_last_error(), nothing
// applied; -1: another failure.
int ilab_attach_command(void* handle, const char* message, char* refused, uint64_t refused_size) {
  return ilab::protocol_command(
      message, refused, refused_size, [&](const std::vector<lab::Command>& commands) {
        Attached& attached = *static_cast<Attached*>(handle);
        const ilab::ScopedContext current(attached.context, attached.owner, kAttached);
        return lab::loop::apply_commands(*attached.app, commands);
      });
}

// The state the page is sent (app/serve/protocol.hpp's state_json) about the frame rendered last: *size gets
// its bytes plus one; `out` null asks for the size alone.
int ilab_attach_state(void* handle, char* out, uint64_t out_size, uint64_t* size) {
  return ilab::guarded([&] {
    Attached& attached = *static_cast<Attached*>(handle);
    const ilab::ScopedContext current(attached.context, attached.owner, kAttached);
    ilab::protocol_state(lab::serve::state_json(attached.app->app_state(std::max(0LL, attached.frame - 1)),
                                                lab::serve::DeskStats{}),
                         out, out_size, size);
  });
}

int ilab_attach_close(void* handle) {
  auto* attached = static_cast<Attached*>(handle);
  if (attached == nullptr) return 0;
  return ilab::guarded([&] {
    {
      ilab::ScopedContext current(attached->context, attached->owner, kAttached);
      current.forget_mine();
      attached->app.reset();
    }
    delete attached;
  });
}

}  // extern "C"
#pragma GCC visibility pop
