// One vcomp context: the host side of one guest's OpenCL connection.
//
// submit_cmd walks the command stream (header {id, size_in_dwords, flags} + arguments), decodes
// each command with the generated decoder, calls the dispatch_<command> handler (one source file
// per object family implements them), and writes replies into the guest's reply resource through
// a host-private shadow buffer. A malformed stream makes the context fatal (sticky); an OpenCL
// error (a wrong id, a bad size) is just the command's cl_int result.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/cancel.h"
#include "host/renderer/context.h"
#include "host/vcomp/executor.h"
#include "host/vcomp/object_table.h"
#include "vcomp_protocol_host.h"

namespace gsvirt::vcomp {

// The object kinds of the clGet*Info families, each with its own allow-list of parameters.
enum class InfoKind {
  kPlatform, kDevice, kQueue, kMem, kImage, kProgram, kProgramBuild, kKernel, kKernelWorkGroup, kKernelArg,
  kEvent, kEventProfiling,
};

class VcompContext final : public renderer::Context, public proto::Handlers {
 public:
  VcompContext(uint32_t ctx_id, Executor* executor);
  ~VcompContext() override;

  int submit_cmd(const void* data, size_t size) override;
  bool fatal() const override { return fatal_; }
  const std::string& fatal_message() const { return fatal_message_; }
  void attach_resource(std::shared_ptr<renderer::Resource> resource) override;
  void detach_resource(uint32_t resource_id) override;

  size_t live_objects() const { return objects_.size(); }

  // Kernel output (printf) of this context's work, from any thread. Held, up to kMaxHeldOutput
  // bytes (what comes beyond is dropped and counted), until the guest takes it with
  // vcTakeOutput: every reply header says how much is waiting.
  void append_output(std::string_view text);
  static constexpr size_t kMaxHeldOutput = 1u << 20;

#define GSVIRT_DECLARE_DISPATCH(name) \
  void dispatch_##name(const proto::Args_##name& args, proto::Out_##name& out) override;
  VCOMP_FOR_EACH_COMMAND(GSVIRT_DECLARE_DISPATCH)
#undef GSVIRT_DECLARE_DISPATCH

 private:
  const cl_icd_dispatch& api() const { return executor_->api(); }

  // Typed lookup of a guest id for the current command; logs "<command>: <field>: <why>" on
  // failure. Id 0 gives nullptr without a log when `optional`.
  template <typename T>
  T* lookup(uint64_t id, const char* field, bool optional = false);
  // lookup() for handlers: on failure also sets *result to `error` (the OpenCL code for a bad
  // handle of that kind).
  template <typename T>
  T* require(uint64_t id, const char* field, cl_int error, int32_t* result) {
    T* o = lookup<T>(id, field);
    if (!o) *result = error;
    return o;
  }
  // Binds `id` to a new host object; on failure logs and releases the object.
  bool bind(uint64_t id, std::unique_ptr<HostObject> object, const char* field);
  bool check_new_id(uint64_t id, const char* field);
  // The same for handlers: a refused id is CL_INVALID_VALUE.
  bool check_new_id(uint64_t id, const char* field, int32_t* result) {
    if (check_new_id(id, field)) return true;
    *result = CL_INVALID_VALUE;
    return false;
  }
  // Looks up a list of device ids; false (logged) on any bad id.
  bool device_list(const proto::WireArray<uint64_t>& ids, std::vector<cl_device_id>* devices);
  // Looks up a wait list; false (and CL_INVALID_EVENT_WAIT_LIST) on any bad id. Adds the serials
  // of unset user events the listed events may wait for to *waits_on_user.
  bool wait_list(const proto::WireArray<uint64_t>& ids, std::vector<cl_event>* events,
                 std::vector<uint64_t>* waits_on_user);
  // Binds the event an enqueue produced when the guest asked for one (event id != 0).
  void bind_event(uint64_t id, cl_event event, std::vector<uint64_t> waits_on_user);

  // User events and the waits that only the guest can end (user_events.cc, issue 12 points 5
  // and 10). The serials of `serials` whose user event is still unset, without duplicates.
  std::vector<uint64_t> still_unset(std::vector<uint64_t> serials) const;
  // Adds what waiting for `event` may wait for: itself when it is an unset user event, and the
  // unset user events its command waits behind.
  void add_user_waits(const EventObject& event, std::vector<uint64_t>* waits_on_user) const;
  // A blocking call that would wait for an unset user event is refused (CL_INVALID_OPERATION,
  // logged): the server would block until the guest sets it, which it may never do, or only
  // from a command the blocked server cannot read.
  bool refuse_wait_on_guest(const std::vector<uint64_t>& waits_on_user, int32_t* result);
  struct Enqueue;
  // For a command vcomp executes blocking: refuse_wait_on_guest, then waits for its wait list and
  // answers CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST when one of them failed, without calling
  // the vendor's blocking enqueue (PoCL's never returns behind a failed event).
  bool refuse_blocking_enqueue(const Enqueue& e, int32_t* result);
  // Fails an unset user event (kAbandonedStatus), so that the commands behind it complete with
  // an error and release what they hold.
  void abandon_user_event(EventObject& event);
  // The event of a command that may wait for an unset user event keeps a host reference until
  // that user event is set or failed, also when the guest asked for no event or destroyed its
  // event first: PoCL 3.1 fails such a command in pocl_update_event_failed, which drops its own
  // last reference and then locks the freed event (the process aborts).
  void hold_while_waiting(cl_event event, std::vector<uint64_t> waits_on_user);
  void release_settled_events();

  // The queue, wait list and optional event every enqueue command carries.
  struct Enqueue {
    cl_command_queue queue = nullptr;
    QueueObject* queue_object = nullptr;
    std::vector<uint64_t> waits_on_user;  // unset user events the command may wait for
    std::vector<cl_event> waits;
    uint64_t event_id = 0;
    cl_event event = nullptr;
    cl_uint wait_count() const { return cl_uint(waits.size()); }
    const cl_event* wait_events() const { return waits.empty() ? nullptr : waits.data(); }
    // No guest event, but the command may wait for an unset user event (hold_while_waiting).
    bool hold_event() const { return !event_id && !waits_on_user.empty(); }
    cl_event* event_out() { return event_id || hold_event() ? &event : nullptr; }
  };
  // Resolves the common enqueue arguments; false with *result set on a bad id.
  bool begin_enqueue(uint64_t queue_id, const proto::WireArray<uint64_t>& waits, uint64_t event_id,
                     Enqueue* e, int32_t* result);
  // Binds the produced event to its guest id when the enqueue succeeded.
  void end_enqueue(Enqueue& e, int32_t result);

  // A host pointer for bulk data the host reads: inline bytes or a checked range of an attached
  // resource. nullptr (logged) when the range is bad or smaller than `need`.
  const uint8_t* data_in(const proto::DataRef& ref, uint64_t need, const char* field);
  // Where the host writes `need` bytes of bulk data: the resource range, or `inline_out` resized
  // (inline replies are bounded by the reply buffer).
  uint8_t* data_out(const proto::DataRef& ref, uint64_t need, std::vector<uint8_t>* inline_out,
                    const char* field);
  // Resolves a resource range attached to this context.
  uint8_t* resource_range(uint32_t resource_id, uint64_t offset, uint64_t size, const char* field);

  // clSetKernelArg against the argument's class (kernel_args.cc): the result for the guest.
  cl_int set_kernel_arg(const KernelObject& k, const proto::Args_clSetKernelArg& args);
  cl_int set_value_arg(const KernelObject& k, const proto::Args_clSetKernelArg& args, bool type_known);
  cl_int set_mem_arg(const KernelObject& k, const KernelArgSpec& spec, const proto::Args_clSetKernelArg& args);
  cl_int set_sampler_arg(const KernelObject& k, const proto::Args_clSetKernelArg& args);
  cl_int set_local_arg(const KernelObject& k, const proto::Args_clSetKernelArg& args);

  // clGet*Info forwarding shared by every family: queries through `query` (a call of the
  // executor's info entry point with size/value/size_ret) and copies at most the guest's capacity.
  // Only parameters on the allow-list of `kind` are forwarded (info_param_allowed).
  template <typename Query>
  void forward_info(InfoKind kind, uint32_t param_name, Query query, const proto::DataRef& value,
                    std::vector<uint8_t>* out_value, uint64_t* size_ret, int32_t* result);

  void log_field_error(const char* field, const std::string& why);
  void set_fatal(const std::string& message);
  bool write_reply();
  void release_all();

  const uint32_t ctx_id_;
  // This context's own executor when the shared one isolates its contexts (the gsgpu executor:
  // a runtime and device per context); destroyed after every object (release_all).
  std::unique_ptr<Executor> own_executor_;
  Executor* const executor_;
  ObjectTable objects_;
  std::unordered_map<uint32_t, std::shared_ptr<renderer::Resource>> resources_;

  struct ReplyBuffer {
    std::shared_ptr<renderer::Resource> resource;
    uint64_t offset = 0;
    uint64_t size = 0;
  } reply_;
  std::vector<uint8_t> reply_payload_;  // shadow: guest memory is only ever written, never read
  uint32_t reply_seqno_ = 0;
  int32_t deferred_status_ = 0;
  uint32_t deferred_command_ = 0;

  // Host device handle -> the guest id it was bound to (first binding), for replies that name
  // devices.
  std::unordered_map<cl_device_id, uint64_t> device_ids_;

  std::mutex output_mutex_;
  std::string output_;          // guarded by output_mutex_
  uint64_t output_dropped_ = 0;  // guarded by output_mutex_: bytes dropped since the last take

  // User events the guest has not set (serial -> handle; the object table owns the reference).
  std::unordered_map<uint64_t, cl_event> unset_user_events_;
  uint64_t last_user_serial_ = 0;
  struct HeldEvent {
    cl_event handle;
    std::vector<uint64_t> waits_on_user;
  };
  std::vector<HeldEvent> held_events_;  // each holds one reference (hold_while_waiting)

  const char* current_command_ = "";
  // Cancelled when the context is destroyed: a build that runs for it on another thread (its
  // commands run inside a CancelScope of it) stops its compiler tool at once (issue 12 point 4).
  std::shared_ptr<CancelToken> cancel_ = std::make_shared<CancelToken>();
  bool fatal_ = false;
  std::string fatal_message_;
};

// Largest inline reply payload the host produces (bulk data above it must use a resource).
constexpr uint64_t kMaxInlineReply = 64ull << 20;

// The status the host gives a user event the guest can no longer set (its context ended, or it
// destroyed the event unset): the commands behind it complete with this error.
constexpr cl_int kAbandonedStatus = CL_INVALID_CONTEXT;
// Most user events one context may hold unset: each may keep commands and memory waiting, and
// every queue and event records which of them it may wait for.
constexpr size_t kMaxUnsetUserEvents = 64;

}  // namespace gsvirt::vcomp
