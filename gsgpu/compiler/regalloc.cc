// Why plain CFG liveness is enough on a SIMT machine: every lane follows one path through the CFG
// and registers are written under the execution mask, so each lane sees exactly the register
// history of a scalar run along its path; an allocation valid for every path is valid for the warp.
#include "gsgpu/compiler/regalloc.h"

#include <algorithm>

namespace gsgpu::compiler {
namespace {

using isa::Opcode;

// Spill scratch after the allocatable registers: a quad per source slot and one for the
// destination (an image store reads two quads, an image sample writes one).
constexpr uint32_t kScratchRegisters = 16;
constexpr uint32_t kScratchSlotRegisters = 4;

// Registers a virtual register of this width takes; it starts at a multiple of the same number
// (pairs even, quads v[4n:4n+3]).
constexpr uint32_t registers_for(unsigned bits) { return bits == 128 ? 4 : bits == 64 ? 2 : 1; }

struct Interval {
  uint32_t vreg = 0;
  uint32_t start = UINT32_MAX;
  uint32_t end = 0;
  void cover(uint32_t pos) {
    start = std::min(start, pos);
    end = std::max(end, pos);
  }
};

class BitSet {
 public:
  explicit BitSet(size_t n = 0) : words_((n + 63) / 64, 0) {}
  void set(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  void reset(size_t i) { words_[i / 64] &= ~(uint64_t{1} << (i % 64)); }
  bool test(size_t i) const { return words_[i / 64] >> (i % 64) & 1; }
  // this |= other & ~mask; true when something changed
  bool merge_minus(const BitSet& other, const BitSet& mask) {
    bool changed = false;
    for (size_t w = 0; w < words_.size(); ++w) {
      const uint64_t next = words_[w] | (other.words_[w] & ~mask.words_[w]);
      changed |= next != words_[w];
      words_[w] = next;
    }
    return changed;
  }
  bool merge(const BitSet& other) {
    bool changed = false;
    for (size_t w = 0; w < words_.size(); ++w) {
      const uint64_t next = words_[w] | other.words_[w];
      changed |= next != words_[w];
      words_[w] = next;
    }
    return changed;
  }
  template <typename F>
  void for_each(F f) const {
    for (size_t w = 0; w < words_.size(); ++w)
      for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) f(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
  }

 private:
  std::vector<uint64_t> words_;
};

template <typename F>
void for_each_use(const MInst& inst, F f) {
  for (const MOperand& s : inst.src)
    if (s.is_vreg()) f(s.value);
}

class Allocator {
 public:
  Allocator(MFunction& f, const std::vector<uint32_t>& layout, uint32_t max_registers, uint32_t private_base,
            uint32_t reserved)
      : f_(f), layout_(layout), max_(max_registers), private_base_(private_base), reserved_(reserved) {}

  void run(RegisterAllocation* out) {
    compute_liveness();
    build_intervals();
    scan();
    rewrite();
    out->registers_used = registers_used_;
    out->spilled = spilled_;
    out->private_end = private_base_ + spill_bytes_;
  }

 private:
  void compute_liveness() {
    const size_t nv = f_.vreg_bits.size();
    const size_t nb = f_.blocks.size();
    use_.assign(nb, BitSet(nv));
    def_.assign(nb, BitSet(nv));
    live_in_.assign(nb, BitSet(nv));
    live_out_.assign(nb, BitSet(nv));
    for (uint32_t b : layout_) {
      const MBlock& block = f_.blocks[b];
      for (const MInst& inst : block.insts) {
        for_each_use(inst, [&](uint32_t v) {
          if (!def_[b].test(v)) use_[b].set(v);
        });
        if (inst.dst.is_vreg()) def_[b].set(inst.dst.value);
      }
      if (block.term.kind == MTerminator::Kind::kBranch && block.term.condition.is_vreg() &&
          !def_[b].test(block.term.condition.value))
        use_[b].set(block.term.condition.value);
    }
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto it = layout_.rbegin(); it != layout_.rend(); ++it) {
        const uint32_t b = *it;
        for (uint32_t s : f_.successors(b)) changed |= live_out_[b].merge(live_in_[s]);
        changed |= live_in_[b].merge(use_[b]);
        changed |= live_in_[b].merge_minus(live_out_[b], def_[b]);
      }
    }
  }

  void build_intervals() {
    intervals_.assign(f_.vreg_bits.size(), Interval{});
    for (uint32_t v = 0; v < intervals_.size(); ++v) intervals_[v].vreg = v;
    uint32_t index = 0;
    for (uint32_t b : layout_) {
      const MBlock& block = f_.blocks[b];
      const uint32_t first = 2 * index;
      live_in_[b].for_each([&](size_t v) { intervals_[v].cover(first); });
      for (const MInst& inst : block.insts) {
        for_each_use(inst, [&](uint32_t v) { intervals_[v].cover(2 * index); });
        if (inst.dst.is_vreg()) intervals_[inst.dst.value].cover(2 * index + 1);
        ++index;
      }
      if (block.term.kind == MTerminator::Kind::kBranch && block.term.condition.is_vreg())
        intervals_[block.term.condition.value].cover(2 * index);
      live_out_[b].for_each([&](size_t v) { intervals_[v].cover(2 * index + 1); });
      ++index;
    }
  }

  bool free_at(uint32_t reg, unsigned bits) const {
    const uint32_t n = registers_for(bits);
    if (reg + n > max_) return false;
    for (uint32_t r = reg; r < reg + n; ++r)
      if (busy_[r]) return false;
    return true;
  }
  void take(uint32_t reg, unsigned bits, bool value) {
    for (uint32_t r = reg; r < reg + registers_for(bits); ++r) busy_[r] = value;
  }
  int find_free(unsigned bits) const {
    for (uint32_t r = 0; r < max_; r += registers_for(bits))
      if (free_at(r, bits)) return static_cast<int>(r);
    return -1;
  }

  // Slots are 8 bytes (a quad 16), 8-aligned: private_{load,store}_b64 move them.
  void spill(uint32_t v) {
    assigned_[v] = -1;
    slot_[v] = static_cast<int32_t>(spill_bytes_);
    spill_bytes_ += f_.vreg_bits[v] == 128 ? 16 : 8;
    ++spilled_;
  }

  void scan() {
    assigned_.assign(f_.vreg_bits.size(), -1);
    slot_.assign(f_.vreg_bits.size(), -1);
    busy_.assign(max_ + 4, false);
    for (uint32_t r = 0; r < reserved_ && r < busy_.size(); ++r) busy_[r] = true;
    registers_used_ = std::max(registers_used_, reserved_);
    std::vector<Interval*> order;
    for (Interval& i : intervals_)
      if (i.start != UINT32_MAX) order.push_back(&i);
    std::sort(order.begin(), order.end(), [](const Interval* a, const Interval* b) {
      return a->start != b->start ? a->start < b->start : a->vreg < b->vreg;
    });
    std::vector<Interval*> active;
    for (Interval* current : order) {
      // Expire intervals that ended before this one starts.
      for (size_t i = 0; i < active.size();) {
        if (active[i]->end < current->start) {
          take(static_cast<uint32_t>(assigned_[active[i]->vreg]), f_.vreg_bits[active[i]->vreg], false);
          active[i] = active.back();
          active.pop_back();
        } else {
          ++i;
        }
      }
      const unsigned bits = f_.vreg_bits[current->vreg];
      int reg = find_free(bits);
      while (reg < 0) {
        // Spill whichever live value ends last: it blocks registers the longest.
        Interval* victim = nullptr;
        for (Interval* a : active)
          if (victim == nullptr || a->end > victim->end) victim = a;
        if (victim == nullptr || victim->end <= current->end) break;
        take(static_cast<uint32_t>(assigned_[victim->vreg]), f_.vreg_bits[victim->vreg], false);
        spill(victim->vreg);
        active.erase(std::find(active.begin(), active.end(), victim));
        reg = find_free(bits);
      }
      if (reg < 0) {
        spill(current->vreg);
        continue;
      }
      assigned_[current->vreg] = reg;
      take(static_cast<uint32_t>(reg), bits, true);
      registers_used_ = std::max(registers_used_, static_cast<uint32_t>(reg) + registers_for(bits));
      active.push_back(current);
    }
  }

  uint16_t physical(const MOperand& op, uint32_t scratch) {
    const uint32_t v = op.value;
    const uint32_t base = assigned_[v] >= 0 ? static_cast<uint32_t>(assigned_[v]) : scratch;
    return isa::vreg(base + op.register_offset());
  }

  // A spilled value moves between its slot and scratch in 32- or 64-bit pieces (a quad: two).
  void spill_load(uint32_t v, uint32_t scratch, std::vector<MInst>* out) {
    const unsigned bits = f_.vreg_bits[v];
    for (uint32_t done = 0; done < bits / 8; done += 8) {
      MInst load;
      load.opcode = bits == 32 ? Opcode::private_load_b32 : Opcode::private_load_b64;
      load.dst = MOperand::raw(isa::vreg(scratch + done / 4));
      load.src[0] = MOperand::literal(0);
      load.imm = static_cast<int32_t>(private_base_) + slot_[v] + static_cast<int32_t>(done);
      out->push_back(load);
    }
  }
  void spill_store(uint32_t v, uint32_t scratch, std::vector<MInst>* out) {
    const unsigned bits = f_.vreg_bits[v];
    for (uint32_t done = 0; done < bits / 8; done += 8) {
      MInst store;
      store.opcode = bits == 32 ? Opcode::private_store_b32 : Opcode::private_store_b64;
      store.src[0] = MOperand::literal(0);
      store.src[1] = MOperand::raw(isa::vreg(scratch + done / 4));
      store.imm = static_cast<int32_t>(private_base_) + slot_[v] + static_cast<int32_t>(done);
      out->push_back(store);
    }
  }

  void rewrite() {
    const uint32_t scratch = (max_ + 3) / 4 * 4;  // a multiple of 4, so pairs and quads line up
    if (spilled_ > 0) registers_used_ = std::max(registers_used_, scratch + kScratchRegisters);
    for (uint32_t b : layout_) {
      MBlock& block = f_.blocks[b];
      std::vector<MInst> out;
      out.reserve(block.insts.size());
      for (MInst inst : block.insts) {
        for (int i = 0; i < 3; ++i) {
          MOperand& s = inst.src[i];
          if (!s.is_vreg()) continue;
          const uint32_t slot_reg = scratch + kScratchSlotRegisters * static_cast<uint32_t>(i);
          if (assigned_[s.value] < 0) spill_load(s.value, slot_reg, &out);
          s = MOperand::raw(physical(s, slot_reg));
        }
        bool store_after = false;
        uint32_t spilled_dst = 0;
        const uint32_t dst_scratch = scratch + 3 * kScratchSlotRegisters;
        if (inst.dst.is_vreg()) {
          store_after = assigned_[inst.dst.value] < 0;
          spilled_dst = inst.dst.value;
          // Writing one channel of a spilled quad keeps the other three: load, write, store.
          if (store_after && inst.dst.kind == MOperand::Kind::kVRegChannel) spill_load(spilled_dst, dst_scratch, &out);
          inst.dst = MOperand::raw(physical(inst.dst, dst_scratch));
        }
        out.push_back(inst);
        if (store_after) spill_store(spilled_dst, dst_scratch, &out);
      }
      MTerminator& term = block.term;
      if (term.kind == MTerminator::Kind::kBranch && term.condition.is_vreg()) {
        if (assigned_[term.condition.value] < 0) spill_load(term.condition.value, scratch, &out);
        term.condition = MOperand::raw(physical(term.condition, scratch));
      }
      block.insts = std::move(out);
    }
  }

  MFunction& f_;
  const std::vector<uint32_t>& layout_;
  uint32_t max_;
  uint32_t private_base_;
  uint32_t reserved_;
  std::vector<BitSet> use_, def_, live_in_, live_out_;
  std::vector<Interval> intervals_;
  std::vector<int32_t> assigned_, slot_;
  std::vector<bool> busy_;
  uint32_t spill_bytes_ = 0;
  uint32_t spilled_ = 0;
  uint32_t registers_used_ = 0;
};

}  // namespace

bool allocate_registers(MFunction* f, const std::vector<uint32_t>& layout, uint32_t max_registers,
                        uint32_t private_base, RegisterAllocation* out, std::string* error, uint32_t reserved) {
  if (max_registers < 8 || max_registers + kScratchRegisters > isa::kNumVectorRegs) {
    *error = "max_vector_registers " + std::to_string(max_registers) + " is outside 8.." +
             std::to_string(isa::kNumVectorRegs - kScratchRegisters);
    return false;
  }
  // Spill slots are 8 bytes, 8-aligned, after the private variables.
  if (reserved >= max_registers) {
    *error = "the program's " + std::to_string(reserved) + " preloaded input registers leave none of the " +
             std::to_string(max_registers) + " to allocate";
    return false;
  }
  Allocator allocator(*f, layout, max_registers, (private_base + 7) / 8 * 8, reserved);
  allocator.run(out);
  return true;
}

}  // namespace gsgpu::compiler
