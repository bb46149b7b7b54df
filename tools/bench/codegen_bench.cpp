// codegen_bench.cpp: code-generation latency: microseconds from a kernel configuration to its IR
// and from the IR to PTX text, for the configurations that `tessel dump --list` prints.
//
// Build and run (CPU only, no GPU or ptxas needed):
//   cmake --build --preset default --target tessel_codegen_bench
//   build/default/bin/tessel_codegen_bench [--reps N] [--warmup N] [CLASS|NAME ...]
// A CLASS (`hopper_gemm`) runs all its configurations, a NAME (`tessel dump --list`) that one.
// Each row is the median over N repetitions (default 200) after the warm-up ones (default 20), so
// one-off costs (first allocations, static tables) stay out of the numbers.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "tessel/algebra/parse_number.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/catalog.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Lines of PTX that are instructions: not directives, labels, braces, comments or blank.
int count_instructions(const std::string& ptx) {
  int n = 0;
  size_t start = 0;
  while (start < ptx.size()) {
    size_t end = ptx.find('\n', start);
    if (end == std::string::npos) end = ptx.size();
    const size_t first = ptx.find_first_not_of(" \t", start);
    if (first < end && end > start && ptx[end - 1] == ';' && ptx[first] != '.' && ptx[first] != '/') ++n;
    start = end + 1;
  }
  return n;
}

int usage(const char* error) {
  std::fprintf(stderr, "error: %s\nusage: tessel_codegen_bench [--reps N] [--warmup N] [CLASS|NAME ...]\n", error);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 200, warmup = 20;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" || a == "--warmup") {
      if (i + 1 >= argc) return usage("--reps and --warmup need a count");
      try {
        (a == "--reps" ? reps : warmup) = static_cast<int>(tessel::parse_integer(a, argv[++i], a == "--reps", 1000000));
      } catch (const tessel::Error& e) {
        return usage(e.what());
      }
    } else {
      only.push_back(a);
    }
  }

  try {
    namespace k = tessel::kernels;
    std::vector<std::string> classes, names;
    for (const std::string& name : only) {  // reject unknown names first
      if (k::Registry::global().find_class(name)) {
        classes.push_back(name);
      } else {
        k::resolve_kernel(name);  // throws, naming it, when it is neither
        names.push_back(name);
      }
    }
    std::printf("%-56s %7s %7s %12s %12s %12s\n", "configuration", "lines", "instrs", "generate us", "print us",
                "total us");
    double sum_total = 0;
    int rows = 0;
    for (const k::KernelClassPtr& c : k::Registry::global().classes()) {
      const bool whole = only.empty() || std::find(classes.begin(), classes.end(), c->name()) != classes.end();
      std::vector<k::KernelPtr> kernels;
      if (whole) {
        kernels = c->generate_kernels();
        for (const k::Options& v : c->variants()) kernels.push_back(k::resolve_kernel(c->name(), v));
      }
      for (const std::string& name : names) {
        const k::KernelPtr named = k::resolve_kernel(name);
        if (named->metadata().kernel_class == c->name()) kernels.push_back(named);
      }
      if (kernels.empty()) continue;
      for (const k::KernelPtr& kernel : kernels) {
        std::vector<double> generate, print, total;
        std::string ptx;
        for (int r = 0; r < warmup + reps; ++r) {
          const Clock::time_point t0 = Clock::now();
          const tessel::codegen::Module m = kernel->generate();
          const Clock::time_point t1 = Clock::now();
          ptx = tessel::codegen::print_ptx(m);
          const Clock::time_point t2 = Clock::now();
          if (r < warmup) continue;
          generate.push_back(micros(t1 - t0));
          print.push_back(micros(t2 - t1));
          total.push_back(micros(t2 - t0));
        }
        const int lines = static_cast<int>(std::count(ptx.begin(), ptx.end(), '\n'));
        const double t = median(total);
        std::printf("%-56s %7d %7d %12.1f %12.1f %12.1f\n", kernel->name().c_str(), lines,
                    count_instructions(ptx), median(generate), median(print), t);
        sum_total += t;
        ++rows;
      }
    }
    std::printf("%d configurations, median of %d repetitions after %d warm-up; sum of totals %.1f us\n", rows, reps,
                warmup, sum_total);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
