// stand_in_driver.cpp: a stand-in for libcuda.so.1 with no GPU behind it (stand_in_driver.hpp):
// one H100-like device, host memory as device memory, PTX accepted as it is, launches recorded
// and counted. It implements exactly the entry points of runtime/src/driver_api.hpp
// (TESSEL_CU_FUNCTIONS), resolved through cuGetProcAddress as the real driver's are.
#include "stand_in_driver.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "driver_api.hpp"

namespace cu = tessel::rt::cu;

namespace {

// --- Counting ---------------------------------------------------------------------------------

enum Entry : int {
#define TESSEL_STAND_IN_ENUM(name, params) k_##name,
  TESSEL_CU_FUNCTIONS(TESSEL_STAND_IN_ENUM)
#undef TESSEL_STAND_IN_ENUM
      kEntries
};
const char* const kEntryNames[] = {
#define TESSEL_STAND_IN_NAME(name, params) #name,
    TESSEL_CU_FUNCTIONS(TESSEL_STAND_IN_NAME)
#undef TESSEL_STAND_IN_NAME
};
std::atomic<uint64_t> calls[kEntries];
#define COUNT(name) calls[k_##name].fetch_add(1, std::memory_order_relaxed)

constexpr cu::CUresult kNotFound = 500;  // CUDA_ERROR_NOT_FOUND

// --- Device, context --------------------------------------------------------------------------

struct CtxTag {
  int device = 0;
};
CtxTag primary;
thread_local cu::CUcontext current = nullptr;
cu::CUcontext primary_handle() { return reinterpret_cast<cu::CUcontext>(&primary); }

// --- Memory -----------------------------------------------------------------------------------

std::mutex memory_mutex;
std::map<uint64_t, std::size_t> allocations;  // start -> bytes
TesselStandInAlloc alloc_hook = nullptr;
TesselStandInFree free_hook = nullptr;

// The allocation holding `p`, or allocations.end().
std::map<uint64_t, std::size_t>::iterator find_allocation(uint64_t p) {
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin()) return allocations.end();
  --it;
  return p < it->first + std::max<std::size_t>(it->second, 1) ? it : allocations.end();
}

// --- Modules, functions -------------------------------------------------------------------------

struct Module {
  std::string ptx;
};
struct Function {
  std::string entry;
  uint64_t ptx_fnv1a = 0;
  std::vector<unsigned> sizes, aligns;  // of each parameter, from the PTX's declaration
};

// The byte size of a PTX scalar type (".u64" -> 8).
unsigned scalar_bytes(const std::string& t) {
  const std::string bits = t.substr(2);
  return bits.empty() ? 0 : static_cast<unsigned>(std::atoi(bits.c_str()) / 8);
}

// The parameters of `.entry name(...)` in `ptx`; false when there is no such entry.
bool parse_entry(const std::string& ptx, const std::string& name, Function& f) {
  size_t at = 0;
  for (;;) {
    at = ptx.find(".entry " + name, at);
    if (at == std::string::npos) return false;
    const size_t after = at + 7 + name.size();
    if (after < ptx.size() && (ptx[after] == '(' || ptx[after] == ' ' || ptx[after] == '\n' || ptx[after] == '\t')) {
      at = after;
      break;
    }
    at = after;
  }
  const size_t open = ptx.find('(', at), close = ptx.find(')', at);
  if (open == std::string::npos || close == std::string::npos || open > close) {
    f.entry = name;
    return true;  // no parameter list
  }
  std::string list = ptx.substr(open + 1, close - open - 1);
  size_t p = 0;
  while ((p = list.find(".param", p)) != std::string::npos) {
    p += 6;
    size_t end = list.find_first_of(",", p);
    if (end == std::string::npos) end = list.size();
    const std::string decl = list.substr(p, end - p);
    unsigned align = 0, size = 0, elem = 0;
    std::vector<std::string> words;
    size_t w = 0;
    while (w < decl.size()) {
      while (w < decl.size() && std::isspace(static_cast<unsigned char>(decl[w]))) ++w;
      size_t e = w;
      while (e < decl.size() && !std::isspace(static_cast<unsigned char>(decl[e]))) ++e;
      if (e > w) words.push_back(decl.substr(w, e - w));
      w = e;
    }
    for (size_t i = 0; i < words.size(); ++i) {
      if (words[i] == ".align" && i + 1 < words.size()) {
        align = static_cast<unsigned>(std::atoi(words[++i].c_str()));
      } else if (words[i].size() > 2 && words[i][0] == '.') {
        elem = scalar_bytes(words[i]);
      } else {  // the name, maybe with [count]
        const size_t b = words[i].find('[');
        size = b == std::string::npos ? elem : elem * static_cast<unsigned>(std::atoi(words[i].c_str() + b + 1));
      }
    }
    f.sizes.push_back(size);
    f.aligns.push_back(align ? align : std::max(elem, 1u));
    p = end;
  }
  f.entry = name;
  return true;
}

// --- Launches ---------------------------------------------------------------------------------

std::mutex launch_mutex;
constexpr size_t kKept = 256;
std::vector<TesselStandInLaunch> kept(kKept);
uint64_t launches = 0;

TesselStandInEncoder encode_hook = nullptr;

// --- The entry points ------------------------------------------------------------------------

const char* error_name(cu::CUresult r) {
  switch (r) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 201: return "CUDA_ERROR_INVALID_CONTEXT";
    case 400: return "CUDA_ERROR_INVALID_HANDLE";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    default: return nullptr;
  }
}

cu::CUresult si_cuGetErrorName(cu::CUresult error, const char** str) {
  COUNT(cuGetErrorName);
  *str = error_name(error);
  return *str ? cu::CUDA_SUCCESS : cu::CUDA_ERROR_INVALID_VALUE;
}
cu::CUresult si_cuGetErrorString(cu::CUresult error, const char** str) {
  COUNT(cuGetErrorString);
  *str = error_name(error) ? "stand-in driver error" : nullptr;
  return *str ? cu::CUDA_SUCCESS : cu::CUDA_ERROR_INVALID_VALUE;
}
cu::CUresult si_cuDriverGetVersion(int* version) {
  COUNT(cuDriverGetVersion);
  *version = 12080;
  return cu::CUDA_SUCCESS;
}

cu::CUresult si_cuInit(unsigned) {
  COUNT(cuInit);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuDeviceGetCount(int* n) {
  COUNT(cuDeviceGetCount);
  *n = 1;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuDeviceGet(cu::CUdevice* d, int ordinal) {
  COUNT(cuDeviceGet);
  if (ordinal != 0) return cu::CUDA_ERROR_INVALID_VALUE;
  *d = 0;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuDeviceGetName(char* name, int len, cu::CUdevice) {
  COUNT(cuDeviceGetName);
  std::snprintf(name, static_cast<size_t>(len), "%s", "tessel stand-in driver (H100-like, no GPU)");
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuDeviceGetAttribute(int* v, cu::CUdevice_attribute a, cu::CUdevice) {
  COUNT(cuDeviceGetAttribute);
  switch (a) {
    case cu::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
    case cu::CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case cu::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *v = 65536; break;
    case cu::CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = 1980000; break;
    case cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case cu::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = 2619000; break;
    case cu::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = 5120; break;
    case cu::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 52428800; break;
    case cu::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
    case cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *v = 233472; break;
    case cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
    case cu::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: *v = 1; break;
    default: *v = 0;
  }
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuDeviceTotalMem(std::size_t* bytes, cu::CUdevice) {
  COUNT(cuDeviceTotalMem);
  *bytes = std::size_t{80} << 30;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuDevicePrimaryCtxRetain(cu::CUcontext* c, cu::CUdevice) {
  COUNT(cuDevicePrimaryCtxRetain);
  *c = primary_handle();
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuDevicePrimaryCtxRelease(cu::CUdevice) {
  COUNT(cuDevicePrimaryCtxRelease);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuCtxSetCurrent(cu::CUcontext c) {
  COUNT(cuCtxSetCurrent);
  current = c;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuCtxGetCurrent(cu::CUcontext* c) {
  COUNT(cuCtxGetCurrent);
  *c = current;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuCtxGetDevice(cu::CUdevice* d) {
  COUNT(cuCtxGetDevice);
  if (!current) return cu::CUDA_ERROR_INVALID_CONTEXT;
  *d = 0;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuCtxSynchronize() {
  COUNT(cuCtxSynchronize);
  return current ? cu::CUDA_SUCCESS : cu::CUDA_ERROR_INVALID_CONTEXT;
}
cu::CUresult si_cuMemAlloc(cu::CUdeviceptr* p, std::size_t bytes) {
  COUNT(cuMemAlloc);
  if (!current) return cu::CUDA_ERROR_INVALID_CONTEXT;
  uint64_t a = 0;
  if (alloc_hook) {
    a = alloc_hook(bytes);
  } else {
    a = reinterpret_cast<uint64_t>(std::aligned_alloc(256, (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256));
  }
  if (!a) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  std::lock_guard lock(memory_mutex);
  allocations[a] = bytes;
  *p = a;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuMemFree(cu::CUdeviceptr p) {
  COUNT(cuMemFree);
  std::lock_guard lock(memory_mutex);
  auto it = allocations.find(p);
  if (it == allocations.end()) return cu::CUDA_ERROR_INVALID_VALUE;
  allocations.erase(it);
  if (free_hook) free_hook(p);
  else std::free(reinterpret_cast<void*>(p));
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuMemGetInfo(std::size_t* free, std::size_t* total) {
  COUNT(cuMemGetInfo);
  *total = std::size_t{80} << 30;
  *free = *total / 2;
  return cu::CUDA_SUCCESS;
}
// Copies touch host memory: with an allocator hook installed, "device" addresses may not be host
// addresses, so copies then do nothing.
cu::CUresult copy(void* dst, const void* src, std::size_t n) {
  if (!alloc_hook && n) std::memmove(dst, src, n);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuMemcpyHtoD(cu::CUdeviceptr d, const void* s, std::size_t n) {
  COUNT(cuMemcpyHtoD);
  return copy(reinterpret_cast<void*>(d), s, n);
}
cu::CUresult si_cuMemcpyDtoH(void* d, cu::CUdeviceptr s, std::size_t n) {
  COUNT(cuMemcpyDtoH);
  return copy(d, reinterpret_cast<const void*>(s), n);
}
cu::CUresult si_cuMemcpyDtoD(cu::CUdeviceptr d, cu::CUdeviceptr s, std::size_t n) {
  COUNT(cuMemcpyDtoD);
  return copy(reinterpret_cast<void*>(d), reinterpret_cast<const void*>(s), n);
}
cu::CUresult si_cuMemcpyHtoDAsync(cu::CUdeviceptr d, const void* s, std::size_t n, cu::CUstream) {
  COUNT(cuMemcpyHtoDAsync);
  return copy(reinterpret_cast<void*>(d), s, n);
}
cu::CUresult si_cuMemcpyDtoHAsync(void* d, cu::CUdeviceptr s, std::size_t n, cu::CUstream) {
  COUNT(cuMemcpyDtoHAsync);
  return copy(d, reinterpret_cast<const void*>(s), n);
}
cu::CUresult si_cuMemcpyDtoDAsync(cu::CUdeviceptr d, cu::CUdeviceptr s, std::size_t n, cu::CUstream) {
  COUNT(cuMemcpyDtoDAsync);
  return copy(reinterpret_cast<void*>(d), reinterpret_cast<const void*>(s), n);
}
cu::CUresult si_cuPointerGetAttribute(void* data, cu::CUpointer_attribute a, cu::CUdeviceptr p) {
  COUNT(cuPointerGetAttribute);
  std::lock_guard lock(memory_mutex);
  auto it = find_allocation(p);
  if (it == allocations.end()) return cu::CUDA_ERROR_INVALID_VALUE;
  switch (a) {
    case cu::CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<unsigned*>(data) = cu::CU_MEMORYTYPE_DEVICE; break;
    case cu::CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<unsigned*>(data) = 0; break;
    case cu::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<cu::CUdeviceptr*>(data) = it->first; break;
    case cu::CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<std::size_t*>(data) = it->second; break;
    default: return cu::CUDA_ERROR_INVALID_VALUE;
  }
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuMemsetD8(cu::CUdeviceptr d, unsigned char v, std::size_t n) {
  COUNT(cuMemsetD8);
  if (!alloc_hook && n) std::memset(reinterpret_cast<void*>(d), v, n);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuMemsetD8Async(cu::CUdeviceptr d, unsigned char v, std::size_t n, cu::CUstream) {
  COUNT(cuMemsetD8Async);
  if (!alloc_hook && n) std::memset(reinterpret_cast<void*>(d), v, n);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuStreamCreate(cu::CUstream* s, unsigned) {
  COUNT(cuStreamCreate);
  *s = reinterpret_cast<cu::CUstream>(new int(0));
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuStreamDestroy(cu::CUstream s) {
  COUNT(cuStreamDestroy);
  delete reinterpret_cast<int*>(s);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuStreamSynchronize(cu::CUstream) {
  COUNT(cuStreamSynchronize);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuEventCreate(cu::CUevent* e, unsigned) {
  COUNT(cuEventCreate);
  *e = reinterpret_cast<cu::CUevent>(new int(0));
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuEventDestroy(cu::CUevent e) {
  COUNT(cuEventDestroy);
  delete reinterpret_cast<int*>(e);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuEventRecord(cu::CUevent, cu::CUstream) {
  COUNT(cuEventRecord);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuEventSynchronize(cu::CUevent) {
  COUNT(cuEventSynchronize);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuEventQuery(cu::CUevent) {
  COUNT(cuEventQuery);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuEventElapsedTime(float* ms, cu::CUevent, cu::CUevent) {
  COUNT(cuEventElapsedTime);
  *ms = 0;
  return cu::CUDA_SUCCESS;
}
// A module's image: PTX text, or the stand-in linker's "cubin" (the PTX behind a prefix).
const char kCubin[] = "TESSEL-STAND-IN-CUBIN\n";
cu::CUresult load(cu::CUmodule* m, const void* image) {
  if (!current) return cu::CUDA_ERROR_INVALID_CONTEXT;
  std::string text(static_cast<const char*>(image));
  if (text.rfind(kCubin, 0) == 0) text = text.substr(sizeof kCubin - 1);
  *m = reinterpret_cast<cu::CUmodule>(new Module{std::move(text)});
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuModuleLoadDataEx(cu::CUmodule* m, const void* image, unsigned, cu::CUjit_option*, void**) {
  COUNT(cuModuleLoadDataEx);
  return load(m, image);
}
cu::CUresult si_cuModuleLoadData(cu::CUmodule* m, const void* image) {
  COUNT(cuModuleLoadData);
  return load(m, image);
}
cu::CUresult si_cuModuleUnload(cu::CUmodule m) {
  COUNT(cuModuleUnload);
  delete reinterpret_cast<Module*>(m);
  return cu::CUDA_SUCCESS;
}
struct Link {
  std::string image;
};
cu::CUresult si_cuLinkCreate(unsigned, cu::CUjit_option*, void**, cu::CUlinkState* s) {
  COUNT(cuLinkCreate);
  *s = reinterpret_cast<cu::CUlinkState>(new Link);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuLinkAddData(cu::CUlinkState s, cu::CUjitInputType, void* data, std::size_t size, const char*,
                              unsigned, cu::CUjit_option*, void**) {
  COUNT(cuLinkAddData);
  std::string ptx(static_cast<const char*>(data), size);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  reinterpret_cast<Link*>(s)->image = kCubin + ptx;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuLinkComplete(cu::CUlinkState s, void** image, std::size_t* size) {
  COUNT(cuLinkComplete);
  Link* l = reinterpret_cast<Link*>(s);
  *image = l->image.data();
  *size = l->image.size() + 1;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuLinkDestroy(cu::CUlinkState s) {
  COUNT(cuLinkDestroy);
  delete reinterpret_cast<Link*>(s);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuModuleGetFunction(cu::CUfunction* f, cu::CUmodule m, const char* name) {
  COUNT(cuModuleGetFunction);
  auto* fn = new Function;
  if (!parse_entry(reinterpret_cast<Module*>(m)->ptx, name, *fn)) {
    delete fn;
    return kNotFound;
  }
  const std::string& ptx = reinterpret_cast<Module*>(m)->ptx;
  fn->ptx_fnv1a = tessel_stand_in_fnv1a(ptx.data(), ptx.size());
  *f = reinterpret_cast<cu::CUfunction>(fn);  // lives as long as the process (modules are few)
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuFuncGetAttribute(int* v, cu::CUfunction_attribute a, cu::CUfunction) {
  COUNT(cuFuncGetAttribute);
  switch (a) {
    case cu::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case cu::CU_FUNC_ATTRIBUTE_NUM_REGS: *v = 64; break;
    case cu::CU_FUNC_ATTRIBUTE_PTX_VERSION: *v = 80; break;
    case cu::CU_FUNC_ATTRIBUTE_BINARY_VERSION: *v = 90; break;
    default: *v = 0;
  }
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuFuncSetAttribute(cu::CUfunction, cu::CUfunction_attribute, int) {
  COUNT(cuFuncSetAttribute);
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuLaunchKernelEx(const cu::CUlaunchConfig* c, cu::CUfunction f, void** params, void** extra) {
  COUNT(cuLaunchKernelEx);
  if (!current) return cu::CUDA_ERROR_INVALID_CONTEXT;
  if (!f || extra) return cu::CUDA_ERROR_INVALID_VALUE;
  const Function& fn = *reinterpret_cast<const Function*>(f);
  TesselStandInLaunch l{};
  std::snprintf(l.entry, sizeof l.entry, "%s", fn.entry.c_str());
  l.ptx_fnv1a = fn.ptx_fnv1a;
  l.grid[0] = c->gridDimX, l.grid[1] = c->gridDimY, l.grid[2] = c->gridDimZ;
  l.block[0] = c->blockDimX, l.block[1] = c->blockDimY, l.block[2] = c->blockDimZ;
  l.cluster[0] = l.cluster[1] = l.cluster[2] = 1;
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    if (c->attrs[i].id == cu::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      l.cluster[0] = c->attrs[i].value.clusterDim.x;
      l.cluster[1] = c->attrs[i].value.clusterDim.y;
      l.cluster[2] = c->attrs[i].value.clusterDim.z;
    }
  }
  l.shared_bytes = c->sharedMemBytes;
  if (fn.sizes.size() > 64) return cu::CUDA_ERROR_INVALID_VALUE;
  l.param_count = static_cast<unsigned>(fn.sizes.size());
  std::size_t offset = 0;
  for (size_t i = 0; i < fn.sizes.size(); ++i) {
    offset = (offset + fn.aligns[i] - 1) / fn.aligns[i] * fn.aligns[i];
    if (offset + fn.sizes[i] > sizeof l.params) return cu::CUDA_ERROR_INVALID_VALUE;
    if (!params || !params[i]) return cu::CUDA_ERROR_INVALID_VALUE;
    std::memcpy(l.params + offset, params[i], fn.sizes[i]);
    l.offsets[i] = static_cast<unsigned>(offset);
    l.sizes[i] = fn.sizes[i];
    offset += fn.sizes[i];
  }
  l.param_bytes = offset;
  std::lock_guard lock(launch_mutex);
  kept[launches % kKept] = l;
  ++launches;
  return cu::CUDA_SUCCESS;
}
cu::CUresult si_cuTensorMapEncodeTiled(cu::CUtensorMap* map, cu::CUtensorMapDataType type, cu::cuuint32_t rank,
                                       void* address, const cu::cuuint64_t* dims, const cu::cuuint64_t* strides,
                                       const cu::cuuint32_t* box, const cu::cuuint32_t* element_strides,
                                       cu::CUtensorMapInterleave interleave, cu::CUtensorMapSwizzle swizzle,
                                       cu::CUtensorMapL2promotion l2, cu::CUtensorMapFloatOOBfill oob) {
  COUNT(cuTensorMapEncodeTiled);
  if (rank < 1 || rank > 5) return cu::CUDA_ERROR_INVALID_VALUE;
  if (encode_hook) {
    return encode_hook(map, type, rank, address, dims, strides, box, element_strides, interleave, swizzle, l2, oob)
               ? cu::CUDA_ERROR_INVALID_VALUE
               : cu::CUDA_SUCCESS;
  }
  // The stand-in's own encoding: the arguments in order (enough to tell two descriptors apart).
  uint64_t* w = map->opaque;
  std::memset(w, 0, sizeof map->opaque);
  w[0] = reinterpret_cast<uint64_t>(address);
  w[1] = static_cast<uint64_t>(type) | uint64_t{rank} << 8 | uint64_t(interleave) << 16 | uint64_t(swizzle) << 24 |
         uint64_t(l2) << 32 | uint64_t(oob) << 40;
  for (unsigned d = 0; d < rank; ++d) {
    w[2 + d] = dims[d];
    if (d > 0) w[6 + d] = strides[d - 1];
    w[11] |= uint64_t{box[d]} << (8 * d);
    w[12] |= uint64_t{element_strides[d]} << (8 * d);
  }
  return cu::CUDA_SUCCESS;
}

struct ProcEntry {
  const char* name;
  void* fn;
};
const ProcEntry kProcs[] = {
#define TESSEL_STAND_IN_PROC(name, params) {#name, reinterpret_cast<void*>(&si_##name)},
    TESSEL_CU_FUNCTIONS(TESSEL_STAND_IN_PROC)
#undef TESSEL_STAND_IN_PROC
};

}  // namespace

extern "C" {

// The plain exports the loader needs before cuGetProcAddress.
cu::CUresult cuGetErrorName(cu::CUresult error, const char** str) { return si_cuGetErrorName(error, str); }
cu::CUresult cuGetErrorString(cu::CUresult error, const char** str) { return si_cuGetErrorString(error, str); }
cu::CUresult cuDriverGetVersion(int* version) { return si_cuDriverGetVersion(version); }

cu::CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cu::cuuint64_t,
                                 cu::CUdriverProcAddressQueryResult* status) {
  for (const ProcEntry& e : kProcs) {
    if (std::strcmp(e.name, symbol) == 0) {
      *pfn = e.fn;
      if (status) *status = cu::CU_GET_PROC_ADDRESS_SUCCESS;
      return cu::CUDA_SUCCESS;
    }
  }
  *pfn = nullptr;
  if (status) *status = cu::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return kNotFound;
}

uint64_t tessel_stand_in_calls(const char* name) {
  for (int i = 0; i < kEntries; ++i)
    if (std::strcmp(kEntryNames[i], name) == 0) return calls[i].load();
  return 0;
}
uint64_t tessel_stand_in_all_calls() {
  uint64_t n = 0;
  for (int i = 0; i < kEntries; ++i) n += calls[i].load();
  return n;
}
void tessel_stand_in_reset() {
  for (int i = 0; i < kEntries; ++i) calls[i] = 0;
  std::lock_guard lock(launch_mutex);
  launches = 0;
}
uint64_t tessel_stand_in_launch_count() {
  std::lock_guard lock(launch_mutex);
  return launches;
}
int tessel_stand_in_launch(uint64_t back, TesselStandInLaunch* out) {
  std::lock_guard lock(launch_mutex);
  if (back >= launches || back >= kKept) return 0;
  *out = kept[(launches - 1 - back) % kKept];
  return 1;
}
void tessel_stand_in_set_encoder(TesselStandInEncoder encode) { encode_hook = encode; }
void tessel_stand_in_set_allocator(TesselStandInAlloc alloc, TesselStandInFree free) {
  std::lock_guard lock(memory_mutex);
  alloc_hook = alloc;
  free_hook = free;
}

}  // extern "C"
