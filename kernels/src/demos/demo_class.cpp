// demos/demo_class.cpp: see demo_class.hpp.
#include "demos/demo_class.hpp"

#include <utility>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::kernels {

namespace {

class DemoKernel : public Kernel {
 public:
  DemoKernel(KernelMetadata md, std::function<codegen::Module()> generate)
      : Kernel(std::move(md)), generate_(std::move(generate)) {}
  Status supports(const Arguments&) const override {
    return Status::failure(name() + " is a demonstration kernel: it takes no catalog arguments (`tessel run " +
                           name() + "` runs it on its own problem)");
  }
  codegen::Module generate(const Arguments&) const override { return generate_(); }
  codegen::Module generate() const override { return generate_(); }
  codegen::LaunchPlan plan(const Arguments&, const Artifact&, const LaunchTarget&) const override {
    fail(name() + " is a demonstration kernel: it has no launch from catalog arguments");
  }

 private:
  std::function<codegen::Module()> generate_;
};

class DemoClass : public KernelClass {
 public:
  explicit DemoClass(DemoSpec s) : spec_(std::move(s)) {}
  std::string name() const override { return spec_.name; }
  std::string description() const override { return spec_.description; }
  std::vector<OptionSpec> options() const override { return spec_.options; }
  std::vector<KernelPtr> generate_kernels(const MetadataFilter& filter, std::optional<Epilogue> epilogue,
                                          std::optional<int> cc) const override {
    std::vector<KernelPtr> out;
    for (const Options& o : all_combinations(spec_.options)) {
      KernelMetadata md = metadata(o);  // once per configuration
      if (admits(md, filter, epilogue, cc)) out.push_back(make(o, std::move(md)));
    }
    return out;
  }
  KernelPtr configure(const Options& o) const override { return make(o); }

 private:
  KernelMetadata metadata(const Options& o) const {
    KernelMetadata md;
    md.name = spec_.kernel_name(o);
    md.kernel_class = spec_.name;
    md.operation = Operation::Demo;
    md.operands = spec_.operands(o);
    md.min_cc = spec_.min_cc;
    md.epilogue = Epilogue::Identity;
    md.options = o;
    return md;
  }
  KernelPtr make(const Options& o) const { return make(o, metadata(o)); }
  KernelPtr make(const Options& o, KernelMetadata md) const {
    const auto generate = spec_.generate;
    return std::make_shared<DemoKernel>(std::move(md), [generate, o] { return generate(o); });
  }
  DemoSpec spec_;
};

}  // namespace

KernelClassPtr make_demo_class(DemoSpec spec) { return std::make_shared<DemoClass>(std::move(spec)); }

}  // namespace tessel::kernels
