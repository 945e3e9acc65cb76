// The one dispatch table every object points to: the entry points api.h lists, and for every other
// slot (GL/D3D/EGL sharing, SVM, pipes, native kernels, ...) the shared refusal (common/cl/
// unsupported.h): CL_INVALID_OPERATION and one log line, because the loader calls whatever a slot
// holds and a NULL slot would crash the app.
#include "common/cl/unsupported.h"
#include "guest/cl/api.h"
#include "guest/cl/icd.h"

namespace gsvirt::icd {
namespace {

cl_icd_dispatch make_dispatch_table() {
  cl_icd_dispatch table{};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define GSVIRT_SET_ENTRY(name) table.name = &gsvirt_##name;
  GSVIRT_ICD_IMPLEMENTED_ENTRY_POINTS(GSVIRT_SET_ENTRY)
#undef GSVIRT_SET_ENTRY
#pragma GCC diagnostic pop
  gsvirt::cl::fill_unsupported<"gsvirt ICD">(table);
  return table;
}

}  // namespace

cl_icd_dispatch* dispatch_table() {
  static cl_icd_dispatch table = make_dispatch_table();
  return &table;
}

}  // namespace gsvirt::icd
