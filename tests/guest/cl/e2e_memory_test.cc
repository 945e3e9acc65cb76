// Buffers, sub-buffers, rectangles, fills, copies, maps and images through the ICD.
#include <cstring>
#include <numeric>
#include <vector>

#include "e2e_fixture.h"

namespace gsvirt::icd::test {
namespace {

cl_mem make_buffer(size_t size, cl_mem_flags flags = CL_MEM_READ_WRITE, void* host_ptr = nullptr) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(cl_env().context, flags, size, host_ptr, &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return mem;
}

std::vector<uint8_t> read_all(cl_mem mem, size_t size) {
  std::vector<uint8_t> out(size);
  EXPECT_EQ(clEnqueueReadBuffer(cl_env().queue, mem, CL_TRUE, 0, size, out.data(), 0, nullptr, nullptr), CL_SUCCESS);
  return out;
}

TEST(IcdMemory, WriteCopyFillRead) {
  std::vector<uint8_t> data(4096);
  std::iota(data.begin(), data.end(), uint8_t(0));
  cl_mem a = make_buffer(data.size()), b = make_buffer(data.size());
  ASSERT_EQ(clEnqueueWriteBuffer(cl_env().queue, a, CL_TRUE, 0, data.size(), data.data(), 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clEnqueueCopyBuffer(cl_env().queue, a, b, 100, 0, 1000, 0, nullptr, nullptr), CL_SUCCESS);
  uint32_t pattern = 0xdeadbeef;
  ASSERT_EQ(clEnqueueFillBuffer(cl_env().queue, b, &pattern, sizeof pattern, 2048, 1024, 0, nullptr, nullptr), CL_SUCCESS);
  auto got = read_all(b, data.size());
  EXPECT_EQ(std::memcmp(got.data(), data.data() + 100, 1000), 0);
  for (size_t i = 2048; i < 3072; i += 4) {
    uint32_t v;
    std::memcpy(&v, &got[i], 4);
    ASSERT_EQ(v, pattern) << "at " << i;
  }
  std::vector<uint8_t> middle(10);
  ASSERT_EQ(clEnqueueReadBuffer(cl_env().queue, a, CL_TRUE, 200, 10, middle.data(), 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(middle[0], uint8_t(200));
  clReleaseMemObject(a);
  clReleaseMemObject(b);
}

TEST(IcdMemory, InfoIsLocalAndHostPtrIsKept) {
  std::vector<int> host(64, 5);
  cl_mem mem = make_buffer(host.size() * sizeof(int), CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, host.data());
  void* ptr = nullptr;
  ASSERT_EQ(clGetMemObjectInfo(mem, CL_MEM_HOST_PTR, sizeof ptr, &ptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(ptr, host.data());
  cl_mem_flags flags = 0;
  ASSERT_EQ(clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, nullptr), CL_SUCCESS);
  EXPECT_TRUE(flags & CL_MEM_USE_HOST_PTR);
  size_t size = 0;
  ASSERT_EQ(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr), CL_SUCCESS);
  EXPECT_EQ(size, host.size() * sizeof(int));
  // The host copied the initial contents.
  auto got = read_all(mem, 8);
  int first;
  std::memcpy(&first, got.data(), 4);
  EXPECT_EQ(first, 5);
  // Mapping a USE_HOST_PTR buffer returns the app's own memory, refreshed from the device.
  int nine = 9;
  ASSERT_EQ(clEnqueueFillBuffer(cl_env().queue, mem, &nine, sizeof nine, 0, 16, 0, nullptr, nullptr), CL_SUCCESS);
  cl_int err = CL_SUCCESS;
  void* mapped = clEnqueueMapBuffer(cl_env().queue, mem, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(mapped, host.data());
  EXPECT_EQ(host[0], 9);
  EXPECT_EQ(host[3], 9);
  ASSERT_EQ(clEnqueueUnmapMemObject(cl_env().queue, mem, mapped, 0, nullptr, nullptr), CL_SUCCESS);
  clReleaseMemObject(mem);
}

TEST(IcdMemory, SubBufferSeesItsParentsBytes) {
  cl_mem parent = make_buffer(4096);
  std::vector<uint8_t> data(4096);
  std::iota(data.begin(), data.end(), uint8_t(7));
  ASSERT_EQ(clEnqueueWriteBuffer(cl_env().queue, parent, CL_TRUE, 0, data.size(), data.data(), 0, nullptr, nullptr), CL_SUCCESS);
  cl_uint align_bits = 0;
  clGetDeviceInfo(cl_env().device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, nullptr);
  size_t origin = std::max<size_t>(align_bits / 8, 128);
  cl_buffer_region region = {origin, 256};
  cl_int err = CL_SUCCESS;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  auto got = read_all(sub, 256);
  EXPECT_EQ(std::memcmp(got.data(), data.data() + origin, 256), 0);
  cl_mem associated = nullptr;
  size_t offset = 0;
  ASSERT_EQ(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, nullptr), CL_SUCCESS);
  ASSERT_EQ(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof offset, &offset, nullptr), CL_SUCCESS);
  EXPECT_EQ(associated, parent);
  EXPECT_EQ(offset, origin);
  cl_buffer_region outside = {4000, 256};
  EXPECT_EQ(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &outside, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  // The parent may be released first: the sub-buffer keeps it alive.
  clReleaseMemObject(parent);
  got = read_all(sub, 4);
  EXPECT_EQ(got[0], data[origin]);
  clReleaseMemObject(sub);
}

TEST(IcdMemory, RectanglesUseTheAppsPitches) {
  // A 16x8 byte buffer; write a 4x3 rectangle at (2, 1) from a host block with row pitch 10.
  cl_mem mem = make_buffer(16 * 8);
  std::vector<uint8_t> zero(16 * 8, 0);
  ASSERT_EQ(clEnqueueWriteBuffer(cl_env().queue, mem, CL_TRUE, 0, zero.size(), zero.data(), 0, nullptr, nullptr), CL_SUCCESS);
  std::vector<uint8_t> host(10 * 4, 0);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) host[(y + 1) * 10 + x + 1] = uint8_t(10 * y + x + 1);
  size_t buffer_origin[3] = {2, 1, 0}, host_origin[3] = {1, 1, 0}, region[3] = {4, 3, 1};
  ASSERT_EQ(clEnqueueWriteBufferRect(cl_env().queue, mem, CL_TRUE, buffer_origin, host_origin, region, 16, 0, 10, 0,
                                     host.data(), 0, nullptr, nullptr), CL_SUCCESS);
  auto all = read_all(mem, 16 * 8);
  EXPECT_EQ(all[1 * 16 + 2], 1);
  EXPECT_EQ(all[3 * 16 + 5], 24);
  EXPECT_EQ(all[0], 0);
  std::vector<uint8_t> back(5 * 3, 0xff);
  size_t back_origin[3] = {1, 0, 0};
  ASSERT_EQ(clEnqueueReadBufferRect(cl_env().queue, mem, CL_TRUE, buffer_origin, back_origin, region, 16, 0, 5, 0,
                                    back.data(), 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(back[0], 0xff);  // outside the rectangle: untouched
  EXPECT_EQ(back[1], 1);
  EXPECT_EQ(back[2 * 5 + 4], 24);
  size_t far_origin[3] = {14, 7, 0};
  EXPECT_EQ(clEnqueueReadBufferRect(cl_env().queue, mem, CL_TRUE, far_origin, back_origin, region, 16, 0, 5, 0,
                                    back.data(), 0, nullptr, nullptr), CL_INVALID_VALUE);
  size_t src_origin[3] = {2, 1, 0}, dst_origin[3] = {0, 5, 0};
  ASSERT_EQ(clEnqueueCopyBufferRect(cl_env().queue, mem, mem, src_origin, dst_origin, region, 16, 0, 16, 0, 0, nullptr,
                                    nullptr), CL_SUCCESS);
  all = read_all(mem, 16 * 8);
  EXPECT_EQ(all[5 * 16 + 0], 1);
  clReleaseMemObject(mem);
}

TEST(IcdMemory, MapForWritingThenMapForReading) {
  const size_t n = 100000;  // larger than the inline limit: staged both ways
  cl_mem mem = make_buffer(n * sizeof(int));
  cl_int err = CL_SUCCESS;
  auto* p = static_cast<int*>(clEnqueueMapBuffer(cl_env().queue, mem, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                                  n * sizeof(int), 0, nullptr, nullptr, &err));
  ASSERT_EQ(err, CL_SUCCESS);
  for (size_t i = 0; i < n; ++i) p[i] = int(i * 3);
  cl_uint map_count = 0;
  ASSERT_EQ(clGetMemObjectInfo(mem, CL_MEM_MAP_COUNT, sizeof map_count, &map_count, nullptr), CL_SUCCESS);
  EXPECT_EQ(map_count, 1u);
  ASSERT_EQ(clEnqueueUnmapMemObject(cl_env().queue, mem, p, 0, nullptr, nullptr), CL_SUCCESS);
  auto* q = static_cast<int*>(clEnqueueMapBuffer(cl_env().queue, mem, CL_TRUE, CL_MAP_READ, 40, 400, 0, nullptr,
                                                  nullptr, &err));
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(q[0], 30);
  EXPECT_EQ(q[99], 109 * 3);
  ASSERT_EQ(clEnqueueUnmapMemObject(cl_env().queue, mem, q, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(clEnqueueUnmapMemObject(cl_env().queue, mem, q, 0, nullptr, nullptr), CL_INVALID_VALUE);
  clReleaseMemObject(mem);
}

TEST(IcdMemory, DestructorCallbacksRunInReverseOrder) {
  cl_mem mem = make_buffer(64);
  static std::vector<int> order;
  order.clear();
  auto first = [](cl_mem, void*) { order.push_back(1); };
  auto second = [](cl_mem, void*) { order.push_back(2); };
  ASSERT_EQ(clSetMemObjectDestructorCallback(mem, first, nullptr), CL_SUCCESS);
  ASSERT_EQ(clSetMemObjectDestructorCallback(mem, second, nullptr), CL_SUCCESS);
  clReleaseMemObject(mem);
  EXPECT_EQ(order, (std::vector<int>{2, 1}));
}

bool images_supported() {
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(cl_env().device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  return images == CL_TRUE;
}

TEST(IcdImage, WriteReadAndMapA2DImage) {
  if (!images_supported()) GTEST_SKIP() << "device has no image support";
  cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc = {};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 8;
  desc.image_height = 4;
  cl_int err = CL_SUCCESS;
  cl_mem image = clCreateImage(cl_env().context, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  // Host rows padded to 40 bytes (8 pixels * 4 bytes + 8 spare).
  std::vector<uint8_t> pixels(40 * 4, 0);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 32; ++x) pixels[y * 40 + x] = uint8_t(y * 32 + x);
  size_t origin[3] = {0, 0, 0}, region[3] = {8, 4, 1};
  ASSERT_EQ(clEnqueueWriteImage(cl_env().queue, image, CL_TRUE, origin, region, 40, 0, pixels.data(), 0, nullptr, nullptr), CL_SUCCESS);
  std::vector<uint8_t> back(32 * 4);
  ASSERT_EQ(clEnqueueReadImage(cl_env().queue, image, CL_TRUE, origin, region, 0, 0, back.data(), 0, nullptr, nullptr), CL_SUCCESS);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 32; ++x) ASSERT_EQ(back[y * 32 + x], uint8_t(y * 32 + x));
  size_t element = 0;
  ASSERT_EQ(clGetImageInfo(image, CL_IMAGE_ELEMENT_SIZE, sizeof element, &element, nullptr), CL_SUCCESS);
  EXPECT_EQ(element, 4u);
  size_t width = 0;
  ASSERT_EQ(clGetImageInfo(image, CL_IMAGE_WIDTH, sizeof width, &width, nullptr), CL_SUCCESS);
  EXPECT_EQ(width, 8u);
  size_t map_origin[3] = {2, 1, 0}, map_region[3] = {2, 2, 1}, row_pitch = 0;
  auto* mapped = static_cast<uint8_t*>(clEnqueueMapImage(cl_env().queue, image, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                         map_origin, map_region, &row_pitch, nullptr, 0, nullptr,
                                                         nullptr, &err));
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(mapped[0], uint8_t(1 * 32 + 8));
  mapped[row_pitch] = 0xAB;  // pixel (2, 2), first channel
  ASSERT_EQ(clEnqueueUnmapMemObject(cl_env().queue, image, mapped, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clEnqueueReadImage(cl_env().queue, image, CL_TRUE, origin, region, 0, 0, back.data(), 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(back[2 * 32 + 8], 0xAB);

  cl_uint num_formats = 0;
  ASSERT_EQ(clGetSupportedImageFormats(cl_env().context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, nullptr,
                                       &num_formats), CL_SUCCESS);
  EXPECT_GT(num_formats, 0u);
  std::vector<cl_image_format> formats(num_formats);
  ASSERT_EQ(clGetSupportedImageFormats(cl_env().context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, num_formats,
                                       formats.data(), nullptr), CL_SUCCESS);
  bool found = false;
  for (auto& f : formats) found |= f.image_channel_order == CL_RGBA && f.image_channel_data_type == CL_UNSIGNED_INT8;
  EXPECT_TRUE(found);
  clReleaseMemObject(image);
}

// Host data at the application's pitches reaches the host packed: the image holds the pixels,
// never the padding.
TEST(IcdImage, PitchedHostDataBecomesThePackedImage) {
  if (!images_supported()) GTEST_SKIP() << "device has no image support";
  cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc = {};
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = 3;
  desc.image_height = 2;
  desc.image_depth = 2;
  desc.image_row_pitch = 16;    // 12 bytes of pixels
  desc.image_slice_pitch = 48;  // 32 bytes of rows
  std::vector<uint8_t> host(96, 0xee), want;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 12; ++x) {
        host[z * 48 + y * 16 + x] = uint8_t(z * 100 + y * 20 + x);
        want.push_back(uint8_t(z * 100 + y * 20 + x));
      }
  cl_int err = CL_SUCCESS;
  cl_mem image = clCreateImage(cl_env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc,
                               host.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<uint8_t> back(want.size());
  size_t origin[3] = {0, 0, 0}, region[3] = {3, 2, 2};
  ASSERT_EQ(clEnqueueReadImage(cl_env().queue, image, CL_TRUE, origin, region, 0, 0, back.data(), 0, nullptr,
                               nullptr),
            CL_SUCCESS);
  EXPECT_EQ(back, want);
  clReleaseMemObject(image);
  // Pitches that break the spec's rules are refused in the guest (the host only sees packed data).
  desc.image_row_pitch = 10;
  EXPECT_EQ(clCreateImage(cl_env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, host.data(),
                          &err),
            nullptr);
  EXPECT_EQ(err, CL_INVALID_IMAGE_DESCRIPTOR);
  desc.image_row_pitch = 16;
  desc.image_slice_pitch = 40;
  EXPECT_EQ(clCreateImage(cl_env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, host.data(),
                          &err),
            nullptr);
  EXPECT_EQ(err, CL_INVALID_IMAGE_DESCRIPTOR);
}

TEST(IcdImage, SamplerInfoIsLocal) {
  if (!images_supported()) GTEST_SKIP() << "device has no image support";
  cl_int err = CL_SUCCESS;
  cl_sampler sampler = clCreateSampler(cl_env().context, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_addressing_mode mode = 0;
  ASSERT_EQ(clGetSamplerInfo(sampler, CL_SAMPLER_ADDRESSING_MODE, sizeof mode, &mode, nullptr), CL_SUCCESS);
  EXPECT_EQ(mode, cl_addressing_mode(CL_ADDRESS_REPEAT));
  clReleaseSampler(sampler);
}

}  // namespace
}  // namespace gsvirt::icd::test

#include <thread>

namespace gsvirt::icd::test {
namespace {

// OpenCL is thread-safe: several threads sharing the context and queue each get their own data.
TEST(IcdThreads, ConcurrentBuffersOnOneQueue) {
  constexpr int kThreads = 4;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      for (int round = 0; round < 20; ++round) {
        cl_int err = CL_SUCCESS;
        std::vector<int> data(1000, t * 1000 + round), back(1000, -1);
        cl_mem mem = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4000, data.data(), &err);
        if (err != CL_SUCCESS) { ++failures[t]; continue; }
        err = clEnqueueReadBuffer(cl_env().queue, mem, CL_TRUE, 0, 4000, back.data(), 0, nullptr, nullptr);
        if (err != CL_SUCCESS || back != data) ++failures[t];
        clReleaseMemObject(mem);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace gsvirt::icd::test
