#include "guest/driver/transport/inproc_capsets.h"

#ifdef GSVIRT_HAVE_VCOMP
#include "host/vcomp/vcomp.h"
#endif

namespace gsvirt::guest {

void register_inproc_capsets() {
#ifdef GSVIRT_HAVE_VCOMP
  gsvirt::vcomp::register_capset();
#endif
}

}  // namespace gsvirt::guest
