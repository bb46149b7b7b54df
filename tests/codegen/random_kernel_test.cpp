// random_kernel_test.cpp: random kernels made with the builder (arithmetic, comparisons, selects,
// conversions between every pair of types, nested if/else and loops, loads and stores) must
// print PTX that ptxas accepts: the builder's legalizing choices (rounding modes, bit types for
// logic, unsigned comparisons, b16 loads of halves) are checked against the assembler itself.
#include <doctest/doctest.h>

#include "algebra/support.hpp"
#include "codegen/ptxas.hpp"
#include "tessel/codegen.hpp"

using namespace tessel;
using namespace tessel::codegen;

namespace {

const Type kTypes[] = {Type::S16, Type::U16, Type::S32, Type::U32, Type::S64,
                       Type::U64, Type::F16, Type::F32, Type::F64};

Module random_kernel(std::mt19937_64& rng, int index) {
  KernelBuilder b("tessel_random_" + std::to_string(index));
  Value p = b.global_pointer_param("p");
  Value n = b.param("n", Type::S32);
  std::vector<Value> pool;
  // Seed values of every type, loaded from memory so that nothing folds.
  for (Type t : kTypes) {
    Value v = b.load(Space::Global, t, p, 8 * static_cast<int64_t>(pool.size()))[0];
    pool.push_back(v);
  }
  auto any = [&](Type t) {
    std::vector<Value> c;
    for (Value v : pool)
      if (v.type() == t) c.push_back(v);
    return c[static_cast<size_t>(test::uniform(rng, 0, static_cast<int64_t>(c.size()) - 1))];
  };
  auto pick_type = [&] { return kTypes[test::uniform(rng, 0, 8)]; };
  std::function<void(int)> block = [&](int depth) {
    const int steps = static_cast<int>(test::uniform(rng, 3, 10));
    for (int s = 0; s < steps; ++s) {
      const Type t = pick_type();
      const bool f = is_float(t);
      switch (test::uniform(rng, 0, 8)) {
        case 0:
          pool.push_back(any(t) + any(t));
          break;
        case 1:
          pool.push_back(any(t) * any(t));
          break;
        case 2:
          pool.push_back(f ? b.min(any(t), any(t)) : (any(t) & any(t)));
          break;
        case 3:
          pool.push_back(b.select(any(t) < any(t), any(t), any(t)));
          break;
        case 4:
          pool.push_back(b.cvt(any(pick_type()), t));
          break;
        case 5:
          if (t != Type::F16) pool.push_back(f ? any(t) / any(t) : (any(t) >> 1));
          break;
        case 6:
          if (depth < 2) {
            Value c = any(t) >= any(t);
            b.if_(
                c, [&] { block(depth + 1); }, [&] { block(depth + 1); });
          }
          break;
        case 7:
          if (depth < 2) b.for_range(b.constant(0, Type::S32), n, 1, [&](Value) { block(depth + 1); });
          break;
        default:
          b.store(Space::Global, t, p, {any(t)}, 8 * test::uniform(rng, 0, 8));
          break;
      }
    }
  };
  block(0);
  Module m;
  m.kernels.push_back(b.finish());
  return m;
}

}  // namespace

TEST_CASE("codegen: random kernels of every type assemble with ptxas") {
  if (test::ptxas_path().empty()) {
    std::printf("TESSEL_SKIP: ptxas not found\n");
    return;
  }
  TESSEL_RNG(rng);
  // Several kernels per module keep the number of ptxas runs (the test's cost) small.
  for (int round = 0; round < 6; ++round) {
    Module m;
    for (int k = 0; k < 8; ++k) m.kernels.push_back(random_kernel(rng, round * 8 + k).kernels.at(0));
    test::check_assembles(m);
  }
}
