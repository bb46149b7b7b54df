// cli_support.hpp: running the `tessel` binary (TESSEL_CLI_PATH) from tests as a user runs it:
// arguments, standard input and environment in; exit status, stdout and stderr out.
#pragma once

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tessel::test {

struct CliRun {
  bool exited = false;  // false: killed by a signal (a crash)
  int status = -1;      // the exit status when exited
  std::string out, err;
  std::vector<std::string> lines;  // out, split at '\n' (a last line without '\n' counts too)
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A scratch folder of this test process, removed at exit.
inline const std::filesystem::path& scratch() {
  static const struct Dir {
    std::filesystem::path path;
    Dir() {
      path = std::filesystem::temp_directory_path() / ("tessel_cli_test_" + std::to_string(::getpid()));
      std::filesystem::create_directories(path);
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } dir;
  return dir.path;
}

// Runs `tessel ARGS...` with `input` on standard input and `env` ("NAME=VALUE") added to its
// environment.
inline CliRun run_cli(const std::vector<std::string>& args, const std::string& input = "",
                      const std::vector<std::string>& env = {}) {
  namespace fs = std::filesystem;
  const fs::path in = scratch() / "stdin", out = scratch() / "stdout", err = scratch() / "stderr";
  write_file(in, input);
  std::string command = "exec env";
  for (const auto& e : env) command += " " + shell_quote(e);
  command += " " + shell_quote(TESSEL_CLI_PATH);
  for (const auto& a : args) command += " " + shell_quote(a);
  command += " <" + shell_quote(in.string()) + " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  // The shell reports a child killed by signal N as exit status 128+N; `exec` (of env, which
  // execs tessel) makes the child the shell itself, so that std::system sees the signal directly.
  const int w = std::system(command.c_str());
  CliRun r;
  r.exited = WIFEXITED(w);
  r.status = r.exited ? WEXITSTATUS(w) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  std::istringstream s(r.out);
  for (std::string line; std::getline(s, line);) r.lines.push_back(line);
  return r;
}

// A run that ended normally with `status` (never a signal or an abort).
inline void check_exit(const CliRun& r, int status) {
  INFO("stdout: " << r.out.substr(0, 2000) << "\nstderr: " << r.err.substr(0, 2000));
  REQUIRE(r.exited);
  CHECK(r.status == status);
}

}  // namespace tessel::test
