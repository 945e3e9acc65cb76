// The process-wide table of context types, keyed by capset id.
//
// Context types register themselves (gsvirt::vcomp::register_capset(), test capsets); the renderer
// looks capsets up when the guest asks for caps or creates a context.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "host/renderer/context.h"

namespace gsvirt::renderer {

// Returns a copy of the registration for `capset_id`, or nullopt when no type registered it.
std::optional<CapsetInfo> find_capset(uint32_t capset_id);

// Ids of every registered capset, ascending.
std::vector<uint32_t> registered_capset_ids();

// Capset ids fit the 32-bit mask Linux builds for SUPPORTED_CAPSET_IDs (ARCHITECTURE.md §3).
constexpr uint32_t kMaxCapsetId = 31;

}  // namespace gsvirt::renderer
