// Hostile compute on gsgpu (no reference: each case is refused by the driver with a log line, or
// faults on the device and is reported): group counts over maxComputeWorkGroupCount, indirect
// arguments outside their buffer or over the limits, a work-group size over the device's, a program
// that never ends (the watchdog). After each, a good dispatch still computes the right values.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "compute_fixture.h"
#include "shader_compute_endless_comp.h"
#include "shader_compute_reduce_comp.h"
#include "shader_compute_shared_too_big_comp.h"
#include "shader_compute_specialized_comp.h"

namespace gsgpu::vk::test {
namespace {

int count_lines(const std::string& log, const char* needle) {
  int n = 0;
  for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) ++n;
  return n;
}

class VkComputeHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    TestDevices found;
    ASSERT_TRUE(create_test_instance(VK_API_VERSION_1_1, &instance_, &found));
    ASSERT_FALSE(found.gsgpu.empty()) << "no gsgpu device";
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(found.gsgpu[0], &p);
    limits_ = p.limits;
    side_ = std::make_unique<ComputeSide>(found.gsgpu[0]);
    in_.resize(4 * 128);
    for (uint32_t i = 0; i < in_.size(); ++i) in_[i] = i * 7 % 1000;
  }
  void TearDown() override {
    side_.reset();
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

  // The reduction pipeline with its input (4 groups of values) and a fresh output buffer (0xab).
  void make_reduction() {
    ASSERT_EQ(side_->pipeline(shader_compute_reduce_comp, sizeof shader_compute_reduce_comp,
                              {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, 0, &reduce_),
              VK_SUCCESS);
    uint8_t* src = nullptr;
    VkBuffer a = side_->buffer(in_.size() * 4, &src);
    std::memcpy(src, in_.data(), in_.size() * 4);
    VkBuffer b = side_->buffer(64 * 16, &out_);
    std::memset(out_, 0xab, 64 * 16);
    set_ = side_->set({a, b});
  }

  // Group g of the reduction's output holds its sum (dispatched with `groups` groups).
  void expect_group(uint32_t g, uint32_t groups) {
    uint32_t got[4];
    std::memcpy(got, out_ + 16 * g, 16);
    EXPECT_EQ(got[0], std::accumulate(in_.begin() + 128 * g, in_.begin() + 128 * (g + 1), 0u)) << g;
    EXPECT_EQ(got[3], groups);
  }
  bool untouched(uint32_t g) const {
    for (int i = 0; i < 16; ++i)
      if (out_[16 * g + i] != 0xab) return false;
    return true;
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDeviceLimits limits_{};
  std::unique_ptr<ComputeSide> side_;
  std::vector<uint32_t> in_;
  VkPipeline reduce_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  uint8_t* out_ = nullptr;
};

TEST_F(VkComputeHostile, LimitsAreReportedAndTheQueueFamilyComputes) {
  EXPECT_EQ(limits_.maxComputeWorkGroupCount[0], 65535u);
  EXPECT_EQ(limits_.maxComputeWorkGroupCount[2], 65535u);
  EXPECT_GE(limits_.maxComputeWorkGroupInvocations, 128u);
  EXPECT_EQ(limits_.maxComputeWorkGroupSize[0], limits_.maxComputeWorkGroupInvocations);
  EXPECT_EQ(limits_.maxComputeWorkGroupSize[2], 64u);
  EXPECT_GE(limits_.maxComputeSharedMemorySize, 16384u);
}

TEST_F(VkComputeHostile, GroupCountsOverTheLimitAreNotRecorded) {
  make_reduction();
  auto dispatch_base = reinterpret_cast<PFN_vkCmdDispatchBase>(vkGetDeviceProcAddr(side_->device(), "vkCmdDispatchBase"));
  ASSERT_NE(dispatch_base, nullptr);
  testing::internal::CaptureStderr();
  side_->run(reduce_, set_, [&](VkCommandBuffer cb) {
    vkCmdDispatch(cb, 65536, 1, 1);
    vkCmdDispatch(cb, 1, 1, 0xffffffffu);
    dispatch_base(cb, 0xffffffffu, 0, 0, 2, 1, 1);  // base + count wraps 32 bits
    dispatch_base(cb, 65535, 0, 0, 1, 1, 1);        // base + count = 65536
    vkCmdDispatch(cb, 4, 1, 1);                     // the good one
  });
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "over maxComputeWorkGroupCount (65535); not recorded"), 4) << log;
  for (uint32_t g = 0; g < 4; ++g) expect_group(g, 4);
}

TEST_F(VkComputeHostile, IndirectArgumentsOutsideTheirBufferOrTheLimitsAreSkipped) {
  make_reduction();
  uint8_t* args = nullptr;
  VkBuffer buffer = side_->buffer(64, &args);  // the buffer's size is 64: one page of memory behind it
  const uint32_t words[16] = {65536, 1, 1, 0, 65535, 65535, 65535, 0, 2, 1, 1, 0, 4, 1, 1, 0};
  std::memcpy(args, words, sizeof words);
  testing::internal::CaptureStderr();
  side_->run(reduce_, set_, [&](VkCommandBuffer cb) {
    vkCmdDispatchIndirect(cb, buffer, 0);    // 65536 groups from memory
    vkCmdDispatchIndirect(cb, buffer, 16);   // 65535^3 x 128 invocations
    vkCmdDispatchIndirect(cb, buffer, 56);   // 12 bytes from 56: past the 64-byte buffer
    vkCmdDispatchIndirect(cb, buffer, 1ull << 63);
    vkCmdDispatchIndirect(cb, buffer, 34);   // not a multiple of 4
    vkCmdDispatchIndirect(cb, buffer, 48);   // the good one: 4 groups
  });
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "vkCmdDispatchIndirect: "), 5) << log;
  EXPECT_EQ(count_lines(log, "dispatch skipped"), 5) << log;
  for (uint32_t g = 0; g < 4; ++g) expect_group(g, 4);
  EXPECT_TRUE(untouched(4));
}

TEST_F(VkComputeHostile, DispatchesWithoutPipelineOrSetAreNotRecorded) {
  make_reduction();
  testing::internal::CaptureStderr();
  VkCommandBuffer cb = side_->side().cb();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  vkCmdDispatch(cb, 1, 1, 1);  // no pipeline
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, reduce_);
  vkCmdDispatch(cb, 1, 1, 1);  // set 0 not bound
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, reduce_);  // a compute pipeline at the graphics point
  side_->side().submit_and_wait();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "vkCmdDispatch: no compute pipeline bound; not recorded"), 1) << log;
  EXPECT_EQ(count_lines(log, "vkCmdDispatch: "), 2) << log;
  EXPECT_EQ(count_lines(log, "vkCmdBindPipeline: no pipeline of that bind point; not bound"), 1) << log;
  EXPECT_TRUE(untouched(0));
}

// A LocalSize the device cannot run (the module's words edited: x = 4096) is refused at creation.
TEST_F(VkComputeHostile, WorkGroupSizeOverTheDeviceIsRefused) {
  std::vector<uint32_t> words(shader_compute_endless_comp,
                              shader_compute_endless_comp + sizeof shader_compute_endless_comp / 4);
  bool edited = false;
  for (size_t i = 5; i < words.size(); i += words[i] >> 16) {
    if ((words[i] & 0xffff) == 16 && words[i + 2] == 17) words[i + 3] = 4096, edited = true;  // OpExecutionMode LocalSize
    // glslang's gl_WorkGroupSize constant (OpDecorate id BuiltIn WorkgroupSize) overrides LocalSize:
    // four OpNops instead.
    if (words[i] == (4u << 16 | 71) && words[i + 2] == 11 && words[i + 3] == 25)
      for (int k = 0; k < 4; ++k) words[i + k] = 1u << 16;
    if ((words[i] >> 16) == 0) break;
  }
  ASSERT_TRUE(edited);
  testing::internal::CaptureStderr();
  VkPipeline p;
  EXPECT_EQ(side_->pipeline(words.data(), words.size() * 4, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, 0, &p),
            VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_EQ(p, VK_NULL_HANDLE);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "work-group size 4096 x 1 x 1 outside maxComputeWorkGroupSize"), 1) << log;
}

// Shared memory over maxComputeSharedMemorySize (the device's 1 MiB per group) is refused at creation.
TEST_F(VkComputeHostile, SharedMemoryOverTheLimitIsRefused) {
  ASSERT_EQ(limits_.maxComputeSharedMemorySize, 1u << 20);
  testing::internal::CaptureStderr();
  VkPipeline p;
  EXPECT_EQ(side_->pipeline(shader_compute_shared_too_big_comp, sizeof shader_compute_shared_too_big_comp,
                            {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, 0, &p),
            VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_EQ(p, VK_NULL_HANDLE);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "vkCreateComputePipelines: "), 1) << log;
  EXPECT_NE(log.find("exceed 1 MiB"), std::string::npos) << log;
}

// Specialization entries are application data: outside pData, of a size that is not the constant's,
// or with no data at all, the pipeline is refused with a log line.
TEST_F(VkComputeHostile, BadSpecializationEntriesAreRefused) {
  const uint32_t data[2] = {16, 7};
  const VkSpecializationMapEntry past{1, 4, 8}, wraps{1, 4, ~size_t{0}}, narrow{1, 0, 2}, boolean{3, 0, 1};
  const VkSpecializationInfo infos[5] = {{1, &past, sizeof data, data},
                                         {1, &wraps, sizeof data, data},
                                         {1, &narrow, sizeof data, data},
                                         {1, &boolean, sizeof data, data},
                                         {1, &past, 8, nullptr}};
  testing::internal::CaptureStderr();
  for (const VkSpecializationInfo& info : infos) {
    VkPipeline p;
    EXPECT_EQ(side_->pipeline(shader_compute_specialized_comp, sizeof shader_compute_specialized_comp,
                              {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, 0, &p, 0, &info),
              VK_ERROR_FEATURE_NOT_PRESENT);
    EXPECT_EQ(p, VK_NULL_HANDLE);
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "vkCreateComputePipelines: "), 5) << log;
  EXPECT_EQ(count_lines(log, "outside the data"), 2) << log;
}

// A program that loops for ever: the device's watchdog stops it, the driver reports the fault (the
// dispatch is lost) and the queue goes on: the reduction after it in the same submission computes.
TEST_F(VkComputeHostile, EndlessLoopIsStoppedByTheWatchdogAndTheDeviceGoesOn) {
  VkPipeline endless;
  ASSERT_EQ(side_->pipeline(shader_compute_endless_comp, sizeof shader_compute_endless_comp,
                            {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, 0, &endless),
            VK_SUCCESS);
  uint8_t* data = nullptr;
  VkDescriptorSet endless_set = side_->set({side_->buffer(256, &data)});
  const VkPipelineLayout endless_layout = side_->layout();
  make_reduction();
  testing::internal::CaptureStderr();
  side_->run(reduce_, set_, [&](VkCommandBuffer cb) {
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, endless);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, endless_layout, 0, 1, &endless_set, 0, nullptr);
    vkCmdDispatch(cb, 1, 1, 1);
    side_->rebind_last();
    vkCmdDispatch(cb, 4, 1, 1);
  });
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "vkQueueSubmit: dispatch: the device refused or faulted it"), 1) << log;
  EXPECT_NE(log.find("watchdog"), std::string::npos) << log;
  uint32_t value = 0;
  std::memcpy(&value, data, 4);
  EXPECT_GT(value, 1000u);  // it ran, and was stopped
  for (uint32_t g = 0; g < 4; ++g) expect_group(g, 4);
}

// The queue batches a submission's dispatches into one device submission (docs/vulkan-driver.md
// "Batching"): a fault in the middle of the run is reported for that dispatch alone, the one before
// it has run, and the one after it still runs (the stream goes on after the faulting packet).
TEST_F(VkComputeHostile, AFaultInTheMiddleOfABatchedRunLosesOnlyThatDispatch) {
  VkPipeline endless;
  ASSERT_EQ(side_->pipeline(shader_compute_endless_comp, sizeof shader_compute_endless_comp,
                            {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, 0, &endless),
            VK_SUCCESS);
  uint8_t* data = nullptr;
  VkDescriptorSet endless_set = side_->set({side_->buffer(256, &data)});
  const VkPipelineLayout endless_layout = side_->layout();
  make_reduction();
  auto dispatch_base = reinterpret_cast<PFN_vkCmdDispatchBase>(vkGetDeviceProcAddr(side_->device(), "vkCmdDispatchBase"));
  ASSERT_NE(dispatch_base, nullptr);
  testing::internal::CaptureStderr();
  side_->run(reduce_, set_, [&](VkCommandBuffer cb) {
    vkCmdDispatch(cb, 2, 1, 1);  // groups 0 and 1
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, endless);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, endless_layout, 0, 1, &endless_set, 0, nullptr);
    vkCmdDispatch(cb, 1, 1, 1);
    side_->rebind_last();
    dispatch_base(cb, 2, 0, 0, 2, 1, 1);  // groups 2 and 3
  });
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "vkQueueSubmit: dispatch: the device refused or faulted it"), 1) << log;
  EXPECT_NE(log.find("watchdog"), std::string::npos) << log;
  for (uint32_t g = 0; g < 4; ++g) expect_group(g, 2);
  EXPECT_TRUE(untouched(4));
}

}  // namespace
}  // namespace gsgpu::vk::test
