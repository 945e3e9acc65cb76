// Kernel throughput as an application sees it, on whatever platform the loader offers first:
// vector add, SGEMM (naive and tiled through local memory) and Mandelbrot.
//
// bench/vcomp/executor_compare.py runs this program directly on the host platform (PoCL, the
// reference) and through `gsvirt run --executor gsgpu` in one go and prints each kernel's throughput
// on gsgpu as a ratio of the direct one. Every kernel's output is checked against a CPU reference
// once before timing, so a fast wrong answer reports an error instead of a figure.
#include <CL/cl.h>  // CL_TARGET_OPENCL_VERSION comes from the project's arguments
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// The kernels' text, shared with the compiler's and the executor's tests.
#include "tests/common/benchmark_kernels.h"

namespace {

namespace sources = gsvirt::kernel_sources;

constexpr cl_uint kSgemmN = 256;
constexpr cl_uint kMandelW = 512, kMandelH = 512, kMandelIter = 256;

struct Setup {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  std::string error;

  Setup() {
    cl_platform_id platform;
    cl_int err = clGetPlatformIDs(1, &platform, nullptr);
    if (err == CL_SUCCESS) err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr);
    if (err == CL_SUCCESS) context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (err == CL_SUCCESS) queue = clCreateCommandQueue(context, device, 0, &err);
    std::string source;
    for (const char* part : sources::kBenchmarkProgram) source += part;
    const char* text = source.c_str();
    if (err == CL_SUCCESS) program = clCreateProgramWithSource(context, 1, &text, nullptr, &err);
    if (err == CL_SUCCESS) err = clBuildProgram(program, 1, &device, "", nullptr, nullptr);
    if (err != CL_SUCCESS) error = "OpenCL set-up failed: " + std::to_string(err);
  }

  cl_mem buffer(size_t bytes, const void* init) {
    cl_int err;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              const_cast<void*>(init), &err);
    return err == CL_SUCCESS ? m : nullptr;
  }
};

Setup& setup() {
  static Setup s;
  return s;
}

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(int(i * 7919u % 101u) - 50) * scale;
  return v;
}

// One kernel with its buffers; run() enqueues it and waits; output() reads the result back.
struct Launch {
  cl_kernel kernel = nullptr;
  std::vector<cl_mem> buffers;
  cl_uint dims = 1;
  size_t global[2] = {1, 1};
  size_t local[2] = {0, 0};
  bool with_local = false;

  cl_int run() {
    cl_command_queue q = setup().queue;
    cl_int err = clEnqueueNDRangeKernel(q, kernel, dims, nullptr, global,
                                        with_local ? local : nullptr, 0, nullptr, nullptr);
    return err == CL_SUCCESS ? clFinish(q) : err;
  }
  template <typename T>
  std::vector<T> output(cl_mem m, size_t count) {
    std::vector<T> v(count);
    clEnqueueReadBuffer(setup().queue, m, CL_TRUE, 0, count * sizeof(T), v.data(), 0, nullptr,
                        nullptr);
    return v;
  }
  ~Launch() {
    for (cl_mem m : buffers) clReleaseMemObject(m);
    if (kernel) clReleaseKernel(kernel);
  }
};

bool make_kernel(benchmark::State& state, Launch& l, const char* name) {
  if (!setup().error.empty()) {
    state.SkipWithError(setup().error.c_str());
    return false;
  }
  cl_int err;
  l.kernel = clCreateKernel(setup().program, name, &err);
  if (err != CL_SUCCESS) state.SkipWithError("clCreateKernel failed");
  return err == CL_SUCCESS;
}

void set_args(Launch& l, cl_uint scalar_count, const cl_uint* scalars) {
  cl_uint i = 0;
  for (cl_mem& m : l.buffers) clSetKernelArg(l.kernel, i++, sizeof(cl_mem), &m);
  for (cl_uint s = 0; s < scalar_count; ++s) clSetKernelArg(l.kernel, i++, sizeof(cl_uint), &scalars[s]);
}

// Times launch+finish; `items` is what one launch processes (the reported rate's unit).
void time_launches(benchmark::State& state, Launch& l, double items, const char* unit) {
  for (auto _ : state) {
    if (l.run() != CL_SUCCESS) {
      state.SkipWithError("launch failed");
      return;
    }
  }
  state.counters[unit] = benchmark::Counter(items * double(state.iterations()),
                                            benchmark::Counter::kIsRate);
}

// Two sizes: 1 Mi elements (12 MiB in all, inside a server's last-level cache) and 16 Mi elements
// (192 MiB: more than four times the LLC, STREAM's rule for measuring memory rather than cache).
void BM_VectorAdd(benchmark::State& state) {
  Launch l;
  if (!make_kernel(state, l, "vadd")) return;
  const cl_uint n = cl_uint(state.range(0));
  auto a = ramp(n, 0.5f), b = ramp(n, 0.25f);
  l.buffers = {setup().buffer(a.size() * 4, a.data()), setup().buffer(b.size() * 4, b.data()),
               setup().buffer(a.size() * 4, nullptr)};
  set_args(l, 1, &n);
  l.global[0] = n;
  if (l.run() != CL_SUCCESS) return state.SkipWithError("launch failed");
  auto c = l.output<float>(l.buffers[2], n);
  for (size_t i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) return state.SkipWithError("vadd: wrong result");
  time_launches(state, l, n, "elements_per_s");
}
BENCHMARK(BM_VectorAdd)->Arg(1 << 20)->Arg(1 << 24)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);

void sgemm(benchmark::State& state, const char* name, bool tiled) {
  Launch l;
  if (!make_kernel(state, l, name)) return;
  const size_t n = kSgemmN;
  auto a = ramp(n * n, 1.0f / 64), b = ramp(n * n, 1.0f / 32);
  l.buffers = {setup().buffer(n * n * 4, a.data()), setup().buffer(n * n * 4, b.data()),
               setup().buffer(n * n * 4, nullptr)};
  set_args(l, 1, &kSgemmN);
  l.dims = 2;
  l.global[0] = l.global[1] = n;
  l.with_local = tiled;
  l.local[0] = l.local[1] = sources::kSgemmTile;
  if (l.run() != CL_SUCCESS) return state.SkipWithError("launch failed");
  auto c = l.output<float>(l.buffers[2], n * n);
  for (size_t r = 0; r < n; r += 37)
    for (size_t col = 0; col < n; ++col) {
      double ref = 0;
      for (size_t k = 0; k < n; ++k) ref += double(a[r * n + k]) * b[k * n + col];
      if (std::fabs(c[r * n + col] - ref) > 1e-3 * (1 + std::fabs(ref)))
        return state.SkipWithError("sgemm: wrong result");
    }
  time_launches(state, l, 2.0 * n * n * n, "flops");
}
void BM_SgemmNaive(benchmark::State& state) { sgemm(state, "sgemm_naive", false); }
void BM_SgemmTiled(benchmark::State& state) { sgemm(state, "sgemm_tiled", true); }
BENCHMARK(BM_SgemmNaive)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_SgemmTiled)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);

uint32_t mandel_ref(uint32_t x, uint32_t y) {
  return sources::mandelbrot_reference(x, y, kMandelW, kMandelH, kMandelIter);
}

void BM_Mandelbrot(benchmark::State& state) {
  Launch l;
  if (!make_kernel(state, l, "mandelbrot")) return;
  l.buffers = {setup().buffer(size_t(kMandelW) * kMandelH * 4, nullptr)};
  const cl_uint scalars[] = {kMandelW, kMandelH, kMandelIter};
  set_args(l, 3, scalars);
  l.dims = 2;
  l.global[0] = kMandelW;
  l.global[1] = kMandelH;
  if (l.run() != CL_SUCCESS) return state.SkipWithError("launch failed");
  auto out = l.output<uint32_t>(l.buffers[0], size_t(kMandelW) * kMandelH);
  // Contraction into FMA may move a point on the set's edge by an iteration or so: compare the
  // total iteration count, and require nearly every pixel to match exactly.
  uint64_t total = 0, ref_total = 0, mismatched = 0;
  for (uint32_t y = 0; y < kMandelH; ++y)
    for (uint32_t x = 0; x < kMandelW; ++x) {
      uint32_t r = mandel_ref(x, y), got = out[y * kMandelW + x];
      total += got;
      ref_total += r;
      mismatched += got != r;
    }
  if (mismatched * 100 > uint64_t(kMandelW) * kMandelH ||
      std::llabs(int64_t(total) - int64_t(ref_total)) * 100 > int64_t(ref_total))
    return state.SkipWithError("mandelbrot: wrong result");
  state.counters["iterations"] = double(ref_total);
  time_launches(state, l, double(ref_total), "iterations_per_s");
}
BENCHMARK(BM_Mandelbrot)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
