// The virtio-gpu DRM uAPI that gsvirt's drm transport needs, declared once, with the Linux
// kernel's values (include/uapi/drm/virtgpu_drm.h, Linux 5.16+).
//
// Debian 12's libdrm ships a virtgpu_drm.h that predates CONTEXT_INIT, blob resources and ring
// indices, so these are declared here under our own names (no clash if a newer header is also
// included). Sizes are checked: the ioctl numbers encode them.
#pragma once

#include <drm.h>

#include <cstdint>

namespace gsvirt::virtgpu {

// Driver ioctl indices, added to DRM_COMMAND_BASE.
constexpr unsigned kMap = 0x01;
constexpr unsigned kExecbuffer = 0x02;
constexpr unsigned kGetparam = 0x03;
constexpr unsigned kWait = 0x08;
constexpr unsigned kGetCaps = 0x09;
constexpr unsigned kResourceCreateBlob = 0x0a;
constexpr unsigned kContextInit = 0x0b;

// GETPARAM parameters.
constexpr uint64_t kParam3dFeatures = 1;
constexpr uint64_t kParamCapsetQueryFix = 2;
constexpr uint64_t kParamResourceBlob = 3;
constexpr uint64_t kParamHostVisible = 4;
constexpr uint64_t kParamCrossDevice = 5;
constexpr uint64_t kParamContextInit = 6;
constexpr uint64_t kParamSupportedCapsetIds = 7;

// EXECBUFFER flags.
constexpr uint32_t kExecbufFenceFdIn = 0x01;
constexpr uint32_t kExecbufFenceFdOut = 0x02;
constexpr uint32_t kExecbufRingIdx = 0x04;

// CONTEXT_INIT parameters.
constexpr uint64_t kContextParamCapsetId = 0x0001;
constexpr uint64_t kContextParamNumRings = 0x0002;
constexpr uint64_t kContextParamPollRingsMask = 0x0003;

// Blob memory types and flags.
constexpr uint32_t kBlobMemGuest = 0x0001;
constexpr uint32_t kBlobMemHost3d = 0x0002;
constexpr uint32_t kBlobMemHost3dGuest = 0x0003;
constexpr uint32_t kBlobFlagUseMappable = 0x0001;
constexpr uint32_t kBlobFlagUseShareable = 0x0002;
constexpr uint32_t kBlobFlagUseCrossDevice = 0x0004;

struct Map {
  uint64_t offset;  // out: fake offset to mmap on the DRM fd
  uint32_t handle;
  uint32_t pad;
};

// The 5.16 layout (ring_idx + pad). Newer kernels append syncobj fields and accept this shorter
// size, zero-filling the rest.
struct Execbuffer {
  uint32_t flags;
  uint32_t size;
  uint64_t command;  // user pointer
  uint64_t bo_handles;
  uint32_t num_bo_handles;
  int32_t fence_fd;  // in/out fence fd
  uint32_t ring_idx;
  uint32_t pad;
};

struct Getparam {
  uint64_t param;
  uint64_t value;  // user pointer to an int
};

struct Wait {
  uint32_t handle;
  uint32_t flags;
};

struct GetCaps {
  uint32_t cap_set_id;
  uint32_t cap_set_ver;
  uint64_t addr;
  uint32_t size;
  uint32_t pad;
};

struct ResourceCreateBlob {
  uint32_t blob_mem;
  uint32_t blob_flags;
  uint32_t bo_handle;   // out
  uint32_t res_handle;  // out
  uint64_t size;
  uint32_t pad;
  uint32_t cmd_size;
  uint64_t cmd;
  uint64_t blob_id;
};

struct ContextSetParam {
  uint64_t param;
  uint64_t value;
};

struct ContextInit {
  uint32_t num_params;
  uint32_t pad;
  uint64_t ctx_set_params;  // user pointer to ContextSetParam[num_params]
};

static_assert(sizeof(Map) == 16);
static_assert(sizeof(Execbuffer) == 40);
static_assert(sizeof(Getparam) == 16);
static_assert(sizeof(Wait) == 8);
static_assert(sizeof(GetCaps) == 24);
static_assert(sizeof(ResourceCreateBlob) == 48);
static_assert(sizeof(ContextSetParam) == 16);
static_assert(sizeof(ContextInit) == 16);

constexpr unsigned long kIoctlMap = DRM_IOWR(DRM_COMMAND_BASE + kMap, Map);
constexpr unsigned long kIoctlExecbuffer = DRM_IOWR(DRM_COMMAND_BASE + kExecbuffer, Execbuffer);
constexpr unsigned long kIoctlGetparam = DRM_IOWR(DRM_COMMAND_BASE + kGetparam, Getparam);
constexpr unsigned long kIoctlWait = DRM_IOWR(DRM_COMMAND_BASE + kWait, Wait);
constexpr unsigned long kIoctlGetCaps = DRM_IOWR(DRM_COMMAND_BASE + kGetCaps, GetCaps);
constexpr unsigned long kIoctlResourceCreateBlob =
    DRM_IOWR(DRM_COMMAND_BASE + kResourceCreateBlob, ResourceCreateBlob);
constexpr unsigned long kIoctlContextInit = DRM_IOWR(DRM_COMMAND_BASE + kContextInit, ContextInit);

}  // namespace gsvirt::virtgpu
