// clusters.cu (probe, not part of the build): how many clusters of each kernel the GPU holds at
// once (cuOccupancyMaxActiveClusters) against the SM count / cluster size tessel assumes.
#include <cuda.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); std::printf("%s: %s\n", #x, s); return 1; } } while (0)
int main(int argc, char** argv) {
  CK(cuInit(0));
  CUdevice dev; CK(cuDeviceGet(&dev, 0));
  CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  int sms = 0; CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  std::ifstream list(argv[1]);
  std::string name; int cs, threads, smem;
  while (list >> name >> cs >> threads >> smem) {
    std::ifstream f(std::string(argv[2]) + "/" + name + ".ptx");
    std::stringstream ss; ss << f.rdbuf();
    std::string ptx = ss.str();
    CUmodule m; CK(cuModuleLoadData(&m, ptx.c_str()));
    CUfunction fn; CK(cuModuleGetFunction(&fn, m, name.c_str()));
    CK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cs; attr.value.clusterDim.y = 1; attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg{};
    cfg.gridDimX = cs * (sms / cs); cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = threads; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.sharedMemBytes = smem; cfg.attrs = &attr; cfg.numAttrs = 1;
    int clusters = -1; CUresult r = cuOccupancyMaxActiveClusters(&clusters, fn, &cfg);
    std::printf("%-55s cluster %d smem %6d: max active clusters %d (SMs used %d of %d)%s\n", name.c_str(), cs, smem,
                clusters, clusters * cs, sms, r == CUDA_SUCCESS ? "" : " (query failed)");
    cuModuleUnload(m);
  }
  return 0;
}
