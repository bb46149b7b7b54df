// precompile_command.cpp: `tessel precompile`: generates kernel configurations, has the driver's
// linker compile each for this GPU, and stores the machine code in the compiled-kernel cache, so
// that later processes load them without compiling.
#include "precompile_command.hpp"

#include <chrono>
#include <optional>
#include <cstdio>
#include <iostream>
#include <utility>

#include "kernel_args.hpp"
#include "printable.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime.hpp"

namespace tessel::cli {

void print_precompile_help(std::ostream& out) {
  out << "usage: tessel precompile --all\n"
         "       tessel precompile NAME [NAME ...]\n"
         "       tessel precompile NAME [--OPTION VALUE ...]\n"
         "\n"
         "Compiles kernels for the GPU in use with the driver's linker and stores the machine code in\n"
         "the compiled-kernel cache, so that later processes load them without compiling. Needs a GPU.\n"
         "\n"
         "  --all        every kernel that `tessel dump --list` lists\n"
         "  NAME ...     catalog kernels by name, or every listed kernel of a class\n"
         "  NAME --OPTION VALUE ...   one kernel, as `tessel dump` takes it\n"
         "\n"
         "Configurations whose target the GPU cannot run (sm_90a on an sm_80 GPU) are skipped.\n"
         "The cache: $TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel, else ~/.cache/tessel; at most\n"
         "$TESSEL_CACHE_MAX_MB MiB (default 1024); TESSEL_CACHE=0 disables it (docs/runtime.md).\n";
}

namespace {

using Config = kernels::KernelPtr;

// A class's catalog kernels and its listed variants.
void listed_of(const kernels::KernelClass& c, std::vector<Config>& out) {
  for (kernels::KernelPtr& k : c.generate_kernels()) out.push_back(std::move(k));
  for (const kernels::Options& v : c.variants()) out.push_back(kernels::resolve_kernel(c.name(), v));
}

// The configurations the command line names; prints the error and returns false on misuse.
bool configurations(const std::vector<std::string>& args, std::vector<Config>& out) {
  bool all = false, options = false;
  for (const std::string& a : args) {
    if (a == "--all") all = true;
    else if (a.rfind("-", 0) == 0) options = true;
  }
  try {
    if (all) {
      if (args.size() != 1) {
        std::cerr << "error: --all takes no kernel names or options\n";
        return false;
      }
      for (const kernels::KernelClassPtr& c : kernels::Registry::global().classes()) listed_of(*c, out);
    } else if (options) {  // one kernel, in `tessel dump`'s words
      KernelArgs ka;
      if (!parse_kernel_args(args, {}, {}, ka)) return false;
      out.push_back(kernels::resolve_kernel(ka.name, ka.options));
    } else {
      for (const std::string& name : args) {
        if (const kernels::KernelClassPtr c = kernels::Registry::global().find_class(name))
          listed_of(*c, out);
        else
          out.push_back(kernels::resolve_kernel(name));
      }
    }
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return false;
  }
  if (out.empty()) {
    std::cerr << "error: tessel precompile needs kernel names or --all\nRun `tessel precompile --help`.\n";
    return false;
  }
  return true;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int precompile_command(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") {
      print_precompile_help(std::cout);
      return 0;
    }
  }
  std::vector<Config> configs;
  if (!configurations(args, configs)) return 2;

  const rt::DiskCache* cache = nullptr;
  try {
    const rt::DiskCacheSettings settings = rt::DiskCacheSettings::from_environment();
    if (!settings.enabled) {
      std::cerr << "error: tessel precompile has nowhere to store kernels: the compiled-kernel cache is "
                << settings.disabled_reason << "\n";
      return 1;
    }
    cache = rt::DiskCache::process_cache();
  } catch (const Error& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 1;
  }
  if (const rt::DriverProbe& d = rt::driver_status(); !d.available) {
    std::cerr << "error: tessel precompile needs a GPU (it compiles for the GPU's architecture): " << d.reason << "\n";
    return 1;
  }
  int cc = 0, driver = 0;
  try {
    if (rt::device_count() == 0) {
      std::cerr << "error: tessel precompile needs a GPU: the CUDA driver sees no device\n";
      return 1;
    }
    cc = kernels::device_in_use().compute_capability();  // the current context's device, else 0
    driver = rt::driver_version();
  } catch (const Error& e) {
    std::cerr << "error: tessel precompile needs a GPU: " << printable(e.what()) << "\n";
    return 1;
  }
  std::cout << "compiled-kernel cache: " << printable(cache->directory().string()) << " (sm_" << cc << ", driver "
            << driver << ")\n";

  int compiled = 0, cached = 0, by_driver = 0, skipped = 0, failed = 0;
  for (const Config& k : configs) {
    const std::string what = k->name();
    try {
      // The IR Kernel::compile makes for arguments of this kernel's form.
      const codegen::Module m = k->generate();
      const codegen::Requirement need = codegen::requirement(m);
      // The runtime loads the text that print_ptx makes with its default options: the same key.
      const std::string ptx = codegen::print_ptx(m);
      if (need.sm > cc || (need.arch_specific && need.sm != cc)) {
        std::cout << "skipped   " << what << " (needs " << codegen::target_name(need) << ")\n";
        ++skipped;
        continue;
      }
      if (rt::needs_whole_program_compile(ptx)) {
        // Compiled as the runtime loads it (rt/disk_cache.hpp): the driver's JIT cache keeps the
        // machine code, not tessel's.
        const auto t0 = std::chrono::steady_clock::now();
        (void)rt::Module::load_ptx(ptx);
        char line[96];
        std::snprintf(line, sizeof line, " (%.0f ms; whole program for setmaxnreg: the driver's JIT cache)",
                      ms_since(t0));
        std::cout << "driver    " << what << line << "\n";
        ++by_driver;
        continue;
      }
      const rt::DiskCacheKey key = rt::make_disk_cache_key(ptx, cc, driver);
      if (cache->load(key).status == rt::DiskCache::Status::Hit) {
        std::cout << "cached    " << what << "\n";
        ++cached;
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      const std::string image = rt::link_ptx(ptx);
      const double link_ms = ms_since(t0);
      if (!cache->store(key, image)) {
        std::cerr << "error: " << what << ": " << image.size() << " bytes of machine code do not fit in the cache's "
                  << cache->max_bytes() << "-byte limit (TESSEL_CACHE_MAX_MB)\n";
        ++failed;
        continue;
      }
      char line[64];
      std::snprintf(line, sizeof line, " (%.0f ms, %zu bytes)", link_ms, image.size());
      std::cout << "compiled  " << what << line << "\n";
      ++compiled;
    } catch (const Error& e) {
      std::cerr << "error: " << what << ": " << printable(e.what()) << "\n";
      ++failed;
    }
  }
  std::cout << compiled << " compiled, " << cached << " already cached, " << by_driver
            << " compiled for the driver's JIT cache, " << skipped << " skipped, " << failed
            << " failed; the cache holds " << cache->size_bytes() / 1024 << " KiB\n";
  return failed ? 1 : 0;
}

}  // namespace tessel::cli
