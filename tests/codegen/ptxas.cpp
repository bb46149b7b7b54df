// ptxas.cpp: see ptxas.hpp.
#include "codegen/ptxas.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace tessel::test {

std::string ptxas_path() {
  if (const char* e = std::getenv("TESSEL_PTXAS")) return e;
  if (std::filesystem::exists("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  if (std::system("command -v ptxas > /dev/null 2>&1") == 0) return "ptxas";
  return "";
}

PtxasResult run_ptxas(const std::string& ptx, const std::string& target, const std::string& flags) {
  namespace fs = std::filesystem;
  std::random_device rd;
  const fs::path dir =
      fs::temp_directory_path() / ("tessel_ptxas_" + std::to_string(getpid()) + "_" + std::to_string(rd()));
  fs::create_directories(dir);
  const fs::path in = dir / "k.ptx", out = dir / "k.cubin", log = dir / "log.txt";
  std::ofstream(in) << ptx;
  const std::string cmd =
      ptxas_path() + " -v " + flags + " -arch=" + target + " " + in.string() + " -o " + out.string() + " > " + log.string() + " 2>&1";
  PtxasResult r;
  r.ok = std::system(cmd.c_str()) == 0;
  std::ifstream f(log);
  r.log.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return r;
}

bool check_assembles(const codegen::Module& m) {
  if (ptxas_path().empty()) {
    MESSAGE("TESSEL_SKIP: ptxas not found (set TESSEL_PTXAS or install the CUDA toolkit's ptxas)");
    std::printf("TESSEL_SKIP: ptxas not found\n");
    return false;
  }
  const std::string ptx = codegen::print_ptx(m);
  const std::string target = codegen::target_name(codegen::requirement(m));
  PtxasResult r = run_ptxas(ptx, target);
  INFO("ptxas -arch=" << target << ":\n" << r.log << "\nPTX:\n" << ptx);
  CHECK(r.ok);
  return r.ok;
}

}  // namespace tessel::test
