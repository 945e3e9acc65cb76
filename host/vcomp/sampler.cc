// Sampler commands.
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {

void VcompContext::dispatch_clCreateSampler(const proto::Args_clCreateSampler& args,
                                            proto::Out_clCreateSampler& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.sampler, "sampler", &out.result)) return;
  cl_int err = CL_SUCCESS;
  cl_sampler s = api().clCreateSampler(c->handle, args.normalized_coords ? CL_TRUE : CL_FALSE,
                                       args.addressing_mode, args.filter_mode, &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.sampler, std::make_unique<SamplerObject>(executor_, s), "sampler");
}

}  // namespace gsvirt::vcomp
