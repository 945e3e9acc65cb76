// The vcomp context type: OpenCL remoting (capset 16).
#pragma once

namespace gsvirt::vcomp {

// Registers the vcomp capset with the renderer core. Binaries that host contexts (gsvirt-server,
// the in-process transport) call this once after the renderer is initialised.
void register_capset();

}  // namespace gsvirt::vcomp
