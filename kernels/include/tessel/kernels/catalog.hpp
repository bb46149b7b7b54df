// catalog.hpp: the kernel catalog, modelled on the CUTLASS API. Every kernel instance describes
// itself with metadata (operand types, majors and alignment, accumulator, tile and cluster shape,
// minimum compute capability, epilogue); kernel classes enumerate their configurations; a registry
// holds the classes, tessel's own and the user's, and get_kernels() finds the instances that can
// run a set of arguments. A kernel then checks (supports), compiles once (compile) and runs many
// times (run).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tessel/codegen/backend.hpp"
#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/launch_plan.hpp"
#include "tessel/kernels/elementwise.hpp"
#include "tessel/kernels/gemm_arguments.hpp"
#include "tessel/kernels/options.hpp"
#include "tessel/runtime/module.hpp"
#include "tessel/runtime/stream.hpp"
#include "tessel/runtime/tensor_map.hpp"

namespace tessel::kernels {

// --- Arguments: one type per operation. A new operation is one more alternative here. ---
using Arguments = std::variant<GemmArguments, ElementwiseArguments>;

// Demo: the code generator's demonstration kernels (kernels/demos.hpp), which take no catalog
// arguments (`tessel run` runs them on their own problems); no Arguments alternative is a demo.
enum class Operation : uint8_t { Gemm, Elementwise, Demo };
Operation operation_of(const Arguments& args);
const char* operation_name(Operation op);            // "gemm"
Operation parse_operation(const std::string& name);  // throws naming the valid ones

// --- Metadata. ---

// Which stride of an operand is 1, for the last two modes (rows, cols) of a matrix operand:
// Row: cols has stride 1 (A row-major is K-major); Column: rows has stride 1; Any: the kernel
// takes any strides (all dynamic).
enum class Major : uint8_t { Row, Column, Any };
const char* major_name(Major m);             // "row", "col", "any"
Major parse_major(const std::string& name);  // "row"/"r", "col"/"c", "any"
// The major of a view's last two modes: Row where the last has stride 1, else Column where the one
// before has, else Any (and Any below rank 2).
Major major_of(const TensorView& v);

struct OperandAttributes {
  std::string name;  // "A", "B", "out"
  codegen::Type dtype = codegen::Type::F32;
  Major major = Major::Any;
  int alignment = 1;  // in elements: the address and every non-unit stride are multiples of it
};

// What the kernel does with its result. Identity: out = acc. LinearCombination: out = alpha * acc
// + beta * out (which includes Identity with alpha = 1, beta = 0).
enum class Epilogue : uint8_t { Identity, LinearCombination };
const char* epilogue_name(Epilogue e);  // "identity", "linear_combination"

struct Design {
  std::array<int, 3> tile{1, 1, 1};     // (M, N, K) for GEMMs; elements per block otherwise
  std::array<int, 3> cluster{1, 1, 1};  // blocks per cluster
  int stages = 0;                       // pipeline stages, 0 where there is no pipeline
  int threads = 0;                      // per block
};

struct KernelMetadata {
  std::string name;          // unique in the catalog; also the kernel's PTX entry name
  std::string kernel_class;  // the KernelClass that generated it
  Operation operation = Operation::Gemm;
  std::vector<OperandAttributes> operands;  // in argument order: A, B, out for a GEMM
  codegen::Type accumulator = codegen::Type::F32;
  Design design;
  int min_cc = 80;  // the lowest compute capability that runs it (80 for sm_80)
  Epilogue epilogue = Epilogue::LinearCombination;
  // The bytes that C's address and leading dimension must be multiples of for the kernel to read C
  // itself (its batch stride: 16): 16 through the TMA; a Hopper GEMM that reads C in lines takes
  // C's element size.
  int c_alignment = 16;
  // The options of its class that make this kernel (KernelClass::configure), in the class's
  // spelling; empty for a class without options.
  Options options;

  // The operand called `name`; throws tessel::Error naming the ones there are.
  const OperandAttributes& operand(std::string_view name) const;
};

// A predicate on metadata: which kernels a caller wants. Empty accepts every kernel.
using MetadataFilter = std::function<bool(const KernelMetadata&)>;
// Whether generation should keep `md`: it passes the filter, supports `epilogue` (LinearCombination
// also serves Identity) and runs on `cc` (min_cc <= cc). Unset options accept everything.
bool admits(const KernelMetadata& md, const MetadataFilter& filter, std::optional<Epilogue> epilogue,
            std::optional<int> cc);
// The filters `tessel list --filter key=value` builds: kind/operation (gemm), class (simt_gemm),
// dtype (any operand's type, or the accumulator's), name (a substring), major (every matrix
// operand's, "row"/"col"/"any"), tile-m/tile-n/tile-k, min-cc (at most). Throws naming the keys.
MetadataFilter metadata_filter(const std::string& key, const std::string& value);
// All of them (their conjunction).
MetadataFilter all_of(std::vector<MetadataFilter> filters);

// Whether a kernel can run some arguments; `reason` names the value and the rule when it cannot.
struct Status {
  bool ok = true;
  std::string reason;
  static Status success() { return {}; }
  static Status failure(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

// A compiled kernel: its IR and PTX (always), and its loaded function (on first use on a GPU, so
// that compiling needs no GPU). Copies share the loaded function; reuse one for every run with
// arguments the kernel's artifact_key() does not tell apart.
struct Artifact {
  codegen::Module module;
  std::string kernel;  // the entry's name
  std::string ptx;
  int target_sm = 80;  // the PTX's .target
  codegen::Backend backend = codegen::Backend::Ptx;  // the road that wrote `ptx` (codegen/backend.hpp)
  // The function in the current context (device 0's primary one where the thread has none),
  // loaded (through the module cache) on first call in each context; throws tessel::Error where no
  // GPU can run it.
  rt::Function function() const;

  struct Loaded;
  std::shared_ptr<Loaded> loaded;
};

// Makes the 128 bytes of a TMA descriptor: rt::encode_tensor_map on a GPU, the emulator's
// emu::encode_tensor_map on the CPU.
using TensorMapEncoder = std::function<rt::TensorMap(const rt::TensorMapSpec&, uint64_t address)>;

// Where a launch plan will run: the GPU in use (the defaults) or the CPU emulator, which needs
// its own TMA descriptors and may take fewer persistent CTAs than a GPU has SMs.
struct LaunchTarget {
  int sm_count = 0;         // the persistent grid's CTAs at most; 0: the SM count of the device in use
  TensorMapEncoder encode;  // empty: the driver's (rt::encode_tensor_map)
};

// Arguments a kernel of this metadata supports, at made-up device addresses: a small problem
// laid out as the operands' majors and alignment ask (GEMM: 256 x 256 x 256 in one batch;
// elementwise: 64 x 64, row-major, the op from options["op"] or add). For generating and printing
// a kernel where no arguments are at hand (`tessel dump`). Throws for an operation without
// arguments (demo).
Arguments example_arguments(const KernelMetadata& md);

// One configured kernel, as the catalog lists it.
class Kernel {
 public:
  explicit Kernel(KernelMetadata metadata);
  virtual ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const KernelMetadata& metadata() const { return metadata_; }
  const std::string& name() const { return metadata_.name; }

  // Whether this kernel runs `args` (their operation, ranks, shapes, types, strides, alignment,
  // epilogue); the reason otherwise. Never throws for arguments of another operation.
  virtual Status supports(const Arguments& args) const = 0;
  // The kernel's IR for `args` (tessel's kernels generate the same IR for every argument they
  // support: sizes and strides are parameters).
  virtual codegen::Module generate(const Arguments& args) const = 0;
  // The kernel's IR without arguments (`tessel dump`): generate(example_arguments(metadata())) unless
  // the class knows better.
  virtual codegen::Module generate() const;
  // One launch of `artifact` on `args` on `target`: grid, block and parameter bytes. With an
  // encoder in `target` no GPU is needed, so the emulator runs the same plan on the CPU.
  virtual codegen::LaunchPlan plan(const Arguments& args, const Artifact& artifact,
                                   const LaunchTarget& target = {}) const = 0;
  // What run() launches: plan() less its module (the artifact holds that), so that a launch does
  // not copy the kernel's IR. The default calls plan() and drops the module; tessel's kernels
  // build it directly (a launch then costs microseconds of host time). `target` as plan()'s (the
  // one-call GEMM passes an encoder that notes which descriptor was encoded at which address).
  virtual codegen::LaunchPlan plan_for_launch(const Arguments& args, const Artifact& artifact,
                                              const LaunchTarget& target = {}) const;
  // Bytes of device scratch memory run() needs for `args` (0: none).
  virtual std::size_t workspace_size(const Arguments& args) const;
  // Arguments with equal keys can share an artifact ("" for all: the IR depends on no argument).
  virtual std::string artifact_key(const Arguments& args) const;

  // Checks supports(args) and cc (when given, against min_cc), generates the IR and writes its PTX
  // through `backend` (default: codegen::default_backend(), i.e. $TESSEL_BACKEND or the printer).
  // Throws tessel::Error with supports' reason, naming cc and min_cc, or an unavailable backend.
  Artifact compile(const Arguments& args, std::optional<int> cc = {},
                   std::optional<codegen::Backend> backend = {}) const;
  // The same from generate(), without arguments (no supports() check).
  Artifact compile_unchecked(std::optional<codegen::Backend> backend = {}) const;
  // Queues one launch on `stream` (the current context's device, as Artifact::function). `workspace` is a device address of at
  // least workspace_size(args) bytes. Throws when the arguments are not supported.
  void run(const Arguments& args, const Artifact& artifact, rt::StreamRef stream = {}, uint64_t workspace = 0) const;
  // The same, compiling on first use and caching the artifact by artifact_key(args).
  void run(const Arguments& args, rt::StreamRef stream = {}, uint64_t workspace = 0) const;
  // The artifact that run(args) uses: compile(args) on first use, then the one cached by
  // artifact_key(args) (valid for the kernel's life). Throws as compile() does.
  const Artifact& artifact_for(const Arguments& args) const;

 private:
  KernelMetadata metadata_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Artifact> artifacts_;
};

using KernelPtr = std::shared_ptr<const Kernel>;

// A generator of kernel instances: one class of kernel, all its configurations. Every command
// speaks it: `tessel list` its kernels' metadata, `tessel dump`/`run`/`bench` a kernel found by its
// name or configured from the class's options.
class KernelClass {
 public:
  virtual ~KernelClass();
  virtual std::string name() const = 0;  // "simt_gemm"; unique in the registry
  virtual std::string description() const = 0;
  // Every configuration the class offers that admits(metadata, filter, epilogue, cc): metadata is
  // made first and kernels only for the configurations kept.
  virtual std::vector<KernelPtr> generate_kernels(const MetadataFilter& filter = {},
                                                  std::optional<Epilogue> epilogue = {},
                                                  std::optional<int> cc = {}) const = 0;

  // The class form, `tessel dump CLASS --OPTION VALUE ...`: the options (the first value of each
  // is its default). None by default: the class's kernels are then reached by name only.
  virtual std::vector<OptionSpec> options() const;
  // The kernel of a complete set of options (resolve_options(options(), ...)), which need not be
  // one the catalog lists (e.g. an elementwise kernel of one problem form). Throws tessel::Error
  // naming the rule a combination breaks. The default throws: the class has no options.
  virtual KernelPtr configure(const Options& options) const;
  // Option sets beside the catalog's kernels that `tessel dump --list` lists (and the device runs
  // `tessel run` on): forms the catalog's entries choose at run time. None by default.
  virtual std::vector<Options> variants() const;
};

using KernelClassPtr = std::shared_ptr<const KernelClass>;

// The kernel classes tessel knows: its own (registered when the registry is first used) and the
// ones users register. Thread-safe.
class Registry {
 public:
  Registry() = default;
  // The process-wide registry, with tessel's built-in classes in it.
  static Registry& global();

  // Adds a class; throws tessel::Error if its name or one of its kernels' names is taken.
  void add(KernelClassPtr c);
  std::vector<KernelClassPtr> classes() const;
  // The class called `name`, or null.
  KernelClassPtr find_class(const std::string& name) const;
  // Every kernel of every class that admits(filter, epilogue, cc), classes in registration order.
  // The same instances on every call (each class's kernels are made once, when it is added), so
  // that a kernel's compiled artifacts serve every caller that finds it.
  std::vector<KernelPtr> kernels(const MetadataFilter& filter = {}, std::optional<Epilogue> epilogue = {},
                                 std::optional<int> cc = {}) const;
  // The registered kernel called `name`, or null.
  KernelPtr find_kernel(const std::string& name) const;

 private:
  mutable std::mutex mutex_;
  std::vector<KernelClassPtr> classes_;
  std::vector<std::vector<KernelPtr>> kernels_;  // by class, as generate_kernels() made them
  std::map<std::string, KernelPtr> by_name_;
};

// Registers a class in the global registry (see Registry::add).
void register_kernel_class(KernelClassPtr c);

// Registration from a user's code, at static initialization:
//   static tessel::kernels::RegisterKernelClass<MyGemmClass> registered;
template <class C>
struct RegisterKernelClass {
  RegisterKernelClass() { register_kernel_class(std::make_shared<C>()); }
};

// Every registered kernel that runs `args`: of their operation, admitted by `filter`, runnable on
// `cc` and supports(args). Without a cc, the cc of the device a run would use (the current
// context's, else device 0: device_cc_if_any in launch.hpp); every cc where there is no GPU.
std::vector<KernelPtr> get_kernels(const Arguments& args, const MetadataFilter& filter = {},
                                   std::optional<int> cc = {});
// Every registered kernel admitted by `filter` and `cc`, whatever the arguments (`tessel list`).
std::vector<KernelPtr> list_kernels(const MetadataFilter& filter = {}, std::optional<int> cc = {});
// The registered kernel called `name`; throws tessel::Error if none is.
KernelPtr find_kernel(const std::string& name);

// The kernel a command line names: a class name with options (`elementwise --op add --dtype f16`,
// defaults filling the rest), or a catalog kernel's name (`tessel list`), alone (that kernel) or
// with options that change some of its own (its class's configure of metadata().options with
// `given` over them). Throws tessel::Error naming an unknown kernel, option or value.
KernelPtr resolve_kernel(const std::string& name, const Options& given = {});
// What `tessel dump --list` prints, in registration order: every catalog kernel's name, then each
// class's variants as "CLASS --OPTION VALUE ..." (every option, in the class's order).
std::vector<std::string> listed_kernels(const Registry& r = Registry::global());
// "CLASS --OPTION VALUE ..." for a kernel with options (every option of its class, in order),
// else its name: a command line that names the same configuration.
std::string kernel_arguments(const Kernel& k);

// The configuration an elementwise kernel generates without arguments: a configured one's own
// (`elementwise --rank 3 ...`), a catalog entry's default form (rank 2, row-major, its op and
// dtype); nullopt for a kernel of another class.
std::optional<ElementwiseConfig> elementwise_config_of(const Kernel& k);

// The built-in classes, added to a registry (Registry::global() calls it once). A new built-in
// kernel class is one more line in kernels/src/common/catalog_builtins.cpp.
void register_builtin_kernel_classes(Registry& r);

}  // namespace tessel::kernels
