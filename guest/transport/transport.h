// How a guest driver reaches the host: one interface, three transports.
//
//   inproc  the host renderer linked into the same process (library mode)
//   vtest   a unix socket to gsvirt-server (vtest protocol v3, blobs as memfds via SCM_RIGHTS)
//   drm     virtio-gpu ioctls on /dev/dri/renderD* inside a VM
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gsvirt::guest {

// A host-visible shared-memory resource mapped into the guest.
struct Blob {
  uint32_t resource_id = 0;
  void* map = nullptr;
  uint64_t size = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;

  // Fetches the capset the host reports for `capset_id` (wire version, XML hash, ...).
  virtual bool get_capset(uint32_t capset_id, std::vector<uint8_t>& out) = 0;
  // Creates this connection's context for `capset_id` (CONTEXT_INIT). Called once.
  virtual bool init_context(uint32_t capset_id) = 0;

  // Creates a host-allocated blob of `size` bytes, attached to this connection's context and
  // mapped here. Resource ids are chosen by the transport.
  virtual bool create_blob(uint64_t size, Blob* out) = 0;
  virtual void destroy_blob(const Blob& blob) = 0;

  // Sends a command buffer to the context. With `wait`, returns only after the host has executed
  // every command sent so far, so replies written into the reply blob are visible.
  virtual bool submit(const void* cmds, size_t size, bool wait) = 0;

  // Last error, for messages such as "vtest: cannot connect to /run/gsvirt.sock: ...".
  virtual const std::string& error() const = 0;
};

// Selects a transport from GSVIRT_TRANSPORT (inproc | vtest | drm; default vtest when
// GSVIRT_VTEST_SOCKET is set, else inproc). Returns nullptr and sets *error on failure.
std::unique_ptr<Transport> create_transport_from_env(std::string* error);

std::unique_ptr<Transport> create_inproc_transport(std::string* error);
std::unique_ptr<Transport> create_vtest_transport(const std::string& socket_path, std::string* error);
// `device_path` "" picks the first virtio-gpu render node. The capset is the one init_context is
// given, unless GSVIRT_CAPSET_ID names another (a VM may offer gsvirt under another id).
std::unique_ptr<Transport> create_drm_transport(const std::string& device_path, std::string* error);

}  // namespace gsvirt::guest
