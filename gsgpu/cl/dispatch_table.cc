// The runtime's cl_icd_dispatch: every entry filled. Entry points this runtime implements go to
// their gsgpu_cl* function (entry_points.h); every other one gets the shared refusal
// (common/cl/unsupported.h): CL_INVALID_OPERATION (or a NULL handle with that error) and its name
// logged once, so an application sees a clean refusal rather than a NULL call.
// First: runtime.h chooses which deprecated OpenCL APIs the headers declare.
#include "gsgpu/cl/entry_points.h"

#include "common/cl/unsupported.h"

namespace gsgpu::cl {
namespace {

cl_icd_dispatch make_table() {
  cl_icd_dispatch t{};
#define GSGPU_SET(name) t.name = &gsgpu_##name;
  GSGPU_IMPLEMENTED_ENTRY_POINTS(GSGPU_SET)
#undef GSGPU_SET
  gsvirt::cl::fill_unsupported<"gsgpu executor">(t);
  return t;
}

}  // namespace

const cl_icd_dispatch* gsgpu_dispatch_table() {
  static const cl_icd_dispatch table = make_table();
  return &table;
}

}  // namespace gsgpu::cl
