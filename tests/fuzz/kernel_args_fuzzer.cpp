// kernel_args_fuzzer.cpp: libFuzzer target for the kernel option parsers behind `tessel dump`,
// `tessel run` and `tessel list`. The input is an argument vector (fuzz_support.hpp,
// split_arguments: NUL-separated, or whitespace-separated when it has no NUL byte), given to:
//   - parse_kernel_args (tools/tessel/kernel_args.cpp, compiled in) with the flags and valued
//     options of `tessel dump` and of `tessel run` (copied from dump_command.cpp and
//     run_command.cpp, which keep them inside their commands);
//   - then, as both commands do: find_family, resolve_options (or listed_configurations for
//     run --all), the family's own configuration parser (vector_copy_config, ...,
//     hopper_gemm_config) and dump_arguments, whose output must parse back to the same options;
//   - tessel::cli::list_command (tools/tessel/list_command.cpp, compiled in): --filter, --KEY,
//     --cc, with its output captured.
// No PTX is generated and nothing runs: the resolved configurations are a finite set that the
// test suite generates and assembles in full.
// Invariants: no crash, no sanitizer report, no hang; only tessel::Error escapes the kernels'
// parsers; a refusal prints exactly one line `error: ...` on standard error (plus a `Run ...`
// hint); dump_arguments round-trips.
#include <set>

#include "fuzz_support.hpp"
#include "kernel_args.hpp"
#include "list_command.hpp"
#include "tessel/kernels/demos.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/kernels/registry.hpp"

namespace {

using namespace tessel;
using fuzz::bug;

constexpr std::string_view kTarget = "kernel_args";

// What the kernel options of one configuration mean to its family (the family's own parser). A
// family not named here is still resolved and round-tripped; add its parser when it has one.
void parse_configuration(const kernels::KernelFamily& f, const kernels::Options& o) {
  if (f.name == "vector_copy") {
    (void)kernels::vector_copy_config(o);
  } else if (f.name == "tma_tile") {
    (void)kernels::tma_tile_config(o);
  } else if (f.name == "wgmma_tile") {
    (void)kernels::wgmma_tile_config(o);
  } else if (f.name == "elementwise") {
    (void)kernels::elementwise_config(o);
  } else if (f.name == "hopper_gemm") {
    (void)kernels::hopper_gemm_config(o);
  }
}

// stderr of a refused command line: one `error: ...` line, maybe followed by `Run ...` hints.
void check_refusal(const std::string& err, std::string_view what, std::string_view input) {
  const std::vector<std::string_view> lines = fuzz::getline_lines(err);
  if (lines.empty() || lines[0].rfind("error: ", 0) != 0 || err.back() != '\n')
    bug(kTarget, std::string(what) + ": the refusal is not a line 'error: ...': " + fuzz::escaped(err), input);
  for (size_t i = 1; i < lines.size(); ++i)
    if (lines[i].rfind("Run `tessel", 0) != 0)
      bug(kTarget, std::string(what) + ": the refusal has more than one error line: " + fuzz::escaped(err), input);
}

// One of `tessel dump` / `tessel run`: the argument split, then the configuration.
void kernel_command(const std::vector<std::string>& args, const std::set<std::string>& flags,
                    const std::set<std::string>& valued, bool run, std::string_view input) {
  const std::string_view what = run ? "tessel run" : "tessel dump";
  cli::KernelArgs ka;
  bool ok = false;
  {
    fuzz::CapturedStreams streams;
    std::string message =
        fuzz::only_tessel_errors(kTarget, input, [&] { ok = cli::parse_kernel_args(args, flags, valued, ka); });
    if (!message.empty()) bug(kTarget, std::string(what) + ": parse_kernel_args threw " + message, input);
    if (!ok) check_refusal(streams.err(), what, input);
    else if (!streams.err().empty() || !streams.out().empty())
      bug(kTarget, std::string(what) + ": parse_kernel_args accepted the line but printed", input);
  }
  if (!ok || ka.name.empty()) return;
  fuzz::only_tessel_errors(kTarget, input, [&] {
    const kernels::KernelFamily& f = kernels::find_family(ka.name);
    std::vector<kernels::Options> configs;
    if (run && ka.flags.count("--all"))
      configs = kernels::listed_configurations(f);
    else
      configs = {kernels::resolve_options(f, ka.options)};
    for (const kernels::Options& o : configs) {
      parse_configuration(f, o);
      // dump_arguments prints the arguments that select `o`: they must select `o` again.
      const std::string again = kernels::dump_arguments(f, o);
      cli::KernelArgs kb;
      bool ok_again = false;
      {
        fuzz::CapturedStreams streams;
        ok_again = cli::parse_kernel_args(fuzz::split_arguments(again), flags, valued, kb);
      }
      if (!ok_again || kb.name != f.name || kernels::resolve_options(f, kb.options) != o)
        bug(kTarget, std::string(what) + ": dump_arguments '" + fuzz::escaped(again) + "' does not select its configuration", input);
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> args = fuzz::split_arguments(input);

  // dump_command.cpp and run_command.cpp: their own flags and valued options.
  kernel_command(args, {"-h", "--help", "--list", "--verify", "--stats", "--comments"}, {"-o"}, false, input);
  kernel_command(args, {"-h", "--help", "--all", "--emulate"}, {"--seed", "--size"}, true, input);

  // `tessel list ARGS`.
  int status = -1;
  {
    fuzz::CapturedStreams streams;
    std::string message = fuzz::only_tessel_errors(kTarget, input, [&] { status = cli::list_command(args); });
    if (!message.empty()) bug(kTarget, "tessel list threw tessel::Error: " + fuzz::escaped(message), input);
    if (status == 2) check_refusal(streams.err(), "tessel list", input);
    else if (status != 0) bug(kTarget, "tessel list exited " + std::to_string(status), input);
  }
  return 0;
}
