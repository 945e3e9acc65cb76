// Which guest-visible capset ids the drop-in library offers, and which gsvirt context type each
// one creates.
//
// Stock QEMU 10.0 lists only capsets 1 (always), 2 (when get_cap_set(2) reports a version) and 4
// (with the device property venus=on and a non-zero size), so gsvirt's own ids (16 vcomp,
// 17 gsgpu native context) cannot reach a guest through it. The library offers vcomp and the
// native context under ids taken from the environment when the map is first needed:
//   GSVIRT_VIRGL_CAPSET_VCOMP  default 2 (VIRGL2): listed by QEMU with no device property;
//   GSVIRT_VIRGL_CAPSET_GSGPU  default 4 (VENUS): listed by QEMU with venus=on.
// Each takes an id 1..31, or "off" / "0" to offer nothing for that type. docs/transports.md
// ("The virglrenderer drop-in") gives the reasons.
#pragma once

#include <cstdint>
#include <string>

namespace gsvirt::virgl_abi {

constexpr const char* kVcompCapsetEnv = "GSVIRT_VIRGL_CAPSET_VCOMP";
constexpr const char* kGsgpuCapsetEnv = "GSVIRT_VIRGL_CAPSET_GSGPU";
constexpr uint32_t kDefaultVcompCapset = 2;  // VIRTIO_GPU_CAPSET_VIRGL2
constexpr uint32_t kDefaultGsgpuCapset = 4;  // VIRTIO_GPU_CAPSET_VENUS

struct CapsetMap {
  uint32_t vcomp_id = kDefaultVcompCapset;  // 0: not offered
  uint32_t gsgpu_id = kDefaultGsgpuCapset;  // 0: not offered

  // The gsvirt capset (16 / 17) that guest-visible `id` creates, or 0 when `id` is not offered.
  uint32_t gsvirt_capset_for(uint32_t id) const;
};

// Parses the two settings (null or "" = the default). A malformed value, an id outside 1..31 or
// both types on one id is an error: `error` says which setting and why, and the map is not used.
bool parse_capset_map(const char* vcomp_value, const char* gsgpu_value, CapsetMap* map, std::string* error);

// The process's map, parsed from the environment on first use. A bad setting is logged once and
// leaves that type off (the library then offers less, never something the user did not ask for).
const CapsetMap& capset_map();

}  // namespace gsvirt::virgl_abi
