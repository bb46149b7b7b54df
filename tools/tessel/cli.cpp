// cli.cpp: see cli.hpp. Dispatches to the subcommands (`tessel layout`, `tessel dump`, `tessel
// list`, `tessel run`, `tessel bench`).
#include "cli.hpp"

#include <iostream>
#include <string>
#include <vector>

#include "bench_command.hpp"
#include "dump_command.hpp"
#include "gemm_command.hpp"
#include "layout_command.hpp"
#include "list_command.hpp"
#include "precompile_command.hpp"
#include "printable.hpp"
#include "run_command.hpp"
#include "tune_command.hpp"
#include "tessel/runtime/phases.hpp"

#ifdef TESSEL_WITH_LLVM
#include "tessel/codegen_llvm.hpp"
#endif

#ifndef TESSEL_VERSION
#define TESSEL_VERSION "unknown"
#endif

namespace {

void print_usage(std::ostream& out) {
  out << "usage: tessel <command> [options] [arguments]\n"
         "\n"
         "commands:\n"
         "  layout    evaluate CuTe layout-algebra expressions and draw layouts\n"
         "  dump      print the PTX of a kernel configuration (--list lists them)\n"
         "  list      list the kernel catalog (filter with --filter KEY=VALUE)\n"
         "  run       run a kernel configuration on the GPU and check it against the host\n"
         "  gemm      a GEMM problem through the one-call API: the choice (--explain), a checked run\n"
         "  bench     benchmark on the GPU against a peer (`tessel bench gemm`: tessel vs cuBLAS)\n"
         "  tune      time the one-call GEMM's candidates on the GPU; the fastest into the tuning cache\n"
         "  precompile  compile kernels for this GPU into the on-disk compiled-kernel cache\n"
         "  help      show this help, or `tessel help <command>` for a command's help\n"
         "\n"
         "options:\n"
         "  -h, --help   show this help\n"
         "  --version    print the version\n"
         "\n"
         "Run `tessel <command> --help` for the options of a command.\n";
}

}  // namespace

namespace tessel::cli {

int main(int argc, char** argv) {
  tessel::rt::phase("main");
  const int rc = main(std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + argc));
  tessel::rt::phase("main returns " + std::to_string(rc));
  return rc;
}

int main(const std::vector<std::string>& args) {
#ifdef TESSEL_WITH_LLVM
  tessel::codegen_llvm::enable();  // `--backend llvm` and TESSEL_BACKEND=llvm
#endif
  if (args.empty()) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string& command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());

  if (command == "-h" || command == "--help") {
    print_usage(std::cout);
    return 0;
  }
  if (command == "--version") {
    std::cout << "tessel " << TESSEL_VERSION << "\n";
    return 0;
  }
  if (command == "help") {
    if (rest.empty()) {
      print_usage(std::cout);
      return 0;
    }
    if (rest[0] == "layout") {
      tessel::cli::print_layout_help(std::cout);
      return 0;
    }
    if (rest[0] == "dump") {
      tessel::cli::print_dump_help(std::cout);
      return 0;
    }
    if (rest[0] == "list") {
      tessel::cli::print_list_help(std::cout);
      return 0;
    }
    if (rest[0] == "run") {
      tessel::cli::print_run_help(std::cout);
      return 0;
    }
    if (rest[0] == "bench") {
      tessel::cli::print_bench_help(std::cout);
      return 0;
    }
    if (rest[0] == "gemm") {
      tessel::cli::print_gemm_help(std::cout);
      return 0;
    }
    if (rest[0] == "tune") {
      tessel::cli::print_tune_help(std::cout);
      return 0;
    }
    if (rest[0] == "precompile") {
      tessel::cli::print_precompile_help(std::cout);
      return 0;
    }
    std::cerr << "error: unknown command '" << tessel::cli::printable(rest[0]) << "'\n";
    return 2;
  }
  if (command == "layout") return tessel::cli::layout_command(rest);
  if (command == "dump") return tessel::cli::dump_command(rest);
  if (command == "list") return tessel::cli::list_command(rest);
  if (command == "run") return tessel::cli::run_command(rest);
  if (command == "bench") return tessel::cli::bench_command(rest);
  if (command == "gemm") return tessel::cli::gemm_command(rest);
  if (command == "tune") return tessel::cli::tune_command(rest);
  if (command == "precompile") return tessel::cli::precompile_command(rest);

  if (command.rfind("-", 0) == 0)
    std::cerr << "error: unknown option '" << tessel::cli::printable(command) << "'\n";
  else
    std::cerr << "error: unknown command '" << tessel::cli::printable(command) << "'\n";
  std::cerr << "Run `tessel --help` for the list of commands.\n";
  return 2;
}

}  // namespace tessel::cli
