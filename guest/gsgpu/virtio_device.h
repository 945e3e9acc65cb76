// The virtio backend of gsgpu/drv: the driver interface encoded for the gsgpu native context
// (capset 17, protocol/gsgpu_ctx), so gsgpu's userspace drivers (the gsgpu OpenCL runtime) run in
// a guest over any guest transport (inproc, vtest, drm). docs/guest-driver.md.
//
//   BOs      host-allocated blobs (Transport::create_blob), one per BO, that the host imports as
//            the BO's memory: bo_map is the guest's mapping of the blob (zero copy)
//   requests without a response (BO_CREATE, BO_DESTROY, VA_BIND, VA_UNBIND) are batched and go
//            with the next submit or synchronous call; they are checked here first with the
//            rules of drv.h, so a bad one is refused at once
//   submit   SUBMIT on the ring's transport timeline with the drv seqno as the point
//   fences   the fence page the host keeps in the response buffer (no round trip), else a wait
//            on the transport's timeline
#pragma once

#include <memory>
#include <string>

#include "gsgpu/drv/drv.h"
#include "guest/transport/transport.h"

namespace gsgpu::drv {

// Opens the native context over `transport` (whose context is not initialised yet). nullptr
// and *error when the host does not offer capset 17, speaks another wire version, or the
// transport fails.
std::unique_ptr<Device> open_virtio(std::unique_ptr<gsvirt::guest::Transport> transport, std::string* error);

}  // namespace gsgpu::drv
