// The context types gsvirt_renderer_init registers: every one built into the program (vcomp, the
// gsgpu native context) for the full C API, none for the test variant. Each variant of the C API
// library links one definition (builtin_capsets.cc or builtin_capsets_none.cc).
#pragma once

namespace gsvirt::renderer {

void register_builtin_capsets();

}  // namespace gsvirt::renderer
