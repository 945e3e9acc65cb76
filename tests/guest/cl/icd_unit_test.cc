// ICD parts that need no host: dispatch table, kernel-argument classification, source joining,
// capset and reply-header checks, image element sizes, the platform answered locally.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "guest/cl/api.h"
#include "guest/cl/connection.h"
#include "guest/cl/kernel_args.h"
#include "guest/cl/memory.h"
#include "guest/cl/objects.h"
#include "guest/cl/program.h"

namespace gsvirt::icd {
namespace {

TEST(DispatchTable, EverySlotIsFilled) {
  const auto* slots = reinterpret_cast<void* const*>(dispatch_table());
  size_t count = sizeof(cl_icd_dispatch) / sizeof(void*);
  for (size_t i = 0; i < count; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
  EXPECT_EQ(dispatch_table()->clCreateBuffer, &gsvirt_clCreateBuffer);
}

TEST(DispatchTable, UnsupportedSlotsAnswerInvalidOperation) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(dispatch_table()->clCreateFromGLBuffer(nullptr, 0, 0, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
  EXPECT_EQ(dispatch_table()->clEnqueueSVMMemcpy(nullptr, CL_TRUE, nullptr, nullptr, 0, 0, nullptr, nullptr),
            CL_INVALID_OPERATION);
  dispatch_table()->clSVMFree(nullptr, nullptr);  // void: must simply return
}

TEST(Platform, AnsweredWithoutAHost) {
  cl_platform_id platform = nullptr;
  cl_uint n = 0;
  ASSERT_EQ(gsvirt_clGetPlatformIDs(1, &platform, &n), CL_SUCCESS);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(platform->dispatch, dispatch_table());
  char name[16];
  ASSERT_EQ(gsvirt_clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, nullptr), CL_SUCCESS);
  EXPECT_STREQ(name, "gsvirt");
  EXPECT_EQ(gsvirt_clGetPlatformInfo(reinterpret_cast<cl_platform_id>(name), CL_PLATFORM_NAME, 0, nullptr, nullptr),
            CL_INVALID_PLATFORM);
  EXPECT_NE(gsvirt_clGetExtensionFunctionAddress("clIcdGetPlatformIDsKHR"), nullptr);
  EXPECT_EQ(gsvirt_clGetExtensionFunctionAddress("clNoSuchFunction"), nullptr);
}

TEST(Objects, ForeignHandlesAreInvalid) {
  int not_an_object = 0;
  EXPECT_EQ(gsvirt_clRetainContext(reinterpret_cast<cl_context>(&not_an_object)), CL_INVALID_CONTEXT);
  EXPECT_EQ(gsvirt_clReleaseMemObject(nullptr), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(gsvirt_clRetainEvent(reinterpret_cast<cl_event>(the_platform())), CL_INVALID_EVENT);
}

TEST(KernelArgs, NullValueIsLocalSize) {
  KernelArgWire w = classify_kernel_arg(256, nullptr);
  EXPECT_EQ(w.kind, KernelArgKind::kLocalSize);
}

TEST(KernelArgs, LiveMemAndSamplerTravelAsIds) {
  auto* mem = new _cl_mem;
  mem->guest_id = 77;
  registry().add(mem);
  cl_mem handle = mem;
  KernelArgWire w = classify_kernel_arg(sizeof handle, &handle);
  EXPECT_EQ(w.kind, KernelArgKind::kMem);
  EXPECT_EQ(w.object, 77u);

  auto* sampler = new _cl_sampler;
  sampler->guest_id = 78;
  registry().add(sampler);
  cl_sampler s = sampler;
  w = classify_kernel_arg(sizeof s, &s);
  EXPECT_EQ(w.kind, KernelArgKind::kSampler);
  EXPECT_EQ(w.object, 78u);

  cl_mem null_mem = nullptr;
  w = classify_kernel_arg(sizeof null_mem, &null_mem);
  EXPECT_EQ(w.kind, KernelArgKind::kMem);
  EXPECT_EQ(w.object, 0u);
}

TEST(KernelArgs, OtherValuesAreBytes) {
  uint64_t plain = 0x1234567890;  // pointer-sized, but not one of our objects
  KernelArgWire w = classify_kernel_arg(sizeof plain, &plain);
  EXPECT_EQ(w.kind, KernelArgKind::kValueBytes);
  EXPECT_EQ(w.value, &plain);
  EXPECT_EQ(w.value_size, sizeof plain);
  float f = 1.5f;
  w = classify_kernel_arg(sizeof f, &f);
  EXPECT_EQ(w.kind, KernelArgKind::kValueBytes);
}

TEST(Program, SourcePiecesAreJoined) {
  const char* parts[] = {"abcdef", "xyz", "123"};
  size_t lengths[] = {3, 0, 2};
  EXPECT_EQ(concatenate_source(3, parts, lengths), "abcxyz12");
  EXPECT_EQ(concatenate_source(2, parts, nullptr), "abcdefxyz");
}

TEST(Connection, CapsetMustMatchVersionAndHash) {
  proto::Capset caps{};
  caps.wire_version = proto::kWireVersion;
  std::memcpy(caps.xml_hash, proto::kXmlHash, sizeof caps.xml_hash);
  std::vector<uint8_t> bytes(sizeof caps);
  std::memcpy(bytes.data(), &caps, sizeof caps);
  std::string error;
  EXPECT_TRUE(capset_matches(bytes, &error)) << error;
  bytes[4] ^= 1;  // one character of the hash
  EXPECT_FALSE(capset_matches(bytes, &error));
  EXPECT_NE(error.find("protocol mismatch"), std::string::npos);
  caps.wire_version = proto::kWireVersion + 1;
  std::memcpy(bytes.data(), &caps, sizeof caps);
  EXPECT_FALSE(capset_matches(bytes, &error));
  bytes.resize(8);
  EXPECT_FALSE(capset_matches(bytes, &error));
}

TEST(Connection, ReplyHeaderChecksSeqnoAndSize) {
  proto::ReplyHeader h{};
  h.seqno = 5;
  h.payload_size = 100;
  std::string error;
  EXPECT_TRUE(reply_header_valid(h, 5, 4096, &error));
  EXPECT_FALSE(reply_header_valid(h, 6, 4096, &error));
  EXPECT_NE(error.find("seqno 5, expected 6"), std::string::npos);
  h.payload_size = 5000;
  EXPECT_FALSE(reply_header_valid(h, 5, 4096, &error));
}

TEST(Images, ElementSizes) {
  EXPECT_EQ(image_element_size({CL_RGBA, CL_UNORM_INT8}), 4u);
  EXPECT_EQ(image_element_size({CL_RGBA, CL_FLOAT}), 16u);
  EXPECT_EQ(image_element_size({CL_R, CL_HALF_FLOAT}), 2u);
  EXPECT_EQ(image_element_size({CL_RGB, CL_UNORM_SHORT_565}), 2u);
  // The x orders count the channels of their plain order.
  EXPECT_EQ(image_element_size({CL_Rx, CL_UNORM_INT8}), 1u);
  EXPECT_EQ(image_element_size({CL_RGx, CL_FLOAT}), 8u);
  EXPECT_EQ(image_element_size({CL_RGBx, CL_UNORM_INT16}), 6u);
  EXPECT_EQ(image_element_size({CL_RGBx, CL_UNORM_SHORT_555}), 2u);
  EXPECT_EQ(image_element_size({CL_sRGBx, CL_UNORM_INT8}), 3u);
  EXPECT_EQ(image_element_size({0x1234, CL_FLOAT}), 0u);
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE2D;
  d.image_width = 8;
  d.image_height = 4;
  EXPECT_EQ(image_host_bytes(d, 4), 128u);
  d.image_row_pitch = 40;
  EXPECT_EQ(image_host_bytes(d, 4), 160u);
}

}  // namespace
}  // namespace gsvirt::icd

namespace gsvirt::icd {
namespace {

TEST(KernelArgs, ScalarTypeSizes) {
  EXPECT_EQ(scalar_type_size("float"), 4u);
  EXPECT_EQ(scalar_type_size("uchar"), 1u);
  EXPECT_EQ(scalar_type_size("float3"), 16u);
  EXPECT_EQ(scalar_type_size("double16"), 128u);
  EXPECT_EQ(scalar_type_size("struct point"), 0u);
  EXPECT_EQ(scalar_type_size("int5"), 0u);
}

TEST(KernelArgs, ChecksFromArgumentInfo) {
  KernelArgInfo local{true, CL_KERNEL_ARG_ADDRESS_LOCAL, "int*"};
  int v = 0;
  EXPECT_EQ(check_kernel_arg(local, 64, nullptr), CL_SUCCESS);
  EXPECT_EQ(check_kernel_arg(local, 64, &v), CL_INVALID_ARG_VALUE);
  EXPECT_EQ(check_kernel_arg(local, 0, nullptr), CL_INVALID_ARG_SIZE);
  KernelArgInfo global{true, CL_KERNEL_ARG_ADDRESS_GLOBAL, "float*"};
  cl_mem null_mem = nullptr;
  EXPECT_EQ(check_kernel_arg(global, sizeof null_mem, &null_mem), CL_SUCCESS);
  EXPECT_EQ(check_kernel_arg(global, 4, &v), CL_INVALID_ARG_SIZE);
  void* bogus = &v;
  EXPECT_EQ(check_kernel_arg(global, sizeof bogus, &bogus), CL_INVALID_MEM_OBJECT);
  KernelArgInfo scalar{true, CL_KERNEL_ARG_ADDRESS_PRIVATE, "int"};
  EXPECT_EQ(check_kernel_arg(scalar, 4, &v), CL_SUCCESS);
  long wide = 0;
  EXPECT_EQ(check_kernel_arg(scalar, sizeof wide, &wide), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(check_kernel_arg(scalar, 4, nullptr), CL_INVALID_ARG_VALUE);
  KernelArgInfo sampler{true, CL_KERNEL_ARG_ADDRESS_PRIVATE, "sampler_t"};
  EXPECT_EQ(check_kernel_arg(sampler, sizeof bogus, &bogus), CL_INVALID_SAMPLER);
  EXPECT_EQ(check_kernel_arg(sampler, 4, &v), CL_INVALID_ARG_SIZE);
  KernelArgInfo unknown;
  EXPECT_EQ(check_kernel_arg(unknown, 3, nullptr), CL_SUCCESS);  // the host will judge
}

}  // namespace
}  // namespace gsvirt::icd
