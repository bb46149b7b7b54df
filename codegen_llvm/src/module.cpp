// module.cpp: a tessel module as an llvm::Module: each kernel a ptx_kernel function whose
// arguments are its parameters (pointers in the global space, TMA descriptors as grid-constant
// byval arrays of 128 bytes aligned to 64), its launch bounds and cluster shape as NVVM function
// attributes, its shared arrays as module globals in the shared address space.
#include "module.hpp"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "lowering.hpp"
#include "tessel/algebra/error.hpp"

namespace tessel::codegen_llvm {

namespace {

std::string dims(const std::array<int, 3>& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

llvm::Type* param_type(llvm::LLVMContext& ctx, const codegen::Param& p, KernelLowering& l) {
  switch (p.kind) {
    case codegen::Param::Kind::Scalar:
      return l.type_of(p.type);
    case codegen::Param::Kind::Pointer:
      return llvm::PointerType::get(ctx, kGlobal);
    case codegen::Param::Kind::TensorMap:
      return llvm::PointerType::get(ctx, kGeneric);
  }
  return nullptr;
}

void declare_shared(llvm::Module& mod, const codegen::Kernel& k, std::map<std::string, llvm::GlobalVariable*>& out) {
  llvm::LLVMContext& ctx = mod.getContext();
  for (const codegen::SharedAlloc& a : k.shared) {
    if (mod.getNamedGlobal(a.name)) fail("codegen_llvm: shared array " + a.name + " declared by two kernels of one module");
    auto* ty = llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), a.dynamic ? 0 : static_cast<uint64_t>(a.bytes));
    // A dynamic array is `.extern .shared`: external and without an initializer, as the printer's.
    auto* g = new llvm::GlobalVariable(mod, ty, false,
                                       a.dynamic ? llvm::GlobalValue::ExternalLinkage : llvm::GlobalValue::InternalLinkage,
                                       a.dynamic ? nullptr : llvm::UndefValue::get(ty), a.name, nullptr,
                                       llvm::GlobalValue::NotThreadLocal, kShared);
    g->setAlignment(llvm::Align(a.align));
    out[a.name] = g;
  }
}

}  // namespace

void lower_kernel(llvm::Module& mod, const codegen::Kernel& k, std::set<std::string>& inline_asm) {
  llvm::LLVMContext& ctx = mod.getContext();
  KernelLowering l(mod, k, inline_asm);
  std::vector<llvm::Type*> types;
  for (const codegen::Param& p : k.params) types.push_back(param_type(ctx, p, l));
  auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), types, false);
  if (mod.getFunction(k.name)) fail("codegen_llvm: two kernels named " + k.name + " in one module");
  l.fn = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, k.name, mod);
  l.fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
  for (size_t j = 0; j < k.params.size(); ++j) {
    const codegen::Param& p = k.params[j];
    l.params[p.name] = static_cast<int>(j);
    l.fn->getArg(static_cast<unsigned>(j))->setName(p.name);
    if (p.kind == codegen::Param::Kind::TensorMap) {
      auto* desc = llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), 128);
      l.fn->addParamAttr(static_cast<unsigned>(j), llvm::Attribute::getWithByValType(ctx, desc));
      l.fn->addParamAttr(static_cast<unsigned>(j), llvm::Attribute::getWithAlignment(ctx, llvm::Align(64)));
      l.fn->addParamAttr(static_cast<unsigned>(j), llvm::Attribute::get(ctx, "nvvm.grid_constant"));
    }
  }
  // Launch bounds and cluster shape. setmaxnreg needs them: ptxas ignores it in a kernel without
  // .maxntid or .minnctapersm.
  if (k.reqntid) l.fn->addFnAttr("nvvm.reqntid", dims(*k.reqntid));
  if (k.maxntid) l.fn->addFnAttr("nvvm.maxntid", dims(*k.maxntid));
  if (k.minnctapersm > 0) l.fn->addFnAttr("nvvm.minctasm", std::to_string(k.minnctapersm));
  if (k.cluster_dims) l.fn->addFnAttr("nvvm.cluster_dim", dims(*k.cluster_dims));
  declare_shared(mod, k, l.shared);
  l.lower_body();
}

std::unique_ptr<llvm::Module> lower_module(llvm::LLVMContext& ctx, const codegen::Module& m, const llvm::DataLayout& dl,
                                           const llvm::Triple& triple, std::set<std::string>& inline_asm) {
  if (m.kernels.empty()) fail("codegen_llvm: a module needs at least one kernel");
  auto mod = std::make_unique<llvm::Module>("tessel", ctx);
  mod->setTargetTriple(triple);
  mod->setDataLayout(dl);
  for (const codegen::Kernel& k : m.kernels) lower_kernel(*mod, k, inline_asm);
  std::string why;
  llvm::raw_string_ostream os(why);
  if (llvm::verifyModule(*mod, &os)) fail("codegen_llvm: the lowered module does not verify: " + why);
  return mod;
}

}  // namespace tessel::codegen_llvm
