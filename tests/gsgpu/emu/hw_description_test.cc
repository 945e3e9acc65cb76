// The generated hardware description (gsgpu_hw.h from gsgpu.xml) is consistent with itself and
// with the packet builders the driver side uses.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gsgpu/emu/packets.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu {
namespace {

TEST(HwDescription, RegistersAreSortedUniqueAndInsideTheAperture) {
  std::set<std::string> names;
  for (size_t i = 0; i < hw::kRegisterCount; ++i) {
    const hw::RegisterInfo& r = hw::kRegisters[i];
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_EQ(r.offset % 4, 0u) << r.name;
    EXPECT_LT(r.offset, hw::kRegisterSpaceBytes) << r.name;
    if (i > 0) {
      EXPECT_GT(r.offset, hw::kRegisters[i - 1].offset) << r.name;
    }
    EXPECT_EQ(hw::find_register(r.offset), &r);
    if (r.reset_from_config) {
      EXPECT_EQ(r.reset, 0u) << r.name;
    }
    uint32_t used = 0;
    for (uint32_t f = 0; f < r.field_count; ++f) {
      EXPECT_EQ(used & r.fields[f].mask, 0u) << r.name << "." << r.fields[f].name;
      used |= r.fields[f].mask;
      EXPECT_EQ(r.fields[f].mask, ((uint64_t{1} << r.fields[f].width) - 1) << r.fields[f].shift);
    }
  }
  EXPECT_EQ(hw::find_register(hw::kRegisterSpaceBytes), nullptr);
}

TEST(HwDescription, CapsetIsTheNativeContextOne) { EXPECT_EQ(hw::kCapsetId, 17u); }

TEST(HwDescription, BlocksTableMatchesTheRecords) {
  ASSERT_EQ(hw::kBlockCount, 12u);  // the texture unit's three, then the graphics state blocks
  const char* graphics[] = {"DRAW_INFO",    "VERTEX_BINDING", "VERTEX_ATTRIBUTE", "PIPE_STATE", "SHADER_STATE",
                            "COLOR_TARGET", "XFB_STATE",      "XFB_BUFFER",       "XFB_OUTPUT"};
  for (size_t i = 0; i < std::size(graphics); ++i) EXPECT_STREQ(hw::kBlocks[3 + i].name, graphics[i]);
  EXPECT_EQ(hw::kBlocks[6].size_dwords, hw::blk::PIPE_STATE::SIZE_DWORDS);
  EXPECT_EQ(hw::kBlocks[8].align_bytes, 32u);  // COLOR_TARGET records
  EXPECT_STREQ(hw::kBlocks[0].name, "IMAGE_DESC");
  EXPECT_EQ(hw::kBlocks[0].size_dwords, hw::blk::IMAGE_DESC::SIZE_DWORDS);
  EXPECT_EQ(hw::kBlocks[0].align_bytes, 64u);
  EXPECT_STREQ(hw::kBlocks[0].dword_names[hw::blk::IMAGE_DESC::SLICE_PITCH], "SLICE_PITCH");
  EXPECT_EQ(hw::blk::SAMPLER_DESC::SIZE_DWORDS, 8u);
  EXPECT_EQ(hw::blk::SAMPLER_DESC::STATE, 0u);
  constexpr uint32_t word = hw::put_field(hw::blk::SAMPLER_STATE::STATE_ADDRESS_U_MIRRORED_REPEAT,
                                          hw::blk::SAMPLER_STATE::STATE_ADDRESS_V_MASK,
                                          hw::blk::SAMPLER_STATE::STATE_ADDRESS_V_SHIFT);
  static_assert(hw::get_field(word, hw::blk::SAMPLER_STATE::STATE_ADDRESS_V_MASK,
                              hw::blk::SAMPLER_STATE::STATE_ADDRESS_V_SHIFT) == 4);
}

// The image query ABI (docs/compiler.md "Images and samplers"): get_image_channel_order /
// get_image_channel_data_type return the descriptor code plus a constant, which only works while
// the codes keep OpenCL's order.
TEST(HwDescription, ImageFormatCodesFollowOpenClOrder) {
  namespace d = hw::blk::IMAGE_DESC;
  EXPECT_EQ(0x10AFu + d::FORMAT_CHANNEL_ORDER_R, 0x10B0u);       // CL_R
  EXPECT_EQ(0x10AFu + d::FORMAT_CHANNEL_ORDER_RGBA, 0x10B5u);    // CL_RGBA
  EXPECT_EQ(0x10AFu + d::FORMAT_CHANNEL_ORDER_BGRA, 0x10B6u);    // CL_BGRA
  EXPECT_EQ(0x10AFu + d::FORMAT_CHANNEL_ORDER_DEPTH, 0x10BDu);   // CL_DEPTH
  EXPECT_EQ(0x10AFu + d::FORMAT_CHANNEL_ORDER_SRGBA, 0x10C1u);   // CL_sRGBA
  EXPECT_EQ(0x10AFu + d::FORMAT_CHANNEL_ORDER_ABGR, 0x10C3u);    // CL_ABGR
  EXPECT_EQ(0x10CFu + d::FORMAT_DATA_TYPE_SNORM_INT8, 0x10D0u);  // CL_SNORM_INT8
  EXPECT_EQ(0x10CFu + d::FORMAT_DATA_TYPE_UNSIGNED_INT32, 0x10DCu);
  EXPECT_EQ(0x10CFu + d::FORMAT_DATA_TYPE_FLOAT, 0x10DEu);       // CL_FLOAT
  EXPECT_EQ(0x10CFu + d::FORMAT_DATA_TYPE_UNORM_INT_101010_2, 0x10E0u);
}

TEST(HwDescription, PacketTablesMatchTheBuilders) {
  DispatchRequest q;
  struct Built {
    uint32_t opcode;
    std::vector<uint32_t> words;
  } built[] = {
      {hw::pkt::NOP::OPCODE, make_nop_packet()},
      {hw::pkt::DISPATCH::OPCODE, make_dispatch_packet(q)},
      {hw::pkt::SYNC::OPCODE, make_sync_packet(0, 0, 0)},
      {hw::pkt::DUMP::OPCODE, make_dump_packet(0, 0, 0)},
      {hw::pkt::HALT::OPCODE, make_halt_packet()},
      {hw::pkt::DRAW::OPCODE, hw::encode_draw(0, 0, 0)},
      {hw::pkt::REPORT::OPCODE, hw::encode_report(hw::pkt::REPORT::FLAGS_COUNTER_CLOCK, 0)},
      {hw::pkt::DRAW_INDIRECT::OPCODE, hw::encode_draw_indirect(0, 0, 0, 0)},
      {hw::pkt::DRAW_BYTE_COUNT::OPCODE, hw::encode_draw_byte_count(0, 0, 0, 0, 0, 1)},
  };
  ASSERT_EQ(std::size(built), hw::kPacketCount);
  for (const Built& b : built) {
    const hw::PacketInfo* info = hw::find_packet(b.opcode);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(b.words.size(), info->size_dwords) << info->name;
    EXPECT_STREQ(info->dword_names[0], "HEADER");
    uint32_t header = b.words[0];
    EXPECT_EQ((header & hw::PACKET_HEADER::OPCODE_MASK) >> hw::PACKET_HEADER::OPCODE_SHIFT, b.opcode);
    EXPECT_EQ((header & hw::PACKET_HEADER::SIZE_DWORDS_MASK) >> hw::PACKET_HEADER::SIZE_DWORDS_SHIFT,
              info->size_dwords);
  }
  EXPECT_EQ(hw::find_packet(0xee), nullptr);
}

// protocol/gsgpu/packets.h, the one encoder: appending builds a stream of whole packets, each the
// same as the packet encoded alone.
TEST(HwDescription, AppendedPacketsFormAStream) {
  hw::DispatchPacket d;
  d.code_va = 0x1000;
  d.code_size = 64;
  d.grid_size[1] = 3;
  std::vector<uint32_t> stream;
  hw::append_nop(&stream, 3);
  hw::append_dispatch(&stream, d);
  hw::append_sync(&stream, hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK, 0x2000, 9);
  hw::append_dump(&stream, hw::pkt::DUMP::FLAGS_TO_HOST_MASK, 0, 0);
  std::vector<uint32_t> expected = hw::encode_nop(3);
  for (const auto& p : {hw::encode_dispatch(d), hw::encode_sync(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK, 0x2000, 9),
                        hw::encode_dump(hw::pkt::DUMP::FLAGS_TO_HOST_MASK, 0, 0)})
    expected.insert(expected.end(), p.begin(), p.end());
  EXPECT_EQ(stream, expected);
  EXPECT_EQ(stream.size(), 3u + hw::pkt::DISPATCH::SIZE_DWORDS + hw::pkt::SYNC::SIZE_DWORDS + hw::pkt::DUMP::SIZE_DWORDS);
  EXPECT_EQ(stream[3 + hw::pkt::DISPATCH::GRID_Y], 3u);
  EXPECT_EQ(hw::encode_nop(0).size(), 1u) << "a NOP is at least its header";
  // The emulator's builder is the same encoder.
  DispatchRequest q;
  q.code_va = 0x1000;
  q.code_size = 64;
  q.grid_size[1] = 3;
  EXPECT_EQ(make_dispatch_packet(q), hw::encode_dispatch(d));
}

TEST(HwDescription, DispatchDwordsRoundTripThroughTheBuilder) {
  DispatchRequest q;
  q.code_va = 0x1122334455667788ull;
  q.arg_va = 0x99aabbccddeeff00ull;
  q.global_offset[2] = 0x0102030405060708ull;
  q.private_mem_size = 77;
  std::vector<uint32_t> p = make_dispatch_packet(q);
  namespace D = hw::pkt::DISPATCH;
  EXPECT_EQ(p[D::CODE_VA_LO], 0x55667788u);
  EXPECT_EQ(p[D::CODE_VA_HI], 0x11223344u);
  EXPECT_EQ(p[D::ARG_VA_HI], 0x99aabbccu);
  EXPECT_EQ(p[D::GLOBAL_OFFSET_Z_LO], 0x05060708u);
  EXPECT_EQ(p[D::PRIVATE_MEM_SIZE], 77u);
  EXPECT_STREQ(hw::find_packet(D::OPCODE)->dword_names[D::PRIVATE_MEM_SIZE], "PRIVATE_MEM_SIZE");
}

}  // namespace
}  // namespace gsgpu
