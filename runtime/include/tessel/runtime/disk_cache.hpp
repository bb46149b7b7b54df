// disk_cache.hpp: the on-disk cache of compiled kernels (the driver's machine code for a PTX text),
// shared by every process of the user: a file store on bytes, and where and how big it is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tessel/runtime/module.hpp"

namespace tessel::rt {

// What a compiled kernel depends on: the PTX text, the device's compute capability and the driver
// (its PTX compiler) that made the machine code; the entry format is part of the key as well.
struct DiskCacheKey {
  std::uint64_t ptx_hash_lo = 0, ptx_hash_hi = 0;  // a 128-bit digest of the PTX text
  std::uint64_t ptx_bytes = 0;
  int compute_capability = 0;  // 90 for sm_90
  int driver_version = 0;      // cuDriverGetVersion: 13000 for CUDA 13.0

  // The key as the entry's header stores it: every field, spelled out.
  std::string text() const;
  // The entry's file name: <digest>-sm<cc>-driver<version>.tkc (readable, and unique per key).
  std::string file_name() const;
};

// The key of `ptx` compiled for a device of `compute_capability` by driver `driver_version`.
DiskCacheKey make_disk_cache_key(std::string_view ptx, int compute_capability, int driver_version);

// Where the cache lives and how large it may grow, read from the environment:
//   TESSEL_CACHE=0|off|false|no disables it (1|on|true|yes or unset: enabled);
//   TESSEL_CACHE_DIR=path moves it (default $XDG_CACHE_HOME/tessel, else $HOME/.cache/tessel);
//   TESSEL_CACHE_MAX_MB=N limits it to N MiB (default 1024).
// A value outside these rules throws tessel::Error naming the variable, the value and the rule.
struct DiskCacheSettings {
  bool enabled = true;
  std::filesystem::path directory;  // empty when no directory can be found (no HOME): disabled
  std::uint64_t max_bytes = 1024ull << 20;
  std::string disabled_reason;  // why enabled is false

  static DiskCacheSettings from_environment();
};

// A directory of entries, one file per key. Each entry is a header (magic, format version, key
// text, payload length, payload checksum) and then the payload, written to a temporary file and
// renamed into place, so that a reader sees a whole entry or none. An entry whose header or
// checksum does not match is reported and never returned; the next store replaces it.
// Safe to use from several threads and processes at once: the file system arbitrates.
class DiskCache {
 public:
  DiskCache(std::filesystem::path directory, std::uint64_t max_bytes);

  enum class Status { Hit, Miss, Corrupt };
  struct Lookup {
    Status status = Status::Miss;
    std::string payload;  // the machine code, on a hit
    std::string reason;   // why an entry was refused (Corrupt)
  };

  // Reads the entry of `key`; a hit also marks it used now (its mtime, the eviction order).
  Lookup load(const DiskCacheKey& key) const;

  // Writes the entry of `key` atomically, then evicts the least recently used entries until the
  // cache holds at most max_bytes. A payload larger than max_bytes is not stored (returns false).
  // Throws tessel::Error naming the path when the directory cannot be created or written.
  bool store(const DiskCacheKey& key, std::string_view payload) const;

  // Removes entries, oldest use first, until they hold at most `max_bytes` in all; also removes
  // temporary files that a process left behind more than an hour ago. Never throws.
  void evict() const;

  std::uint64_t size_bytes() const;  // the entries' bytes in all
  const std::filesystem::path& directory() const { return directory_; }
  std::uint64_t max_bytes() const { return max_bytes_; }

  // The cache of this process's settings (DiskCacheSettings::from_environment(), read once), or
  // null when disabled.
  static const DiskCache* process_cache();

 private:
  std::filesystem::path directory_;
  std::uint64_t max_bytes_;
};

// Whether `ptx` must be compiled as a whole program (Module::load_ptx) rather than by the driver's
// linker (link_ptx), which compiles PTX as relocatable code: there ptxas ignores `setmaxnreg` (its
// note C7504), so a kernel whose warpgroups trade registers keeps only its entry budget. On an H100
// that serialized the wgmma of the tf32 GEMM that reads A through registers (343 against 390
// TFLOP/s) and spills in the 128x256 stream-K kernels. The module cache loads such text with
// Module::load_ptx; the driver's own JIT cache then keeps its machine code across processes.
bool needs_whole_program_compile(std::string_view ptx);

// How a module is loaded through the cache: the entry of `key` when it is valid and the driver
// loads it; otherwise `compile` makes the machine code, which is stored (failures to write are
// ignored: the cache only saves time) and loaded. `load_image` loads machine code. An entry the
// driver refuses is compiled again and replaced. The runtime passes link_ptx and
// Module::load_image; tests pass stand-ins.
Module load_through_disk_cache(const DiskCache& cache, const DiskCacheKey& key, std::string_view ptx,
                               const std::function<std::string(std::string_view ptx)>& compile,
                               const std::function<Module(std::string_view image)>& load_image);

}  // namespace tessel::rt
