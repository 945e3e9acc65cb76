// Forwarding helpers: info queries answered by the host.
#pragma once

#include <algorithm>

#include "guest/cl/connection.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {

// The host connection, or nullptr with a log line naming the call that needed it.
Connection* connection_for(const char* api);

// Forwards an info query whose command has the generic reply {result, value (data out), size_ret}.
// `encode(w, want_reply, data_out)` encodes the command.
template <class Reply, class Encode>
cl_int forward_info(const char* api, size_t value_size, void* value, size_t* size_ret, Encode encode,
                    bool (*decode)(WireReader&, Reply*)) {
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  proto::DataOut out;
  cl_int err = connection->data_out(value ? value_size : 0, &out);
  if (err != CL_SUCCESS) return err;
  Reply reply;
  err = connection->call(api, [&](WireWriter& w, bool want) { encode(w, want, out); }, decode, &reply);
  if (err != CL_SUCCESS) return err;
  if (value) connection->copy_data_out(out, reply.value, reply.value_size, value,
                                       std::min<uint64_t>(value_size, reply.size_ret));
  if (size_ret) *size_ret = size_t(reply.size_ret);
  return CL_SUCCESS;
}

}  // namespace gsvirt::icd
