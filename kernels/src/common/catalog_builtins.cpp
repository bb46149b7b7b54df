// common/catalog_builtins.cpp: tessel's own kernel classes, added to the global registry when it is first
// used. They are listed here, not registered by static objects in their own files: the kernels
// library is static, and a linker drops an object file nothing refers to, registrar included.
// (A user's registrar lives in the user's own object file, which is always linked.)
#include "tessel/kernels/catalog.hpp"
#include "tessel/kernels/demos.hpp"
#include "tessel/kernels/hopper_gemm.hpp"
#include "tessel/kernels/simt_gemm.hpp"

namespace tessel::kernels {

std::shared_ptr<KernelClass> make_elementwise_class();  // elementwise/catalog.cpp

void register_builtin_kernel_classes(Registry& r) {
  r.add(std::make_shared<HopperGemmClass>());
  r.add(std::make_shared<SimtGemmClass>());
  r.add(make_elementwise_class());
  r.add(vector_copy_class());
  r.add(tma_tile_class());
  r.add(wgmma_tile_class());
}

}  // namespace tessel::kernels
