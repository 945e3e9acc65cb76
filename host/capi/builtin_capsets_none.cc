#include "host/capi/builtin_capsets.h"

namespace gsvirt::renderer {

void register_builtin_capsets() {}

}  // namespace gsvirt::renderer
