#include "host/virgl_abi/capset_map.h"

#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "gsgpu_ctx_protocol.h"
#include "host/renderer/capset_registry.h"
#include "vcomp_protocol.h"

namespace gsvirt::virgl_abi {
namespace {

// One setting: "" / null = `fallback`, "off" or "0" = 0 (not offered), else a decimal id 1..31.
bool parse_one(const char* name, const char* value, uint32_t fallback, uint32_t* out, std::string* error) {
  if (!value || !*value) {
    *out = fallback;
    return true;
  }
  if (std::strcmp(value, "off") == 0) {
    *out = 0;
    return true;
  }
  char* end = nullptr;
  unsigned long id = std::strtoul(value, &end, 10);
  if (*end || value[0] < '0' || value[0] > '9' || id > renderer::kMaxCapsetId) {
    *error = std::string(name) + "=\"" + value + "\" is not a capset id 0..31 or \"off\"";
    return false;
  }
  *out = uint32_t(id);
  return true;
}

}  // namespace

uint32_t CapsetMap::gsvirt_capset_for(uint32_t id) const {
  if (id == 0) return 0;
  if (id == vcomp_id) return vcomp::proto::kCapsetId;
  if (id == gsgpu_id) return gsgpu_ctx::proto::kCapsetId;
  return 0;
}

bool parse_capset_map(const char* vcomp_value, const char* gsgpu_value, CapsetMap* map, std::string* error) {
  CapsetMap parsed;
  if (!parse_one(kVcompCapsetEnv, vcomp_value, kDefaultVcompCapset, &parsed.vcomp_id, error) ||
      !parse_one(kGsgpuCapsetEnv, gsgpu_value, kDefaultGsgpuCapset, &parsed.gsgpu_id, error))
    return false;
  if (parsed.vcomp_id != 0 && parsed.vcomp_id == parsed.gsgpu_id) {
    *error = std::string(kVcompCapsetEnv) + " and " + kGsgpuCapsetEnv + " both name capset " +
             std::to_string(parsed.vcomp_id);
    return false;
  }
  *map = parsed;
  return true;
}

const CapsetMap& capset_map() {
  static const CapsetMap map = [] {
    CapsetMap m;
    std::string error;
    if (!parse_capset_map(std::getenv(kVcompCapsetEnv), std::getenv(kGsgpuCapsetEnv), &m, &error)) {
      log_error("virglrenderer: %s; offering neither vcomp nor the gsgpu native context", error.c_str());
      m.vcomp_id = 0;
      m.gsgpu_id = 0;
    }
    log_info("virglrenderer: vcomp on capset %u, gsgpu native context on capset %u (0: off)", m.vcomp_id,
             m.gsgpu_id);
    return m;
  }();
  return map;
}

}  // namespace gsvirt::virgl_abi
