// Deferred reads: see deferred_reads.h.
#include "guest/cl/deferred_reads.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "common/log.h"
#include "guest/cl/api.h"
#include "guest/cl/enqueue.h"
#include "guest/cl/forward.h"
#include "guest/cl/objects.h"
#include "guest/cl/user_waits.h"

namespace gsvirt::icd {
namespace {

struct PendingRead {
  cl_command_queue queue = nullptr;  // not held: a destroyed queue drops its reads (nothing can see them)
  cl_mem source = nullptr;           // held until delivered or dropped: the memory a map fills is its
  uint64_t seq = 0;                  // the command's place in its queue (_cl_event::queue_seq)
  uint64_t staging_id = 0;
  size_t bytes = 0;
  DeliverBytes deliver;
  const void* mapping = nullptr;
  UserWaits waits;  // the user events it waited for: one set to an error failed it, and it delivers nothing
};

// Under the ICD lock, like every object. Short: one entry per read not yet seen complete.
std::vector<PendingRead>& pending_reads() {
  static auto* reads = new std::vector<PendingRead>;
  return *reads;
}

bool in_order(cl_command_queue queue) { return !(queue->properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); }

void release_entry(const PendingRead& read) { release_internal(read.source); }

}  // namespace

// One per context and device. Its reads of a staging buffer only run once the copy into it is known
// to be complete.
cl_int transfer_queue(const char* api, Connection* connection, cl_context context, cl_device_id device,
                      uint64_t* id) {
  for (auto& [queue_device, queue_id] : context->transfer_queues) {
    if (queue_device != device) continue;
    *id = queue_id;
    return CL_SUCCESS;
  }
  uint64_t new_id = connection->allocate_id();
  proto::Reply_clCreateCommandQueue reply;
  cl_int err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateCommandQueue(w, want, new_id, context->guest_id, device->guest_id, 0);
      },
      proto::decode_reply_clCreateCommandQueue, &reply);
  if (err != CL_SUCCESS) return err;
  context->transfer_queues.emplace_back(device, new_id);
  *id = new_id;
  return CL_SUCCESS;
}

namespace {

// Fetches one staging buffer's bytes (its copy completed) and hands them to the app's memory.
void deliver(const char* api, const PendingRead& read) {
  Connection* connection = connection_for(api);
  uint64_t queue_id = 0;
  cl_int err = connection ? transfer_queue(api, connection, read.queue->context, read.queue->device, &queue_id) : CL_OUT_OF_RESOURCES;
  std::vector<uint8_t> bytes(read.bytes);
  if (err == CL_SUCCESS)
    err = read_buffer_in_pieces(api, connection, {queue_id, read.staging_id, 0, read.bytes, nullptr, 0, 0},
                                bytes.data());
  if (err == CL_SUCCESS)
    read.deliver(bytes.data());
  else
    log_error("gsvirt ICD: %s: the bytes of a deferred read could not be fetched: %s", api, cl_error_name(err));
  destroy_staging(read.staging_id);
}

// Takes the entries `complete` selects out of the list first: delivering runs host calls and,
// through them, nothing that may touch the list again before it is consistent.
template <class Selects>
std::vector<PendingRead> take_if(Selects complete) {
  auto& reads = pending_reads();
  std::vector<PendingRead> taken;
  auto keep = std::stable_partition(reads.begin(), reads.end(), [&](const PendingRead& r) { return !complete(r); });
  std::move(keep, reads.end(), std::back_inserter(taken));
  reads.erase(keep, reads.end());
  return taken;
}

void deliver_all(const char* api, std::vector<PendingRead> reads) {
  for (const PendingRead& read : reads) {
    if (any_failed(read.waits))
      destroy_staging(read.staging_id);  // clFinish returns after failed commands too
    else
      deliver(api, read);
    release_entry(read);
  }
}

}  // namespace

bool must_defer_read(cl_bool blocking, cl_command_queue queue, const EnqueueCommon& common) {
  return !blocking && any_unset(command_user_waits(queue, common));
}

cl_int defer_read(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem source, size_t bytes,
                  const EncodeStagingCopy& encode_copy, DeliverBytes deliver, const void* mapping) {
  Connection* connection = common.connection;
  proto::DataIn none;
  cl_int err = connection->data_in(nullptr, 0, &none);
  if (err != CL_SUCCESS) return err;
  uint64_t staging_id = connection->allocate_id();
  proto::Reply_clCreateBuffer reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateBuffer(w, want, staging_id, queue->context->guest_id, CL_MEM_READ_WRITE, bytes, none);
      },
      proto::decode_reply_clCreateBuffer, &reply);
  if (err != CL_SUCCESS) return err;
  err = connection->send_batched(api, [&](WireWriter& w, bool want) { encode_copy(w, want, staging_id); });
  if (err != CL_SUCCESS) {
    destroy_staging(staging_id);
    return err;
  }
  retain_internal(source);
  pending_reads().push_back(
      {queue, source, queue->commands_enqueued + 1, staging_id, bytes, std::move(deliver), mapping,
       command_user_waits(queue, common)});
  log_debug(kDebugGuest, "%s: waits for a user event that is not set: deferred through a %zu-byte staging buffer",
            api, bytes);
  return CL_SUCCESS;
}

void deliver_reads_completed_with(const char* api, cl_event event) {
  cl_command_queue queue = event->queue;
  if (!queue || pending_reads().empty()) return;
  uint64_t seq = event->queue_seq;
  bool ordered = in_order(queue);
  deliver_all(api, take_if([&](const PendingRead& r) {
                return r.queue == queue && (ordered ? r.seq <= seq : r.seq == seq);
              }));
}

void deliver_reads_up_to(const char* api, cl_command_queue queue, uint64_t seq) {
  if (pending_reads().empty()) return;
  deliver_all(api, take_if([&](const PendingRead& r) { return r.queue == queue && r.seq <= seq; }));
}

void drop_read_of(cl_event event) {
  if (!event->queue) return;
  for (const PendingRead& read : take_if([&](const PendingRead& r) {
         return r.queue == event->queue && r.seq == event->queue_seq;
       })) {
    destroy_staging(read.staging_id);
    release_entry(read);
  }
}

void drop_reads_of_queue(cl_command_queue queue) {
  for (const PendingRead& read : take_if([&](const PendingRead& r) { return r.queue == queue; })) {
    destroy_staging(read.staging_id);
    release_entry(read);
  }
}

bool has_undelivered_reads(cl_command_queue queue) {
  const auto& reads = pending_reads();
  return std::any_of(reads.begin(), reads.end(), [&](const PendingRead& r) { return r.queue == queue; });
}

uint64_t take_undelivered_map(const void* mapping) {
  if (!mapping) return 0;
  std::vector<PendingRead> taken = take_if([&](const PendingRead& r) { return r.mapping == mapping; });
  if (taken.empty()) return 0;
  uint64_t staging_id = taken.front().staging_id;
  for (const PendingRead& read : taken) release_entry(read);
  return staging_id;
}

void destroy_staging(uint64_t staging_id) {
  Connection* connection = Connection::get();
  if (!connection || staging_id == 0) return;
  connection->send_batched("vcDestroyObject", [staging_id](WireWriter& w, bool want) {
    proto::encode_vcDestroyObject(w, want, staging_id);
  });
}

}  // namespace gsvirt::icd
