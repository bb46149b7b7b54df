// run_command.cpp: `tessel run`: a kernel (a catalog name, or a class with options) on fresh random
// inputs on the GPU in use or the CPU emulator, checked against a host reference
// (tessel/testing/kernel_run.hpp).
#include "run_command.hpp"

#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <random>

#include "kernel_args.hpp"
#include "progress.hpp"
#include "printable.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/testing/kernel_run.hpp"
#include "tessel/codegen/backend.hpp"

namespace tessel::cli {

void print_run_help(std::ostream& out) {
  out << "usage: tessel run NAME [--OPTION VALUE ...] [--seed N] [--backend ptx|llvm] [--emulate [--size N]]\n"
         "       tessel run CLASS --all [--seed N] [--backend ptx|llvm] [--emulate [--size N]]\n"
         "\n"
         "Runs a kernel on the GPU in use with random inputs (outputs poisoned, guard zones checked)\n"
         "and compares the result with a host reference; prints the problem, the check and the\n"
         "kernel's time. NAME is as for `tessel dump`: a catalog kernel (`tessel list`), alone or with\n"
         "options, or a kernel class with options. Exits 1 if a check fails or the kernel cannot run.\n"
         "\n"
         "  --all      every kernel of the class CLASS, then its listed variants (`tessel dump --list`)\n"
         "  --seed N   the random inputs' seed (default: a fresh one, printed)\n"
         "  --backend B  the road to PTX: ptx (tessel's printer) or llvm (LLVM's NVPTX backend, in a build\n"
         "             with TESSEL_WITH_LLVM=ON); default $TESSEL_BACKEND, else ptx\n"
         "  --emulate  run in tessel's CPU emulator instead (no GPU or driver needed); the emulator runs\n"
         "             tessel's IR, not PTX, so it is the same for both backends\n"
         "  --size N   with --emulate: about N elements in an elementwise problem (default 4096)\n"
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
  std::vector<kernels::KernelPtr> chosen;
  size_t named = 0;  // the first `named` kernels are the catalog's, printed by name
  try {
    if (ka.flags.count("--all")) {
      const kernels::KernelClassPtr c = kernels::Registry::global().find_class(ka.name);
      if (!c) {
        std::cerr << "error: --all takes a kernel class (`tessel dump --help` lists them), got '" << printable(ka.name)
                  << "'\n";
        return 2;
      }
      if (!ka.options.empty()) {
        std::cerr << "error: --all takes no kernel options\n";
        return 2;
      }
      chosen = c->generate_kernels();
      named = chosen.size();
      for (const kernels::Options& v : c->variants()) chosen.push_back(kernels::resolve_kernel(ka.name, v));
    } else {
      chosen = {kernels::resolve_kernel(ka.name, ka.options)};
      named = ka.options.empty() && !kernels::Registry::global().find_class(ka.name) ? 1 : 0;
    }
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 2;
  }
  const bool emulate = ka.flags.count("--emulate") > 0;
  std::cout << "seed " << seed << "\n";
  std::unique_ptr<kernels::Machine> machine;
  try {
    machine = emulate ? kernels::emulator_machine(progress_printer()) : kernels::gpu_machine();
  } catch (const Error& e) {
    std::cerr << "error: cannot run " << printable(ka.name) << ": " << printable(e.what()) << "\n";
    return 1;
  }
  bool all_ok = true;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const kernels::Kernel& k = *chosen[i];
    const std::string what = i < named ? k.name() : kernels::kernel_arguments(k);
    try {
      const kernels::DemoRun r = kernels::run_kernel(k, *machine, seed, size);
      std::cout << (r.ok ? "ok    " : "FAIL  ") << what << ": " << r.problem << ": " << r.result << " (" << std::fixed
                << std::setprecision(3) << r.kernel_ms << " ms";
      if (emulate)
        std::cout << " in the emulator)\n";
      else
        std::cout << ", " << std::setprecision(1) << r.bytes / (r.kernel_ms * 1e6) << " GB/s, first launch)\n";
      all_ok = all_ok && r.ok;
    } catch (const kernels::RunRefused& e) {  // refused up front: --all goes on with the others
      if (chosen.size() == 1) {
        std::cerr << "error: cannot " << (emulate ? "emulate " : "run ") << what << ": " << printable(e.what()) << "\n";
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
