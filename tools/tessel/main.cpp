// main.cpp: the `tessel` command-line tool (placeholder: `tessel layout EXPR...`).
#include <iostream>
#include <string>

#include "tessel/algebra/calculator.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) != "layout") {
    std::cerr << "usage: tessel layout EXPR...\n";
    return 2;
  }
  int status = 0;
  for (int i = 2; i < argc; ++i) {
    try {
      std::cout << tessel::calculate(argv[i]) << "\n";
    } catch (const std::exception& e) {
      std::cout << "error: " << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}
