// gemm/tuning_cache.cpp: the tuning cache (tuning_cache.hpp): the key of a problem class, the JSON
// file (gemm/json.hpp) read and written atomically, and the one-call GEMM's lookup, read once per
// process from $TESSEL_TUNING_CACHE.
#include "tessel/kernels/tuning_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "gemm/json.hpp"
#include "tessel/algebra/error.hpp"

namespace tessel::kernels {

namespace fs = std::filesystem;

namespace {

// A stride's or an address's bytes: their largest power-of-two divisor, at most 16 (0: 0).
int64_t alignment_class(uint64_t bytes) {
  if (bytes == 0) return 0;
  return static_cast<int64_t>(std::min<uint64_t>(16, bytes & (~bytes + 1)));
}

// One operand of the key: "bf16,k,ld16,at16" (and ",bs16" for its batch stride where L > 1).
// `rows` and `cols` name the last two modes' letters (A: m, k).
std::string operand_key(const TensorView& v, char rows, char cols, int64_t L) {
  std::string s = codegen::ptx_name(v.dtype);
  const int r = v.rank();
  if (r < 2) return s + ",rank" + std::to_string(r);
  const int64_t eb = codegen::bytes(v.dtype);
  const size_t ri = static_cast<size_t>(r - 2), ci = static_cast<size_t>(r - 1);
  // The major: the mode with unit stride (the columns' first, as a mode of extent 1 may have any).
  const bool col_unit = v.stride[ci] == 1, row_unit = v.stride[ri] == 1;
  const char major = col_unit ? cols : row_unit ? rows : '-';
  s += ',';
  s += major;
  // The leading dimension: the other mode's stride (where neither is unit: both).
  auto stride_class = [&](size_t mode) {
    if (v.shape[mode] == 1) return std::string("-");
    return std::to_string(alignment_class(static_cast<uint64_t>(std::llabs(v.stride[mode] * eb))));
  };
  if (major == cols)
    s += ",ld" + stride_class(ri);
  else if (major == rows)
    s += ",ld" + stride_class(ci);
  else
    s += ",ld" + stride_class(ri) + "/" + stride_class(ci);
  if (L > 1) s += ",bs" + (r == 3 ? stride_class(0) : std::string("-"));
  s += ",at" + std::to_string(v.data % 16 == 0 ? 16 : alignment_class(v.data % 16));
  return s;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

std::string tuning_key(const GemmArguments& g, const GemmDevice& dev) {
  const size_t r = g.out.shape.size(), ra = g.A.shape.size();
  int64_t L = 1, M = 0, N = 0, K = 0;
  if (r >= 2 && ra >= 2) {
    M = g.out.shape[r - 2];
    N = g.out.shape[r - 1];
    K = g.A.shape[ra - 1];
    L = r == 3 ? g.out.shape[0] : 1;
  }
  std::ostringstream s;
  s << "sm" << dev.cc << "/" << dev.sm_count << " L" << L << " M" << M << " N" << N << " K" << K
    << " acc:" << codegen::ptx_name(g.accumulator_type) << " A:" << operand_key(g.A, 'm', 'k', L)
    << " B:" << operand_key(g.B, 'k', 'n', L) << " D:" << operand_key(g.out, 'm', 'n', L)
    << " C:" << (g.distinct_c() ? operand_key(*g.C, 'm', 'n', L) : std::string("D"))
    << " beta:" << (g.beta != 0 ? "nonzero" : "0");
  if (g.alpha == 0) s << " alpha:0";
  return s.str();
}

// --- The file ------------------------------------------------------------------------------------

namespace {

constexpr const char* kFormat = "tessel tuning cache";

const json::Value& member(const json::Value& entry, size_t index, const char* name, json::Value::Kind kind,
                          const char* kind_name) {
  const json::Value* v = entry.find(name);
  const std::string where = "entry " + std::to_string(index) + ": ";
  if (!v) fail(where + "no \"" + name + "\"");
  if (v->kind != kind) fail(where + "\"" + name + "\" is not " + kind_name);
  return *v;
}

int splits_of(const json::Value& entry, size_t index, const char* name) {
  const double x = member(entry, index, name, json::Value::Kind::Number, "a number").number;
  if (!(x >= 1 && x <= 32 && x == std::floor(x)))
    fail("entry " + std::to_string(index) + ": \"" + name + "\" is " + json::number(x) +
         ", not a split count (a whole number from 1 to 32)");
  return static_cast<int>(x);
}

double ms_of(const json::Value& entry, size_t index, const char* name) {
  const double x = member(entry, index, name, json::Value::Kind::Number, "a number").number;
  if (!(x >= 0)) fail("entry " + std::to_string(index) + ": \"" + name + "\" is " + json::number(x) + ", not a time");
  return x;
}

// A temporary name in `path`'s folder no other thread or process uses.
fs::path temp_path(const fs::path& path) {
  static std::atomic<uint64_t> counter{0};
  return path.parent_path() /
         ("." + path.filename().string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++counter));
}

}  // namespace

std::string TuningCache::to_json() const {
  std::string s = "{\"format\": " + json::quote(kFormat) + ", \"version\": " + std::to_string(kTuningCacheVersion) +
                  ", \"entries\": [";
  bool first = true;
  for (const auto& [key, e] : entries) {
    s += first ? "\n" : ",\n";
    first = false;
    s += "  {\"key\": " + json::quote(key) + ", \"kernel\": " + json::quote(e.kernel) +
         ", \"splits\": " + std::to_string(e.splits) + ", \"ms\": " + json::number(e.ms) +
         ", \"heuristic_kernel\": " + json::quote(e.heuristic_kernel) +
         ", \"heuristic_splits\": " + std::to_string(e.heuristic_splits) +
         ", \"heuristic_ms\": " + json::number(e.heuristic_ms) + "}";
  }
  return s + (first ? "]}\n" : "\n]}\n");
}

TuningCache TuningCache::parse(const std::string& text) {
  json::Value doc;
  try {
    doc = json::parse(text);
  } catch (const Error& e) {
    fail(std::string("not JSON: ") + e.what());
  }
  using Kind = json::Value::Kind;
  const json::Value* format = doc.kind == Kind::Object ? doc.find("format") : nullptr;
  if (!format || format->kind != Kind::String || format->string != kFormat)
    fail(std::string("not a tessel tuning cache (no \"format\": \"") + kFormat + "\")");
  const json::Value* version = doc.find("version");
  if (!version || version->kind != Kind::Number)
    fail("no \"version\" (this tessel reads version " + std::to_string(kTuningCacheVersion) + ")");
  if (version->number != kTuningCacheVersion)
    fail("version " + json::number(version->number) + ", this tessel reads version " +
         std::to_string(kTuningCacheVersion) + " (run `tessel tune` again to rewrite it)");
  const json::Value* list = doc.find("entries");
  if (!list || list->kind != Kind::Array) fail("no \"entries\" array");
  TuningCache c;
  for (size_t i = 0; i < list->array.size(); ++i) {
    const json::Value& e = list->array[i];
    if (e.kind != Kind::Object) fail("entry " + std::to_string(i) + " is not an object");
    TuningEntry t;
    const std::string key = member(e, i, "key", Kind::String, "a string").string;
    t.kernel = member(e, i, "kernel", Kind::String, "a string").string;
    if (t.kernel.empty()) fail("entry " + std::to_string(i) + ": \"kernel\" is empty");
    t.splits = splits_of(e, i, "splits");
    t.ms = ms_of(e, i, "ms");
    t.heuristic_kernel = member(e, i, "heuristic_kernel", Kind::String, "a string").string;
    t.heuristic_splits = splits_of(e, i, "heuristic_splits");
    t.heuristic_ms = ms_of(e, i, "heuristic_ms");
    c.entries[key] = std::move(t);
  }
  return c;
}

TuningCache TuningCache::read(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("the tuning cache " + path + " cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail("the tuning cache " + path + " cannot be read");
  try {
    return parse(text.str());
  } catch (const Error& e) {
    fail("the tuning cache " + path + ": " + e.what());
  }
}

void TuningCache::write(const std::string& path) const {
  if (path.empty()) fail("the tuning cache: no path to write to");
  const fs::path target(path);
  const fs::path temp = temp_path(target);
  const std::string text = to_json();
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(temp, ec);
      fail("the tuning cache " + path + ": cannot write the temporary file " + temp.string());
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    fail("the tuning cache " + path + ": cannot rename " + temp.string() + " over it: " + ec.message());
  }
}

std::string merge_into_tuning_cache(const std::string& path, const TuningCache& fresh) {
  TuningCache merged;
  std::string problem;
  try {
    merged = TuningCache::read(path);
  } catch (const Error& e) {
    problem = std::string(e.what()) + "; replaced by a new file";
  }
  for (const auto& [key, e] : fresh.entries) merged.entries[key] = e;
  merged.write(path);
  return problem;
}

// --- The process's cache -------------------------------------------------------------------------

namespace {

struct Process {
  std::mutex mutex;
  bool loaded = false;
  std::string path;
  TuningCache cache;
  std::vector<std::string> warnings;
  std::set<std::string> warned;  // keys whose entry was ignored, reported once
};
Process& process() {
  static Process* p = new Process;  // never destroyed: a lookup may run during static destruction
  return *p;
}

void warn(Process& p, const std::string& w) {
  std::fprintf(stderr, "tessel: warning: %s\n", w.c_str());
  p.warnings.push_back(w);
}

// Holding p.mutex.
void load(Process& p, const std::string& path) {
  p.loaded = true;
  p.path = path;
  p.cache = {};
  p.warned.clear();
  if (path.empty()) return;
  try {
    p.cache = TuningCache::read(path);
  } catch (const Error& e) {
    warn(p, std::string(e.what()) + "; it is ignored (the cost model chooses every kernel)");
  }
}

}  // namespace

std::string tuning_cache_path() {
  Process& p = process();
  std::lock_guard lock(p.mutex);
  if (!p.loaded) load(p, env("TESSEL_TUNING_CACHE"));
  return p.path;
}

void use_tuning_cache(const std::string& path) {
  Process& p = process();
  std::lock_guard lock(p.mutex);
  load(p, path);
}

std::vector<std::string> tuning_cache_warnings() {
  Process& p = process();
  std::lock_guard lock(p.mutex);
  return p.warnings;
}

std::optional<GemmChoice> tuned_choice(const GemmArguments& args, const GemmDevice& dev) {
  Process& p = process();
  std::string key, path;
  TuningEntry e;
  {
    std::lock_guard lock(p.mutex);
    if (!p.loaded) load(p, env("TESSEL_TUNING_CACHE"));
    if (p.cache.entries.empty()) return std::nullopt;
    key = tuning_key(args, dev);
    const auto it = p.cache.entries.find(key);
    if (it == p.cache.entries.end()) return std::nullopt;
    e = it->second;
    path = p.path;
  }
  // The kernel as the cost model would rank it for these arguments (its copies, workspace and
  // terms), with the entry's split count.
  GemmArguments a = args;
  a.split_k = e.splits;
  const KernelPtr named = Registry::global().find_kernel(e.kernel);
  const bool stream = named && kernel_schedule(named->metadata()) == GemmSchedule::StreamK;
  const GemmRanking r = rank_gemm(a, dev,
                                  e.splits > 1 ? GemmSchedule::SplitK
                                  : stream     ? GemmSchedule::StreamK
                                               : GemmSchedule::DataParallel);
  for (const GemmChoice& c : r.ranked) {
    if (c.kernel->name() != e.kernel) continue;
    GemmChoice tuned = c;
    tuned.source = "the tuning cache " + path;
    std::ostringstream t;
    t << "measured " << e.ms << " ms by tessel tune (the cost model's pick, " << e.heuristic_kernel
      << (e.heuristic_splits > 1 ? " split-K x " + std::to_string(e.heuristic_splits) : std::string()) << ", measured "
      << e.heuristic_ms << " ms); the model's terms: " << c.terms;
    tuned.terms = t.str();
    return tuned;
  }
  std::string why = "names " + e.kernel + ", which the catalog does not have for sm_" + std::to_string(dev.cc);
  for (const auto& [name, reason] : r.refused)
    if (name == e.kernel)
      why = "names " + e.kernel + (e.splits > 1 ? " split-K x " + std::to_string(e.splits) : "") +
            ", which refuses these arguments: " + reason;
  std::lock_guard lock(p.mutex);
  if (p.warned.insert(key).second)
    warn(p, "the tuning cache " + path + ": the entry for \"" + key + "\" " + why +
                "; it is ignored (the cost model chooses)");
  return std::nullopt;
}

}  // namespace tessel::kernels
