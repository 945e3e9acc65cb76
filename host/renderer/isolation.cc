#include "host/renderer/isolation.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "common/log.h"

namespace gsvirt::renderer {
namespace {

std::atomic<bool> g_process_sandboxed{false};

}  // namespace

Isolation isolation_setting() {
  const char* value = std::getenv("GSVIRT_ISOLATION");
  if (!value || !*value || std::strcmp(value, "host") == 0) return Isolation::kHostExecutor;
  if (std::strcmp(value, "vcomp") == 0) return Isolation::kEveryVcomp;
  if (std::strcmp(value, "off") == 0) return Isolation::kOff;
  log_error("renderer: GSVIRT_ISOLATION=\"%s\" is not host, vcomp or off; using host", value);
  return Isolation::kHostExecutor;
}

void mark_process_sandboxed() { g_process_sandboxed = true; }

bool process_sandboxed() { return g_process_sandboxed; }

}  // namespace gsvirt::renderer
