// kernel_args_fuzzer.cpp: libFuzzer target for the kernel option parsers behind `tessel dump`,
// `tessel run` and `tessel list`. The input is an argument vector (fuzz_support.hpp,
// split_arguments: NUL-separated, or whitespace-separated when it has no NUL byte), given to:
//   - parse_kernel_args (tools/tessel/kernel_args.cpp, compiled in) with the flags and valued
//     options of `tessel dump` and of `tessel run` (copied from dump_command.cpp and
//     run_command.cpp, which keep them inside their commands);
//   - then, as both commands do: resolve_kernel (a class with options, or a catalog name alone
//     or with options; for run --all the class's kernels and variants), which runs the class's
//     own configuration parser and rules, and kernel_arguments, whose output must select a
//     kernel of the same name again;
//   - tessel::cli::list_command (tools/tessel/list_command.cpp, compiled in): --filter, --KEY,
//     --cc, with its output captured.
// No PTX is generated and nothing runs: the resolved configurations are a finite set that the
// test suite generates and assembles in full.
// Invariants: no crash, no sanitizer report, no hang; only tessel::Error escapes the kernels'
// parsers; a refusal prints exactly one line `error: ...` on standard error (plus a `Run ...`
// hint); kernel_arguments round-trips.
#include <set>

#include "fuzz_support.hpp"
#include "kernel_args.hpp"
#include "list_command.hpp"
#include "tessel/kernels/catalog.hpp"

namespace {

using namespace tessel;
using fuzz::bug;

constexpr std::string_view kTarget = "kernel_args";

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
    std::vector<kernels::KernelPtr> chosen;
    if (run && ka.flags.count("--all")) {
      const kernels::KernelClassPtr c = kernels::Registry::global().find_class(ka.name);
      if (!c) return;  // refused by run_command
      chosen = c->generate_kernels();
      for (const kernels::Options& v : c->variants()) chosen.push_back(kernels::resolve_kernel(ka.name, v));
    } else {
      chosen = {kernels::resolve_kernel(ka.name, ka.options)};
    }
    for (const kernels::KernelPtr& k : chosen) {
      // kernel_arguments prints a command line that names `k`: it must select `k` again.
      const std::string again = kernels::kernel_arguments(*k);
      cli::KernelArgs kb;
      bool ok_again = false;
      {
        fuzz::CapturedStreams streams;
        ok_again = cli::parse_kernel_args(fuzz::split_arguments(again), flags, valued, kb);
      }
      if (!ok_again || kernels::resolve_kernel(kb.name, kb.options)->name() != k->name())
        bug(kTarget, std::string(what) + ": kernel_arguments '" + fuzz::escaped(again) + "' does not select " + k->name(), input);
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
