/* A plain OpenCL 1.2 program, used by the quick start: it knows nothing about gsvirt.
 * Adds two vectors on the first GPU/accelerator/CPU device and checks every element. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char* kSource =
    "__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = a[i] + b[i];\n"
    "}\n";

#define CHECK(call)                                                        \
  do {                                                                     \
    cl_int err_ = (call);                                                  \
    if (err_ != CL_SUCCESS) {                                              \
      fprintf(stderr, "%s failed: %d (line %d)\n", #call, err_, __LINE__); \
      return 1;                                                            \
    }                                                                      \
  } while (0)

int main(void) {
  enum { N = 1 << 20 };
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  char name[256], device_name[256];
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name, device_name, NULL));
  printf("platform: %s\ndevice:   %s\n", name, device_name);

  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  CHECK(err);
  float* a = malloc(N * sizeof(float));
  float* b = malloc(N * sizeof(float));
  float* c = malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) {
    a[i] = (float)i;
    b[i] = (float)(N - i) * 0.5f;
  }
  cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * 4, a, &err);
  CHECK(err);
  cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY, N * 4, NULL, &err);
  CHECK(err);
  cl_mem dc = clCreateBuffer(context, CL_MEM_WRITE_ONLY, N * 4, NULL, &err);
  CHECK(err);
  CHECK(clEnqueueWriteBuffer(queue, db, CL_TRUE, 0, N * 4, b, 0, NULL, NULL));

  cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, "", NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "vadd", &err);
  CHECK(err);
  CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &da));
  CHECK(clSetKernelArg(kernel, 1, sizeof(cl_mem), &db));
  CHECK(clSetKernelArg(kernel, 2, sizeof(cl_mem), &dc));
  size_t global = N;
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, N * 4, c, 0, NULL, NULL));
  CHECK(clFinish(queue));

  int bad = 0;
  for (int i = 0; i < N; ++i)
    if (c[i] != a[i] + b[i]) ++bad;
  printf("vector add of %d floats: %s (%d mismatches); c[1] = %.1f, c[%d] = %.1f\n", N,
         bad ? "FAILED" : "verified", bad, c[1], N - 1, c[N - 1]);

  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseMemObject(dc);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  free(a);
  free(b);
  free(c);
  return bad ? 1 : 0;
}
