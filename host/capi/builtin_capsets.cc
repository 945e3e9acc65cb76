#include "host/capi/builtin_capsets.h"

#include "host/gsgpu_ctx/gsgpu_ctx.h"
#include "host/vcomp/vcomp.h"

namespace gsvirt::renderer {

void register_builtin_capsets() {
  gsvirt::vcomp::register_capset();
  gsvirt::gsgpu_ctx::register_capset();
}

}  // namespace gsvirt::renderer
