// phases.cpp: TESSEL_PHASES timestamps (phases.hpp).
#include "tessel/runtime/phases.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

namespace tessel::rt {

namespace {

double boot_ms() {
  timespec t{};
  clock_gettime(CLOCK_BOOTTIME, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

// The process's start in CLOCK_BOOTTIME milliseconds: field 22 of /proc/self/stat, in clock ticks
// (the fields after the command's name, which may hold spaces, are counted from its closing ')').
double process_start_ms() {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return boot_ms();
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::strtod(field.c_str(), nullptr) * 1e3 / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return boot_ms();
}

struct Clock {
  bool on = false;
  double start = 0, last = 0;
  std::mutex mutex;
  Clock() {
    const char* v = std::getenv("TESSEL_PHASES");
    on = v && *v && std::strcmp(v, "0") != 0;
    if (on) start = last = process_start_ms();
  }
};

Clock& clock() {
  static Clock c;
  return c;
}

}  // namespace

void phase(std::string_view what) {
  Clock& c = clock();
  if (!c.on) return;
  std::lock_guard lock(c.mutex);
  const double now = boot_ms();
  std::fprintf(stderr, "tessel phase %9.1f ms (+%8.1f) %.*s\n", now - c.start, now - c.last, static_cast<int>(what.size()),
               what.data());
  c.last = now;
}

}  // namespace tessel::rt
