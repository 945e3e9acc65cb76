/* The VM route's two costs, as a plain OpenCL program that runs the same way inside a `gsvirt vm`
 * guest and on the host under `gsvirt run` (bench/vm/vm_compare.py runs both): the reply round trip
 * (clFinish on an idle queue, which waits for a host reply) and a blocking 64 MiB clEnqueueWriteBuffer
 * + clEnqueueReadBuffer, with a memcpy of the same size there and back in the same process as the
 * reference. No Google Benchmark: the guest (Debian 13) lacks Debian 12's libbenchmark soname.
 * Prints "name value unit" lines; each value is the median of its rounds. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cl_int err_ = (call);                                                  \
    if (err_ != CL_SUCCESS) {                                              \
      fprintf(stderr, "%s failed: %d (line %d)\n", #call, err_, __LINE__); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

enum { kRounds = 7, kFinishesPerRound = 200, kBulkBytes = 64 << 20 };

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* values, int n) {
  qsort(values, (size_t)n, sizeof *values, by_value);
  return values[n / 2];
}

static void round_trip(cl_command_queue queue) {
  double per_call[kRounds];
  for (int i = 0; i < 20; ++i) CHECK(clFinish(queue));
  for (int r = 0; r < kRounds; ++r) {
    double start = now_s();
    for (int i = 0; i < kFinishesPerRound; ++i) CHECK(clFinish(queue));
    per_call[r] = (now_s() - start) / kFinishesPerRound;
  }
  printf("round_trip %.2f us\n", median(per_call, kRounds) * 1e6);
}

static void bulk(cl_context context, cl_command_queue queue) {
  char* src = malloc(kBulkBytes);
  char* dst = malloc(kBulkBytes);
  if (!src || !dst) exit(1);
  memset(src, 0x5a, kBulkBytes);
  memset(dst, 0, kBulkBytes);
  cl_int err;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, kBulkBytes, NULL, &err);
  CHECK(err);
  double transfer[kRounds], copy[kRounds];
  for (int r = 0; r < kRounds; ++r) {
    double start = now_s();
    CHECK(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, kBulkBytes, src, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, kBulkBytes, dst, 0, NULL, NULL));
    transfer[r] = 2.0 * kBulkBytes / (now_s() - start) / 1e9;
    start = now_s();
    memcpy(dst, src, kBulkBytes);
    memcpy(src, dst, kBulkBytes);
    copy[r] = 2.0 * kBulkBytes / (now_s() - start) / 1e9;
  }
  if (memcmp(src, dst, kBulkBytes) != 0) {
    fprintf(stderr, "64 MiB read back differs from what was written\n");
    exit(1);
  }
  printf("write_read_64mib %.3f GB/s\n", median(transfer, kRounds));
  printf("memcpy_64mib %.3f GB/s\n", median(copy, kRounds));
  CHECK(clReleaseMemObject(buffer));
  free(src);
  free(dst);
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  CHECK(err);
  round_trip(queue);
  bulk(context, queue);
  CHECK(clReleaseCommandQueue(queue));
  CHECK(clReleaseContext(context));
  return 0;
}
