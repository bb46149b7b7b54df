// peer_add.cu: the CUDA C++ peer of tessel's elementwise add in tessel_elementwise_bench: the plain
// vectorized kernels a CUDA programmer would write (16-byte loads, grid-stride loop). Compiled to
// PTX by nvcc on the device machine (tools/device.sh) and loaded by the benchmark in its process.
#include <cuda_bf16.h>

extern "C" __global__ void peer_add_f32(const float4* __restrict__ a, const float4* __restrict__ b,
                                        float4* __restrict__ c, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
    const float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

extern "C" __global__ void peer_add_bf16(const uint4* __restrict__ a, const uint4* __restrict__ b,
                                         uint4* __restrict__ c, long long n8) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n8; i += (long long)gridDim.x * blockDim.x) {
    uint4 x = a[i], y = b[i], z;
    const __nv_bfloat162* px = reinterpret_cast<const __nv_bfloat162*>(&x);
    const __nv_bfloat162* py = reinterpret_cast<const __nv_bfloat162*>(&y);
    __nv_bfloat162* pz = reinterpret_cast<__nv_bfloat162*>(&z);
    for (int k = 0; k < 4; ++k) pz[k] = __hadd2(px[k], py[k]);
    c[i] = z;
  }
}

// Rows of `cols` elements (a multiple of 4) at a pitch of `pitch` elements.
extern "C" __global__ void peer_add2d_f32(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, long long rows, long long cols, long long pitch) {
  const long long per_row = cols / 4, n = rows * per_row;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long off = (i / per_row) * pitch + (i % per_row) * 4;
    const float4 x = *reinterpret_cast<const float4*>(a + off), y = *reinterpret_cast<const float4*>(b + off);
    *reinterpret_cast<float4*>(c + off) = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
