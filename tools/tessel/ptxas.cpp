// ptxas.cpp: see ptxas.hpp.
#include "ptxas.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace tessel::cli {

std::string find_ptxas() {
  if (const char* e = std::getenv("TESSEL_PTXAS"); e && *e) return e;  // checked by the caller
  if (std::filesystem::exists("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  if (std::system("command -v ptxas > /dev/null 2>&1") == 0) return "ptxas";
  return "";
}

PtxasRun run_ptxas(const std::string& ptxas, const std::string& ptx, const std::string& target) {
  namespace fs = std::filesystem;
  std::random_device rd;
  const fs::path dir =
      fs::temp_directory_path() / ("tessel_dump_" + std::to_string(getpid()) + "_" + std::to_string(rd()));
  fs::create_directories(dir);
  const fs::path in = dir / "kernel.ptx", out = dir / "kernel.cubin", log = dir / "ptxas.log";
  std::ofstream(in) << ptx;
  const std::string cmd = "'" + ptxas + "' -v -arch=" + target + " '" + in.string() + "' -o '" + out.string() +
                          "' > '" + log.string() + "' 2>&1";
  PtxasRun r;
  r.ok = std::system(cmd.c_str()) == 0;
  std::ifstream f(log);
  r.output.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  std::error_code ec;
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace tessel::cli
