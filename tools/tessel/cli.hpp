// cli.hpp: the `tessel` command line as a library (target tessel_cli), so that a program that
// registers its own kernel classes can offer the same commands over them: its main() calls
// tessel::cli::main and its classes appear in `list`, `dump`, `run` and `bench` like tessel's.
// Exit status: 0 success, 1 an input failed (the subcommand says which), 2 misuse of the tool.
#pragma once

#include <string>
#include <vector>

namespace tessel::cli {

int main(int argc, char** argv);                 // argv[0] is the program's name
int main(const std::vector<std::string>& args);  // the arguments after it

}  // namespace tessel::cli
