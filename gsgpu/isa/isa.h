// The gsgpu instruction set: opcodes, operand encoding, the instruction table, encode and decode.
//
// Every instruction is one 64-bit word pair (w0 = bits 0..31, w1 = bits 32..63), followed by one
// 32-bit literal word when an operand field holds kLiteralOperand. docs/isa.md is the reference;
// gsgpu/isa/opcodes.def is the table everything here is generated from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gsgpu::isa {

enum class Opcode : uint16_t {
#define GSGPU_ALU(name, D, A, B, C) v_##name, s_##name,
#define GSGPU_LOAD(space, type, bytes, sign) space##_load_##type,
#define GSGPU_STORE(space, type, bytes) space##_store_##type,
#define GSGPU_ATOMIC(space, op_type, kind, bits) space##_atomic_##op_type,
#define GSGPU_OTHER(name, format, dst, src0, src1, src2, imm) name,
#include "gsgpu/isa/opcodes.def"
  kCount
};
constexpr size_t kOpcodeCount = static_cast<size_t>(Opcode::kCount);

// Register files. Vector registers hold one 32-bit value per lane, scalar registers one per warp;
// 64-bit values live in an even/odd pair (low half in the even register).
constexpr unsigned kNumVectorRegs = 256;
constexpr unsigned kNumScalarRegs = 128;

// 9-bit operand field: which register file or the trailing literal word.
constexpr uint16_t kVectorOperandBase = 0;    // v0..v255   -> 0..255
constexpr uint16_t kScalarOperandBase = 256;  // s0..s127   -> 256..383
constexpr uint16_t kLiteralOperand = 511;     // the 32-bit literal that follows the instruction
constexpr uint16_t vreg(unsigned index) { return static_cast<uint16_t>(kVectorOperandBase + index); }
constexpr uint16_t sreg(unsigned index) { return static_cast<uint16_t>(kScalarOperandBase + index); }
constexpr bool is_vreg(uint16_t operand) { return operand < kScalarOperandBase; }
constexpr bool is_sreg(uint16_t operand) {
  return operand >= kScalarOperandBase && operand < kScalarOperandBase + kNumScalarRegs;
}

enum class Format : uint8_t {
  kAlu,     // [0:9) opcode [9:18) dst [18:27) src0 [27:36) src1 [36:45) src2 [45:64) imm19 (signed)
  kBranch,  // [0:9) opcode [9:18) cond [18:41) target (signed words) [41:64) reconverge (signed words)
};

// What an operand field may hold. "Src" kinds accept a register of the named file or a literal.
enum class OperandKind : uint8_t {
  kNone,
  kVDst32, kVDst64, kSDst32, kSDst64,
  kVSrc32, kVSrc64,  // v, s (uniform, broadcast to every lane) or literal
  kSSrc32, kSSrc64,  // s or literal
  kVReg32, kSReg32,  // exactly one register of that file (conditions)
  kVDstSpecial, kSDstSpecial,  // width given by the special register named in imm
  // Optional 64-bit scalar base of a global or constant access (src2 of those loads, stores and
  // atomics other than cmpxchg): 0 = no base, otherwise an even scalar pair s[2n:2n+1] whose value
  // is added to the address. Code 0 would name v0, which is never a valid base, so 0 is free.
  kSBase64,
  // A vector register quad v[4n:4n+3] (four 32-bit channels: image coordinates, texels), aligned
  // to four as pairs are to two. Only vector registers: no scalar quad, no literal.
  kVDst128, kVReg128,
};

enum class ImmKind : uint8_t {
  kNone,
  kOffset,             // signed 19-bit byte offset added to a memory address
  kSpecial,            // SpecialReg id
  kTarget,             // branch target (kBranch format)
  kTargetReconverge,   // branch target and reconvergence point (kBranch format)
  kImageQuery,         // v_image_query: which property (ImageQueryWhat), 0..kImageQueryCount-1
  kVarying,            // a varying component, 0 .. kMaxVaryingComponent (fragment programs)
  kExportSlot,         // colour 0 r, g, b, a = 0..3, dual-source colour = 4..7, depth = 8, colour target t = 1..7
                       // at 9 + 4 (t - 1) .. (ExportSlot)
  kQuadPerm,           // 4 x 2 bits: bits 2i+1:2i name the quad lane that lane i of each quad reads
  kVertexSlot,         // vertex output: position x, y, z, w = 0..3, varying component k = 4 + k (4..67), point size 68,
                       // clip then cull distance i = 69 + i (69..76)
  kTexelOffset,        // image reads: the texel offset (x, y, z), three 4-bit two's-complement fields
                       // (bits 3:0, 7:4, 11:8; each -8 .. 7), bits 18:12 zero (docs/isa.md §8b)
};

// Fragment-program immediates (docs/isa.md §8c).
constexpr int32_t kMaxVaryingComponent = 63;  // graphics::kMaxVaryingComponents - 1
// kColor1R is the dual-source second colour of target 0; the colours of targets 1..7 (fragment
// outputs at Locations 1..7) follow depth, four slots each from kTarget1R.
enum class ExportSlot : uint8_t { kColor0R = 0, kColor1R = 4, kDepth = 8, kTarget1R = 9, kCount = 37 };
constexpr int32_t kMaxColorTargets = 8;  // maxColorAttachments
constexpr int32_t export_slot_of_target(int32_t target) {
  return target == 0 ? 0 : static_cast<int32_t>(ExportSlot::kTarget1R) + 4 * (target - 1);
}
constexpr int32_t kVertexSlotVarying0 = 4, kVertexSlotPointSize = 4 + kMaxVaryingComponent + 1;
constexpr int32_t kVertexSlotClipDistance0 = kVertexSlotPointSize + 1;  // clip, then cull distances
constexpr int32_t kMaxClipCullDistances = 8;  // maxCombinedClipAndCullDistances
constexpr int32_t kVertexSlotCount = kVertexSlotClipDistance0 + kMaxClipCullDistances;
// A kTexelOffset immediate: Vulkan's minTexelOffset / maxTexelOffset are these field limits.
constexpr int32_t kMinTexelOffset = -8, kMaxTexelOffset = 7, kTexelOffsetBits = 12;
constexpr int32_t pack_texel_offset(int32_t x, int32_t y, int32_t z) {
  return (x & 0xf) | (y & 0xf) << 4 | (z & 0xf) << 8;
}
// Component `axis` (0..2) of a kTexelOffset immediate, sign-extended.
constexpr int32_t texel_offset_component(int32_t imm, int axis) {
  const int32_t field = imm >> (4 * axis) & 0xf;
  return field >= 8 ? field - 16 : field;
}
// The range an immediate of this kind may hold (kOffset: the signed 19-bit field); false for kinds
// that are not a plain number (special registers, branch targets, none).
bool immediate_range(ImmKind kind, int32_t* min, int32_t* max);

enum class OpClass : uint8_t { kAlu, kLoad, kStore, kAtomic, kOther };
enum class MemSpace : uint8_t { kNone, kGlobal, kConstant, kLocal, kPrivate };
enum class AtomicOp : uint8_t { kAdd, kSub, kMinS, kMaxS, kMinU, kMaxU, kAnd, kOr, kXor, kXchg, kCmpxchg };

struct OpInfo {
  const char* mnemonic;
  Format format;
  OpClass op_class;
  OperandKind dst, src0, src1, src2;
  ImmKind imm;
  bool vector;          // executes per lane (v_ ALU, vector memory) rather than once per warp
  MemSpace space;       // loads, stores, atomics
  uint8_t access_bytes; // loads, stores, atomics: bytes per lane
  bool sign_extend;     // 8/16-bit loads
  AtomicOp atomic;      // atomics
};

const OpInfo& op_info(Opcode op);
std::optional<Opcode> find_opcode(std::string_view mnemonic);

// Special registers read with v_special / s_special. Vector ones differ per lane and are only
// readable by v_special; s_special on them is an illegal instruction.
enum class SpecialReg : uint8_t {
  kLocalIdX, kLocalIdY, kLocalIdZ,
  kGlobalIdX, kGlobalIdY, kGlobalIdZ,  // 64-bit
  kLaneId,
  kGroupIdX, kGroupIdY, kGroupIdZ,
  kLocalSizeX, kLocalSizeY, kLocalSizeZ,
  kNumGroupsX, kNumGroupsY, kNumGroupsZ,
  kGlobalSizeX, kGlobalSizeY, kGlobalSizeZ,        // 64-bit
  kGlobalOffsetX, kGlobalOffsetY, kGlobalOffsetZ,  // 64-bit
  kArgPtr,                                         // 64-bit
  kArgSize,
  kLocalMemBase, kLocalMemSize,
  kPrivateMemBase, kPrivateMemSize,
  kWarpId, kWarpWidth,
  kCount
};
struct SpecialInfo {
  const char* name;
  bool per_lane;  // differs per lane (only v_special)
  bool wide;      // 64-bit: written to a register pair
};
const SpecialInfo& special_info(SpecialReg reg);
std::optional<SpecialReg> find_special(std::string_view name);

// What v_image_query reads (its imm19 field); the same order as texture::ImageQuery. Order and
// type are the IMAGE_DESC codes (docs/isa.md section 8b).
enum class ImageQueryWhat : uint8_t {
  kWidth, kHeight, kDepth, kArraySize, kChannelOrder, kDataType, kMipLevels,
  kCount
};
const char* image_query_name(ImageQueryWhat what);
std::optional<ImageQueryWhat> find_image_query(std::string_view name);

// The longest encoding: two words and a literal. decode() reads no more than this many words, so
// its outcome depends on these words alone (fewer only at the end of the code).
constexpr size_t kMaxInstructionWords = 3;

// One decoded instruction. Operand fields hold raw operand codes (vreg()/sreg()/kLiteralOperand);
// for a 64-bit register pair the code names the even register, for a quad v[4n:4n+3] v4n. src[2]
// of a global/constant load, store or non-cmpxchg atomic is its scalar base
// (OperandKind::kSBase64; kNoScalarBase = none).
struct Instruction {
  Opcode opcode = Opcode::s_nop;
  uint16_t dst = 0;
  uint16_t src[3] = {0, 0, 0};
  int32_t imm = 0;           // kOffset: byte offset; kSpecial: SpecialReg; kImageQuery: ImageQueryWhat
  int32_t target = 0;        // branches: byte offset from this instruction's first byte
  int32_t reconverge = 0;    // v_branch_*: byte offset of the reconvergence point
  uint32_t literal = 0;      // meaningful when an operand is kLiteralOperand

  bool has_literal() const;
  size_t size_words() const { return has_literal() ? 3 : 2; }  // at most kMaxInstructionWords
  bool operator==(const Instruction& other) const;
};

constexpr uint16_t kNoScalarBase = 0;

// The scalar base register code of a global/constant access; kNoScalarBase when it has none.
uint16_t scalar_base(const Instruction& inst);

// Field limits of the binary encoding.
constexpr int32_t kMinOffset = -(1 << 18);
constexpr int32_t kMaxOffset = (1 << 18) - 1;
constexpr int32_t kMinBranchBytes = -(1 << 22) * 4;
constexpr int32_t kMaxBranchBytes = ((1 << 22) - 1) * 4;

// Checks operand kinds, register ranges and alignment, field ranges. Returns "" when valid.
std::string validate(const Instruction& inst);

// Appends the encoded words. False (with the reason) when validate() rejects the instruction.
bool encode(const Instruction& inst, std::vector<uint32_t>* out, std::string* error);

// Decodes the instruction at words[0]. Fuzz-safe: any word sequence either decodes to an
// instruction that validate() accepts or returns false with the reason.
bool decode(const uint32_t* words, size_t count, Instruction* out, size_t* words_used,
            std::string* error);

// Width in bits (32/64/128) of a register operand of this kind for this instruction; 0 when none
// (a kSBase64 operand is 64-bit when the instruction has a base, absent otherwise).
unsigned operand_width(const Instruction& inst, OperandKind kind);

}  // namespace gsgpu::isa
