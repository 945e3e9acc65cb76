// Building the command-processor packets a SubmitDesc carries, for userspace drivers on gsgpu/drv
// (the encoder is protocol/gsgpu/packets.h; this names it in the driver's namespace).
//
//   std::vector<uint32_t> stream;
//   gsgpu::drv::DispatchPacket d;  // code, arguments, grid, group ...
//   gsgpu::drv::append_dispatch(&stream, d);
//   device->submit({ring, stream.data(), uint32_t(stream.size()), bos, bo_count}, &seqno);
//
// The backend appends its own fence SYNC; a submission must not contain HALT.
#pragma once

#include "protocol/gsgpu/packets.h"

namespace gsgpu::drv {

using hw::DispatchPacket;
using hw::append_dispatch;
using hw::append_dump;
using hw::append_nop;
using hw::append_sync;
using hw::encode_dispatch;
using hw::encode_dump;
using hw::encode_nop;
using hw::encode_sync;

// SYNC flags (pkt::SYNC::FLAGS_*) and DUMP flags (pkt::DUMP::FLAGS_*).
inline constexpr uint32_t kSyncWriteFence = hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK;
inline constexpr uint32_t kSyncFence64 = hw::pkt::SYNC::FLAGS_FENCE_64BIT_MASK;
inline constexpr uint32_t kSyncRaiseIrq = hw::pkt::SYNC::FLAGS_RAISE_IRQ_MASK;
inline constexpr uint32_t kDumpToBuffer = hw::pkt::DUMP::FLAGS_TO_BUFFER_MASK;
inline constexpr uint32_t kDumpToHost = hw::pkt::DUMP::FLAGS_TO_HOST_MASK;

}  // namespace gsgpu::drv
