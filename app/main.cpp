// app/main.cpp — interop-lab's entry point: parse, run, and map every failure to its exit code
// (0 success, 1 runtime failure, 2 usage error) with a message that says what to do.
#include "app/app.hpp"
#include "app/bench.hpp"
#include "app/cli.hpp"
#include "app/diff.hpp"
#include "app/doctor.hpp"
#include "interop/error.hpp"

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  const lab::ParseResult parsed = lab::parse_command_line(argc, argv);
  if (parsed.exit_code) {
    std::fputs(parsed.output.c_str(), *parsed.exit_code == 0 ? stdout : stderr);
    return *parsed.exit_code;
  }
  if (parsed.options.list) {
    std::fputs(lab::list_text().c_str(), stdout);
    return 0;
  }
  try {
    if (parsed.options.diff) return lab::run_diff(*parsed.options.diff);
    if (parsed.options.doctor) return lab::run_doctor(parsed.options);
    if (parsed.options.bench) return lab::run_bench(parsed.options);
    lab::App app(parsed.options);
    return app.run();
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
