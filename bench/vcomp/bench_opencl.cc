// OpenCL API costs as an application sees them, on whatever platform the loader offers first.
//
// bench/vcomp/compare.py runs this program three times in one go — directly on the host
// platform (the reference), through gsvirt in-process, and through gsvirt over vtest — and prints
// each gsvirt figure as a ratio of the direct one; bench/vcomp/mode_compare.py runs the launch
// and round-trip figures on PoCL and through gsvirt's remote and native modes. Work is
// asynchronous (a launch returns before it runs, a wait sleeps), so the timed benchmarks measure
// wall-clock time: the calling thread's CPU time would miss what the device and the host did.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

const char* kSource = R"(
__kernel void scale(__global float* data, float factor, uint n) {
  size_t i = get_global_id(0);
  if (i < n) data[i] *= factor;
}
)";

struct Setup {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem small = nullptr;
  bool ok = false;

  Setup() {
    cl_int err = clGetPlatformIDs(1, &platform, nullptr);
    if (err != CL_SUCCESS) return;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) return;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &err);
    if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) return;
    kernel = clCreateKernel(program, "scale", &err);
    small = clCreateBuffer(context, CL_MEM_READ_WRITE, 64 * sizeof(float), nullptr, &err);
    ok = err == CL_SUCCESS;
  }
};

Setup& setup() {
  static Setup s;
  return s;
}

#define REQUIRE_SETUP(state)                                   \
  if (!setup().ok) {                                           \
    state.SkipWithError("no OpenCL platform could be set up"); \
    return;                                                    \
  }

// A call that must reach the host and come back: clFinish on an idle queue.
void BM_RoundTrip_FinishIdleQueue(benchmark::State& state) {
  REQUIRE_SETUP(state);
  for (auto _ : state) clFinish(setup().queue);
}
BENCHMARK(BM_RoundTrip_FinishIdleQueue)->MinTime(0.5)->UseRealTime();

// Calls that need no reply, batched by gsvirt: argument updates, one finish per 1024.
void BM_Batched_SetKernelArg(benchmark::State& state) {
  REQUIRE_SETUP(state);
  float factor = 1.0f;
  int64_t calls = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1024; ++i) clSetKernelArg(setup().kernel, 1, sizeof factor, &factor);
    clFinish(setup().queue);
    calls += 1024;
  }
  state.counters["calls_per_s"] = benchmark::Counter(double(calls), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Batched_SetKernelArg)->MinTime(0.5);

// The kernel-launch loop of a typical application: set the arguments, launch, 64 times, finish.
void BM_KernelLaunchLoop(benchmark::State& state) {
  REQUIRE_SETUP(state);
  Setup& s = setup();
  float factor = 1.0001f;
  cl_uint n = 64;
  size_t global = 64;
  int64_t launches = 0;
  for (auto _ : state) {
    for (int i = 0; i < 64; ++i) {
      clSetKernelArg(s.kernel, 0, sizeof(cl_mem), &s.small);
      clSetKernelArg(s.kernel, 1, sizeof factor, &factor);
      clSetKernelArg(s.kernel, 2, sizeof n, &n);
      clEnqueueNDRangeKernel(s.queue, s.kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
    }
    clFinish(s.queue);
    launches += 64;
  }
  state.counters["launches_per_s"] = benchmark::Counter(double(launches), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_KernelLaunchLoop)->MinTime(1.0)->UseRealTime();

// One small kernel as an application waits for it: upload 64 floats, launch, read them back
// (blocking). Every iteration is a full round trip to the device and back.
void BM_SmallKernelRoundTrip(benchmark::State& state) {
  REQUIRE_SETUP(state);
  Setup& s = setup();
  float factor = 1.0f;
  cl_uint n = 64;
  size_t global = 64;
  std::vector<float> data(64, 2.0f), out(64, 0.0f);
  clSetKernelArg(s.kernel, 0, sizeof(cl_mem), &s.small);
  clSetKernelArg(s.kernel, 1, sizeof factor, &factor);
  clSetKernelArg(s.kernel, 2, sizeof n, &n);
  for (auto _ : state) {
    clEnqueueWriteBuffer(s.queue, s.small, CL_FALSE, 0, 64 * sizeof(float), data.data(), 0, nullptr, nullptr);
    clEnqueueNDRangeKernel(s.queue, s.kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
    clEnqueueReadBuffer(s.queue, s.small, CL_TRUE, 0, 64 * sizeof(float), out.data(), 0, nullptr, nullptr);
  }
  if (out != data) state.SkipWithError("the kernel's result differs");
}
BENCHMARK(BM_SmallKernelRoundTrip)->MinTime(1.0)->UseRealTime();

// 64 MiB written to a buffer and read back (blocking), against a plain memcpy of the same bytes
// both ways in the same process.
constexpr size_t kBulk = 64u << 20;

void BM_Bulk_WriteRead64MiB(benchmark::State& state) {
  REQUIRE_SETUP(state);
  Setup& s = setup();
  cl_int err;
  static cl_mem big = clCreateBuffer(s.context, CL_MEM_READ_WRITE, kBulk, nullptr, &err);
  std::vector<char> src(kBulk, 1), dst(kBulk, 0);
  for (auto _ : state) {
    clEnqueueWriteBuffer(s.queue, big, CL_TRUE, 0, kBulk, src.data(), 0, nullptr, nullptr);
    clEnqueueReadBuffer(s.queue, big, CL_TRUE, 0, kBulk, dst.data(), 0, nullptr, nullptr);
  }
  if (std::memcmp(src.data(), dst.data(), kBulk) != 0) state.SkipWithError("read back differs");
  state.SetBytesProcessed(int64_t(state.iterations()) * 2 * kBulk);
}
BENCHMARK(BM_Bulk_WriteRead64MiB)->MinTime(2.0)->UseRealTime();

void BM_Bulk_Memcpy64MiB(benchmark::State& state) {
  std::vector<char> src(kBulk, 1), mid(kBulk, 0), dst(kBulk, 0);
  for (auto _ : state) {
    std::memcpy(mid.data(), src.data(), kBulk);
    std::memcpy(dst.data(), mid.data(), kBulk);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 2 * kBulk);
}
BENCHMARK(BM_Bulk_Memcpy64MiB)->MinTime(2.0)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
