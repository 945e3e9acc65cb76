// Non-blocking reads and maps behind a user event that is not set yet.
//
// The host answers a read with its bytes in the reply, so it cannot run a read that has to wait for
// a user event only the guest can set (it would block the host context, and the thread that sets the
// event may be the app's only one). Such a read becomes a copy, at the command's place in its queue
// and with its wait list and event, into a host buffer of its own (the staging buffer); the guest
// fetches those bytes and delivers them into the app's memory when it first learns that the command
// completed: clWaitForEvents, clFinish, a status query, a later blocking command of an in-order
// queue. Delivery comes before any completion callback of the command runs, as OpenCL requires of
// the memory a non-blocking read fills.
#pragma once

#include <cstdint>
#include <functional>

#include "guest/cl/event.h"

namespace gsvirt::icd {

// Writes the copy of the source into the staging buffer `staging_id` (offset 0, packed), carrying the
// command's wait list and event.
using EncodeStagingCopy = std::function<void(WireWriter& w, bool want, uint64_t staging_id)>;
// Receives the staging buffer's bytes once the command completed.
using DeliverBytes = std::function<void(const uint8_t* bytes)>;

// True when a read or map that reads must be deferred: the app did not ask to block and the command
// may wait (through its wait list or its queue) for a user event that is not set.
bool must_defer_read(cl_bool blocking, cl_command_queue queue, const EnqueueCommon& common);

// Sends the staging copy of `bytes` bytes and records the delivery. `source` (the object read) is
// kept alive until then; destroying the queue drops the delivery. `mapping` is the pointer a map hands out (nullptr for
// reads): an unmap of it before delivery takes the staging buffer over (take_undelivered_map).
// Call before finish_enqueue, which counts the command.
cl_int defer_read(const char* api, const EnqueueCommon& common, cl_command_queue queue, cl_mem source, size_t bytes,
                  const EncodeStagingCopy& encode_copy, DeliverBytes deliver, const void* mapping = nullptr);

// `event`'s command completed (a command event; its queue's order says which earlier ones did too):
// delivers the bytes of the deferred reads that are complete with it.
void deliver_reads_completed_with(const char* api, cl_event event);
// Every command of `queue` up to its `seq`-th completed (clFinish: all of them).
void deliver_reads_up_to(const char* api, cl_command_queue queue, uint64_t seq);
// `event`'s command failed: its read delivers nothing.
void drop_read_of(cl_event event);
// A queue is destroyed: its undelivered reads are dropped (nothing can observe them any more).
void drop_reads_of_queue(cl_command_queue queue);
// Deferred reads of `queue` not delivered yet.
bool has_undelivered_reads(cl_command_queue queue);

// An unmap of `mapping` while its map's bytes are not delivered yet: the app cannot have written to
// it (it has not seen the map complete), so the mapped region's bytes are the staging buffer's.
// Returns that buffer's id (the caller writes back from it and destroys it) or 0.
uint64_t take_undelivered_map(const void* mapping);
// The host queue of `context` on `device` that staging buffers are read (and temporaries and
// large host data written) on: created on first use, in no order with the app's queues, which may
// wait for unset user events.
cl_int transfer_queue(const char* api, Connection* connection, cl_context context, cl_device_id device, uint64_t* id);
// Tells the host to drop a staging buffer (batched; the host keeps it until commands using it ran).
void destroy_staging(uint64_t staging_id);

}  // namespace gsvirt::icd
