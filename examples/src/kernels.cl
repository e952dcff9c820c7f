// Example kernels for rocpath's bundled example data. Each kernel takes the fast path
// only where the target has the instructions for it, like the ROCm math libraries do:
// dot4 where the chip has dot instructions, MFMA on CDNA, WMMA on RDNA3/4, and a plain
// multiply-add fallback everywhere else.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef unsigned int uint;
typedef half half8 __attribute__((ext_vector_type(8)));
typedef half half16 __attribute__((ext_vector_type(16)));
typedef float float4v __attribute__((ext_vector_type(4)));
typedef float float8v __attribute__((ext_vector_type(8)));

static uint gid(void) { return __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x(); }

__kernel void saxpy(__global float *y, __global const float *x, float a, uint n) {
  uint i = gid();
  if (i < n) y[i] = a * x[i] + y[i];
}

__kernel void dot_i8(__global int *out, __global const int *a, __global const int *b, uint n) {
  uint i = gid();
  if (i >= n) return;
  int acc = 0;
  for (uint k = 0; k < 64; ++k) {
    int va = a[i * 64 + k], vb = b[i * 64 + k];
#if defined(__gfx906__) || defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx942__) || defined(__gfx1030__)
    acc = __builtin_amdgcn_sdot4(va, vb, acc, false);          /* v_dot4_i32_i8 */
#elif defined(__gfx1100__) || defined(__gfx1201__)
    acc = __builtin_amdgcn_sudot4(true, va, true, vb, acc, false); /* v_dot4_i32_iu8 */
#else
    char4 ca = as_char4(va), cb = as_char4(vb);                 /* fallback: multiply-add */
    acc += ca.x * cb.x + ca.y * cb.y + ca.z * cb.z + ca.w * cb.w;
#endif
  }
  out[i] = acc;
}

__kernel void gemm_tile(__global float *c, __global const float *a, __global const float *b) {
  uint lane = __builtin_amdgcn_workitem_id_x();
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx942__)
  float4v acc = {0, 0, 0, 0};
  for (int k = 0; k < 16; ++k)
    acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[lane * 16 + k], b[lane * 16 + k], acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r) c[lane * 4 + r] = acc[r];
#elif defined(__gfx1100__)
  half16 ha, hb;
  for (int k = 0; k < 16; ++k) { ha[k] = (half)a[lane * 16 + k]; hb[k] = (half)b[lane * 16 + k]; }
  float8v acc = {0, 0, 0, 0, 0, 0, 0, 0};
  acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(ha, hb, acc);
  for (int r = 0; r < 8; ++r) c[lane * 8 + r] = acc[r];
#elif defined(__gfx1201__)
  half8 ha, hb;
  for (int k = 0; k < 8; ++k) { ha[k] = (half)a[lane * 8 + k]; hb[k] = (half)b[lane * 8 + k]; }
  float8v acc = {0, 0, 0, 0, 0, 0, 0, 0};
  acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(ha, hb, acc);
  for (int r = 0; r < 8; ++r) c[lane * 8 + r] = acc[r];
#else
  float acc = 0;
  for (int k = 0; k < 16; ++k) acc = fma(a[lane * 16 + k], b[k * 16 + lane], acc);
  c[lane] = acc;
#endif
}
