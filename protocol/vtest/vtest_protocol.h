// The vtest wire protocol, version 3, as gsvirt-server and the guest vtest transport speak it.
//
// Facts (command numbers, field order) follow virglrenderer's vtest/vtest_protocol.h. Every message
// is a header {u32 length, u32 command} followed by `length` dwords of payload, little-endian.
// Two historical exceptions of the protocol:
//   - CREATE_RENDERER's length counts bytes, not dwords (the payload is the client's name);
//   - TRANSFER_PUT2's length covers only its 10-dword header; data_size bytes of data follow it,
//     and TRANSFER_GET2 is answered with data_size raw bytes and no header.
// Replies carry the same header with the command they answer. The fd of RESOURCE_CREATE_BLOB and
// SYNC_WAIT replies travels as SCM_RIGHTS ancillary data with the reply's bytes.
#pragma once

#include <cstdint>

namespace gsvirt::vtest {

constexpr uint32_t kProtocolVersion = 3;
constexpr uint32_t kHeaderDwords = 2;
constexpr uint32_t kHeaderBytes = 8;

enum Command : uint32_t {
  kResourceUnref = 3,
  kCreateRenderer = 8,
  kPingProtocolVersion = 10,
  kProtocolVersionCmd = 11,
  kTransferGet2 = 13,
  kTransferPut2 = 14,
  kGetParam = 15,
  kGetCapset = 16,
  kContextInit = 17,
  kResourceCreateBlob = 18,
  kSyncCreate = 19,
  kSyncUnref = 20,
  kSyncRead = 21,
  kSyncWrite = 22,
  kSyncWait = 23,
  kSubmitCmd2 = 24,
};

// Payload sizes in dwords of the fixed-size requests.
constexpr uint32_t kResourceUnrefDwords = 1;      // res_id
constexpr uint32_t kProtocolVersionDwords = 1;    // version
constexpr uint32_t kTransfer2Dwords = 10;         // res_id level x y z w h d data_size offset
constexpr uint32_t kGetParamDwords = 1;           // param            -> {valid, value}
constexpr uint32_t kGetCapsetDwords = 2;          // capset_id version -> {valid, caps...}
constexpr uint32_t kContextInitDwords = 1;        // capset_id
constexpr uint32_t kCreateBlobDwords = 6;         // type flags size_lo size_hi id_lo id_hi -> res_id + fd
constexpr uint32_t kSyncCreateDwords = 2;         // value_lo value_hi -> sync_id
constexpr uint32_t kSyncUnrefDwords = 1;          // sync_id
constexpr uint32_t kSyncReadDwords = 1;           // sync_id -> value_lo value_hi
constexpr uint32_t kSyncWriteDwords = 3;          // sync_id value_lo value_hi
constexpr uint32_t kSyncWaitFixedDwords = 2;      // flags timeout, then (id, lo, hi) per sync -> fd
constexpr uint32_t kSyncWaitEntryDwords = 3;

// Indices inside TRANSFER_GET2/PUT2.
constexpr uint32_t kTransfer2ResId = 0;
constexpr uint32_t kTransfer2DataSize = 8;
constexpr uint32_t kTransfer2Offset = 9;

enum Param : uint32_t { kParamMaxTimelineCount = 1 };

enum BlobType : uint32_t { kBlobTypeGuest = 1, kBlobTypeHost3d = 2, kBlobTypeHost3dGuest = 3 };
constexpr uint32_t kBlobFlagMappable = 1u << 0;
constexpr uint32_t kBlobFlagShareable = 1u << 1;
constexpr uint32_t kBlobFlagCrossDevice = 1u << 2;

constexpr uint32_t kSyncWaitFlagAny = 1u << 0;

// SUBMIT_CMD2: {u32 batch_count, batch[batch_count]} then command and sync data. Offsets and
// sizes are in dwords from the start of the payload; a sync entry is (id, value_lo, value_hi),
// set to value once the batch has executed.
struct SubmitBatch {
  uint32_t flags;
  uint32_t cmd_offset;
  uint32_t cmd_size;
  uint32_t sync_offset;
  uint32_t sync_count;
  uint32_t ring_idx;         // used when flags has kSubmitFlagRingIdx
  uint32_t num_in_syncobj;   // DRM syncobjs: not offered, must be 0
  uint32_t num_out_syncobj;  // likewise
};
static_assert(sizeof(SubmitBatch) == 32);
constexpr uint32_t kSubmitBatchDwords = sizeof(SubmitBatch) / 4;
constexpr uint32_t kSubmitFlagRingIdx = 1u << 0;
constexpr uint32_t kSubmitFlagInFenceFd = 1u << 1;
constexpr uint32_t kSubmitFlagOutFenceFd = 1u << 2;

}  // namespace gsvirt::vtest
