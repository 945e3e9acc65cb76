// The OpenCL C kernels gsgpu is benchmarked with, in one place: bench/vcomp/bench_kernels.cc times
// them (gsgpu against the host platform), tests/gsgpu/compiler/kernels_test.cc runs them through the
// compiler and the emulator, tests/gsgpu/cl/kernels_test.cc through the executor's OpenCL
// API. So the code the benchmark measures is the code the tests check.
//
// Self-contained on purpose (no project includes), so the benchmark needs nothing else of tests/.
#pragma once

#include <cstdint>

namespace gsvirt::kernel_sources {

// vadd(a, b, c, uint n): c[i] = a[i] + b[i] for i < n; any 1-D NDRange of at least n work-items.
inline constexpr char kVectorAdd[] = R"(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, uint n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
)";

// sgemm_naive(a, b, c, uint n): C = A * B, n x n floats, row-major; a 2-D NDRange of n x n
// work-items (x: column, y: row), any local size.
inline constexpr char kSgemmNaive[] = R"(
/* C = A * B, all n x n row-major; one work-item per element of C. */
__kernel void sgemm_naive(__global const float* a, __global const float* b, __global float* c,
                          uint n) {
  size_t col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (uint k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
)";

// sgemm_tiled(a, b, c, uint n): the same product through __local tiles; the local size must be
// kSgemmTile x kSgemmTile and n a multiple of kSgemmTile.
inline constexpr uint32_t kSgemmTile = 16;
inline constexpr char kSgemmTiled[] = R"(
/* The same product in TILE x TILE blocks staged through local memory (n a multiple of TILE). */
#define TILE 16
__kernel void sgemm_tiled(__global const float* a, __global const float* b, __global float* c,
                          uint n) {
  __local float ta[TILE][TILE];
  __local float tb[TILE][TILE];
  size_t lx = get_local_id(0), ly = get_local_id(1);
  size_t col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (uint t = 0; t < n; t += TILE) {
    ta[ly][lx] = a[row * n + t + lx];
    tb[ly][lx] = b[(t + ly) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k) acc += ta[ly][k] * tb[k][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = acc;
}
)";

// mandelbrot(out, uint width, uint height, uint max_iter): out[y * width + x] = the escape-time
// iterations of pixel (x, y) (mandelbrot_reference); a 2-D NDRange of width x height work-items.
inline constexpr char kMandelbrot[] = R"(
/* Escape-time iterations of z = z^2 + c over [-2, 1] x [-1.5, 1.5]. */
__kernel void mandelbrot(__global uint* out, uint width, uint height, uint max_iter) {
  size_t x = get_global_id(0), y = get_global_id(1);
  float cr = -2.0f + 3.0f * (float)x / (float)width;
  float ci = -1.5f + 3.0f * (float)y / (float)height;
  float zr = 0.0f, zi = 0.0f;
  uint i = 0;
  while (i < max_iter && zr * zr + zi * zi <= 4.0f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    ++i;
  }
  out[y * width + x] = i;
}
)";

// The benchmark's program: its source is these strings joined in this order.
inline constexpr const char* kBenchmarkProgram[] = {kVectorAdd, kSgemmNaive, kSgemmTiled, kMandelbrot};

// What mandelbrot computes for one pixel, in the same float operations. A device that contracts
// a multiply-add into an FMA may differ by an iteration or so on the set's edge.
inline uint32_t mandelbrot_reference(uint32_t x, uint32_t y, uint32_t width, uint32_t height, uint32_t max_iter) {
  const float cr = -2.0f + 3.0f * float(x) / float(width);
  const float ci = -1.5f + 3.0f * float(y) / float(height);
  float zr = 0.0f, zi = 0.0f;
  uint32_t i = 0;
  while (i < max_iter && zr * zr + zi * zi <= 4.0f) {
    const float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    ++i;
  }
  return i;
}

}  // namespace gsvirt::kernel_sources
