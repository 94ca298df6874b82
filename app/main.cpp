// app/main.cpp — interop-lab's entry point: parse, run, and map every failure to its exit code
// (0 success, 1 runtime failure, 2 usage error, 128 + N when signal N stopped it) with a message that
// says what to do.
#include "app/cli/cli.hpp"
#include "app/cli/remedy.hpp"
#include "app/doctor/doctor.hpp"
#include "app/image/diff.hpp"
#include "app/loop/app.hpp"
#include "app/null/backend.hpp"
#include "app/os/os.hpp"
#include "app/os/signals.hpp"
#include "app/scene/published_source.hpp"
#include "interop/error.hpp"

// Which graphics APIs this executable has, CMake's choice (app/CMakeLists.txt; tests/windows builds one
// with Direct3D only, without CUDA, to check the Direct3D backends under Wine).
#if !defined(INTEROP_LAB_WITH_GL) || !defined(INTEROP_LAB_WITH_VULKAN) || !defined(INTEROP_LAB_WITH_D3D)
#error "define INTEROP_LAB_WITH_GL, _VULKAN and _D3D to 0 or 1 (app/CMakeLists.txt)"
#endif
#if INTEROP_LAB_WITH_GL
#include "app/gl/app/app.hpp"
#include "app/gl/app/bench.hpp"
#include "app/gl/doctor_gl.hpp"
#endif
#if INTEROP_LAB_WITH_VULKAN
#include "app/vulkan/app/app.hpp"
#include "app/vulkan/app/bench.hpp"
#include "app/vulkan/doctor_vulkan.hpp"
#endif
#if INTEROP_LAB_WITH_D3D
#include "app/d3d/doctor_d3d.hpp"
#include "app/d3d11/app/app.hpp"
#include "app/d3d12/app/app.hpp"
#endif

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace {

// What goes to stdout (--help, --version, --list, the doctor's report, the bench's table, diff's
// verdict) is the result: when it could not be written (a full disk, /dev/full, a closed stdout) the
// run failed, though everything else went well.
int finish_standard_output(int exit_code, int failure_exit_code) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout)) return exit_code;
  // An earlier failed write left only the stream's error flag, not its errno.
  const std::string reason = !flushed && error != 0 ? std::strerror(error) : "a write failed";
  std::fprintf(stderr, "interop-lab: cannot write to standard output (%s); check where it is redirected\n",
               reason.c_str());
  return failure_exit_code;
}

int stopped_by(int signal) {
  std::fprintf(stderr, "interop-lab: %s\n", lab::stop_message(signal).c_str());
  return 128 + signal;
}

#if INTEROP_LAB_WITH_GL
int run_gl(const lab::Options& options, const std::vector<lab::DoctorSource>& doctor_sources) {
  lab::gl::App app(options, doctor_sources);
  return app.run();
}
#endif

// The API table: one row per lab::GraphicsApi, in its order (checked below, as bgfx checks its renderer
// creators), saying whether this build has the API and how to run it, its benchmark and its desk's.
// Adding an API is its folder, its row here and its CMake.
struct ApiEntry {
  lab::GraphicsApi api;
  bool built;  // this executable has it
  // null where it is not built; the doctor's sources are this build's (doctor_sources() below), for the
  // panel's doctor tab and the page's doctor section
  int (*run_app)(const lab::Options&, const std::vector<lab::DoctorSource>&);
  int (*run_bench)(const lab::Options&);       // --bench; null: no benchmark (not built, or none yet)
  int (*run_desk_bench)(const lab::Options&);  // --bench --serve; null: no desk
  lab::DoctorSource (*doctor_source)();        // its part of --doctor's report; null: none of its own
};
constexpr ApiEntry kApiTable[] = {
#if INTEROP_LAB_WITH_GL
    {lab::GraphicsApi::Gl, true, run_gl, lab::gl::run_bench, lab::gl::run_desk_bench,
     lab::gl::gl_doctor_source},
#else
    {lab::GraphicsApi::Gl, false, nullptr, nullptr, nullptr, nullptr},
#endif
#if INTEROP_LAB_WITH_VULKAN
    {lab::GraphicsApi::Vulkan, true, lab::loop::run_app<lab::vulkan::Vulkan>, lab::vulkan::run_bench,
     lab::vulkan::run_desk_bench, lab::vulkan::doctor_source},
#else
    {lab::GraphicsApi::Vulkan, false, nullptr, nullptr, nullptr, nullptr},
#endif
#if INTEROP_LAB_WITH_D3D
    // Direct3D 11 and 12 share the DXGI section (the adapters, and what each API creates on them): once.
    {lab::GraphicsApi::D3d11, true, lab::loop::run_app<lab::d3d11::Direct3D11>, nullptr, nullptr,
     lab::d3d::dxgi_doctor_source},
    {lab::GraphicsApi::D3d12, true, lab::loop::run_app<lab::d3d12::Direct3D12>, nullptr, nullptr, nullptr},
#else
    {lab::GraphicsApi::D3d11, false, nullptr, nullptr, nullptr, nullptr},
    {lab::GraphicsApi::D3d12, false, nullptr, nullptr, nullptr, nullptr},
#endif
    // No graphics API (app/null): the frames in host memory, for the desk and screenshots. Every build has
    // it.
    {lab::GraphicsApi::None, true, lab::loop::run_app<lab::null::Backend<lab::GraphicsApi::None>>, nullptr,
     nullptr, nullptr},
};
constexpr bool rows_in_enum_order() {
  for (size_t i = 0; i < std::size(kApiTable); ++i)
    if (static_cast<size_t>(kApiTable[i].api) != i) return false;
  return true;
}
static_assert(std::size(kApiTable) == lab::kGraphicsApiCount, "kApiTable needs one row per lab::GraphicsApi");
static_assert(rows_in_enum_order(), "kApiTable's rows must follow lab::GraphicsApi's order");

const ApiEntry& entry_of(lab::GraphicsApi api) {
  return kApiTable[static_cast<size_t>(api)];
}

bool built_with(lab::GraphicsApi api) {
  return entry_of(api).built;
}

// `what` (a graphics API, the doctor, the bench) is not in this executable: said as a failure of the run,
// not as a usage error, since the same command line is right for another build. Says what it has.
int not_in_this_build(const std::string& what) {
  std::string built;
  for (const lab::GraphicsApi api : lab::all_apis())
    if (built_with(api)) built += std::string(built.empty() ? "" : " and ") + "--api " + lab::to_string(api);
  std::fprintf(stderr, "interop-lab: %s is not in this build of interop-lab; it has %s\n", what.c_str(),
               built.c_str());
  return 1;
}

int api_not_in_this_build(lab::GraphicsApi api) {
#ifndef _WIN32
  if (api == lab::GraphicsApi::D3d11 || api == lab::GraphicsApi::D3d12) {
    std::fprintf(stderr, "interop-lab: %s is available on Windows only; use --api gl or --api vulkan here\n",
                 lab::display_name(api));
    return 1;
  }
#endif
  return not_in_this_build(std::string("--api ") + lab::to_string(api) + " (" + lab::display_name(api) + ")");
}

// The doctor's sources, for --doctor and for the running app's panel and page: each built API's, in the
// table's order, then the environment's.
std::vector<lab::DoctorSource> doctor_sources() {
  std::vector<lab::DoctorSource> sources;
  for (const ApiEntry& entry : kApiTable)
    if (entry.built && entry.doctor_source) sources.push_back(entry.doctor_source());
  sources.push_back(lab::environment_doctor_source());
  return sources;
}

// --bench (with --serve: the desk's) through --api's row.
int run_bench_of_api(const lab::Options& options) {
  const ApiEntry& entry = entry_of(options.api);
  if (!entry.built) return api_not_in_this_build(options.api);
  if (options.serve && entry.run_desk_bench) return entry.run_desk_bench(options);
  if (!options.serve && entry.run_bench) return entry.run_bench(options);
  std::fprintf(stderr, "interop-lab: %s has no %s yet; --api gl and --api vulkan have\n",
               lab::display_name(options.api), options.serve ? "desk benchmark" : "benchmark");
  return 1;
}

int run(const lab::Options& options) {
  try {
    if (options.diff) return lab::run_diff(*options.diff);
    if (options.doctor) return lab::run_doctor(options, doctor_sources());
    if (options.bench) return run_bench_of_api(options);
    if (!built_with(options.api)) return api_not_in_this_build(options.api);
    return entry_of(options.api).run_app(options, doctor_sources());
  } catch (const lab::Interrupted& interrupted) {
    return stopped_by(interrupted.signal);
  } catch (const lab::UsageError& error) {
    std::fprintf(stderr, "interop-lab: %s\n", error.what());
    return 2;
  } catch (const interop::Error& error) {
    std::fprintf(stderr, "interop-lab: %s\n", lab::describe(error).c_str());
    if (error.sticky()) std::fprintf(stderr, "interop-lab: the CUDA context is lost; restart the process\n");
    return 1;
  } catch (const std::bad_alloc&) {
    // The image-sized buffers say what they are themselves (app/os/out_of_memory.hpp); this is the rest.
    std::fprintf(
        stderr,
        "interop-lab: out of memory: an allocation failed (std::bad_alloc); use a smaller --size, or free "
        "memory (other programs, ulimit -v)\n");
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "interop-lab: %s\n", error.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // First of all, so a stop request during start-up ends the run cleanly too.
  const lab::SignalHandlers signal_handlers;
  // A standard descriptor closed by the caller (`>&-`) would go to the next file opened, and what is
  // printed to stdout would land in a PNG or a driver's file; finish_standard_output reports the writes.
  lab::os::hold_closed_standard_descriptors();
  const lab::ParseResult parsed = lab::parse_command_line(argc, argv);
  if (parsed.exit_code) {
    std::fputs(parsed.output.c_str(), *parsed.exit_code == 0 ? stdout : stderr);
    return *parsed.exit_code == 0 ? finish_standard_output(0, 1) : *parsed.exit_code;
  }
  if (parsed.options.list) {
    std::fputs(lab::list_text().c_str(), stdout);
    return finish_standard_output(0, 1);
  }
  if (parsed.options.attach_list) {
    const std::string published = lab::published_list_text();
    if (published.empty()) {
      std::fprintf(stderr,
                   "interop-lab: --attach: nothing is published for this user (%s); start a publisher "
                   "(interop_lab.publish in Python, interop::Publisher in C++), then --attach NAME\n",
                   lab::publication_directory().c_str());
      return 1;
    }
    std::fputs(("published frames (--attach NAME shows one):\n" + published).c_str(), stdout);
    return finish_standard_output(0, 1);
  }
  const int exit_code = run(parsed.options);
  // A request that came where nothing looks (the doctor has no frame loop) still ends the run as asked.
  if (const int signal = lab::stop_signal(); signal != 0 && exit_code < 128) return stopped_by(signal);
  // diff's 1 means "the images differ"; its failures are 2.
  return finish_standard_output(exit_code, parsed.options.diff ? 2 : 1);
}
