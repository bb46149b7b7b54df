// phases.hpp: timestamps of a process's phases, to find where a cold start's time goes. With the
// environment variable TESSEL_PHASES set (to anything but 0), each call prints one line to stderr:
// milliseconds since the process started (the kernel's start time, 10 ms resolution), since the
// previous phase, and what just finished. Without it a call costs one branch.
#pragma once

#include <string_view>

namespace tessel::rt {

void phase(std::string_view what);

}  // namespace tessel::rt
