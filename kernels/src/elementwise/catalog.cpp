// elementwise/catalog.cpp: the elementwise kernels in the catalog: one entry per operation and
// element type (tessel_elementwise_add_f32, ...). An entry takes any layout the host API takes;
// its artifact depends on the arguments' normal form (rank, unit strides, vector width, index
// width), so artifact_key is the generated configuration's name, and each artifact's entry is
// renamed to the catalog name (the PTX text tells artifacts apart in the module cache).
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/catalog.hpp"
#include "tessel/kernels/elementwise.hpp"

namespace tessel::kernels {

using codegen::Type;

namespace {

const Type kTypes[] = {Type::F32, Type::F16, Type::BF16, Type::F64, Type::S32, Type::S8};
const ElementwiseOp kOps[] = {ElementwiseOp::Add,   ElementwiseOp::Sub,  ElementwiseOp::Mul, ElementwiseOp::Div,
                              ElementwiseOp::Min,   ElementwiseOp::Max,  ElementwiseOp::Axpby, ElementwiseOp::Copy,
                              ElementwiseOp::Neg,   ElementwiseOp::Abs,  ElementwiseOp::Relu};

KernelMetadata elementwise_metadata(ElementwiseOp op, Type t) {
  KernelMetadata md;
  md.name = std::string("tessel_elementwise_") + op_name(op) + "_" + codegen::ptx_name(t);
  md.options = {{"op", op_name(op)}, {"dtype", codegen::ptx_name(t)}};  // example_arguments reads the op
  md.kernel_class = "elementwise";
  md.operation = Operation::Elementwise;
  for (const char* n : {"A", "B", "C"}) {
    if (is_unary(op) && std::string(n) == "B") continue;
    md.operands.push_back({n, t, Major::Any, 1});
  }
  md.accumulator = t == Type::F16 || t == Type::BF16 ? Type::F32 : t == Type::S8 ? Type::S32 : t;
  md.design.tile = {128 * 16 / codegen::bytes(t), 1, 1};  // elements per block and step (full vectors)
  md.design.threads = 128;
  md.min_cc = 80;
  md.epilogue = op == ElementwiseOp::Axpby ? Epilogue::LinearCombination : Epilogue::Identity;
  return md;
}

class ElementwiseKernel : public Kernel {
 public:
  ElementwiseKernel(ElementwiseOp op, Type t) : Kernel(elementwise_metadata(op, t)), op_(op), dtype_(t) {}

  Status supports(const Arguments& args) const override {
    const auto* e = std::get_if<ElementwiseArguments>(&args);
    if (!e) return Status::failure(std::string("an elementwise kernel; the arguments are a ") +
                                   operation_name(operation_of(args)));
    if (e->op != op_) return Status::failure(std::string("computes ") + op_name(op_) + ", the arguments ask for " +
                                             op_name(e->op));
    if (e->C.dtype != dtype_) return Status::failure(std::string("takes ") + codegen::ptx_name(dtype_) + ", C is " +
                                                     codegen::ptx_name(e->C.dtype));
    try {
      elementwise_config_for(*e, options());  // every check; for a form seen before, those of addresses and values
    } catch (const Error& err) {
      return Status::failure(err.what());
    }
    return Status::success();
  }

  codegen::Module generate(const Arguments& args) const override {
    codegen::Module m = elementwise_kernel(config(args));
    m.kernels.at(0).name = name();
    return m;
  }
  codegen::Module generate() const override { return generate(example_arguments(metadata())); }
  ElementwiseOp op() const { return op_; }
  Type dtype() const { return dtype_; }

  codegen::LaunchPlan plan(const Arguments& args, const Artifact& artifact, const LaunchTarget&) const override {
    ElementwiseOptions o;
    o.check_device_memory = false;
    codegen::LaunchPlan p = elementwise_plan(std::get<ElementwiseArguments>(args), o);
    if (p.kernel.empty()) fail(name() + ": a zero-size problem has nothing to launch");
    p.module = artifact.module;
    p.kernel = name();
    return p;
  }

  // The plan less the module (no copy of the kernel's IR per launch).
  codegen::LaunchPlan plan_for_launch(const Arguments& args, const Artifact&, const LaunchTarget&) const override {
    codegen::LaunchPlan p = elementwise_launch_plan(std::get<ElementwiseArguments>(args), options());
    if (p.kernel.empty()) fail(name() + ": a zero-size problem has nothing to launch");
    p.kernel = name();
    return p;
  }

  std::string artifact_key(const Arguments& args) const override { return config(args).name(); }

 private:
  // The plans of the catalog's entries: the default options, no allocation check (run() is given
  // addresses it cannot check without a driver call per operand).
  static ElementwiseOptions options() {
    ElementwiseOptions o;
    o.check_device_memory = false;
    return o;
  }
  ElementwiseConfig config(const Arguments& args) const {
    const std::optional<ElementwiseConfig> c = elementwise_config_for(std::get<ElementwiseArguments>(args), options());
    if (!c) fail(name() + ": a zero-size problem has nothing to compile");
    return *c;
  }
  ElementwiseOp op_;
  Type dtype_;
};

// One configuration of the class form (`elementwise --op add --rank 3 ...`), outside the catalog:
// the kernel of that problem form and no other (supports() checks the arguments against it).
class ConfiguredElementwiseKernel : public Kernel {
 public:
  ConfiguredElementwiseKernel(const ElementwiseConfig& c, const Options& o)
      : Kernel(configured_metadata(c, o)), config_(c) {}

  Status supports(const Arguments& args) const override {
    const auto* e = std::get_if<ElementwiseArguments>(&args);
    if (!e) return Status::failure(std::string("an elementwise kernel; the arguments are a ") +
                                   operation_name(operation_of(args)));
    try {
      ElementwiseOptions o;
      o.check_device_memory = false;
      elementwise_plan(config_, *e, o);
    } catch (const Error& err) {
      return Status::failure(err.what());
    }
    return Status::success();
  }
  codegen::Module generate(const Arguments&) const override { return elementwise_kernel(config_); }
  codegen::Module generate() const override { return elementwise_kernel(config_); }
  codegen::LaunchPlan plan(const Arguments& args, const Artifact& artifact, const LaunchTarget&) const override {
    ElementwiseOptions o;
    o.check_device_memory = false;
    codegen::LaunchPlan p = elementwise_plan(config_, std::get<ElementwiseArguments>(args), o);
    p.module = artifact.module;
    return p;
  }
  const ElementwiseConfig& config() const { return config_; }

 private:
  static KernelMetadata configured_metadata(const ElementwiseConfig& c, const Options& o) {
    KernelMetadata md = elementwise_metadata(c.op, c.dtype);
    md.name = c.name();
    md.options = o;
    return md;
  }
  ElementwiseConfig config_;
};

class ElementwiseClass : public KernelClass {
 public:
  std::string name() const override { return "elementwise"; }
  std::string description() const override {
    return "C = op(A, B) over rank 1-4 tensors of any strides, 16-byte vectors where alignment allows (sm_80)";
  }
  std::vector<KernelPtr> generate_kernels(const MetadataFilter& filter, std::optional<Epilogue> epilogue,
                                          std::optional<int> cc) const override {
    std::vector<KernelPtr> out;
    for (ElementwiseOp op : kOps)
      for (Type t : kTypes)
        if (admits(elementwise_metadata(op, t), filter, epilogue, cc)) out.push_back(std::make_shared<ElementwiseKernel>(op, t));
    return out;
  }
  std::vector<OptionSpec> options() const override { return elementwise_options(); }
  KernelPtr configure(const Options& options) const override {
    return std::make_shared<ConfiguredElementwiseKernel>(elementwise_config(options), options);
  }
  std::vector<Options> variants() const override { return elementwise_variants(); }
};

}  // namespace

std::optional<ElementwiseConfig> elementwise_config_of(const Kernel& k) {
  if (const auto* c = dynamic_cast<const ConfiguredElementwiseKernel*>(&k)) return c->config();
  if (const auto* e = dynamic_cast<const ElementwiseKernel*>(&k)) {
    Options o = {{"op", op_name(e->op())}, {"dtype", codegen::ptx_name(e->dtype())}};
    return elementwise_config(resolve_options(elementwise_options(), o, "elementwise"));
  }
  return std::nullopt;
}

std::shared_ptr<KernelClass> make_elementwise_class() { return std::make_shared<ElementwiseClass>(); }

}  // namespace tessel::kernels
