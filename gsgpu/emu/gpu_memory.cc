#include "gsgpu/emu/gpu_memory.h"

namespace gsgpu {

const char* access_name(Access a) {
  switch (a) {
    case Access::kRead: return "read";
    case Access::kWrite: return "write";
    case Access::kExecute: return "execute";
    case Access::kAtomic: return "atomic";
  }
  return "unknown";
}

}  // namespace gsgpu
