// disk_cache.cpp: the on-disk cache of compiled kernels: keys, the entry format, atomic writes,
// validation on read, eviction by least recent use, and the settings from the environment.
#include "tessel/runtime/disk_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <system_error>
#include <vector>

#include "hash.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/runtime/phases.hpp"

namespace tessel::rt {

namespace fs = std::filesystem;

namespace {

// The entry format. Bump kFormatVersion when the header or what the payload means changes: old
// entries then fail the header check and are replaced (and evicted in time).
constexpr char kMagic[8] = {'T', 'E', 'S', 'S', 'E', 'L', 'K', 'C'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kHeaderBytes = 32;  // magic 8, version 4, key length 4, payload length 8, checksum 8
constexpr std::uint32_t kMaxKeyBytes = 4096;
constexpr std::string_view kEntrySuffix = ".tkc";
constexpr std::string_view kTempMarker = ".tmp.";

// Seeds of the 128-bit PTX digest (two independent 64-bit hashes) and of the payload checksum.
constexpr std::uint64_t kDigestSeedHi = 0xC2B2AE3D27D4EB4Full;
constexpr std::uint64_t kChecksumSeed = 0x165667B19E3779F9ull;

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

void put_u32(std::string& s, std::uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }
void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
template <class T>
T get(std::string_view s, std::size_t at) {
  T v;
  std::memcpy(&v, s.data() + at, sizeof v);
  return v;
}

// The whole file, or nullopt when it cannot be opened (a miss: absent, or removed meanwhile).
std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return bytes;
}

// Why `bytes` is not a valid entry for `key_text`, or "" when it is (then `payload` holds it).
std::string validate(std::string_view bytes, const std::string& key_text, std::string_view& payload) {
  if (bytes.size() < kHeaderBytes)
    return "truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the " +
           std::to_string(kHeaderBytes) + "-byte header";
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return "bad magic (not a tessel cache entry)";
  if (auto v = get<std::uint32_t>(bytes, 8); v != kFormatVersion)
    return "format version " + std::to_string(v) + ", expected " + std::to_string(kFormatVersion);
  const auto key_bytes = get<std::uint32_t>(bytes, 12);
  const auto payload_bytes = get<std::uint64_t>(bytes, 16);
  if (key_bytes > kMaxKeyBytes) return "key length " + std::to_string(key_bytes) + " is over " + std::to_string(kMaxKeyBytes);
  if (kHeaderBytes + key_bytes > bytes.size() || payload_bytes != bytes.size() - kHeaderBytes - key_bytes)
    return "length mismatch: the header says " + std::to_string(kHeaderBytes) + " + " + std::to_string(key_bytes) +
           " + " + std::to_string(payload_bytes) + " bytes, the file has " + std::to_string(bytes.size());
  if (bytes.substr(kHeaderBytes, key_bytes) != key_text) return "key mismatch (another kernel, device or driver)";
  payload = bytes.substr(kHeaderBytes + key_bytes);
  if (detail::hash_bytes(payload, kChecksumSeed) != get<std::uint64_t>(bytes, 24)) return "checksum mismatch";
  return "";
}

bool is_entry(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.size() > kEntrySuffix.size() && name.ends_with(kEntrySuffix) && name.find(kTempMarker) == std::string::npos;
}

bool is_temp(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.starts_with(".") && name.find(kTempMarker) != std::string::npos;
}

// A temporary name no other thread or process uses: the pid, a per-process counter and a random
// number (pids are reused across machines sharing a home directory over NFS).
std::string temp_name(const std::string& file_name) {
  static std::atomic<std::uint64_t> counter{0};
  static const std::uint64_t salt = std::random_device{}();
  return "." + file_name + std::string(kTempMarker) + std::to_string(::getpid()) + "." + std::to_string(++counter) +
         "." + hex(salt).substr(8);
}

// Accepts 0/off/false/no and 1/on/true/yes, in any case.
bool parse_switch(const char* name, const std::string& value) {
  std::string v;
  for (char c : value) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "0" || v == "off" || v == "false" || v == "no") return false;
  if (v == "1" || v == "on" || v == "true" || v == "yes") return true;
  fail(std::string(name) + "=" + value + ": must be 0, off, false or no (disable) or 1, on, true or yes (enable)");
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

std::string DiskCacheKey::text() const {
  return "tessel compiled kernel: ptx " + hex(ptx_hash_hi) + hex(ptx_hash_lo) + " (" + std::to_string(ptx_bytes) +
         " bytes), sm_" + std::to_string(compute_capability) + ", driver " + std::to_string(driver_version) +
         ", format " + std::to_string(kFormatVersion);
}

std::string DiskCacheKey::file_name() const {
  return hex(ptx_hash_hi) + hex(ptx_hash_lo) + "-sm" + std::to_string(compute_capability) + "-driver" +
         std::to_string(driver_version) + std::string(kEntrySuffix);
}

DiskCacheKey make_disk_cache_key(std::string_view ptx, int compute_capability, int driver_version) {
  DiskCacheKey k;
  k.ptx_hash_lo = detail::hash_bytes(ptx, detail::kPtxHashSeed);
  k.ptx_hash_hi = detail::hash_bytes(ptx, kDigestSeedHi);
  k.ptx_bytes = ptx.size();
  k.compute_capability = compute_capability;
  k.driver_version = driver_version;
  return k;
}

DiskCacheSettings DiskCacheSettings::from_environment() {
  DiskCacheSettings s;
  if (std::string v = env("TESSEL_CACHE"); !v.empty() && !parse_switch("TESSEL_CACHE", v)) {
    s.enabled = false;
    s.disabled_reason = "disabled by TESSEL_CACHE=" + v;
  }
  if (std::string v = env("TESSEL_CACHE_MAX_MB"); !v.empty()) {
    std::uint64_t mb = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), mb);
    if (ec != std::errc() || end != v.data() + v.size() || mb > (1ull << 40))
      fail("TESSEL_CACHE_MAX_MB=" + v + ": must be a whole number of MiB from 0 to 2^40");
    s.max_bytes = mb << 20;
  }
  if (std::string dir = env("TESSEL_CACHE_DIR"); !dir.empty()) {
    s.directory = dir;
  } else if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty() && fs::path(xdg).is_absolute()) {
    s.directory = fs::path(xdg) / "tessel";  // the XDG spec ignores a relative XDG_CACHE_HOME
  } else if (std::string home = env("HOME"); !home.empty()) {
    s.directory = fs::path(home) / ".cache" / "tessel";
  } else if (s.enabled) {
    s.enabled = false;
    s.disabled_reason = "no cache directory: TESSEL_CACHE_DIR, XDG_CACHE_HOME and HOME are all unset";
  }
  return s;
}

DiskCache::DiskCache(fs::path directory, std::uint64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes) {
  if (directory_.empty()) fail("DiskCache: the directory is empty");
}

DiskCache::Lookup DiskCache::load(const DiskCacheKey& key) const {
  Lookup r;
  const fs::path path = directory_ / key.file_name();
  std::optional<std::string> bytes = read_file(path);
  if (!bytes) return r;  // Miss
  std::string_view payload;
  r.reason = validate(*bytes, key.text(), payload);
  if (!r.reason.empty()) {
    // Left in place: the store that follows replaces it atomically, whereas removing it here
    // could remove a valid entry that another process has just renamed into place.
    r.status = Status::Corrupt;
    r.reason = path.string() + ": " + r.reason;
    return r;
  }
  r.status = Status::Hit;
  r.payload = std::string(payload);
  std::error_code ignored;  // a read-only cache still answers; its order just ages
  fs::last_write_time(path, fs::file_time_type::clock::now(), ignored);
  return r;
}

bool DiskCache::store(const DiskCacheKey& key, std::string_view payload) const {
  const std::string key_text = key.text();
  if (payload.size() + kHeaderBytes + key_text.size() > max_bytes_) return false;
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec) fail("compiled-kernel cache: cannot create " + directory_.string() + ": " + ec.message());

  std::string header;
  header.append(kMagic, sizeof kMagic);
  put_u32(header, kFormatVersion);
  put_u32(header, static_cast<std::uint32_t>(key_text.size()));
  put_u64(header, payload.size());
  put_u64(header, detail::hash_bytes(payload, kChecksumSeed));
  header += key_text;

  const fs::path target = directory_ / key.file_name();
  const fs::path temp = directory_ / temp_name(key.file_name());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (out) {
      out.write(header.data(), static_cast<std::streamsize>(header.size()));
      out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
      out.close();
    }
    if (!out) {
      fs::remove(temp, ec);
      fail("compiled-kernel cache: cannot write " + temp.string());
    }
  }
  // rename(2) replaces the target in one step: readers see the old entry or the new, never part
  // of one. Two processes storing the same key both succeed; the entries are equal.
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    fail("compiled-kernel cache: cannot rename " + temp.string() + " to " + target.string() + ": " + ec.message());
  }
  evict();
  return true;
}

void DiskCache::evict() const {
  struct Found {
    fs::path path;
    fs::file_time_type used;
    std::uint64_t bytes;
  };
  std::vector<Found> entries;
  std::uint64_t total = 0;
  const auto stale_temp = fs::file_time_type::clock::now() - std::chrono::hours(1);
  std::error_code ec;
  for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;  // any entry may vanish under us (another process evicting): skip it
    const fs::path& p = it->path();
    if (!it->is_regular_file(e) || e) continue;
    const auto used = fs::last_write_time(p, e);
    if (e) continue;
    if (is_temp(p)) {
      if (used < stale_temp) fs::remove(p, e);  // left by a process that died while writing
      continue;
    }
    if (!is_entry(p)) continue;  // not ours: a user's TESSEL_CACHE_DIR may hold other files
    const std::uint64_t bytes = fs::file_size(p, e);
    if (e) continue;
    entries.push_back({p, used, bytes});
    total += bytes;
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Found& a, const Found& b) { return a.used < b.used; });
  for (const Found& f : entries) {
    if (total <= max_bytes_) break;
    std::error_code e;
    fs::remove(f.path, e);
    total -= f.bytes;
  }
}

std::uint64_t DiskCache::size_bytes() const {
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    if (is_entry(it->path()) && it->is_regular_file(e)) total += fs::file_size(it->path(), e);
  }
  return total;
}

const DiskCache* DiskCache::process_cache() {
  static const DiskCache* cache = []() -> const DiskCache* {
    const DiskCacheSettings s = DiskCacheSettings::from_environment();
    if (!s.enabled) return nullptr;
    return new DiskCache(s.directory, s.max_bytes);
  }();
  return cache;
}

bool needs_whole_program_compile(std::string_view ptx) {
  return ptx.find("setmaxnreg.") != std::string_view::npos;  // the instruction, always with .inc or .dec
}

Module load_through_disk_cache(const DiskCache& cache, const DiskCacheKey& key, std::string_view ptx,
                               const std::function<std::string(std::string_view ptx)>& compile,
                               const std::function<Module(std::string_view image)>& load_image) {
  DiskCache::Lookup found = cache.load(key);
  if (found.status == DiskCache::Status::Hit) {
    phase("disk cache hit (" + std::to_string(found.payload.size()) + " bytes)");
    try {
      Module m = load_image(found.payload);
      phase("module loaded from the disk cache");
      return m;
    } catch (const Error&) {
      // A valid entry the driver refuses (a driver update that kept its version number, say):
      // compiled again below, and the entry replaced.
    }
  }
  phase("disk cache miss");
  const std::string image = compile(ptx);
  phase("compiled by the driver's linker (" + std::to_string(image.size()) + " bytes)");
  try {
    cache.store(key, image);
  } catch (const Error&) {
    // A full disk or a read-only cache directory costs the next process a compile, nothing more.
  }
  Module m = load_image(image);
  phase("module loaded");
  return m;
}

}  // namespace tessel::rt
