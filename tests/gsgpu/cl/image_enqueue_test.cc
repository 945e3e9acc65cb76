// Image transfers (gsgpu/cl/image_enqueue.cc): every supported format of every image type goes
// through write / read / copy / copy to and from buffers / map and comes back unchanged; regions and
// pitches are checked per image type; fill converts its colour by the spec's rules.
#include <cmath>

#include "tests/gsgpu/cl/image_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using ImageEnqueueTest = ImageFixture;
using Region = std::array<size_t, 3>;

constexpr cl_image_format kRgba8{CL_RGBA, CL_UNORM_INT8};

const ImageFixture::Shape kShapes[] = {
    {CL_MEM_OBJECT_IMAGE1D, 5},
    {CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, 0, 0, 3},
    {CL_MEM_OBJECT_IMAGE2D, 5, 3},
    {CL_MEM_OBJECT_IMAGE2D_ARRAY, 5, 3, 0, 2},
    {CL_MEM_OBJECT_IMAGE3D, 5, 3, 2},
};

std::vector<cl_image_format> supported(const cl_icd_dispatch& api, cl_context c, cl_mem_object_type type) {
  cl_uint n = 0;
  EXPECT_EQ(api.clGetSupportedImageFormats(c, CL_MEM_READ_WRITE, type, 0, nullptr, &n), CL_SUCCESS);
  std::vector<cl_image_format> out(n);
  EXPECT_EQ(api.clGetSupportedImageFormats(c, CL_MEM_READ_WRITE, type, n, out.data(), nullptr), CL_SUCCESS);
  return out;
}

TEST_F(ImageEnqueueTest, EveryFormatAndTypeRoundTripsThroughEveryTransfer) {
  uint32_t seed = 10;
  for (const Shape& s : kShapes) {
    for (const cl_image_format& f : supported(api(), context_, s.type)) {
      SCOPED_TRACE(::testing::Message() << "type " << s.type << " order " << f.image_channel_order << " data type "
                                      << f.image_channel_data_type);
      cl_mem a = image(f, s);
      ASSERT_NE(a, nullptr);
      const size_t px = image_info<size_t>(a, CL_IMAGE_ELEMENT_SIZE);
      const auto bytes = random_bytes(pixels(s) * px, ++seed);
      write_image(a, {0, 0, 0}, whole(s), bytes);
      EXPECT_EQ(read_image(a, {0, 0, 0}, whole(s), px), bytes);
      // Image to image.
      cl_mem b = image(f, s);
      const Region r = whole(s), o = {0, 0, 0};
      ASSERT_EQ(api().clEnqueueCopyImage(queue_, a, b, o.data(), o.data(), r.data(), 0, nullptr, nullptr), CL_SUCCESS);
      EXPECT_EQ(read_image(b, o, r, px), bytes);
      // Through a buffer, at an offset.
      cl_mem buf = buffer(bytes.size() + 8);
      ASSERT_EQ(api().clEnqueueCopyImageToBuffer(queue_, a, buf, o.data(), r.data(), 8, 0, nullptr, nullptr),
                CL_SUCCESS);
      auto through = read<uint8_t>(buf, bytes.size() + 8);
      EXPECT_EQ(std::vector<uint8_t>(through.begin() + 8, through.end()), bytes);
      cl_mem c = image(f, s);
      ASSERT_EQ(api().clEnqueueCopyBufferToImage(queue_, buf, c, 8, o.data(), r.data(), 0, nullptr, nullptr),
                CL_SUCCESS);
      EXPECT_EQ(read_image(c, o, r, px), bytes);
      // Mapped: the image's own pitches.
      size_t row = 0, slice = 0;
      cl_int err = CL_SUCCESS;
      auto* p = static_cast<uint8_t*>(api().clEnqueueMapImage(queue_, c, CL_TRUE, CL_MAP_READ, o.data(), r.data(),
                                                              &row, &slice, 0, nullptr, nullptr, &err));
      ASSERT_EQ(err, CL_SUCCESS);
      EXPECT_EQ(row, image_info<size_t>(c, CL_IMAGE_ROW_PITCH));
      EXPECT_EQ(slice, image_info<size_t>(c, CL_IMAGE_SLICE_PITCH));
      EXPECT_EQ(std::vector<uint8_t>(p, p + bytes.size()), bytes);  // packed layout
      ASSERT_EQ(api().clEnqueueUnmapMemObject(queue_, c, p, 0, nullptr, nullptr), CL_SUCCESS);
      ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
      for (cl_mem m : {a, b, buf, c}) {
        api().clReleaseMemObject(m);
        std::erase(mems_, m);
      }
    }
  }
}

TEST_F(ImageEnqueueTest, PartialRegionsUseTheHostsPitches) {
  // A 2x2x2 box at (1, 1, 1) of a 4x3x3 3D image, written from rows of 12 bytes and slices of 40.
  const Shape s{CL_MEM_OBJECT_IMAGE3D, 4, 3, 3};
  cl_mem m = image(kRgba8, s);
  std::vector<uint8_t> host(80, 0xee);
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 2; ++y)
      for (size_t x = 0; x < 8; ++x) host[z * 40 + y * 12 + x] = uint8_t(1 + z * 16 + y * 8 + x);
  const Region origin{1, 1, 1}, region{2, 2, 2}, zero{0, 0, 0};
  ASSERT_EQ(api().clEnqueueWriteImage(queue_, m, CL_TRUE, origin.data(), region.data(), 12, 40, host.data(), 0,
                                      nullptr, nullptr),
            CL_SUCCESS);
  const auto all = read_image(m, zero, whole(s), 4);
  for (size_t z = 0; z < 3; ++z)
    for (size_t y = 0; y < 3; ++y)
      for (size_t x = 0; x < 4; ++x) {
        const bool inside = z >= 1 && y >= 1 && x >= 1 && x < 3;
        const uint8_t want = inside ? uint8_t(1 + (z - 1) * 16 + (y - 1) * 8 + (x - 1) * 4) : 0;
        EXPECT_EQ(all[((z * 3 + y) * 4 + x) * 4], want) << x << "," << y << "," << z;
      }
  // Read back with other pitches: only the box's bytes are written.
  std::vector<uint8_t> back(100, 0x55);
  ASSERT_EQ(api().clEnqueueReadImage(queue_, m, CL_TRUE, origin.data(), region.data(), 10, 50, back.data(), 0,
                                     nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(back[0], 1);
  EXPECT_EQ(back[8], 0x55);
  EXPECT_EQ(back[10], 9);
  EXPECT_EQ(back[50], 17);
  EXPECT_EQ(back[99], 0x55);
}

TEST_F(ImageEnqueueTest, RegionsAreCheckedForEachImageType) {
  uint8_t host[1024] = {};
  auto read_error = [&](cl_mem m, Region o, Region r, size_t row = 0, size_t slice = 0) {
    return api().clEnqueueReadImage(queue_, m, CL_TRUE, o.data(), r.data(), row, slice, host, 0, nullptr, nullptr);
  };
  cl_mem one = image(kRgba8, Shape{CL_MEM_OBJECT_IMAGE1D, 8});
  cl_mem arr = image(kRgba8, Shape{CL_MEM_OBJECT_IMAGE1D_ARRAY, 8, 0, 0, 4});
  cl_mem two = image(kRgba8, Shape{CL_MEM_OBJECT_IMAGE2D, 8, 4});
  cl_mem arr2 = image(kRgba8, Shape{CL_MEM_OBJECT_IMAGE2D_ARRAY, 8, 4, 0, 3});
  cl_mem three = image(kRgba8, Shape{CL_MEM_OBJECT_IMAGE3D, 8, 4, 3});
  EXPECT_EQ(read_error(one, {0, 0, 0}, {8, 1, 1}), CL_SUCCESS);
  EXPECT_EQ(read_error(one, {0, 1, 0}, {1, 1, 1}), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(one, {0, 0, 0}, {1, 2, 1}), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(one, {7, 0, 0}, {2, 1, 1}), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(one, {0, 0, 0}, {0, 1, 1}), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(arr, {0, 3, 0}, {8, 1, 1}), CL_SUCCESS);
  EXPECT_EQ(read_error(arr, {0, 3, 0}, {8, 2, 1}), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(arr, {0, 0, 1}, {8, 1, 1}), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(two, {0, 0, 0}, {8, 4, 1}), CL_SUCCESS);
  EXPECT_EQ(read_error(two, {0, 0, 0}, {8, 4, 2}), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(arr2, {0, 0, 2}, {8, 4, 1}), CL_SUCCESS);
  EXPECT_EQ(read_error(arr2, {0, 0, 2}, {8, 4, 2}), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(three, {0, 0, 0}, {8, 4, 3}), CL_SUCCESS);
  EXPECT_EQ(read_error(three, {0, 4, 0}, {1, 1, 1}), CL_INVALID_VALUE);
  // Origins and regions near SIZE_MAX wrap nothing.
  EXPECT_EQ(read_error(three, {SIZE_MAX, 0, 0}, {2, 1, 1}), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(three, {1, 0, 0}, {SIZE_MAX, 1, 1}), CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueReadImage(queue_, two, CL_TRUE, nullptr, Region{1, 1, 1}.data(), 0, 0, host, 0, nullptr,
                                     nullptr),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueReadImage(queue_, two, CL_TRUE, Region{0, 0, 0}.data(), Region{1, 1, 1}.data(), 0, 0,
                                     nullptr, 0, nullptr, nullptr),
            CL_INVALID_VALUE);
  // Host pitches: a row holds the region's row; 1D and 2D images take no slice pitch.
  EXPECT_EQ(read_error(two, {0, 0, 0}, {4, 2, 1}, 15), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(two, {0, 0, 0}, {4, 2, 1}, 16), CL_SUCCESS);
  EXPECT_EQ(read_error(two, {0, 0, 0}, {4, 2, 1}, 0, 64), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(one, {0, 0, 0}, {4, 1, 1}, 0, 16), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(three, {0, 0, 0}, {4, 2, 2}, 16, 31), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(three, {0, 0, 0}, {4, 2, 2}, 16, 32), CL_SUCCESS);
  EXPECT_EQ(read_error(arr, {0, 0, 0}, {4, 2, 1}, 16, 15), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(three, {0, 0, 0}, {4, 2, 2}, SIZE_MAX, 0), CL_INVALID_VALUE);
  EXPECT_EQ(read_error(three, {0, 0, 0}, {4, 2, 2}, 16, SIZE_MAX), CL_INVALID_VALUE);
  // A buffer is not an image.
  cl_mem buf = buffer(64);
  EXPECT_EQ(read_error(buf, {0, 0, 0}, {1, 1, 1}), CL_INVALID_MEM_OBJECT);
}

TEST_F(ImageEnqueueTest, CopiesCheckFormatsOverlapAndBufferRanges) {
  const cl_image_format other{CL_RGBA, CL_UNSIGNED_INT8};
  cl_mem a = image(kRgba8, Shape{CL_MEM_OBJECT_IMAGE2D, 8, 8});
  cl_mem b = image(other, Shape{CL_MEM_OBJECT_IMAGE2D, 8, 8});
  const Region o{0, 0, 0}, r{4, 4, 1}, o2{2, 2, 0}, o4{4, 4, 0};
  EXPECT_EQ(api().clEnqueueCopyImage(queue_, a, b, o.data(), o.data(), r.data(), 0, nullptr, nullptr),
            CL_IMAGE_FORMAT_MISMATCH);
  EXPECT_EQ(api().clEnqueueCopyImage(queue_, a, a, o.data(), o2.data(), r.data(), 0, nullptr, nullptr),
            CL_MEM_COPY_OVERLAP);
  EXPECT_EQ(api().clEnqueueCopyImage(queue_, a, a, o.data(), o4.data(), r.data(), 0, nullptr, nullptr), CL_SUCCESS);
  cl_mem buf = buffer(64);
  EXPECT_EQ(api().clEnqueueCopyImageToBuffer(queue_, a, buf, o.data(), r.data(), 0, 0, nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(api().clEnqueueCopyImageToBuffer(queue_, a, buf, o.data(), r.data(), 4, 0, nullptr, nullptr),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueCopyBufferToImage(queue_, buf, a, SIZE_MAX, o.data(), r.data(), 0, nullptr, nullptr),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueCopyBufferToImage(queue_, a, a, 0, o.data(), r.data(), 0, nullptr, nullptr),
            CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(api().clEnqueueCopyImageToBuffer(queue_, buf, buf, o.data(), r.data(), 0, 0, nullptr, nullptr),
            CL_INVALID_MEM_OBJECT);
}

TEST_F(ImageEnqueueTest, CopiesMoveBetweenImageTypes) {
  // A 2D image into slice 1 of a 3D image, and layer 2 of a 2D array out to a 2D image.
  const Shape s2{CL_MEM_OBJECT_IMAGE2D, 4, 3}, s3{CL_MEM_OBJECT_IMAGE3D, 4, 3, 2},
      sa{CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 0, 3};
  cl_mem flat = image(kRgba8, s2), vol = image(kRgba8, s3), arr = image(kRgba8, sa), out = image(kRgba8, s2);
  const auto bytes = random_bytes(4 * 3 * 4, 7);
  write_image(flat, {0, 0, 0}, whole(s2), bytes);
  const Region zero{0, 0, 0}, slice1{0, 0, 1}, layer2{0, 0, 2}, r{4, 3, 1};
  ASSERT_EQ(api().clEnqueueCopyImage(queue_, flat, vol, zero.data(), slice1.data(), r.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(read_image(vol, {0, 0, 1}, {4, 3, 1}, 4), bytes);
  EXPECT_EQ(read_image(vol, {0, 0, 0}, {4, 3, 1}, 4), std::vector<uint8_t>(bytes.size(), 0));
  ASSERT_EQ(api().clEnqueueCopyImage(queue_, vol, arr, slice1.data(), layer2.data(), r.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueCopyImage(queue_, arr, out, layer2.data(), zero.data(), r.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(read_image(out, {0, 0, 0}, whole(s2), 4), bytes);
}

// Fills a 3x1 1D image's middle pixel with `color` and returns its bytes (the others stay zero).
template <typename Color>
std::vector<uint8_t> fill_one(const cl_icd_dispatch& api, cl_command_queue q, const Color& color, cl_mem m,
                              size_t px) {
  const Region o{1, 0, 0}, r{1, 1, 1};
  EXPECT_EQ(api.clEnqueueFillImage(q, m, &color, o.data(), r.data(), 0, nullptr, nullptr), CL_SUCCESS);
  std::vector<uint8_t> all(3 * px);
  const Region zero{0, 0, 0}, three{3, 1, 1};
  EXPECT_EQ(api.clEnqueueReadImage(q, m, CL_TRUE, zero.data(), three.data(), 0, 0, all.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  for (size_t i = 0; i < px; ++i) {
    EXPECT_EQ(all[i], 0) << "pixel 0 changed";
    EXPECT_EQ(all[2 * px + i], 0) << "pixel 2 changed";
  }
  return std::vector<uint8_t>(all.begin() + px, all.begin() + 2 * px);
}

TEST_F(ImageEnqueueTest, FillConvertsItsColourByTheSpecsRules) {
  const Shape s{CL_MEM_OBJECT_IMAGE1D, 3};
  const cl_float4 fc = {{0.5f, 1.5f, -0.25f, NAN}};
  struct Case {
    cl_image_format format;
    std::vector<uint8_t> want;
  };
  const Case float_cases[] = {
      {{CL_RGBA, CL_UNORM_INT8}, {128, 255, 0, 0}},  // 127.5 rounds to even; saturated; NaN is 0
      {{CL_BGRA, CL_UNORM_INT8}, {0, 255, 128, 0}},
      {{CL_RGBA, CL_SNORM_INT8}, {64, 127, 0xe0, 0}},  // 63.5 -> 64, -31.75 -> -32
      {{CL_RGBA, CL_UNORM_INT16}, {0x00, 0x80, 0xff, 0xff, 0, 0, 0, 0}},  // 32767.5 -> 32768
      {{CL_R, CL_SNORM_INT16}, {0x00, 0x40}},                             // 16383.5 -> 16384
      {{CL_RG, CL_HALF_FLOAT}, {0x00, 0x38, 0x00, 0x3e}},                 // 0.5, 1.5
  };
  for (const Case& c : float_cases) {
    cl_mem m = image(c.format, s);
    EXPECT_EQ(fill_one(api(), queue_, fc, m, c.want.size()), c.want)
        << c.format.image_channel_order << " " << c.format.image_channel_data_type;
  }
  cl_mem mf = image({CL_RGBA, CL_FLOAT}, s);
  const auto f = fill_one(api(), queue_, fc, mf, 16);
  float got[4];
  std::memcpy(got, f.data(), 16);
  EXPECT_EQ(got[0], 0.5f);
  EXPECT_EQ(got[2], -0.25f);
  EXPECT_TRUE(std::isnan(got[3]));
  const cl_int4 ic = {{300, -300, 5, -1}};
  cl_mem m8 = image({CL_RGBA, CL_SIGNED_INT8}, s);
  EXPECT_EQ(fill_one(api(), queue_, ic, m8, 4),
            (std::vector<uint8_t>{127, 0x80, 5, 0xff}));
  const cl_uint4 uc = {{70000, 65535, 1, 0xffffffffu}};
  cl_mem m16 = image({CL_RG, CL_UNSIGNED_INT16}, s);
  EXPECT_EQ(fill_one(api(), queue_, uc, m16, 4),
            (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff}));
  cl_mem m32 = image({CL_R, CL_UNSIGNED_INT32}, s);
  EXPECT_EQ(fill_one(api(), queue_, uc, m32, 4),
            (std::vector<uint8_t>{0x70, 0x11, 0x01, 0x00}));
  // The region is checked; the colour pointer is required.
  const Region o{0, 0, 0}, r{4, 1, 1};
  EXPECT_EQ(api().clEnqueueFillImage(queue_, m32, &uc, o.data(), r.data(), 0, nullptr, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueFillImage(queue_, m32, nullptr, o.data(), Region{1, 1, 1}.data(), 0, nullptr, nullptr),
            CL_INVALID_VALUE);
}

TEST_F(ImageEnqueueTest, MapsGiveTheImagesPitchesAndWriteThrough) {
  const Shape s{CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 0, 2};
  cl_mem m = image(kRgba8, s);
  const Region origin{1, 1, 1}, region{2, 2, 1};
  size_t row = 0, slice = 0;
  cl_int err = CL_SUCCESS;
  auto* p = static_cast<uint8_t*>(api().clEnqueueMapImage(queue_, m, CL_TRUE, CL_MAP_WRITE, origin.data(),
                                                          region.data(), &row, &slice, 0, nullptr, nullptr, &err));
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(row, 16u);
  EXPECT_EQ(slice, 48u);
  EXPECT_EQ(mem_info<cl_uint>(m, CL_MEM_MAP_COUNT), 1u);
  p[0] = 7;            // (1, 1, 1)
  p[row + 4] = 9;      // (2, 2, 1)
  ASSERT_EQ(api().clEnqueueUnmapMemObject(queue_, m, p, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(mem_info<cl_uint>(m, CL_MEM_MAP_COUNT), 0u);
  EXPECT_EQ(read_image(m, {1, 1, 1}, {1, 1, 1}, 4)[0], 7);
  EXPECT_EQ(read_image(m, {2, 2, 1}, {1, 1, 1}, 4)[0], 9);
  // A layered image needs somewhere for its slice pitch; 2D images report 0.
  EXPECT_EQ(api().clEnqueueMapImage(queue_, m, CL_TRUE, CL_MAP_READ, origin.data(), region.data(), &row, nullptr, 0,
                                    nullptr, nullptr, &err),
            nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  EXPECT_EQ(api().clEnqueueMapImage(queue_, m, CL_TRUE, CL_MAP_READ, origin.data(), region.data(), nullptr, &slice, 0,
                                    nullptr, nullptr, &err),
            nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  cl_mem flat = image(kRgba8, Shape{CL_MEM_OBJECT_IMAGE2D, 4, 3});
  slice = 99;
  p = static_cast<uint8_t*>(api().clEnqueueMapImage(queue_, flat, CL_TRUE, CL_MAP_READ, Region{0, 0, 0}.data(),
                                                    Region{4, 3, 1}.data(), &row, &slice, 0, nullptr, nullptr, &err));
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(slice, 0u);
  ASSERT_EQ(api().clEnqueueUnmapMemObject(queue_, flat, p, 0, nullptr, nullptr), CL_SUCCESS);
  // Map flags and host access.
  EXPECT_EQ(api().clEnqueueMapImage(queue_, flat, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
                                    Region{0, 0, 0}.data(), Region{1, 1, 1}.data(), &row, &slice, 0, nullptr, nullptr,
                                    &err),
            nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  cl_mem hidden = image(kRgba8, desc_of(Shape{CL_MEM_OBJECT_IMAGE2D, 4, 3}), CL_MEM_HOST_NO_ACCESS);
  EXPECT_EQ(api().clEnqueueMapImage(queue_, hidden, CL_TRUE, CL_MAP_READ, Region{0, 0, 0}.data(),
                                    Region{1, 1, 1}.data(), &row, &slice, 0, nullptr, nullptr, &err),
            nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
  uint8_t px[4];
  EXPECT_EQ(api().clEnqueueReadImage(queue_, hidden, CL_TRUE, Region{0, 0, 0}.data(), Region{1, 1, 1}.data(), 0, 0,
                                     px, 0, nullptr, nullptr),
            CL_INVALID_OPERATION);
  cl_mem wo = image(kRgba8, desc_of(Shape{CL_MEM_OBJECT_IMAGE2D, 4, 3}), CL_MEM_HOST_READ_ONLY);
  EXPECT_EQ(api().clEnqueueWriteImage(queue_, wo, CL_TRUE, Region{0, 0, 0}.data(), Region{1, 1, 1}.data(), 0, 0, px,
                                      0, nullptr, nullptr),
            CL_INVALID_OPERATION);
}

TEST_F(ImageEnqueueTest, TransfersAreOrderedWithEventsAndOtherCommands) {
  // buffer -> image -> image -> host, all non-blocking, chained by the in-order queue and events.
  const Shape s{CL_MEM_OBJECT_IMAGE2D, 8, 8};
  const auto bytes = random_bytes(8 * 8 * 4, 11);
  cl_mem buf = buffer(bytes.size());
  cl_mem a = image(kRgba8, s), b = image(kRgba8, s);
  const Region o{0, 0, 0}, r{8, 8, 1};
  cl_event written = nullptr, copied = nullptr, done = nullptr;
  ASSERT_EQ(api().clEnqueueWriteBuffer(queue_, buf, CL_FALSE, 0, bytes.size(), bytes.data(), 0, nullptr, &written),
            CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueCopyBufferToImage(queue_, buf, a, 0, o.data(), r.data(), 1, &written, nullptr), CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueCopyImage(queue_, a, b, o.data(), o.data(), r.data(), 0, nullptr, &copied), CL_SUCCESS);
  std::vector<uint8_t> out(bytes.size());
  ASSERT_EQ(api().clEnqueueReadImage(queue_, b, CL_FALSE, o.data(), r.data(), 0, 0, out.data(), 1, &copied, &done),
            CL_SUCCESS);
  ASSERT_EQ(api().clWaitForEvents(1, &done), CL_SUCCESS);
  EXPECT_EQ(out, bytes);
  cl_command_type type = 0;
  EXPECT_EQ(api().clGetEventInfo(copied, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
  EXPECT_EQ(type, cl_command_type(CL_COMMAND_COPY_IMAGE));
  EXPECT_EQ(api().clGetEventInfo(done, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
  EXPECT_EQ(type, cl_command_type(CL_COMMAND_READ_IMAGE));
  for (cl_event e : {written, copied, done}) api().clReleaseEvent(e);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
