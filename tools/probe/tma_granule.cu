// tma_granule.cu (probe): does a TMA box whose first element is not on a 16-byte granule of its
// tensor run? One 2-D bf16 tensor (64 x 64, rows 128 bytes apart), a box of 16 x 8, loaded (or
// stored) at inner coordinate X; prints "ok" with the data checked, or the CUDA error. One case per
// process (a fault leaves the context unusable): tma_granule load|store X [Y] (Y: the row coordinate, 0).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void load_box(const __grid_constant__ CUtensorMap map, int x, int y, unsigned short* out) {
  __shared__ alignas(128) unsigned short box[8 * 16];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(box));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(b), "r"(256));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(s),
        "l"(&map), "r"(x), "r"(y), "r"(b)
        : "memory");
    asm volatile(
        "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared.b64 p, [%0], 0;\n @!p bra W;\n}" ::"r"(b)
        : "memory");
    for (int i = 0; i < 8 * 16; ++i) out[i] = box[i];
  }
}

__global__ void store_box(const __grid_constant__ CUtensorMap map, int x, int y) {
  __shared__ alignas(128) unsigned short box[8 * 16];
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(box));
  if (threadIdx.x == 0) {
    for (int i = 0; i < 8 * 16; ++i) box[i] = static_cast<unsigned short>(0x4000 + i);
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&map), "r"(x), "r"(y),
                 "r"(s)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) return std::fprintf(stderr, "usage: tma_granule load|store X [Y]\n"), 2;
  const bool store = std::strcmp(argv[1], "store") == 0;
  const int x = std::atoi(argv[2]), y = argc == 4 ? std::atoi(argv[3]) : 0;
  std::vector<unsigned short> host(64 * 64);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned short>(i);
  unsigned short *dev = nullptr, *out = nullptr;
  cudaMalloc(&dev, host.size() * 2);
  cudaMalloc(&out, 256);
  cudaMemcpy(dev, host.data(), host.size() * 2, cudaMemcpyHostToDevice);
  CUtensorMap map;
  const cuuint64_t dims[2] = {64, 64}, strides[1] = {128};
  const cuuint32_t box[2] = {16, 8}, estr[2] = {1, 1};
  const CUresult e = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, dev, dims, strides, box, estr,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (e != CUDA_SUCCESS) return std::printf("%s %d: encode failed %d\n", argv[1], x, e), 1;
  if (store)
    store_box<<<1, 32>>>(map, x, y);
  else
    load_box<<<1, 32>>>(map, x, y, out);
  const cudaError_t r = cudaDeviceSynchronize();
  if (r != cudaSuccess)
    return std::printf("%s at (%d, %d) (%d bytes into a row): %s\n", argv[1], x, y, 2 * x, cudaGetErrorString(r)), 0;
  int bad = 0;
  if (store) {
    cudaMemcpy(host.data(), dev, host.size() * 2, cudaMemcpyDeviceToHost);
    for (int r2 = 0; r2 < 8; ++r2)
      for (int c = 0; c < 16; ++c)
        if (x + c >= 0 && x + c < 64 && y + r2 >= 0 && y + r2 < 64)
          bad += host[size_t((y + r2) * 64 + x + c)] != 0x4000 + r2 * 16 + c;
  } else {
    std::vector<unsigned short> got(128);
    cudaMemcpy(got.data(), out, 256, cudaMemcpyDeviceToHost);
    for (int r2 = 0; r2 < 8; ++r2)
      for (int c = 0; c < 16; ++c)
        bad += got[size_t(r2 * 16 + c)] !=
               (x + c >= 0 && x + c < 64 && y + r2 >= 0 && y + r2 < 64 ? (y + r2) * 64 + x + c : 0);
  }
  std::printf("%s at (%d, %d) (%d bytes into a row): ok, %d of 128 elements wrong\n", argv[1], x, y, 2 * x, bad);
  return 0;
}
