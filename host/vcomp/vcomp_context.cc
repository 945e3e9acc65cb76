#include "host/vcomp/vcomp_context.h"

#include <algorithm>

#include <cerrno>
#include <cstring>

#include "common/checked_math.h"
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {

namespace {

// The executor a new context runs on: its own when `shared` isolates contexts, else `shared`.
std::unique_ptr<Executor> own_executor_for(uint32_t ctx_id, Executor* shared) {
  if (!shared->isolates_contexts()) return nullptr;
  std::string error;
  std::unique_ptr<Executor> own = shared->make_context_executor(&error);
  if (!own) log_error("vcomp ctx %u: cannot create its executor: %s", ctx_id, error.c_str());
  return own;
}

}  // namespace

VcompContext::VcompContext(uint32_t ctx_id, Executor* executor)
    : ctx_id_(ctx_id),
      own_executor_(own_executor_for(ctx_id, executor)),
      executor_(own_executor_ ? own_executor_.get() : executor) {
  // Without its own executor this context would share the others' address space: refuse to run.
  if (executor->isolates_contexts() && !own_executor_) set_fatal("no executor of its own");
  // Its kernels' printf text is this context's guest's, held for vcTakeOutput; a shared executor
  // (a vendor driver) prints where it prints.
  if (own_executor_) own_executor_->set_output_sink([this](std::string_view text) { append_output(text); });
}

VcompContext::~VcompContext() {
  cancel_->cancel();
  // No output after this returns (the sink is replaced under the runtime's lock), so none reaches
  // a half-destroyed context.
  if (own_executor_) own_executor_->set_output_sink({});
  release_all();
}

void VcompContext::release_all() {
  // Commands waiting behind a user event the guest never set would hold their memory objects
  // (and the executor's VRAM) forever: fail those events first (issue 12, point 10).
  std::vector<uint64_t> ids;
  for (const auto& [serial, handle] : unset_user_events_) ids.push_back(serial);
  for (uint64_t serial : ids) {
    api().clSetUserEventStatus(unset_user_events_[serial], kAbandonedStatus);
    unset_user_events_.erase(serial);
  }
  release_settled_events();  // every user event is settled now
  objects_.clear();
}

int VcompContext::submit_cmd(const void* data, size_t size) {
  if (fatal_) return -EINVAL;
  CancelScope cancel_scope(cancel_);  // builds of these commands end when the context does
  WireReader stream(data, size);
  while (stream.remaining() > 0) {
    uint32_t id = stream.u32("command_id");
    uint32_t dwords = stream.u32("size_in_dwords");
    uint32_t flags = stream.u32("flags");
    if (!stream.ok()) {
      set_fatal("truncated command header");
      break;
    }
    const char* name = proto::command_name(id);
    if (!name) {
      set_fatal("unknown command id " + std::to_string(id));
      break;
    }
    if (dwords < proto::kCommandHeaderDwords) {
      set_fatal(std::string(name) + ": size_in_dwords " + std::to_string(dwords) +
                " is smaller than the header");
      break;
    }
    if (flags & ~proto::kFlagWantReply) {
      set_fatal(std::string(name) + ": flags: unknown bits " + std::to_string(flags));
      break;
    }
    uint64_t arg_bytes = (uint64_t(dwords) - proto::kCommandHeaderDwords) * 4;
    const uint8_t* arg_data = stream.bytes(arg_bytes, "size_in_dwords");
    if (!arg_data) {
      set_fatal(std::string(name) + ": size_in_dwords " + std::to_string(dwords) +
                " runs past the end of the submission");
      break;
    }
    WireReader args(arg_data, arg_bytes);
    const bool want_reply = flags & proto::kFlagWantReply;
    reply_payload_.clear();
    std::string description;
    current_command_ = name;
    proto::DispatchOutcome outcome = proto::dispatch_command(
        *this, id, args, want_reply ? &reply_payload_ : nullptr,
        debug_enabled(kDebugCommands) ? &description : nullptr);
    if (!outcome.decoded) {
      set_fatal(std::string(name) + ": " + args.error());
      break;
    }
    log_debug(kDebugCommands, "vcomp ctx %u: %s -> %d", ctx_id_, description.c_str(),
              outcome.result);
    if (outcome.result != CL_SUCCESS && !want_reply && deferred_command_ == 0) {
      deferred_status_ = outcome.result;
      deferred_command_ = id;
    }
    if (want_reply && !write_reply()) break;
  }
  current_command_ = "";
  return fatal_ ? -EINVAL : 0;
}

void VcompContext::set_fatal(const std::string& message) {
  if (fatal_) return;
  fatal_ = true;
  fatal_message_ = message;
  log_error("vcomp ctx %u: fatal: %s (the context accepts no more commands)", ctx_id_,
            message.c_str());
}

void VcompContext::log_field_error(const char* field, const std::string& why) {
  log_error("vcomp ctx %u: %s: %s: %s", ctx_id_, current_command_, field, why.c_str());
}

bool VcompContext::write_reply() {
  if (!reply_.resource) {
    set_fatal(std::string(current_command_) + ": wants a reply but no reply buffer is set");
    return false;
  }
  const uint64_t header = sizeof(proto::ReplyHeader);
  if (reply_payload_.size() + header > reply_.size) {
    // The guest asked for more than its reply buffer holds: answer with the result alone so it
    // sees a clean error rather than a truncated payload.
    log_field_error("reply", "payload of " + std::to_string(reply_payload_.size()) +
                                 " bytes does not fit the reply buffer");
    int32_t err = CL_OUT_OF_RESOURCES;
    reply_payload_.assign(reinterpret_cast<uint8_t*>(&err), reinterpret_cast<uint8_t*>(&err) + 4);
  }
  uint8_t* base = reply_.resource->host_map + reply_.offset;
  proto::ReplyHeader h{};
  h.deferred_status = deferred_status_;
  h.deferred_command = deferred_command_;
  h.payload_size = uint32_t(reply_payload_.size());
  {
    std::lock_guard lock(output_mutex_);
    h.output_pending = uint32_t(std::min<uint64_t>(output_.size() + (output_dropped_ ? 64 : 0), UINT32_MAX));
  }
  std::memcpy(base + 4, reinterpret_cast<uint8_t*>(&h) + 4, header - 4);
  if (!reply_payload_.empty()) std::memcpy(base + header, reply_payload_.data(), reply_payload_.size());
  deferred_status_ = 0;
  deferred_command_ = 0;
  // The seqno is published last so a guest polling it never sees a half-written reply.
  __atomic_store_n(reinterpret_cast<uint32_t*>(base), ++reply_seqno_, __ATOMIC_RELEASE);
  return true;
}

void VcompContext::attach_resource(std::shared_ptr<renderer::Resource> resource) {
  resources_[resource->id] = std::move(resource);
}

void VcompContext::detach_resource(uint32_t resource_id) {
  if (reply_.resource && reply_.resource->id == resource_id) reply_ = {};
  resources_.erase(resource_id);
}

uint8_t* VcompContext::resource_range(uint32_t resource_id, uint64_t offset, uint64_t size,
                                      const char* field) {
  auto it = resources_.find(resource_id);
  if (it == resources_.end()) {
    log_field_error(field, "resource " + std::to_string(resource_id) +
                               " is not attached to this context");
    return nullptr;
  }
  const renderer::Resource& r = *it->second;
  if (!r.host_map) {
    log_field_error(field, "resource " + std::to_string(resource_id) +
                               " has no host mapping (vcomp needs host-visible blobs)");
    return nullptr;
  }
  if (!range_within(offset, size, r.size)) {
    log_field_error(field, "range " + std::to_string(offset) + "+" + std::to_string(size) +
                               " is outside resource " + std::to_string(resource_id) + " of " +
                               std::to_string(r.size) + " bytes");
    return nullptr;
  }
  return r.host_map + offset;
}

const uint8_t* VcompContext::data_in(const proto::DataRef& ref, uint64_t need, const char* field) {
  if (ref.size < need) {
    log_field_error(field, "carries " + std::to_string(ref.size) + " bytes, " +
                               std::to_string(need) + " needed");
    return nullptr;
  }
  if (ref.mode == proto::kDataInline) return ref.inline_data;
  return resource_range(ref.resource_id, ref.offset, need, field);
}

uint8_t* VcompContext::data_out(const proto::DataRef& ref, uint64_t need,
                                std::vector<uint8_t>* inline_out, const char* field) {
  if (ref.size < need) {
    log_field_error(field, "has room for " + std::to_string(ref.size) + " bytes, " +
                               std::to_string(need) + " needed");
    return nullptr;
  }
  if (ref.mode == proto::kDataResource) return resource_range(ref.resource_id, ref.offset, need, field);
  if (need > kMaxInlineReply) {
    log_field_error(field, "inline reply of " + std::to_string(need) + " bytes is too large");
    return nullptr;
  }
  inline_out->assign(need, 0);
  return inline_out->data();
}

bool VcompContext::check_new_id(uint64_t id, const char* field) {
  std::string why;
  if (objects_.can_insert(id, &why)) return true;
  log_field_error(field, why);
  return false;
}

bool VcompContext::bind(uint64_t id, std::unique_ptr<HostObject> object, const char* field) {
  if (!check_new_id(id, field)) return false;  // `object` is released here
  objects_.insert(id, std::move(object));
  return true;
}

bool VcompContext::device_list(const proto::WireArray<uint64_t>& ids,
                               std::vector<cl_device_id>* devices) {
  devices->clear();
  for (uint64_t i = 0; i < ids.count; ++i) {
    auto* d = lookup<DeviceObject>(ids[i], "devices");
    if (!d) return false;
    devices->push_back(d->handle);
  }
  return true;
}

bool VcompContext::wait_list(const proto::WireArray<uint64_t>& ids, std::vector<cl_event>* events,
                             std::vector<uint64_t>* waits_on_user) {
  events->clear();
  events->reserve(ids.count);
  for (uint64_t i = 0; i < ids.count; ++i) {
    auto* e = lookup<EventObject>(ids[i], "wait_list");
    if (!e) return false;
    events->push_back(e->handle);
    add_user_waits(*e, waits_on_user);
  }
  return true;
}

void VcompContext::bind_event(uint64_t id, cl_event event, std::vector<uint64_t> waits_on_user) {
  if (!event) return;
  auto object = std::make_unique<EventObject>(executor_, event);
  object->waits_on_user = std::move(waits_on_user);
  if (id == 0 || !bind(id, std::move(object), "event")) {
    // Nobody can name it: drop our reference (bind already released it on failure).
    if (id == 0) api().clReleaseEvent(event);
  }
}

// ----- protocol commands -----

void VcompContext::dispatch_vcHandshake(const proto::Args_vcHandshake& args,
                                        proto::Out_vcHandshake& out) {
  out.host_wire_version = proto::kWireVersion;
  out.executor_name = executor_->name();
  if (args.wire_version != proto::kWireVersion || args.xml_hash != proto::kXmlHash) {
    log_field_error("wire_version", "guest speaks version " + std::to_string(args.wire_version) +
                                        " hash " + std::string(args.xml_hash) + ", host " +
                                        std::to_string(proto::kWireVersion) + " hash " +
                                        proto::kXmlHash);
    out.result = CL_INVALID_VALUE;
  }
}

void VcompContext::dispatch_vcSetReplyBuffer(const proto::Args_vcSetReplyBuffer& args,
                                             proto::Out_vcSetReplyBuffer& out) {
  if (args.size < sizeof(proto::ReplyHeader) || args.offset % 4 != 0) {
    log_field_error("size", "reply buffer needs at least " + std::to_string(sizeof(proto::ReplyHeader)) +
                                " bytes at a 4-byte aligned offset");
    out.result = CL_INVALID_VALUE;
    return;
  }
  if (!resource_range(args.resource_id, args.offset, args.size, "resource_id")) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  reply_ = {resources_[args.resource_id], args.offset, args.size};
}

void VcompContext::dispatch_vcDestroyObject(const proto::Args_vcDestroyObject& args,
                                            proto::Out_vcDestroyObject& out) {
  // A user event nobody can set any more fails, releasing the commands behind it.
  if (auto* event = objects_.get<EventObject>(args.object)) {
    abandon_user_event(*event);
    // A command's event the guest lets go of while the command may still wait for a user event.
    if (!event->user_serial && api().clRetainEvent(event->handle) == CL_SUCCESS)
      hold_while_waiting(event->handle, event->waits_on_user);
  }
  if (!objects_.erase(args.object)) {
    log_field_error("object", "unknown id " + std::to_string(args.object));
    out.result = CL_INVALID_VALUE;
  }
}

void VcompContext::dispatch_vcPing(const proto::Args_vcPing&, proto::Out_vcPing&) {}

void VcompContext::append_output(std::string_view text) {
  std::lock_guard lock(output_mutex_);
  const size_t room = kMaxHeldOutput - std::min(output_.size(), kMaxHeldOutput);
  output_.append(text.substr(0, room));
  output_dropped_ += text.size() - std::min(text.size(), room);
}

void VcompContext::dispatch_vcTakeOutput(const proto::Args_vcTakeOutput& args, proto::Out_vcTakeOutput& out) {
  std::string taken;
  {
    std::lock_guard lock(output_mutex_);
    if (output_.empty() && output_dropped_) {
      // What was dropped is said where the output goes, in its place.
      output_ = "[gsvirt: " + std::to_string(output_dropped_) + " bytes of kernel output dropped: the host holds " +
                std::to_string(kMaxHeldOutput) + " per context]\n";
      output_dropped_ = 0;
    }
    const size_t n = std::min<uint64_t>(output_.size(), args.text.size);
    taken = output_.substr(0, n);
    output_.erase(0, n);
  }
  if (taken.empty()) return;
  uint8_t* dst = data_out(args.text, taken.size(), &out.text, "text");
  if (!dst) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  std::memcpy(dst, taken.data(), taken.size());
}

}  // namespace gsvirt::vcomp
