// kernels.hpp: small hand-written PTX kernels that the runtime's GPU tests load and launch
// (each one assembles with `ptxas -arch=<its target>`; the codegen tests cover generated PTX).
#pragma once

namespace tessel::test {

// c[i] = a[i] + b[i] for i < n, f32; one thread per element.
inline constexpr const char* kVectorAddPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry tessel_test_vadd(
    .param .u64 a,
    .param .u64 b,
    .param .u64 c,
    .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;

    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
)";

// Thread 0 of block b writes out[4b .. 4b+3] = (b, %cluster_nctarank, %cluster_ctarank, v) where
// v = b + 1000 went through the last 4 bytes of `smem_bytes` of dynamic shared memory.
inline constexpr const char* kClusterInfoPtx = R"(
.version 8.0
.target sm_90
.address_size 64

.extern .shared .align 16 .b8 dsmem[];

.visible .entry tessel_test_cluster_info(
    .param .u64 out,
    .param .u32 smem_bytes)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<5>;

    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [smem_bytes];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %cluster_nctarank;
    mov.u32 %r5, %cluster_ctarank;
    mov.u32 %r6, dsmem;
    add.u32 %r7, %r6, %r2;
    sub.u32 %r7, %r7, 4;
    add.u32 %r8, %r3, 1000;
    st.volatile.shared.u32 [%r7], %r8;
    ld.volatile.shared.u32 %r9, [%r7];
    mul.wide.u32 %rd3, %r3, 16;
    add.s64 %rd4, %rd2, %rd3;
    st.global.v4.u32 [%rd4], {%r3, %r4, %r5, %r9};
DONE:
    ret;
}
)";

}  // namespace tessel::test
