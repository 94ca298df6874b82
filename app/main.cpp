// app/main.cpp — interop-lab's entry point: parse, run, and map every failure to its exit code
// (0 success, 1 runtime failure, 2 usage error, 128 + N when signal N stopped it) with a message that
// says what to do.
#include "app/app.hpp"
#include "app/bench.hpp"
#include "app/cli.hpp"
#include "app/diff.hpp"
#include "app/doctor.hpp"
#include "app/signals.hpp"
#include "interop/error.hpp"

#include <cstdio>
#include <exception>
#include <string>

namespace {

int stopped_by(int signal) {
  std::fprintf(stderr, "interop-lab: stopped by %s; files not finished were removed\n",
               lab::signal_name(signal).c_str());
  return 128 + signal;
}

int run(const lab::Options& options) {
  try {
    if (options.diff) return lab::run_diff(*options.diff);
    if (options.doctor) return lab::run_doctor(options);
    if (options.bench) return lab::run_bench(options);
    lab::App app(options);
    return app.run();
  } catch (const lab::Interrupted& interrupted) {
    return stopped_by(interrupted.signal);
  } catch (const lab::UsageError& error) {
    std::fprintf(stderr, "interop-lab: %s\n", error.what());
    return 2;
  } catch (const interop::Error& error) {
    std::fprintf(stderr, "interop-lab: %s\n", error.what());
    if (error.sticky()) std::fprintf(stderr, "interop-lab: the CUDA context is lost; restart the process\n");
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
  const lab::ParseResult parsed = lab::parse_command_line(argc, argv);
  if (parsed.exit_code) {
    std::fputs(parsed.output.c_str(), *parsed.exit_code == 0 ? stdout : stderr);
    return *parsed.exit_code;
  }
  if (parsed.options.list) {
    std::fputs(lab::list_text().c_str(), stdout);
    return 0;
  }
  const int exit_code = run(parsed.options);
  // A request that came where nothing looks (the doctor has no frame loop) still ends the run as asked.
  if (const int signal = lab::stop_signal(); signal != 0 && exit_code < 128) return stopped_by(signal);
  return exit_code;
}
