// tuning_cache_test.cpp: the tuning cache (kernels/tuning_cache.hpp): the key separates problems
// the ranking treats differently and joins those it treats alike; the file round-trips random
// entries, is written atomically and merged; a truncated, garbage or other-version file is refused
// with the path and the problem (and ignored by the one-call lookup, with one warning); an entry
// whose kernel is gone or refuses the arguments is ignored; a valid entry's kernel is the choice.
#include "tessel/kernels/tuning_cache.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "algebra/support.hpp"
#include "cli_support.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/kernels/gemm.hpp"
#include "tessel/testing/gemm_check.hpp"

using namespace tessel;
using codegen::Type;
using kernels::GemmArguments;
using kernels::matrix_view;
using kernels::TuningCache;
using kernels::TuningEntry;

namespace fs = std::filesystem;

namespace {

const kernels::GemmDevice kH100{90, 132};

// A scratch folder of this test process, removed at exit (cli_support.hpp).
fs::path scratch_dir() { return tessel::test::scratch(); }

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// A row-major bf16 problem at 256-byte aligned addresses (rank 3 with l > 0).
GemmArguments bf16_problem(int64_t m, int64_t n, int64_t k, int64_t l = 0) {
  GemmArguments g =
      kernels::make_gemm_arguments(matrix_view(Type::BF16, l, m, k, true), matrix_view(Type::BF16, l, k, n, true),
                                   matrix_view(Type::BF16, l, m, n, true));
  g.A.data = uint64_t{1} << 32;
  g.B.data = uint64_t{2} << 32;
  g.out.data = uint64_t{3} << 32;
  return g;
}

std::string random_text(std::mt19937_64& rng) {
  // Quotes, backslashes, control characters and multi-byte UTF-8 among plain letters.
  static const std::vector<std::string> pieces = {
      "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x1f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
      "{", "]", ":", ","};
  std::string s;
  const int n = std::uniform_int_distribution<int>(0, 24)(rng);
  for (int i = 0; i < n; ++i) s += pieces[std::uniform_int_distribution<size_t>(0, pieces.size() - 1)(rng)];
  return s;
}

double random_ms(std::mt19937_64& rng) {
  switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
    case 0:
      return 0;
    case 1:
      return std::uniform_real_distribution<double>(0, 1)(rng);
    case 2:
      return std::ldexp(std::uniform_real_distribution<double>(1, 2)(rng),
                        std::uniform_int_distribution<int>(-60, 60)(rng));
    default:
      return static_cast<double>(std::uniform_int_distribution<int>(1, 100000)(rng));
  }
}

// The lookup's warnings since `before` of them.
std::vector<std::string> warnings_since(size_t before) {
  const std::vector<std::string> all = kernels::tuning_cache_warnings();
  return std::vector<std::string>(all.begin() + static_cast<std::ptrdiff_t>(std::min(before, all.size())), all.end());
}

}  // namespace

TEST_CASE("tuning cache: the key separates what the ranking tells apart and joins the same class") {
  const GemmArguments base = bf16_problem(3072, 768, 1024);
  const std::string k = kernels::tuning_key(base, kH100);
  INFO(k);
  CHECK(k ==
        "sm90/132 L1 M3072 N768 K1024 acc:f32 A:bf16,k,ld16,at16 B:bf16,n,ld16,at16 D:bf16,n,ld16,at16 C:D beta:0");
  // The same class: other addresses (16-byte aligned), rank 3 with L = 1, another alpha.
  GemmArguments same = base;
  same.A.data += 4096;
  same.out.data += 16;
  same.alpha = 2.5;
  CHECK(kernels::tuning_key(same, kH100) == k);
  CHECK(kernels::tuning_key(bf16_problem(3072, 768, 1024, 1), kH100) == k);
  // A padded leading dimension of the same alignment class is the same class.
  GemmArguments padded = base;
  padded.A.stride = {1024 + 64, 1};
  CHECK(kernels::tuning_key(padded, kH100) == k);

  // Each of these differs from the base and from every other.
  std::vector<std::pair<const char*, GemmArguments>> others;
  auto add = [&](const char* what, GemmArguments g) { others.emplace_back(what, std::move(g)); };
  add("M", bf16_problem(3071, 768, 1024));
  add("N", bf16_problem(3072, 769, 1024));
  add("K", bf16_problem(3072, 768, 1023));
  add("L", bf16_problem(3072, 768, 1024, 2));
  GemmArguments g = base;
  g.A = matrix_view(Type::BF16, 0, 3072, 1024, false);  // M-major A
  g.A.data = base.A.data;
  add("A's major", g);
  g = base;
  g.B = matrix_view(Type::BF16, 0, 1024, 768, false);  // K-major B
  g.B.data = base.B.data;
  add("B's major", g);
  g = base;
  g.out = matrix_view(Type::BF16, 0, 3072, 768, false);
  g.out.data = base.out.data;
  add("out's major", g);
  g = base;
  g.A.stride = {1028, 1};  // 2056 bytes: 8-byte aligned rows
  add("A's ld alignment 8", g);
  g = base;
  g.A.stride = {1025, 1};  // 2050 bytes
  add("A's ld alignment 2", g);
  g = base;
  g.B.data += 8;
  add("B's address alignment", g);
  g = base;
  g.A.dtype = g.B.dtype = Type::F16;
  add("dtype of A and B", g);
  g = base;
  g.out.dtype = Type::F32;
  add("dtype of out", g);
  g = base;
  g.beta = 1;
  add("beta != 0", g);
  g = base;
  g.C = matrix_view(Type::BF16, 0, 3072, 768, true);
  g.C->data = uint64_t{4} << 32;
  add("C distinct", g);
  g = base;
  g.C = matrix_view(Type::BF16, 0, 3072, 768, false);
  g.C->data = uint64_t{4} << 32;
  add("C distinct, column-major", g);
  add("device's SMs", base);
  add("device's cc", base);
  GemmArguments bl = bf16_problem(3072, 768, 1024, 2);
  bl.B.stride[0] = 0;  // broadcast B
  add("broadcast B", bl);
  std::set<std::string> keys = {k, kernels::tuning_key(bf16_problem(3072, 768, 1024, 2), kH100)};
  for (size_t i = 0; i < others.size(); ++i) {
    const kernels::GemmDevice dev = std::string(others[i].first) == "device's SMs"  ? kernels::GemmDevice{90, 114}
                                    : std::string(others[i].first) == "device's cc" ? kernels::GemmDevice{100, 132}
                                                                                    : kH100;
    const std::string key = kernels::tuning_key(others[i].second, dev);
    INFO(others[i].first << ": " << key);
    if (std::string(others[i].first) == "L") continue;  // in the set already
    CHECK(keys.insert(key).second);
  }
}

TEST_CASE("tuning cache: random entries survive the file's round trip") {
  TESSEL_RNG(rng);
  for (int round = 0; round < 50; ++round) {
    TuningCache c;
    const int n = std::uniform_int_distribution<int>(0, 6)(rng);
    for (int i = 0; i < n; ++i) {
      TuningEntry e;
      e.kernel = "k" + random_text(rng);
      e.splits = std::uniform_int_distribution<int>(1, 32)(rng);
      e.ms = random_ms(rng);
      e.heuristic_kernel = random_text(rng);
      e.heuristic_splits = std::uniform_int_distribution<int>(1, 32)(rng);
      e.heuristic_ms = random_ms(rng);
      c.entries[random_text(rng)] = e;
    }
    const std::string text = c.to_json();
    INFO(text);
    const TuningCache back = TuningCache::parse(text);
    CHECK(back.entries == c.entries);
    // Through a file too.
    const fs::path p = scratch_dir() / "round_trip.json";
    c.write(p.string());
    CHECK(TuningCache::read(p.string()).entries == c.entries);
  }
}

TEST_CASE("tuning cache: written atomically through a temporary file, merged with the file's entries") {
  const fs::path p = scratch_dir() / "merge.json";
  std::error_code ec;
  fs::remove(p, ec);
  CHECK(TuningCache::read(p.string()).entries.empty());  // no file: no entries
  TuningCache a;
  a.entries["one"] = TuningEntry{"kernel_a", 1, 0.5, "kernel_h", 1, 0.75};
  a.entries["two"] = TuningEntry{"kernel_b", 4, 1.25, "kernel_h", 1, 2.0};
  CHECK(kernels::merge_into_tuning_cache(p.string(), a).empty());
  TuningCache b;
  b.entries["two"] = TuningEntry{"kernel_c", 1, 1.0, "kernel_h", 1, 2.0};
  b.entries["three"] = TuningEntry{"kernel_d", 2, 3.0, "kernel_d", 2, 3.0};
  CHECK(kernels::merge_into_tuning_cache(p.string(), b).empty());
  const TuningCache m = TuningCache::read(p.string());
  REQUIRE(m.entries.size() == 3);
  CHECK(m.entries.at("one") == a.entries.at("one"));
  CHECK(m.entries.at("two") == b.entries.at("two"));
  CHECK(m.entries.at("three") == b.entries.at("three"));
  // No temporary file is left beside it; the file was replaced (a new inode), not rewritten in place.
  for (const auto& f : fs::directory_iterator(scratch_dir()))
    CHECK(f.path().filename().string().find(".tmp.") == std::string::npos);
  // A reader holding the old file still reads the old contents after a write (the rename replaced it).
  std::ifstream held(p, std::ios::binary);
  const std::string before = m.to_json();
  TuningCache c;
  c.entries["four"] = TuningEntry{"kernel_e", 1, 1.0, "kernel_e", 1, 1.0};
  c.write(p.string());
  std::ostringstream old;
  old << held.rdbuf();
  CHECK(old.str() == before);
  CHECK(TuningCache::read(p.string()).entries == c.entries);
  // A file in a folder that does not exist: the error names the path.
  const std::string missing = (scratch_dir() / "no_such_folder" / "t.json").string();
  try {
    c.write(missing);
    FAIL("write into a missing folder did not throw");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find(missing) != std::string::npos);
  }
  // A corrupt file is replaced by the merge, and its problem returned.
  write_text(p, "{\"format\": \"tessel tuning cache\", \"version\": 1, \"entries\": [");
  const std::string problem = kernels::merge_into_tuning_cache(p.string(), b);
  CHECK(problem.find(p.string()) != std::string::npos);
  CHECK(TuningCache::read(p.string()).entries == b.entries);
}

TEST_CASE("tuning cache: a truncated, garbage or other-version file is refused naming the path and the problem") {
  TuningCache c;
  c.entries["sm90/132 L1 M8 N8 K8"] = TuningEntry{"kernel_a", 2, 0.5, "kernel_b", 1, 0.75};
  const std::string good = c.to_json();
  const fs::path p = scratch_dir() / "corrupt.json";
  struct Bad {
    std::string text, problem;
  };
  std::vector<Bad> bad = {
      {good.substr(0, good.size() / 2), "not JSON: byte "},
      {good.substr(0, good.size() - 3), "not JSON: byte "},
      {"", "not JSON: byte 0: expected a value"},
      {"\x89PNG\r\n\x1a\n garbage", "not JSON: byte 0"},
      {"[1, 2, 3]", "not a tessel tuning cache"},
      {"{\"format\": \"something else\", \"version\": 1, \"entries\": []}", "not a tessel tuning cache"},
      {"{\"format\": \"tessel tuning cache\", \"version\": 2, \"entries\": []}",
       "version 2, this tessel reads version 1"},
      {"{\"format\": \"tessel tuning cache\", \"entries\": []}", "no \"version\""},
      {"{\"format\": \"tessel tuning cache\", \"version\": 1}", "no \"entries\" array"},
      {"{\"format\": \"tessel tuning cache\", \"version\": 1, \"entries\": [{\"key\": \"k\"}]}",
       "entry 0: no \"kernel\""},
      {"{\"format\": \"tessel tuning cache\", \"version\": 1, \"entries\": [{\"key\": \"k\", \"kernel\": \"x\", "
       "\"splits\": 1.5, \"ms\": 1, \"heuristic_kernel\": \"x\", \"heuristic_splits\": 1, \"heuristic_ms\": 1}]}",
       "entry 0: \"splits\" is 1.5, not a split count"},
      {"{\"format\": \"tessel tuning cache\", \"version\": 1, \"entries\": [{\"key\": \"k\", \"kernel\": \"x\", "
       "\"splits\": 1, \"ms\": \"fast\", \"heuristic_kernel\": \"x\", \"heuristic_splits\": 1, \"heuristic_ms\": 1}]}",
       "entry 0: \"ms\" is not a number"},
      {good + "x", "expected the end of the text after the value"},
  };
  for (const Bad& b : bad) {
    INFO("text: " << b.text);
    write_text(p, b.text);
    try {
      TuningCache::read(p.string());
      FAIL("read did not refuse the file");
    } catch (const Error& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find("the tuning cache " + p.string() + ": ") == 0);
      CHECK(what.find(b.problem) != std::string::npos);
    }
  }
  // Random damage (bytes dropped, replaced or inserted): refused with an Error or read, never a crash.
  TESSEL_RNG(rng);
  for (int round = 0; round < 500; ++round) {
    std::string t = good;
    const int edits = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int i = 0; i < edits && !t.empty(); ++i) {
      const size_t at = std::uniform_int_distribution<size_t>(0, t.size() - 1)(rng);
      const char byte = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
      switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
        case 0:
          t.erase(at, 1);
          break;
        case 1:
          t[at] = byte;
          break;
        default:
          t.insert(t.begin() + static_cast<std::ptrdiff_t>(at), byte);
      }
    }
    INFO("text: " << t);
    try {
      TuningCache::parse(t);
    } catch (const Error&) {
    }
  }
  // The one-call lookup: the file ignored, with one warning naming it and the problem, never a throw.
  write_text(p, "{\"format\": \"tessel tuning cache\", \"version\": 7, \"entries\": []}");
  const size_t before = kernels::tuning_cache_warnings().size();
  kernels::use_tuning_cache(p.string());
  const GemmArguments g = bf16_problem(256, 256, 256);
  CHECK_FALSE(kernels::tuned_choice(g, kH100));
  CHECK_FALSE(kernels::tuned_choice(g, kH100));
  const std::vector<std::string> w = warnings_since(before);
  REQUIRE(w.size() == 1);
  CHECK(w[0].find(p.string()) != std::string::npos);
  CHECK(w[0].find("version 7, this tessel reads version 1") != std::string::npos);
  kernels::use_tuning_cache("");
}

TEST_CASE("tuning cache: the one-call lookup takes a valid entry's kernel, ignores a stale one") {
  const GemmArguments g = bf16_problem(1000, 768, 1024);  // 16 k-tiles of 64
  const kernels::GemmRanking r = kernels::rank_gemm(g, kH100);
  REQUIRE(r.ranked.size() >= 3);
  const std::string key = kernels::tuning_key(g, kH100);
  const fs::path p = scratch_dir() / "lookup.json";
  // The model's third choice, measured fastest.
  const std::string third = r.ranked[2].kernel->name();
  TuningCache c;
  c.entries[key] = TuningEntry{third, 1, 0.1, r.ranked[0].kernel->name(), 1, 0.2};
  c.write(p.string());
  kernels::use_tuning_cache(p.string());
  CHECK(kernels::tuning_cache_path() == p.string());
  {
    const std::optional<kernels::GemmChoice> t = kernels::tuned_choice(g, kH100);
    REQUIRE(t);
    CHECK(t->kernel->name() == third);
    CHECK(t->splits == 1);
    CHECK(t->source == "the tuning cache " + p.string());
    CHECK(t->describe().find("(from the tuning cache " + p.string() + ")") != std::string::npos);
    CHECK(t->packed == r.ranked[2].packed);
    CHECK(t->workspace_bytes == r.ranked[2].workspace_bytes);
  }
  // Another class (another K): no entry, the model chooses.
  CHECK_FALSE(kernels::tuned_choice(bf16_problem(1000, 768, 1016), kH100));
  // Another device: another key.
  CHECK_FALSE(kernels::tuned_choice(g, kernels::GemmDevice{90, 114}));

  // A split-K entry: that kernel with that count.
  const kernels::GemmRanking sk = kernels::rank_gemm(g, kH100, kernels::GemmSchedule::SplitK);
  REQUIRE(!sk.ranked.empty());
  c.entries[key] = TuningEntry{sk.ranked[0].kernel->name(), 3, 0.1, r.ranked[0].kernel->name(), 1, 0.2};
  c.write(p.string());
  kernels::use_tuning_cache(p.string());
  {
    const std::optional<kernels::GemmChoice> t = kernels::tuned_choice(g, kH100);
    REQUIRE(t);
    CHECK(t->kernel->name() == sk.ranked[0].kernel->name());
    CHECK(t->splits == 3);
    CHECK(t->schedule() == "split-K x 3");
  }

  // Stale entries: a kernel the catalog does not have; a kernel that refuses the arguments (an f16
  // kernel for a bf16 problem); a split count beyond the 16 k-tiles. Each ignored with one warning.
  const std::vector<std::pair<TuningEntry, std::string>> stale = {
      {TuningEntry{"tessel_hopper_gemm_no_such_kernel", 1, 0.1, "x", 1, 0.2},
       "which the catalog does not have for sm_90"},
      {TuningEntry{"tessel_hopper_gemm_f16_f16_128x128x64_s6_knr", 1, 0.1, "x", 1, 0.2},
       "which refuses these arguments"},
      {TuningEntry{sk.ranked[0].kernel->name(), 32, 0.1, "x", 1, 0.2}, "which refuses these arguments"},
  };
  for (const auto& [entry, why] : stale) {
    INFO(entry.kernel << " x " << entry.splits);
    c.entries[key] = entry;
    c.write(p.string());
    kernels::use_tuning_cache(p.string());
    const size_t before = kernels::tuning_cache_warnings().size();
    CHECK_FALSE(kernels::tuned_choice(g, kH100));
    CHECK_FALSE(kernels::tuned_choice(g, kH100));
    const std::vector<std::string> w = warnings_since(before);
    REQUIRE(w.size() == 1);
    CHECK(w[0].find(p.string()) != std::string::npos);
    CHECK(w[0].find(entry.kernel) != std::string::npos);
    CHECK(w[0].find(why) != std::string::npos);
  }
  kernels::use_tuning_cache("");
  CHECK_FALSE(kernels::tuned_choice(g, kH100));
}
