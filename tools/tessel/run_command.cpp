// run_command.cpp: `tessel run`: generates a configuration, runs it on device 0 on fresh random
// inputs and checks the result against a host reference (kernels/demo_run.hpp).
#include "run_command.hpp"

#include <iomanip>
#include <iostream>
#include <random>

#include "emulate.hpp"
#include "kernel_args.hpp"
#include "printable.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/testing/demo_run.hpp"

namespace tessel::cli {

void print_run_help(std::ostream& out) {
  out << "usage: tessel run NAME [--OPTION VALUE ...] [--seed N] [--backend ptx|llvm] [--emulate [--size N]]\n"
         "       tessel run NAME --all [--seed N] [--backend ptx|llvm] [--emulate [--size N]]\n"
         "\n"
         "Runs a kernel configuration on GPU 0 with random inputs (outputs poisoned, guard zones\n"
         "checked) and compares the result with a host reference; prints the problem, the check and\n"
         "the kernel's time. Exits 1 if a check fails or the kernel cannot run here.\n"
         "\n"
         "  --all      every configuration that `tessel dump --list` lists for NAME\n"
         "  --seed N   the random inputs' seed (default: a fresh one, printed)\n"
         "  --backend B  the road to PTX: ptx (tessel's printer) or llvm (LLVM's NVPTX backend, in a build\n"
         "             with TESSEL_WITH_LLVM=ON); default $TESSEL_BACKEND, else ptx\n"
         "  --emulate  run in tessel's CPU emulator instead (no GPU or driver needed; elementwise, hopper_gemm);\n"
         "             the emulator runs tessel's IR, not PTX, so it is the same for both backends\n"
         "  --size N   with --emulate: about N elements (default 4096)\n"
         "\n"
         "Kernels and options: `tessel dump --help`.\n";
}

int run_command(const std::vector<std::string>& args) {
  KernelArgs ka;
  if (!parse_kernel_args(args, {"-h", "--help", "--all", "--emulate"}, {"--seed", "--size", "--backend"}, ka)) return 2;
  if (ka.flags.count("-h") || ka.flags.count("--help")) {
    print_run_help(std::cout);
    return 0;
  }
  if (ka.name.empty()) {
    std::cerr << "error: tessel run needs a kernel name\nRun `tessel dump --help` for the kernels.\n";
    return 2;
  }
  uint64_t seed = std::random_device{}();
  int64_t size = 4096;
  try {
    if (ka.values.count("--seed")) seed = parse_unsigned("--seed", ka.values.at("--seed"));
    if (ka.values.count("--size")) size = parse_integer("--size", ka.values.at("--size"), 1, int64_t{1} << 24);
    if (ka.values.count("--backend")) {
      const codegen::Backend backend = codegen::parse_backend(ka.values.at("--backend"));
      if (!codegen::backend_available(backend)) {
        std::cerr << "error: --backend " << printable(ka.values.at("--backend"))
                  << ": this tessel was built without TESSEL_WITH_LLVM=ON\n";
        return 2;
      }
      if (backend != codegen::Backend::Ptx && ka.flags.count("--emulate")) {
        std::cerr << "error: --emulate runs tessel's IR, not PTX: --backend does not apply to it\n";
        return 2;
      }
      codegen::set_default_backend(backend);  // every module this run loads takes that road
    }
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 2;
  }
  std::vector<kernels::Options> configs;
  const kernels::KernelFamily* family = nullptr;
  try {
    family = &kernels::find_family(ka.name);
    if (ka.flags.count("--all")) {
      if (!ka.options.empty()) {
        std::cerr << "error: --all takes no kernel options\n";
        return 2;
      }
      configs = kernels::listed_configurations(*family);
    } else {
      configs = {kernels::resolve_options(*family, ka.options)};
    }
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 2;
  }
  const bool emulate = ka.flags.count("--emulate") > 0;
  std::cout << "seed " << seed << "\n";
  bool all_ok = true;
  for (const kernels::Options& o : configs) {
    const std::string what = kernels::dump_arguments(*family, o);
    try {
      const kernels::DemoRun r =
          emulate ? emulate_configuration(*family, o, seed, size) : kernels::run_demo(family->name, o, seed);
      std::cout << (r.ok ? "ok    " : "FAIL  ") << what << ": " << r.problem << ": " << r.result << " (" << std::fixed
                << std::setprecision(3) << r.kernel_ms << " ms";
      if (emulate)
        std::cout << " in the emulator)\n";
      else
        std::cout << ", " << std::setprecision(1) << r.bytes / (r.kernel_ms * 1e6) << " GB/s, first launch)\n";
      all_ok = all_ok && r.ok;
    } catch (const EmulationRefused& e) {  // refused up front: --all goes on with the others
      if (configs.size() == 1) {
        std::cerr << "error: cannot emulate " << what << ": " << printable(e.what()) << "\n";
        return 1;
      }
      std::cout << "skip  " << what << ": " << printable(e.what()) << "\n";
    } catch (const Error& e) {
      std::cerr << "error: cannot run " << what << ": " << printable(e.what()) << "\n";
      return 1;
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace tessel::cli
