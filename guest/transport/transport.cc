// Transport selection from the environment.
#include <cstdlib>
#include <cstring>

#include "guest/transport/transport.h"

namespace gsvirt::guest {

std::unique_ptr<Transport> create_transport_from_env(std::string* error) {
  const char* kind = std::getenv("GSVIRT_TRANSPORT");
  const char* socket = std::getenv("GSVIRT_VTEST_SOCKET");
  bool has_socket = socket && *socket;
  if (!kind || !*kind) kind = has_socket ? "vtest" : "inproc";
  if (std::strcmp(kind, "inproc") == 0) return create_inproc_transport(error);
  if (std::strcmp(kind, "vtest") == 0)
    return create_vtest_transport(has_socket ? socket : "/tmp/gsvirt-vtest.sock", error);
  if (std::strcmp(kind, "drm") == 0) {
    const char* device = std::getenv("GSVIRT_DRM_DEVICE");
    return create_drm_transport(device ? device : "", error);
  }
  if (error)
    *error = std::string("GSVIRT_TRANSPORT=\"") + kind + "\" is not inproc, vtest or drm";
  return nullptr;
}

}  // namespace gsvirt::guest
