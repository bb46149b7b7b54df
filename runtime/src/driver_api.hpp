// driver_api.hpp: the part of the CUDA Driver API ABI that tessel uses, declared here because the
// build machines have no CUDA headers. Values follow NVIDIA's cuda.h / Driver API reference.
#pragma once

#include <cstddef>
#include <cstdint>

// Everything lives in tessel::rt::cu so that a translation unit of a user that also includes
// <cuda.h> sees no clash; only runtime/src/*.cpp include this header.
namespace tessel::rt::cu {

// --- Scalars and opaque handles ---------------------------------------------------------------
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // CUdeviceptr_v2: pointer-sized on LP64
using cuuint32_t = std::uint32_t;
using cuuint64_t = std::uint64_t;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUlinkState = struct CUlinkState_st*;

// --- CUresult values that tessel tests for (the rest are reported through cuGetErrorName) ------
inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
inline constexpr CUresult CUDA_ERROR_DEINITIALIZED = 4;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
inline constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;

// --- cuGetProcAddress -----------------------------------------------------------------------
// CUdriverProcAddress_flags
inline constexpr cuuint64_t CU_GET_PROC_ADDRESS_DEFAULT = 0;
inline constexpr cuuint64_t CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1 << 0;
inline constexpr cuuint64_t CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 1 << 1;
// CUdriverProcAddressQueryResult
enum CUdriverProcAddressQueryResult : int {
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
};
// cuGetProcAddress_v2 (CUDA 12.0+) adds symbolStatus; the unsuffixed export is the 11.3 ABI.
using PFN_cuGetProcAddress_v2 = CUresult (*)(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                             CUdriverProcAddressQueryResult* symbolStatus);
using PFN_cuGetProcAddress_v1 = CUresult (*)(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags);

// --- CUpointer_attribute and CUmemorytype (cuPointerGetAttribute) ----------------------------
enum CUpointer_attribute : int {
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
};
enum CUmemorytype : unsigned int {
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_ARRAY = 3,
  CU_MEMORYTYPE_UNIFIED = 4,
};

// --- CUdevice_attribute ---------------------------------------------------------------------
enum CUdevice_attribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
};

// --- CUfunction_attribute -------------------------------------------------------------------
enum CUfunction_attribute : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
};

// --- CUjit_option (cuModuleLoadDataEx) --------------------------------------------------------
enum CUjit_option : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

// --- CUjitInputType (cuLinkAddData) ------------------------------------------------------------
enum CUjitInputType : int {
  CU_JIT_INPUT_PTX = 1,
};

// --- Streams and events ---------------------------------------------------------------------
inline constexpr unsigned CU_STREAM_DEFAULT = 0x0;  // synchronises with the legacy NULL stream
inline constexpr unsigned CU_EVENT_DEFAULT = 0x0;
inline constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;

// --- cuLaunchKernelEx -----------------------------------------------------------------------
enum CUlaunchAttributeID : int {
  CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
};
// CUlaunchAttributeValue is a 64-byte union; tessel only fills clusterDim.
union CUlaunchAttributeValue {
  char pad[64];
  struct {
    unsigned int x, y, z;
  } clusterDim;
};
struct CUlaunchAttribute {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  CUlaunchAttributeValue value;
};
struct CUlaunchConfig {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned int numAttrs;
};
static_assert(sizeof(CUlaunchAttributeValue) == 64);
static_assert(sizeof(CUlaunchAttribute) == 72 && offsetof(CUlaunchAttribute, value) == 8);
static_assert(offsetof(CUlaunchConfig, hStream) == 32 && offsetof(CUlaunchConfig, attrs) == 40 &&
              sizeof(CUlaunchConfig) == 56);

// --- cuTensorMapEncodeTiled -----------------------------------------------------------------
// The driver requires the descriptor's address to be 64-byte aligned (CUDA 13's header asks 128).
struct alignas(64) CUtensorMap {
  cuuint64_t opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128);
enum CUtensorMapDataType : int {
  CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
  CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1,
  CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2,
  CU_TENSOR_MAP_DATA_TYPE_INT32 = 3,
  CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4,
  CU_TENSOR_MAP_DATA_TYPE_INT64 = 5,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8,
  CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ = 10,
  CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 = 11,
  CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ = 12,
};
enum CUtensorMapInterleave : int {
  CU_TENSOR_MAP_INTERLEAVE_NONE = 0,
  CU_TENSOR_MAP_INTERLEAVE_16B = 1,
  CU_TENSOR_MAP_INTERLEAVE_32B = 2,
};
enum CUtensorMapSwizzle : int {
  CU_TENSOR_MAP_SWIZZLE_NONE = 0,
  CU_TENSOR_MAP_SWIZZLE_32B = 1,
  CU_TENSOR_MAP_SWIZZLE_64B = 2,
  CU_TENSOR_MAP_SWIZZLE_128B = 3,
};
enum CUtensorMapL2promotion : int {
  CU_TENSOR_MAP_L2_PROMOTION_NONE = 0,
  CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1,
  CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2,
  CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3,
};
enum CUtensorMapFloatOOBfill : int {
  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0,
  CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1,
};

// --- The functions tessel calls -------------------------------------------------------------
// X(name, parameter list); each returns CUresult. Each is resolved by its base name through
// cuGetProcAddress at kDriverAbiVersion, which selects the _v2 ABI where one exists
// (cuMemAlloc -> cuMemAlloc_v2, cuMemcpyHtoD -> cuMemcpyHtoD_v2, cuStreamDestroy ->
// cuStreamDestroy_v2, cuDevicePrimaryCtxRelease -> cuDevicePrimaryCtxRelease_v2, cuLinkCreate ->
// cuLinkCreate_v2, cuLinkAddData -> cuLinkAddData_v2, ...). The
// parameter lists below are those of the versions current in CUDA 12.0; keep them in step.
inline constexpr int kDriverAbiVersion = 12000;

#define TESSEL_CU_FUNCTIONS(X)                                                                              \
  X(cuGetErrorName, (CUresult error, const char** str))                                                     \
  X(cuGetErrorString, (CUresult error, const char** str))                                                   \
  X(cuInit, (unsigned int flags))                                                                           \
  X(cuDriverGetVersion, (int* version))                                                                     \
  X(cuDeviceGetCount, (int* count))                                                                         \
  X(cuDeviceGet, (CUdevice * device, int ordinal))                                                          \
  X(cuDeviceGetName, (char* name, int len, CUdevice dev))                                                   \
  X(cuDeviceGetAttribute, (int* value, CUdevice_attribute attrib, CUdevice dev))                            \
  X(cuDeviceTotalMem, (std::size_t * bytes, CUdevice dev))                                                  \
  X(cuDevicePrimaryCtxRetain, (CUcontext * ctx, CUdevice dev))                                              \
  X(cuDevicePrimaryCtxRelease, (CUdevice dev))                                                              \
  X(cuCtxSetCurrent, (CUcontext ctx))                                                                       \
  X(cuCtxGetCurrent, (CUcontext * ctx))                                                                     \
  X(cuCtxGetDevice, (CUdevice * device))                                                                    \
  X(cuCtxSynchronize, ())                                                                                   \
  X(cuMemAlloc, (CUdeviceptr * dptr, std::size_t bytes))                                                    \
  X(cuMemFree, (CUdeviceptr dptr))                                                                          \
  X(cuMemGetInfo, (std::size_t * free, std::size_t * total))                                                \
  X(cuMemcpyHtoD, (CUdeviceptr dst, const void* src, std::size_t bytes))                                    \
  X(cuMemcpyDtoH, (void* dst, CUdeviceptr src, std::size_t bytes))                                          \
  X(cuMemcpyDtoD, (CUdeviceptr dst, CUdeviceptr src, std::size_t bytes))                                    \
  X(cuMemcpyHtoDAsync, (CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream))              \
  X(cuMemcpyDtoHAsync, (void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream))                    \
  X(cuMemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream))              \
  X(cuPointerGetAttribute, (void* data, CUpointer_attribute attribute, CUdeviceptr ptr))                    \
  X(cuMemsetD8, (CUdeviceptr dst, unsigned char value, std::size_t count))                                  \
  X(cuMemsetD8Async, (CUdeviceptr dst, unsigned char value, std::size_t count, CUstream stream))            \
  X(cuStreamCreate, (CUstream * stream, unsigned int flags))                                                \
  X(cuStreamDestroy, (CUstream stream))                                                                     \
  X(cuStreamSynchronize, (CUstream stream))                                                                 \
  X(cuEventCreate, (CUevent * event, unsigned int flags))                                                   \
  X(cuEventDestroy, (CUevent event))                                                                        \
  X(cuEventRecord, (CUevent event, CUstream stream))                                                        \
  X(cuEventSynchronize, (CUevent event))                                                                    \
  X(cuEventQuery, (CUevent event))                                                                          \
  X(cuEventElapsedTime, (float* ms, CUevent start, CUevent end))                                            \
  X(cuModuleLoadDataEx,                                                                                     \
    (CUmodule * module, const void* image, unsigned int num_options, CUjit_option* options, void** values)) \
  X(cuModuleLoadData, (CUmodule * module, const void* image))                                               \
  X(cuModuleUnload, (CUmodule module))                                                                      \
  X(cuLinkCreate, (unsigned int num_options, CUjit_option* options, void** values, CUlinkState* state))     \
  X(cuLinkAddData, (CUlinkState state, CUjitInputType type, void* data, std::size_t size, const char* name, \
                    unsigned int num_options, CUjit_option* options, void** values))                        \
  X(cuLinkComplete, (CUlinkState state, void** image, std::size_t* size))                                   \
  X(cuLinkDestroy, (CUlinkState state))                                                                     \
  X(cuModuleGetFunction, (CUfunction * function, CUmodule module, const char* name))                        \
  X(cuFuncGetAttribute, (int* value, CUfunction_attribute attrib, CUfunction function))                     \
  X(cuFuncSetAttribute, (CUfunction function, CUfunction_attribute attrib, int value))                      \
  X(cuLaunchKernelEx, (const CUlaunchConfig* config, CUfunction function, void** params, void** extra))     \
  X(cuTensorMapEncodeTiled, (CUtensorMap * map, CUtensorMapDataType type, cuuint32_t rank, void* address,   \
                             const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,      \
                             const cuuint32_t* element_strides, CUtensorMapInterleave interleave,           \
                             CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob_fill))

// The resolved entry points of one driver library.
struct DriverApi {
#define TESSEL_CU_MEMBER(name, params) CUresult(*name) params = nullptr;
  TESSEL_CU_FUNCTIONS(TESSEL_CU_MEMBER)
#undef TESSEL_CU_MEMBER
  int version = 0;  // cuDriverGetVersion: 1000 * major + 10 * minor
};

}  // namespace tessel::rt::cu
