// tuning_cache.hpp: the optional tuning cache of the one-call GEMM (docs/gemm.md, "Tuning").
// `tessel tune` times the cost model's best candidates for a problem on the GPU and writes the
// fastest into a small JSON file; with TESSEL_TUNING_CACHE=<path> set, tessel::gemm reads that file
// once per process and, for a problem of a class the file holds, runs the kernel (and split count)
// measured fastest instead of the cost model's pick. Unset, no file is read.
//
// An entry is ignored (the cost model chooses, as without the file) where its kernel is no longer
// in the catalog or its supports() refuses the arguments; a file that is not a tuning cache of
// this version is reported once (stderr, and tuning_cache_warnings()) and ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessel/kernels/gemm.hpp"

namespace tessel::kernels {

// The class of problems an entry is for, as text: the device (compute capability and SM count),
// L, M, N, K, the accumulator, and for A, B, out (D) and C its type, its major (the mode with unit
// stride: k/m for A, k/n for B, n/m for out and C; '-' where none), the alignment class of its
// leading dimension and of its batch stride (where L > 1; 0: broadcast) and of its address; whether
// C is out itself; whether beta is 0. An alignment class is a stride's or address's bytes' largest
// power-of-two divisor, capped at 16 (TMA's rule is "a multiple of 16 bytes"; '-' for the stride of
// a mode of extent 1, which nothing reads). Rank 2 and rank 3 with L = 1 give the same key.
// Example: "sm90/132 L1 M3072 N768 K12288 acc:f32 A:bf16,k,ld16,at16 B:bf16,n,ld16,at16
// D:bf16,n,ld16,at16 C:D beta:0" (one line).
std::string tuning_key(const GemmArguments& args, const GemmDevice& device);

// What `tessel tune` measured for a key.
struct TuningEntry {
  std::string kernel;            // the catalog's name of the fastest candidate
  int splits = 1;                // its split-K count (1: the whole K per tile)
  double ms = 0;                 // its median time
  std::string heuristic_kernel;  // the cost model's pick, and what it measured
  int heuristic_splits = 1;
  double heuristic_ms = 0;
  bool operator==(const TuningEntry&) const = default;
};

constexpr int kTuningCacheVersion = 1;

// The entries of one file, by key. The file:
//   {"format": "tessel tuning cache", "version": 1, "entries": [
//     {"key": "...", "kernel": "...", "splits": 1, "ms": 0.5,
//      "heuristic_kernel": "...", "heuristic_splits": 1, "heuristic_ms": 0.6}, ...]}
struct TuningCache {
  std::map<std::string, TuningEntry> entries;

  // The JSON text of the file (entries in key order, one per line).
  std::string to_json() const;
  // The entries of a file's text; throws tessel::Error naming what is wrong (not JSON, at which
  // byte; not a tessel tuning cache; another version; an entry without a field, or with a field
  // of the wrong kind).
  static TuningCache parse(const std::string& text);
  // The file at `path`: no entries where it does not exist; throws tessel::Error naming the path
  // and the problem where it cannot be read or parse() refuses it.
  static TuningCache read(const std::string& path);
  // Writes this cache to `path` atomically: a temporary file in the same folder, then a rename
  // over `path` (a reader sees the old file or the new one, never part of one).
  void write(const std::string& path) const;
};

// Merges `fresh` into the file at `path` (its entries replace those of the same key, the file's
// others stay) and writes it atomically. A file that cannot be parsed is replaced: its problem is
// returned (empty when there was none) for the caller to report.
std::string merge_into_tuning_cache(const std::string& path, const TuningCache& fresh);

// The one-call GEMM's lookup: where the process's tuning cache has an entry for the arguments'
// key, the choice of that kernel and split count (ranked by rank_gemm as it would be without the
// file: packing, workspace, terms), its `source` naming the file; nullopt otherwise (no file, no
// entry, or an entry ignored: its kernel gone or refusing the arguments, reported once per key).
// The file is $TESSEL_TUNING_CACHE, read at the first lookup of the process.
std::optional<GemmChoice> tuned_choice(const GemmArguments& args, const GemmDevice& device);

// The process's tuning cache file ("" where none), and a replacement for it read now (tests and
// tools; "" for none). Choices tessel::gemm has already made for a shape stay made.
std::string tuning_cache_path();
void use_tuning_cache(const std::string& path);

// The warnings the process's tuning cache has printed (on stderr, each once).
std::vector<std::string> tuning_cache_warnings();

}  // namespace tessel::kernels
