#include "guest/driver/transport/inproc_capsets.h"

namespace gsvirt::guest {

void register_inproc_capsets() {}

}  // namespace gsvirt::guest
