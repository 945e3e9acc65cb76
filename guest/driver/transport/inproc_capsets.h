// The context types the in-process transport registers when it first starts the renderer.
// gsvirt_transport registers vcomp (inproc_capsets_vcomp.cc); the capset-free variant used by
// transport tests and benches registers nothing (they register the echo test capset themselves).
#pragma once

namespace gsvirt::guest {

void register_inproc_capsets();

}  // namespace gsvirt::guest
