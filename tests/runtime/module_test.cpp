// module_test.cpp: loading PTX, finding kernels, and the JIT log in the error of a bad module.
#include <doctest/doctest.h>

#include <string>

#include "gpu.hpp"
#include "kernels.hpp"
#include "tessel/runtime.hpp"

namespace rt = tessel::rt;

TEST_CASE("runtime: an empty Module has no functions") {
  rt::Module m;
  CHECK_FALSE(m);
  CHECK(m.native() == nullptr);
  CHECK(m.info_log().empty());
  CHECK_THROWS_WITH_AS(m.function("k"), "Module::function(\"k\"): no module loaded", tessel::Error);
  CHECK_THROWS_WITH_AS(rt::Function().attributes(), "Function::attributes: no function", tessel::Error);
}

// --- GPU ------------------------------------------------------------------------------------

TEST_CASE("runtime: a PTX module loads and reports its kernel's attributes") {
  TESSEL_REQUIRE_GPU(80);
  rt::Module m = rt::Module::load_ptx(tessel::test::kVectorAddPtx);
  CHECK(m);
  CHECK(m.context() == tessel::test::gpu_context().native());
  rt::Function f = m.function("tessel_test_vadd");
  CHECK(f.name() == "tessel_test_vadd");
  rt::FunctionAttributes a = f.attributes();
  CHECK(a.registers > 0);
  CHECK(a.static_shared_bytes == 0);
  CHECK(a.local_bytes == 0);
  CHECK(a.max_threads_per_block >= 256);
  CHECK(a.ptx_version == 80);
  CHECK(a.binary_version == rt::device_properties(0).compute_capability());
}

TEST_CASE("runtime: a Function keeps its module loaded") {
  TESSEL_REQUIRE_GPU(80);
  rt::Function f;
  {
    rt::Module m = rt::Module::load_ptx(tessel::test::kVectorAddPtx);
    f = m.function("tessel_test_vadd");
  }
  CHECK(f.module().native() != nullptr);
  CHECK(f.attributes().registers > 0);  // the module was not unloaded
}

TEST_CASE("runtime: a missing kernel name is a DriverError naming it") {
  TESSEL_REQUIRE_GPU(80);
  rt::Module m = rt::Module::load_ptx(tessel::test::kVectorAddPtx);
  try {
    m.function("no_such_kernel");
    FAIL("no error");
  } catch (const tessel::DriverError& e) {
    CHECK(e.call() == "cuModuleGetFunction");
    CHECK(e.name() == "CUDA_ERROR_NOT_FOUND");
    CHECK(std::string(e.what()).find("kernel \"no_such_kernel\"") != std::string::npos);
  }
}

TEST_CASE("runtime: PTX the driver rejects gives a DriverError with the JIT log") {
  TESSEL_REQUIRE_GPU(80);
  // Line 8 of this text uses a register it never declared.
  const char* bad = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry tessel_test_bad()
{
    .reg .b32 %r<2>;
    add.u32 %r1, %r1, %undeclared;
    ret;
}
)";
  try {
    rt::Module::load_ptx(bad);
    FAIL("the driver accepted bad PTX");
  } catch (const tessel::DriverError& e) {
    std::string what = e.what();
    INFO(what);
    CHECK(e.call() == "cuModuleLoadDataEx");
    CHECK(e.name() == "CUDA_ERROR_INVALID_PTX");
    CHECK(what.rfind("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (", 0) == 0);
    CHECK(e.detail().find("line 8") != std::string::npos);       // the JIT log names the line
    CHECK(e.detail().find("%undeclared") != std::string::npos);  // and the culprit
    CHECK(what.find(e.detail()) != std::string::npos);
  }
}
