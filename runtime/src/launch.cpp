// launch.cpp: launch validation, ArgPack, and cuLaunchKernelEx.
#include "tessel/runtime/launch.hpp"

#include <string>
#include <vector>

#include "call.hpp"

namespace tessel::rt {

std::string to_string(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

void validate_launch(const LaunchConfig& c) {
  auto positive = [](const char* what, const Dim3& d) {
    if (d.x == 0 || d.y == 0 || d.z == 0)
      fail(std::string("launch: ") + what + " " + to_string(d) + " has an extent of 0 (every extent must be >= 1)");
  };
  positive("grid", c.grid);
  positive("block", c.block);
  positive("cluster", c.cluster);
  if (c.grid.y > 65535 || c.grid.z > 65535)
    fail("launch: grid " + to_string(c.grid) + " exceeds 65535 blocks in y or z");
  if (c.block.x > 1024 || c.block.y > 1024 || c.block.z > 64)
    fail("launch: block " + to_string(c.block) + " exceeds the largest block extents (1024,1024,64)");
  if (c.block.count() > 1024)
    fail("launch: block " + to_string(c.block) + " has " + std::to_string(c.block.count()) + " threads; at most 1024");
  if (c.grid.x % c.cluster.x || c.grid.y % c.cluster.y || c.grid.z % c.cluster.z)
    fail("launch: grid " + to_string(c.grid) + " is not a whole number of clusters " + to_string(c.cluster) +
         " (each grid extent must be divisible by the cluster's)");
}

ArgPack& ArgPack::add_bytes(const void* data, std::size_t size, std::size_t align) {
  if (align == 0 || (align & (align - 1)) != 0 || align > alignof(Block))
    fail("ArgPack: alignment " + std::to_string(align) + " is not a power of two <= 64");
  std::size_t offset = (used_ + align - 1) / align * align;
  std::size_t end = offset + size;
  storage_.resize((end + sizeof(Block) - 1) / sizeof(Block));
  if (size) std::memcpy(reinterpret_cast<std::byte*>(storage_.data()) + offset, data, size);
  offsets_.push_back(offset);
  used_ = end;
  return *this;
}

void ArgPack::replace_bytes(std::size_t index, const void* data, std::size_t size) {
  if (index >= offsets_.size() || offsets_[index] + size > used_)
    fail("ArgPack: " + std::to_string(size) + " bytes at argument " + std::to_string(index) + " of " +
         std::to_string(offsets_.size()) + " run past the pack");
  std::memcpy(reinterpret_cast<std::byte*>(storage_.data()) + offsets_[index], data, size);
}

std::vector<void*> ArgPack::pointers() const {
  std::vector<void*> p;
  p.reserve(offsets_.size());
  // The driver only reads through these; its signature takes void**.
  auto* base = const_cast<std::byte*>(reinterpret_cast<const std::byte*>(storage_.data()));
  for (std::size_t o : offsets_) p.push_back(base + o);
  return p;
}

std::size_t ArgPack::pointers(void** out) const {
  auto* base = const_cast<std::byte*>(reinterpret_cast<const std::byte*>(storage_.data()));
  for (std::size_t i = 0; i < offsets_.size(); ++i) out[i] = base + offsets_[i];
  return offsets_.size();
}

void launch(const Function& function, const LaunchConfig& c, std::span<void* const> args) {
  if (!function) fail("launch: no function");
  validate_launch(c);
  const cu::DriverApi& d = detail::api();
  cu::CUlaunchAttribute cluster{};
  cluster.id = cu::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = c.cluster.x;
  cluster.value.clusterDim.y = c.cluster.y;
  cluster.value.clusterDim.z = c.cluster.z;
  bool clustered = c.cluster.count() > 1;  // without the attribute, pre-sm_90 devices can launch too

  cu::CUlaunchConfig config{};
  config.gridDimX = c.grid.x;
  config.gridDimY = c.grid.y;
  config.gridDimZ = c.grid.z;
  config.blockDimX = c.block.x;
  config.blockDimY = c.block.y;
  config.blockDimZ = c.block.z;
  config.sharedMemBytes = c.dynamic_shared_bytes;
  config.hStream = static_cast<cu::CUstream>(c.stream.native());
  config.attrs = clustered ? &cluster : nullptr;
  config.numAttrs = clustered ? 1 : 0;
  const cu::CUresult r = d.cuLaunchKernelEx(&config, static_cast<cu::CUfunction>(function.native()),
                                            const_cast<void**>(args.data()), nullptr);
  if (r != cu::CUDA_SUCCESS) {  // the detail is written only for an error: a launch makes no string
    detail::throw_driver_error(d, r, "cuLaunchKernelEx",
                               function.name() + " grid " + to_string(c.grid) + " block " + to_string(c.block) +
                                   (clustered ? " cluster " + to_string(c.cluster) : "") + " dynamic shared memory " +
                                   std::to_string(c.dynamic_shared_bytes) + " bytes");
  }
}

void launch(const Function& function, const LaunchConfig& config, const ArgPack& args) {
  // Up to 64 arguments without a heap allocation.
  constexpr std::size_t kInline = 64;
  if (args.size() <= kInline) {
    void* inline_pointers[kInline];
    const std::size_t n = args.pointers(inline_pointers);
    launch(function, config, std::span<void* const>(inline_pointers, n));
    return;
  }
  std::vector<void*> p = args.pointers();
  launch(function, config, std::span<void* const>(p));
}

}  // namespace tessel::rt
