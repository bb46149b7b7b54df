// dump_command.cpp: `tessel dump`: lists the kernel configurations, prints a configuration's PTX,
// and assembles it with ptxas on request.
#include "dump_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "kernel_args.hpp"
#include "printable.hpp"
#include "ptxas.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/catalog.hpp"

#ifdef TESSEL_WITH_LLVM
#include "tessel/codegen_llvm.hpp"
#endif

namespace tessel::cli {

void print_dump_help(std::ostream& out) {
  out << "usage: tessel dump --list\n"
         "       tessel dump NAME [--OPTION VALUE ...] [-o FILE] [--verify] [--stats] [--comments]\n"
         "                        [--backend ptx|llvm]\n"
         "\n"
         "Prints the PTX that tessel generates for a kernel. NAME is a kernel of the catalog (`tessel\n"
         "list` prints their names), alone or with options that change some of its own, or a kernel\n"
         "class with options (defaults fill in the rest).\n"
         "\n"
         "  --list       list the catalog's kernels, then the class forms that tests also cover\n"
         "  -o FILE      write the PTX to FILE instead of standard output\n"
         "  --verify     assemble the PTX with ptxas for its target and report the result (stderr)\n"
         "  --stats      also print ptxas's resource report: registers, shared memory, spills (stderr)\n"
         "  --comments   annotate index arithmetic with the layout operation that produced it\n"
         "  --backend B  ptx: tessel's printer; llvm: through LLVM's NVPTX backend (a build with\n"
         "               TESSEL_WITH_LLVM=ON); default $TESSEL_BACKEND, else ptx\n"
         "  --llvm-ir    print the LLVM IR the llvm backend starts from (before its optimization)\n"
         "\n"
         "ptxas is $TESSEL_PTXAS, /usr/local/cuda/bin/ptxas, or ptxas on PATH.\n"
         "\n"
         "kernel classes and their options (the first value is the default):\n";
  for (const kernels::KernelClassPtr& c : kernels::Registry::global().classes()) {
    out << "  " << c->name() << ": " << c->description() << "\n";
    const std::vector<kernels::OptionSpec> options = c->options();
    if (options.empty()) out << "      (no options: name its kernels, `tessel list --class " << c->name() << "`)\n";
    for (const kernels::OptionSpec& o : options) {
      out << "      --" << o.name << " ";
      for (size_t i = 0; i < o.values.size(); ++i) out << (i ? "|" : "") << o.values[i];
      out << "   " << o.help << "\n";
    }
  }
}

int dump_command(const std::vector<std::string>& args) {
  KernelArgs ka;
  if (!parse_kernel_args(args, {"-h", "--help", "--list", "--verify", "--stats", "--comments", "--llvm-ir"}, {"-o", "--backend"}, ka)) return 2;
  if (ka.flags.count("-h") || ka.flags.count("--help")) {
    print_dump_help(std::cout);
    return 0;
  }
  const bool list = ka.flags.count("--list"), verify = ka.flags.count("--verify"), stats = ka.flags.count("--stats"),
             comments = ka.flags.count("--comments");
  const std::string name = ka.name, output = ka.values.count("-o") ? ka.values.at("-o") : "";
  const kernels::Options& given = ka.options;
  if (list) {
    if (!name.empty() || !given.empty()) {
      std::cerr << "error: --list takes no kernel name or options\n";
      return 2;
    }
    for (const std::string& line : kernels::listed_kernels()) std::cout << line << "\n";
    return 0;
  }
  if (name.empty()) {
    std::cerr << "error: tessel dump needs a kernel name or --list\nRun `tessel dump --help` for the kernels.\n";
    return 2;
  }
  kernels::KernelPtr kernel;
  try {
    kernel = kernels::resolve_kernel(name, given);
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 2;
  }
  std::string ptx, target;
  try {
    const codegen::Backend backend =
        ka.values.count("--backend") ? codegen::parse_backend(ka.values.at("--backend")) : codegen::default_backend();
    const codegen::Module m = kernel->generate();
    codegen::PrintOptions po;
    po.comments = comments;
    po.generator = "tessel dump " + kernels::kernel_arguments(*kernel);
    if (ka.flags.count("--llvm-ir")) {
#ifdef TESSEL_WITH_LLVM
      codegen_llvm::CompileOptions co;
      co.optimize = false;
      co.keep_llvm_ir = true;
      std::cout << codegen_llvm::compile(m, co).llvm_ir;
      return 0;
#else
      std::cerr << "error: --llvm-ir: this tessel was built without TESSEL_WITH_LLVM=ON\n";
      return 2;
#endif
    }
    ptx = codegen::emit_ptx(m, backend, po);
    target = codegen::target_name(codegen::requirement(m));
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 1;
  }
  if (output.empty()) {
    std::cout << ptx;
  } else {
    std::ofstream f(output, std::ios::binary);
    f << ptx;
    if (!f) {
      std::cerr << "error: cannot write " << printable(output) << "\n";
      return 1;
    }
  }
  if (verify || stats) {
    const std::string ptxas = find_ptxas();
    if (ptxas.empty()) {
      std::cerr << "error: ptxas not found (set TESSEL_PTXAS, or install the CUDA toolkit at /usr/local/cuda)\n";
      return 1;
    }
    if (ptxas.find('/') != std::string::npos && !std::filesystem::exists(ptxas)) {
      std::cerr << "error: ptxas " << printable(ptxas) << " does not exist (from TESSEL_PTXAS)\n";
      return 1;
    }
    PtxasRun r = run_ptxas(ptxas, ptx, target);
    if (!r.ok) {
      std::cerr << "ptxas -arch=" << target << ": failed\n" << r.output;
      return 1;
    }
    if (verify) std::cerr << "ptxas -arch=" << target << ": ok\n";
    if (stats) std::cerr << r.output;
  }
  return 0;
}

}  // namespace tessel::cli
