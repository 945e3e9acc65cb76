// Creation and release of the two kinds of resource the renderer core holds.
//
//   host blob  memfd allocated by the host, sealed against shrinking (a guest holding the fd must not
//              be able to truncate memory the host has mapped: that would SIGBUS the host), mapped
//              once here and exported to the guest side as an fd.
//   iov        guest pages handed over by the VMM as iovecs (virtio-gpu GUEST blobs / attach_backing).
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "host/renderer/context.h"

namespace gsvirt::renderer {

// Returns the resource, or nullptr with *error set (errno-style value in *err).
std::shared_ptr<Resource> create_host_blob(uint32_t res_id, uint64_t size, int* err);
std::shared_ptr<Resource> create_iov_resource(uint32_t res_id, std::span<const iovec> iov,
                                              int* err);

// Sum of iov_len with overflow checking; nullopt-like false on overflow.
bool iov_total_size(std::span<const iovec> iov, uint64_t* total);

}  // namespace gsvirt::renderer
