// backend_test.cpp: codegen's choice of road to PTX (backend.hpp): names, the printer as the
// default road, and the clear refusal of the llvm road where codegen_llvm is not enabled (this
// binary never enables it; tests/codegen_llvm/ test the road itself).
#include <doctest/doctest.h>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/backend.hpp"
#include "tessel/codegen/builder.hpp"

using namespace tessel;
using namespace tessel::codegen;

TEST_CASE("codegen: backends have names, and the printer is always available") {
  CHECK(parse_backend("ptx") == Backend::Ptx);
  CHECK(parse_backend("llvm") == Backend::Llvm);
  CHECK(std::string(backend_name(Backend::Ptx)) == "ptx");
  CHECK(std::string(backend_name(Backend::Llvm)) == "llvm");
  CHECK_THROWS_WITH_AS(parse_backend("LLVM"), "codegen: unknown backend 'LLVM' (the backends are ptx and llvm)", Error);
  CHECK(backend_available(Backend::Ptx));
  CHECK_THROWS_WITH_AS(register_backend(Backend::Ptx, nullptr),
                       "codegen: the ptx backend is the printer; it cannot be replaced", Error);

  KernelBuilder b("backend_k");
  b.special(Special::TidX);
  Module m;
  m.kernels.push_back(b.finish());
  PrintOptions o;
  o.comments = true;
  CHECK(emit_ptx(m, Backend::Ptx, o) == print_ptx(m, o));
  if (!backend_available(Backend::Llvm)) {
    CHECK_THROWS_WITH_AS(emit_ptx(m, Backend::Llvm),
                         "codegen: the llvm backend is not available: tessel was built without TESSEL_WITH_LLVM=ON, or "
                         "the program did not call tessel::codegen_llvm::enable()",
                         Error);
  }
}
