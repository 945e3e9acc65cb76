#include "host/renderer/builtin_capsets.h"

#include "host/vcomp/vcomp.h"

namespace gsvirt::renderer {

void register_builtin_capsets() { gsvirt::vcomp::register_capset(); }

}  // namespace gsvirt::renderer
