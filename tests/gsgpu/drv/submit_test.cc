// Submissions on the local backend: real kernels through bo_map, several packets, timelines on
// two rings, refused submissions, the largest submission, fence waits and timeouts.
#include "drv_test_util.h"

#include <bit>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "protocol/gsgpu/gsgpu_hw.h"
#include "protocol/gsgpu/packets.h"

namespace gsgpu::drv {
namespace {

using test::Buffer;
using test::Driver;
using test::LogCapture;
using test::open_device;
using test::small_config;

constexpr uint64_t kForever = UINT64_MAX;

// x = 0, 1, 2, ... (n elements) in `x`, args for scale by k.
void fill_iota(const Buffer& x, uint32_t n) {
  auto* v = reinterpret_cast<uint32_t*>(x.cpu);
  for (uint32_t i = 0; i < n; ++i) v[i] = i;
}

class DrvSubmit : public ::testing::Test {
 protected:
  void SetUp() override { open(small_config()); }
  void open(const LocalConfig& config) {
    driver_.reset();
    d_ = open_device(config);
    ASSERT_TRUE(d_);
    driver_ = std::make_unique<Driver>(*d_);
  }
  // A scale-by-k dispatch of n = groups * 32 elements on a fresh x; returns the packets.
  std::vector<uint32_t> scale_packets(const Buffer& code, const Buffer& args, const Buffer& x, uint32_t groups,
                                      uint32_t k) {
    fill_iota(x, groups * 32);
    test::write_scale_args(args, x.va, k);
    std::vector<uint32_t> packets;
    append_dispatch(&packets, driver_->dispatch(code, args, 12, groups, 32));
    return packets;
  }
  void expect_scaled(const Buffer& x, uint32_t n, uint32_t k) {
    auto* v = reinterpret_cast<const uint32_t*>(x.cpu);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(v[i], i * k) << "element " << i;
  }

  std::unique_ptr<LocalDevice> d_;
  std::unique_ptr<Driver> driver_;
};

TEST_F(DrvSubmit, ScaleKernelGivesTheRightResults) {
  Buffer code = driver_->kernel(test::kScaleKernel);
  Buffer args = driver_->buffer(4096, kVaRead);
  Buffer x = driver_->buffer(4 * 32 * 10);
  uint64_t seqno = 0;
  ASSERT_EQ(driver_->submit(0, scale_packets(code, args, x, 10, 7), {code.bo, args.bo, x.bo}, &seqno), Status::kOk);
  EXPECT_EQ(seqno, 1u);
  ASSERT_EQ(d_->fence_wait(0, seqno, kForever), Status::kOk);
  EXPECT_EQ(d_->fence_poll(0), 1u);
  EXPECT_EQ(d_->fence_poll(1), 0u);
  expect_scaled(x, 320, 7);
  Counters c = d_->counters();
  EXPECT_EQ(c.submissions, 1u);
  EXPECT_EQ(c.packets, 1u);
  EXPECT_EQ(c.dispatches, 1u);
  EXPECT_EQ(c.work_groups, 10u);
  EXPECT_GT(c.instructions, 0u);
  EXPECT_EQ(c.lane_instructions, c.instructions * 8) << "every lane of every warp of 8 is active";
  EXPECT_GT(c.cycles, 0u);
  EXPECT_EQ(c.faults, 0u);
  EXPECT_TRUE(d_->read_faults().empty());
}

TEST_F(DrvSubmit, SeveralPacketsInOneSubmission) {
  Buffer code = driver_->kernel(test::kScaleKernel);
  Buffer args = driver_->buffer(4096, kVaRead);
  Buffer x = driver_->buffer(4096);
  fill_iota(x, 64);
  test::write_scale_args(args, x.va, 3);
  std::vector<uint32_t> packets;
  append_nop(&packets, 4);
  append_dispatch(&packets, driver_->dispatch(code, args, 12, 2, 32));
  append_nop(&packets);
  append_dispatch(&packets, driver_->dispatch(code, args, 12, 2, 32));
  uint64_t seqno = 0;
  ASSERT_EQ(driver_->submit(1, packets, {code.bo, args.bo, x.bo}, &seqno), Status::kOk);
  ASSERT_EQ(d_->fence_wait(1, seqno, kForever), Status::kOk);
  expect_scaled(x, 64, 9);
  EXPECT_EQ(d_->counters().packets, 4u);
  EXPECT_EQ(d_->counters().dispatches, 2u);
}

// A DRAW whose vertex and fragment stages are programs runs them on the device's shader cores
// through the driver's counting backend (which must say its warp width): the target gets the
// exported colour, and the program batches count as shader work, not as DISPATCHes. With dump_dir
// the draw is dumped as text and its counters as JSON (draw-*.txt, draw-*.counters.json).
TEST_F(DrvSubmit, DrawWithShaderProgramsRunsOnTheCoresAndIsNotADispatch) {
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "gsgpu-drv-draw-dump";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  LocalConfig config = small_config();
  config.dump_dir = dir.string();
  open(config);
  namespace blk = hw::blk;
  namespace D = blk::DRAW_INFO;
  namespace P = blk::PIPE_STATE;
  namespace S = blk::SHADER_STATE;
  auto f32 = [](float v) { return std::bit_cast<uint32_t>(v); };
  Buffer vs = driver_->kernel(
      "v_export_vertex_f32 v0, 0\nv_export_vertex_f32 v1, 1\nv_export_vertex_f32 v2, 2\n"
      "v_export_vertex_f32 v3, 3\ns_end\n");
  const uint32_t vs_size = 40;  // four exports of a register (two words each), s_end
  Buffer fs = driver_->kernel(
      "v_export_f32 0.0, 0\nv_export_f32 1.0, 1\nv_export_f32 0.5, 2\nv_export_f32 1.0, 3\ns_end\n");
  const uint32_t fs_size = 56;  // four exports with a literal word (three words each), s_end
  Buffer state = driver_->buffer(4096, kVaRead);
  Buffer vertices = driver_->buffer(4096, kVaRead);
  Buffer target = driver_->buffer(32 * 32 * 4);
  const float quad[] = {-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0, 1};
  std::memcpy(vertices.cpu, quad, sizeof quad);
  std::vector<uint32_t> info(D::SIZE_DWORDS, 0), pipe(P::SIZE_DWORDS, 0), shader(S::SIZE_DWORDS, 0);
  std::vector<uint32_t> binding(blk::VERTEX_BINDING::SIZE_DWORDS, 0), attribute(blk::VERTEX_ATTRIBUTE::SIZE_DWORDS, 0);
  info[D::FLAGS] = hw::put_field(4, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);  // strip
  info[D::COUNT] = 4;
  info[D::INSTANCE_COUNT] = 1;
  info[D::COUNTS] = hw::put_field(1, D::COUNTS_BINDING_COUNT_MASK, D::COUNTS_BINDING_COUNT_SHIFT) |
                    hw::put_field(1, D::COUNTS_ATTRIBUTE_COUNT_MASK, D::COUNTS_ATTRIBUTE_COUNT_SHIFT);
  info[D::BINDINGS_VA_LO] = uint32_t(state.va + 768);
  info[D::BINDINGS_VA_HI] = uint32_t((state.va + 768) >> 32);
  info[D::ATTRIBUTES_VA_LO] = uint32_t(state.va + 832);
  info[D::ATTRIBUTES_VA_HI] = uint32_t((state.va + 832) >> 32);
  binding[blk::VERTEX_BINDING::VA_LO] = uint32_t(vertices.va);
  binding[blk::VERTEX_BINDING::VA_HI] = uint32_t(vertices.va >> 32);
  binding[blk::VERTEX_BINDING::SIZE_LO] = 64;
  binding[blk::VERTEX_BINDING::STRIDE] = 16;
  binding[blk::VERTEX_BINDING::DIVISOR] = 1;
  attribute[blk::VERTEX_ATTRIBUTE::FORMAT] = 109;  // R32G32B32A32_SFLOAT
  pipe[P::VIEWPORT_WIDTH] = pipe[P::VIEWPORT_HEIGHT] = f32(32);
  pipe[P::VIEWPORT_MAX_DEPTH] = f32(1);
  pipe[P::SCISSOR_WIDTH] = pipe[P::SCISSOR_HEIGHT] = 32;
  pipe[P::TARGET_SIZE] = hw::put_field(32, P::TARGET_SIZE_WIDTH_MASK, P::TARGET_SIZE_WIDTH_SHIFT) |
                         hw::put_field(32, P::TARGET_SIZE_HEIGHT_MASK, P::TARGET_SIZE_HEIGHT_SHIFT);
  pipe[P::COLOR_VA_LO] = uint32_t(target.va);
  pipe[P::COLOR_VA_HI] = uint32_t(target.va >> 32);
  pipe[P::COLOR_PITCH] = 128;
  pipe[P::COLOR_FORMAT] = 37;  // R8G8B8A8_UNORM
  pipe[P::OUTPUT] = hw::put_field(0xF, P::OUTPUT_WRITE_MASK_MASK, P::OUTPUT_WRITE_MASK_SHIFT);
  shader[S::VERTEX] = hw::put_field(1, S::VERTEX_MODE_MASK, S::VERTEX_MODE_SHIFT);
  shader[S::VERTEX_CODE_VA_LO] = uint32_t(vs.va);
  shader[S::VERTEX_CODE_VA_HI] = uint32_t(vs.va >> 32);
  shader[S::VERTEX_CODE_SIZE] = vs_size;
  shader[S::VERTEX_REGISTERS] = hw::put_field(4, S::VERTEX_REGISTERS_VECTOR_MASK, S::VERTEX_REGISTERS_VECTOR_SHIFT);
  shader[S::FRAGMENT] = hw::put_field(2, S::FRAGMENT_MODE_MASK, S::FRAGMENT_MODE_SHIFT);
  shader[S::FRAGMENT_CODE_VA_LO] = uint32_t(fs.va);
  shader[S::FRAGMENT_CODE_VA_HI] = uint32_t(fs.va >> 32);
  shader[S::FRAGMENT_CODE_SIZE] = fs_size;
  shader[S::REGISTERS] = hw::put_field(1, S::REGISTERS_VECTOR_MASK, S::REGISTERS_VECTOR_SHIFT);
  auto put = [&](uint64_t offset, const std::vector<uint32_t>& words) {
    std::memcpy(state.cpu + offset, words.data(), words.size() * 4);
  };
  put(0, info), put(256, pipe), put(512, shader), put(768, binding), put(832, attribute);
  uint64_t seqno = 0;
  ASSERT_EQ(driver_->submit(0, hw::encode_draw(state.va, state.va + 256, state.va + 512),
                            {vs.bo, fs.bo, state.bo, vertices.bo, target.bo}, &seqno),
            Status::kOk);
  ASSERT_EQ(d_->fence_wait(0, seqno, kForever), Status::kOk);
  EXPECT_TRUE(d_->read_faults().empty());
  const auto* pixels = reinterpret_cast<const uint32_t*>(target.cpu);
  for (int i = 0; i < 32 * 32; ++i) ASSERT_EQ(pixels[i], 0xFF80FF00u) << "pixel " << i;  // A B G R bytes
  Counters c = d_->counters();
  EXPECT_EQ(c.dispatches, 0u);
  EXPECT_GT(c.instructions, 0u);
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string text = read(dir / "draw-000001-ring0-seq1.txt");
  EXPECT_NE(text.find("fragments written         1024"), std::string::npos) << text;
  const std::string json = read(dir / "draw-000001-ring0-seq1.counters.json");
  EXPECT_EQ(json.rfind("{\"vertices\": 4, \"primitives\": 2,", 0), 0u) << json;
  EXPECT_NE(json.find("\"written\": 1024, \"overdraw\": 0}}\n"), std::string::npos) << json;
  EXPECT_NE(text.find("counters json: " + json), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_F(DrvSubmit, EmptySubmissionRetires) {
  uint64_t seqno = 0;
  ASSERT_EQ(driver_->submit(0, {}, {}, &seqno), Status::kOk);
  EXPECT_EQ(d_->fence_wait(0, seqno, kForever), Status::kOk);
}

TEST_F(DrvSubmit, TimelinesOnTwoRingsRetireInOrder) {
  Buffer code = driver_->kernel(test::kScaleKernel);
  Buffer args = driver_->buffer(4096, kVaRead);
  Buffer x = driver_->buffer(4096);
  fill_iota(x, 32);
  test::write_scale_args(args, x.va, 1);
  std::vector<uint32_t> packets;
  append_dispatch(&packets, driver_->dispatch(code, args, 12, 1, 32));
  std::vector<uint64_t> last(2, 0);
  for (int i = 0; i < 20; ++i) {
    uint32_t ring = i % 3 == 0 ? 1 : 0;
    uint64_t seqno = 0;
    ASSERT_EQ(driver_->submit(ring, packets, {code.bo, args.bo, x.bo}, &seqno), Status::kOk);
    EXPECT_EQ(seqno, last[ring] + 1) << "each ring counts on its own";
    last[ring] = seqno;
    // Whatever has retired is a prefix of each timeline.
    EXPECT_LE(d_->fence_poll(ring), seqno);
  }
  ASSERT_EQ(d_->fence_wait(0, last[0], kForever), Status::kOk);
  EXPECT_EQ(d_->fence_poll(0), last[0]);
  ASSERT_EQ(d_->fence_wait(1, last[1], kForever), Status::kOk);
  for (uint64_t s = 1; s <= last[0]; ++s) EXPECT_EQ(d_->fence_wait(0, s, 0), Status::kOk) << s;
  EXPECT_EQ(d_->counters().submissions, 20u);
}

TEST_F(DrvSubmit, BadSubmissionsAreRefused) {
  LogCapture log;
  uint64_t seqno = 99;
  std::vector<uint32_t> nop = encode_nop();
  SubmitDesc desc;
  desc.packets = nop.data();
  desc.dwords = 1;
  EXPECT_EQ(d_->submit(desc, nullptr), Status::kInvalidArgument);
  desc.ring = 2;
  EXPECT_EQ(d_->submit(desc, &seqno), Status::kInvalidArgument);
  EXPECT_EQ(seqno, 0u);
  EXPECT_TRUE(log.contains("submit: ring 2 is not in 0..1")) << log.all();
  desc.ring = 0;
  desc.packets = nullptr;
  EXPECT_EQ(d_->submit(desc, &seqno), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("packets is null")) << log.all();
  desc.packets = nop.data();
  desc.bo_count = 1;
  EXPECT_EQ(d_->submit(desc, &seqno), Status::kInvalidArgument) << "bos null";
  BoHandle unknown = 4242;
  desc.bos = &unknown;
  EXPECT_EQ(d_->submit(desc, &seqno), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("bos[0]: unknown handle 4242")) << log.all();
  desc.bos = nullptr;
  desc.bo_count = 0;
  // A packet that runs past the chunk would swallow the driver's fence.
  std::vector<uint32_t> long_nop = encode_nop(8);
  desc.packets = long_nop.data();
  desc.dwords = 5;
  EXPECT_EQ(d_->submit(desc, &seqno), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("only 5 left in the chunk")) << log.all();
  std::vector<uint32_t> zero = {0};
  desc.packets = zero.data();
  desc.dwords = 1;
  EXPECT_EQ(d_->submit(desc, &seqno), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("SIZE_DWORDS 0")) << log.all();
  std::vector<uint32_t> halt = hw::encode_halt();
  desc.packets = halt.data();
  desc.dwords = uint32_t(halt.size());
  EXPECT_EQ(d_->submit(desc, &seqno), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("is HALT")) << log.all();
  std::vector<uint32_t> huge = encode_nop(60000);
  huge.resize(70000, 0);
  desc.packets = huge.data();
  desc.dwords = uint32_t(huge.size());
  EXPECT_EQ(d_->submit(desc, &seqno), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("above the limit of 65536")) << log.all();
  // Nothing was queued: the first real submission is seqno 1.
  desc.packets = nop.data();
  desc.dwords = 1;
  ASSERT_EQ(d_->submit(desc, &seqno), Status::kOk);
  EXPECT_EQ(seqno, 1u);
  EXPECT_EQ(d_->fence_wait(0, 1, kForever), Status::kOk);
}

TEST_F(DrvSubmit, LargestSubmissionFitsTheRing) {
  std::vector<uint32_t> packets;
  while (packets.size() + 22 <= 65536) append_nop(&packets, 22);
  append_nop(&packets, uint32_t(65536 - packets.size()));
  ASSERT_EQ(packets.size(), 65536u);
  uint64_t seqno = 0;
  ASSERT_EQ(driver_->submit(0, packets, {}, &seqno), Status::kOk);
  EXPECT_EQ(d_->fence_wait(0, seqno, kForever), Status::kOk);
  ASSERT_EQ(driver_->submit(0, packets, {}, &seqno), Status::kOk) << "and again, wrapping around the ring";
  EXPECT_EQ(d_->fence_wait(0, seqno, kForever), Status::kOk);
}

TEST_F(DrvSubmit, FenceWaitRefusesSeqnosNeverIssuedAndTimesOut) {
  LogCapture log;
  EXPECT_EQ(d_->fence_wait(0, 1, 0), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("fence_wait: seqno 1 was never issued on ring 0")) << log.all();
  EXPECT_EQ(d_->fence_wait(0, 0, 0), Status::kInvalidArgument);
  EXPECT_EQ(d_->fence_wait(5, 1, 0), Status::kInvalidArgument);
  EXPECT_EQ(d_->fence_poll(5), 0u);
  // A long kernel: a short wait times out, a long one succeeds.
  LocalConfig c = small_config();
  open(c);
  Buffer code = driver_->kernel("  s_mov_b32 s0, 0\nloop:\n  s_add_u32 s0, s0, 1\n  s_cmp_lt_u32 s1, s0, 2000000\n"
                                "  s_cbranch_nz s1, loop\n  s_end\n");
  std::vector<uint32_t> packets;
  append_dispatch(&packets, driver_->dispatch(code, code, 0, 4, 8));
  uint64_t seqno = 0;
  ASSERT_EQ(driver_->submit(0, packets, {code.bo}, &seqno), Status::kOk);
  EXPECT_EQ(d_->fence_wait(0, seqno, 1000), Status::kTimeout);
  EXPECT_EQ(d_->fence_wait(0, seqno, kForever), Status::kOk);
}

}  // namespace
}  // namespace gsgpu::drv
