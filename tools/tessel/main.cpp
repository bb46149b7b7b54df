// main.cpp: the `tessel` executable: the command line of cli.hpp over tessel's own kernel classes.
#include "cli.hpp"

int main(int argc, char** argv) { return tessel::cli::main(argc, argv); }
