/* A kernel that prints: through gsvirt its text must come out on this program's stdout, before
 * what the program prints after clFinish, and never on the host's. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *kSource =
    "__kernel void hello(int base) {\n"
    "  printf(\"kernel-printf-marker %d\\n\", base + (int)get_global_id(0));\n"
    "}\n";

#define CHECK(what, err)                                   \
  do {                                                     \
    if ((err) != CL_SUCCESS) {                             \
      fprintf(stderr, "%s failed: %d\n", (what), (err));   \
      return 1;                                            \
    }                                                      \
  } while (0)

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err = clGetPlatformIDs(1, &platform, NULL);
  CHECK("clGetPlatformIDs", err);
  err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  CHECK("clGetDeviceIDs", err);
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK("clCreateContext", err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  CHECK("clCreateCommandQueue", err);
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &err);
  CHECK("clCreateProgramWithSource", err);
  err = clBuildProgram(program, 1, &device, "", NULL, NULL);
  CHECK("clBuildProgram", err);
  cl_kernel kernel = clCreateKernel(program, "hello", &err);
  CHECK("clCreateKernel", err);
  cl_int base = 100;
  err = clSetKernelArg(kernel, 0, sizeof base, &base);
  CHECK("clSetKernelArg", err);
  size_t global = 4;
  err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
  CHECK("clEnqueueNDRangeKernel", err);
  err = clFinish(queue);
  CHECK("clFinish", err);
  printf("app: finished\n");
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
