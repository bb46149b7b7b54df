// Uses only installed public headers and the exported targets: the algebra, the code generator
// (a kernel printed to PTX), the kernel catalog and the runtime (which must load without a GPU).
#include <iostream>
#include <tessel/algebra.hpp>
#include <tessel/codegen.hpp>
#include <tessel/kernels/catalog.hpp>
#include <tessel/runtime.hpp>

int main() {
  tessel::Layout L = tessel::parse_layout("(4,8):(8,1)");
  std::cout << tessel::to_string(tessel::coalesce(L)) << "\n";
  if (tessel::to_string(L) != "(4,8):(8,1)") return 1;

  tessel::codegen::KernelBuilder b("consumer_kernel");
  tessel::codegen::Value n = b.param("n", tessel::codegen::Type::S32);
  b.lower(b.thread_index(0) * tessel::Int(4) + b.symbol("n", n), tessel::codegen::Type::S32);
  tessel::codegen::Module m;
  m.kernels.push_back(b.finish());
  const std::string ptx = tessel::codegen::print_ptx(m);
  if (ptx.find(".entry consumer_kernel") == std::string::npos) return 2;

  const auto classes = tessel::kernels::Registry::global().classes();
  const auto k = tessel::kernels::resolve_kernel("tessel_elementwise_add_f32");
  if (tessel::codegen::print_ptx(k->generate()).find(".entry tessel_elementwise_add_f32") == std::string::npos) return 4;
  std::cout << classes.size() << " kernel classes; driver: "
            << (tessel::rt::driver_status().available ? "available" : "absent") << "\n";
  return classes.empty() ? 3 : 0;
}
