// disk_cache_test.cpp: the on-disk cache of compiled kernels: keys, the entry format and its
// checks, atomic writes from two processes, eviction, the environment; loading through it with a
// stand-in compiler and loader on the CPU, and with the driver's linker on a GPU.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpu.hpp"
#include "kernels.hpp"
#include "scoped_env.hpp"
#include "tessel/runtime.hpp"

namespace rt = tessel::rt;
namespace fs = std::filesystem;
using tessel::test::ScopedEnv;

namespace {

// A fresh, empty directory under the system's temporary directory, removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("tessel-disk-cache-test-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Bytes that look like machine code: every byte value, in a pattern set by `seed`.
std::string fake_image(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  std::mt19937 rng(seed);
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

const rt::DiskCacheKey kKey = rt::make_disk_cache_key(".version 8.0\n.target sm_90a\n", 90, 13000);

}  // namespace

TEST_CASE("runtime: disk cache keys separate PTX, device and driver") {
  const std::string ptx = ".version 8.0\n.target sm_90a\n.entry k() { ret; }\n";
  rt::DiskCacheKey k = rt::make_disk_cache_key(ptx, 90, 12080);
  CHECK(k.ptx_hash_lo == rt::ptx_hash(ptx));  // the low half is the module cache's hash
  CHECK(k.ptx_hash_hi != k.ptx_hash_lo);
  CHECK(k.ptx_bytes == ptx.size());
  CHECK(k.file_name().ends_with("-sm90-driver12080.tkc"));
  CHECK(k.file_name().size() == 32 + std::string("-sm90-driver12080.tkc").size());
  CHECK(k.text().find("sm_90") != std::string::npos);
  CHECK(k.text().find("driver 12080") != std::string::npos);
  // Each field changes the file name and the key text.
  std::string other = ptx;
  other[20] = 'X';
  for (const rt::DiskCacheKey& o : {rt::make_disk_cache_key(other, 90, 12080), rt::make_disk_cache_key(ptx, 89, 12080),
                                    rt::make_disk_cache_key(ptx, 90, 12090), rt::make_disk_cache_key(ptx + " ", 90, 12080)}) {
    CHECK(o.file_name() != k.file_name());
    CHECK(o.text() != k.text());
  }
  CHECK(rt::make_disk_cache_key(ptx, 90, 12080).text() == k.text());  // deterministic
}

TEST_CASE("runtime: disk cache stores and loads an entry") {
  TempDir dir;
  rt::DiskCache cache(dir.path() / "nested" / "cache", 1 << 20);
  CHECK(cache.load(kKey).status == rt::DiskCache::Status::Miss);
  const std::string image = fake_image(5000, 1);
  CHECK(cache.store(kKey, image));
  rt::DiskCache::Lookup l = cache.load(kKey);
  CHECK(l.status == rt::DiskCache::Status::Hit);
  CHECK(l.payload == image);
  // One file, named for the key, and no temporary left behind.
  std::vector<fs::path> files = files_in(cache.directory());
  REQUIRE(files.size() == 1);
  CHECK(files[0].filename() == kKey.file_name());
  CHECK(cache.size_bytes() == fs::file_size(files[0]));
  // An empty payload is an entry too.
  rt::DiskCacheKey empty = rt::make_disk_cache_key("", 90, 13000);
  CHECK(cache.store(empty, ""));
  CHECK(cache.load(empty).status == rt::DiskCache::Status::Hit);
  CHECK(cache.load(empty).payload.empty());
}

TEST_CASE("runtime: disk cache misses on a changed driver version, device or PTX") {
  TempDir dir;
  rt::DiskCache cache(dir.path(), 1 << 20);
  const std::string ptx = ".entry k() { ret; }";
  REQUIRE(cache.store(rt::make_disk_cache_key(ptx, 90, 12080), "image"));
  CHECK(cache.load(rt::make_disk_cache_key(ptx, 90, 12080)).status == rt::DiskCache::Status::Hit);
  CHECK(cache.load(rt::make_disk_cache_key(ptx, 90, 12090)).status == rt::DiskCache::Status::Miss);
  CHECK(cache.load(rt::make_disk_cache_key(ptx, 100, 12080)).status == rt::DiskCache::Status::Miss);
  CHECK(cache.load(rt::make_disk_cache_key(ptx + "\n", 90, 12080)).status == rt::DiskCache::Status::Miss);
}

TEST_CASE("runtime: disk cache refuses corrupt, truncated and foreign entries, and a store replaces them") {
  TempDir dir;
  rt::DiskCache cache(dir.path(), 1 << 20);
  const std::string image = fake_image(3000, 2);
  REQUIRE(cache.store(kKey, image));
  const fs::path file = dir.path() / kKey.file_name();
  const std::string good = read_bytes(file);
  const std::size_t payload_at = good.size() - image.size();

  struct Case {
    const char* what;
    std::string bytes;
    const char* reason;
  };
  std::string flipped = good;
  flipped[payload_at + 1234] ^= 0x10;
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  std::string bad_version = good;
  bad_version[8] = 7;
  std::string longer = good + "extra";
  std::string huge_key = good;
  huge_key[14] = 0x7f;  // key length ~8 MB
  std::string other_key = good;
  other_key[32 + 5] ^= 1;  // one character of the stored key text
  const std::vector<Case> cases = {
      {"empty", "", "truncated: 0 bytes"},
      {"truncated header", good.substr(0, 20), "truncated: 20 bytes"},
      {"truncated payload", good.substr(0, good.size() - 1), "length mismatch"},
      {"truncated key", good.substr(0, 40), "length mismatch"},
      {"appended bytes", longer, "length mismatch"},
      {"flipped payload bit", flipped, "checksum mismatch"},
      {"bad magic", bad_magic, "bad magic"},
      {"another format version", bad_version, "format version 7, expected 1"},
      {"key length out of range", huge_key, "key length"},
      {"another key", other_key, "key mismatch"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    write_bytes(file, c.bytes);
    rt::DiskCache::Lookup l = cache.load(kKey);
    CHECK(l.status == rt::DiskCache::Status::Corrupt);
    CHECK(l.payload.empty());
    CHECK(l.reason.find(c.reason) != std::string::npos);
    CHECK(l.reason.find(file.string()) == 0);  // names the file
    // The next store replaces the entry.
    REQUIRE(cache.store(kKey, image));
    CHECK(read_bytes(file) == good);
    CHECK(cache.load(kKey).payload == image);
  }
}

TEST_CASE("runtime: disk cache evicts the least recently used entries beyond its size") {
  TempDir dir;
  const std::size_t image_bytes = 10000;
  // Room for three entries (each is the image plus a header and key of ~150 bytes), not four.
  rt::DiskCache cache(dir.path(), 3 * (image_bytes + 400));
  std::vector<rt::DiskCacheKey> keys;
  for (int i = 0; i < 5; ++i) keys.push_back(rt::make_disk_cache_key("kernel " + std::to_string(i), 90, 13000));
  // Distinct modification times, oldest first, without sleeping: set them by hand.
  const auto t0 = fs::file_time_type::clock::now() - std::chrono::hours(10);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(cache.store(keys[i], fake_image(image_bytes, static_cast<unsigned>(i))));
    fs::last_write_time(dir.path() / keys[i].file_name(), t0 + std::chrono::minutes(i));
  }
  CHECK(files_in(dir.path()).size() == 3);
  // Using entry 0 makes it the most recent: entry 1 is the oldest now.
  CHECK(cache.load(keys[0]).status == rt::DiskCache::Status::Hit);
  REQUIRE(cache.store(keys[3], fake_image(image_bytes, 3)));
  CHECK(cache.load(keys[1]).status == rt::DiskCache::Status::Miss);
  CHECK(cache.load(keys[0]).status == rt::DiskCache::Status::Hit);
  CHECK(cache.load(keys[2]).status == rt::DiskCache::Status::Hit);
  CHECK(cache.load(keys[3]).status == rt::DiskCache::Status::Hit);
  CHECK(cache.size_bytes() <= cache.max_bytes());
  // A payload larger than the whole cache is not stored, and evicts nothing.
  CHECK_FALSE(cache.store(keys[4], fake_image(cache.max_bytes(), 4)));
  CHECK(cache.load(keys[4]).status == rt::DiskCache::Status::Miss);
  CHECK(files_in(dir.path()).size() == 3);
}

TEST_CASE("runtime: disk cache eviction keeps files that are not entries and removes stale temporaries") {
  TempDir dir;
  write_bytes(dir.path() / "notes.txt", std::string(50000, 'n'));  // a user's file in TESSEL_CACHE_DIR
  const fs::path stale = dir.path() / ".x.tkc.tmp.123.1.abcd";
  const fs::path fresh = dir.path() / ".y.tkc.tmp.124.1.abcd";
  write_bytes(stale, "partial");
  write_bytes(fresh, "partial");
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  rt::DiskCache cache(dir.path(), 1000);
  cache.evict();
  CHECK(fs::exists(dir.path() / "notes.txt"));
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(fresh));  // perhaps another process writing right now
  CHECK(cache.size_bytes() == 0);
}

TEST_CASE("runtime: disk cache store reports an unwritable directory") {
  TempDir dir;
  write_bytes(dir.path() / "file", "x");
  rt::DiskCache cache(dir.path() / "file" / "cache", 1 << 20);  // a directory below a plain file
  const std::string want = "compiled-kernel cache: cannot create " + (dir.path() / "file" / "cache").string();
  CHECK_THROWS_WITH_AS(cache.store(kKey, "image"), doctest::Contains(want.c_str()), tessel::Error);
  CHECK(cache.load(kKey).status == rt::DiskCache::Status::Miss);
}

TEST_CASE("runtime: disk cache entries written by two processes at once are whole") {
  TempDir dir;
  const std::string image = fake_image(1 << 18, 5);
  // Both children store the same entry over and over and read it back in between: a reader
  // must never see part of an entry (rename replaces it in one step).
  auto child = [&](unsigned seed) {
    rt::DiskCache cache(dir.path(), 64 << 20);
    std::mt19937 rng(seed);
    for (int i = 0; i < 40; ++i) {
      cache.store(kKey, image);
      for (int r = 0; r < 3; ++r) {
        rt::DiskCache::Lookup l = cache.load(kKey);
        if (l.status != rt::DiskCache::Status::Hit || l.payload != image) return 1;
      }
      if (rng() % 2) std::this_thread::yield();
    }
    return 0;
  };
  std::vector<pid_t> pids;
  for (unsigned seed : {1u, 2u}) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int rc = 2;
      try {
        rc = child(seed);
      } catch (...) {
      }
      _exit(rc);  // no destructors, no doctest report from the child
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  rt::DiskCache cache(dir.path(), 64 << 20);
  CHECK(cache.load(kKey).payload == image);
  CHECK(files_in(dir.path()).size() == 1);  // no temporary left
}

TEST_CASE("runtime: disk cache settings come from the environment") {
  ScopedEnv no_dir("TESSEL_CACHE_DIR", nullptr), no_switch("TESSEL_CACHE", nullptr),
      no_max("TESSEL_CACHE_MAX_MB", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg/cache"), home("HOME", "/home/u");
    rt::DiskCacheSettings s = rt::DiskCacheSettings::from_environment();
    CHECK(s.enabled);
    CHECK(s.directory == fs::path("/xdg/cache/tessel"));
    CHECK(s.max_bytes == 1024ull << 20);
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/ignored"), home("HOME", "/home/u");
    CHECK(rt::DiskCacheSettings::from_environment().directory == fs::path("/home/u/.cache/tessel"));
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr), home("HOME", "/home/u"), dir("TESSEL_CACHE_DIR", "/elsewhere");
    CHECK(rt::DiskCacheSettings::from_environment().directory == fs::path("/elsewhere"));
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr), home("HOME", nullptr);
    rt::DiskCacheSettings s = rt::DiskCacheSettings::from_environment();
    CHECK_FALSE(s.enabled);
    CHECK(s.disabled_reason.find("no cache directory") != std::string::npos);
  }
  for (const char* off : {"0", "off", "OFF", "false", "no"}) {
    ScopedEnv sw("TESSEL_CACHE", off);
    rt::DiskCacheSettings s = rt::DiskCacheSettings::from_environment();
    CHECK_FALSE(s.enabled);
    CHECK(s.disabled_reason == std::string("disabled by TESSEL_CACHE=") + off);
  }
  for (const char* on : {"1", "on", "true", "Yes"}) {
    ScopedEnv sw("TESSEL_CACHE", on), home("HOME", "/home/u");
    CHECK(rt::DiskCacheSettings::from_environment().enabled);
  }
  {
    ScopedEnv sw("TESSEL_CACHE", "maybe");
    CHECK_THROWS_WITH_AS(rt::DiskCacheSettings::from_environment(),
                         "TESSEL_CACHE=maybe: must be 0, off, false or no (disable) or 1, on, true or yes (enable)",
                         tessel::Error);
  }
  {
    ScopedEnv max("TESSEL_CACHE_MAX_MB", "64");
    CHECK(rt::DiskCacheSettings::from_environment().max_bytes == 64ull << 20);
  }
  for (const char* bad : {"-1", "1.5", "lots", "99999999999999"}) {
    ScopedEnv max("TESSEL_CACHE_MAX_MB", bad);
    CHECK_THROWS_WITH_AS(rt::DiskCacheSettings::from_environment(),
                         (std::string("TESSEL_CACHE_MAX_MB=") + bad + ": must be a whole number of MiB from 0 to 2^40").c_str(),
                         tessel::Error);
  }
}

TEST_CASE("runtime: loading through the disk cache compiles once across caches and replaces bad entries") {
  TempDir dir;
  const std::string ptx = ".entry k() { ret; }";
  const rt::DiskCacheKey key = rt::make_disk_cache_key(ptx, 90, 13000);
  int compiles = 0;
  std::vector<std::string> loaded;
  auto compile = [&](std::string_view text) {
    ++compiles;
    return "CUBIN of " + std::string(text);
  };
  auto load = [&](std::string_view image) {
    loaded.emplace_back(image);
    return rt::Module();
  };
  {
    rt::DiskCache cache(dir.path(), 1 << 20);  // cold: compiled, stored, loaded
    rt::load_through_disk_cache(cache, key, ptx, compile, load);
    CHECK(compiles == 1);
    CHECK(loaded.back() == "CUBIN of " + ptx);
  }
  {
    rt::DiskCache cache(dir.path(), 1 << 20);  // warm (as another process would be): no compile
    rt::load_through_disk_cache(cache, key, ptx, compile, load);
    CHECK(compiles == 1);
    CHECK(loaded.back() == "CUBIN of " + ptx);
  }
  rt::DiskCache cache(dir.path(), 1 << 20);
  // A corrupt entry is never handed to the loader: compiled again and replaced.
  write_bytes(dir.path() / key.file_name(), "garbage");
  loaded.clear();
  rt::load_through_disk_cache(cache, key, ptx, compile, load);
  CHECK(compiles == 2);
  CHECK(loaded == std::vector<std::string>{"CUBIN of " + ptx});
  CHECK(cache.load(key).status == rt::DiskCache::Status::Hit);
  // A valid entry that the driver refuses: compiled again, replaced, loaded.
  REQUIRE(cache.store(key, "an image this driver refuses"));
  loaded.clear();
  auto picky = [&](std::string_view image) {
    loaded.emplace_back(image);
    if (image == "an image this driver refuses") tessel::fail("refused");
    return rt::Module();
  };
  rt::load_through_disk_cache(cache, key, ptx, compile, picky);
  CHECK(compiles == 3);
  CHECK(loaded == std::vector<std::string>{"an image this driver refuses", "CUBIN of " + ptx});
  CHECK(cache.load(key).payload == "CUBIN of " + ptx);
  // A compile error reaches the caller, and nothing is stored.
  const rt::DiskCacheKey other = rt::make_disk_cache_key("bad ptx", 90, 13000);
  CHECK_THROWS_WITH(rt::load_through_disk_cache(
                        cache, other, "bad ptx", [](std::string_view) -> std::string { tessel::fail("bad PTX"); }, load),
                    "bad PTX");
  CHECK(cache.load(other).status == rt::DiskCache::Status::Miss);
  // An unwritable cache still loads.
  write_bytes(dir.path() / "file", "x");
  rt::DiskCache unwritable(dir.path() / "file" / "cache", 1 << 20);
  loaded.clear();
  rt::load_through_disk_cache(unwritable, key, ptx, compile, load);
  CHECK(loaded == std::vector<std::string>{"CUBIN of " + ptx});
}

TEST_CASE("runtime: gpu: the driver's linker output loads, cold and warm, through the disk cache") {
  TESSEL_REQUIRE_GPU(0);
  TempDir dir;
  rt::DiskCache cache(dir.path(), 64 << 20);
  const int cc = rt::cached_device_properties(rt::current_device()).compute_capability();
  const rt::DiskCacheKey key = rt::make_disk_cache_key(tessel::test::kVectorAddPtx, cc, rt::driver_version());
  int compiles = 0;
  auto compile = [&](std::string_view ptx) {
    ++compiles;
    return rt::link_ptx(ptx);
  };
  auto run = [&](const rt::Module& m) {  // c = a + b on 1000 elements, checked on the host
    const int n = 1000;
    std::vector<float> a(n), b(n);
    std::mt19937_64 rng = tessel::test::gpu_rng();
    std::uniform_real_distribution<float> u(-1, 1);
    for (int i = 0; i < n; ++i) a[i] = u(rng), b[i] = u(rng);
    rt::DeviceBuffer da = rt::DeviceBuffer::from(a), db = rt::DeviceBuffer::from(b), dc(n * sizeof(float));
    rt::fill_bytes(dc.ptr(), 0xFF, n * sizeof(float));
    rt::LaunchConfig config;
    config.grid = {(n + 255) / 256, 1, 1};
    config.block = {256, 1, 1};
    rt::launch(m.function("tessel_test_vadd"), config, rt::ArgPack(da.ptr(), db.ptr(), dc.ptr(), n));
    std::vector<float> c = dc.to_vector<float>();
    for (int i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  };
  rt::Module cold = rt::load_through_disk_cache(cache, key, tessel::test::kVectorAddPtx, compile, rt::Module::load_image);
  CHECK(compiles == 1);
  CHECK(cache.load(key).status == rt::DiskCache::Status::Hit);
  run(cold);
  rt::Module warm = rt::load_through_disk_cache(cache, key, tessel::test::kVectorAddPtx, compile, rt::Module::load_image);
  CHECK(compiles == 1);
  run(warm);
  // Bad PTX: the linker's error names the call and carries the compiler's log.
  CHECK_THROWS_WITH_AS(rt::link_ptx(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus; }\n"),
                       doctest::Contains("cuLinkAddData failed"), tessel::DriverError);
}
