// The SAMPLER_STATE word of an OpenCL sampler (gsgpu.xml <blocks>). The runtime builds it for sampler
// objects and the compiler for sampler literals in kernel source; both must agree bit for bit, so
// both call this. Depends on the generated gsgpu_hw.h only.
#pragma once

#include <cstdint>

#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::hw {

// OpenCL has one addressing mode for every coordinate and one filter for both directions; no
// mip-maps, and the border is transparent black (which reads alpha 1 for formats without alpha).
// `address` is a STATE_ADDRESS_U_* code.
constexpr uint32_t opencl_sampler_state(bool normalized, uint32_t address, bool linear) {
  namespace smp = blk::SAMPLER_STATE;
  const uint32_t filter = linear ? 1 : 0;
  return put_field(normalized ? 1 : 0, smp::STATE_NORMALIZED_MASK, smp::STATE_NORMALIZED_SHIFT) |
         put_field(address, smp::STATE_ADDRESS_U_MASK, smp::STATE_ADDRESS_U_SHIFT) |
         put_field(address, smp::STATE_ADDRESS_V_MASK, smp::STATE_ADDRESS_V_SHIFT) |
         put_field(address, smp::STATE_ADDRESS_W_MASK, smp::STATE_ADDRESS_W_SHIFT) |
         put_field(filter, smp::STATE_MAG_FILTER_MASK, smp::STATE_MAG_FILTER_SHIFT) |
         put_field(filter, smp::STATE_MIN_FILTER_MASK, smp::STATE_MIN_FILTER_SHIFT) |
         put_field(smp::STATE_BORDER_TRANSPARENT_BLACK, smp::STATE_BORDER_MASK, smp::STATE_BORDER_SHIFT);
}

}  // namespace gsgpu::hw
