// The objects of the gsgpu Vulkan driver (docs/vulkan-driver.md). Dispatchable objects (instance,
// physical device, device, queue, command buffer) begin with the loader's dispatch slot, which
// the driver fills with ICD_LOADER_MAGIC and the Khronos loader overwrites with its table.
// Non-dispatchable handles are pointers to these structs (64-bit builds only).
#pragma once

#include <vulkan/vk_icd.h>
#include <vulkan/vulkan_core.h>

#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "gsgpu/drv/drv.h"
#include "gsgpu/vk/binding_model.h"
#include "gsgpu/vk/command_stream.h"
#include "gsgpu/vk/compute_objects.h"
#include "gsgpu/vk/draw_objects.h"
#include "gsgpu/drv/va_allocator.h"
#include "gsgpu/vk/format.h"
#include "gsgpu/vk/image_layout.h"
#include "gsgpu/vk/query.h"

static_assert(sizeof(void*) == 8, "non-dispatchable handles are pointers: a 64-bit build only");

namespace gsgpu::vk {

struct Instance;

struct PhysicalDevice {
  VK_LOADER_DATA loader_data;  // first: the loader's dispatch slot
  Instance* instance = nullptr;
  drv::LocalConfig config;     // the device every VkDevice opens (GSGPU_* environment applied)
  drv::Caps caps;              // read from a device opened once at vkCreateInstance
};

struct Instance {
  VK_LOADER_DATA loader_data;
  PhysicalDevice physical_device;
};

struct Device;
struct CommandBuffer;
struct Fence;
struct Semaphore;

// One semaphore operation of a submission: a binary semaphore (value 0) or a timeline value.
struct SemaphorePoint {
  Semaphore* semaphore = nullptr;
  uint64_t value = 0;
};

// A VkSubmitInfo as the queue keeps it until it runs (queue_submit.cc).
struct SubmittedBatch {
  std::vector<SemaphorePoint> waits;
  std::vector<const CommandBuffer*> command_buffers;
  std::vector<SemaphorePoint> signals;
};

// One vkQueueSubmit whose batches have not run: they wait for a timeline value that nothing has
// signalled yet (wait-before-signal), or behind such a submission. A submission that started and
// reached a vkCmdWaitEvents on an event not set stays here too, with where to go on from.
struct QueuedSubmission {
  std::vector<SubmittedBatch> batches;
  Fence* fence = nullptr;
  bool started = false;
  size_t batch = 0, buffer = 0, command = 0;  // the next command to run (when started)
};

struct Queue {
  VK_LOADER_DATA loader_data;
  Device* device = nullptr;
  uint32_t ring = 0;
  uint64_t last_seqno = 0;  // the newest submission on `ring`; 0 = none
  std::deque<QueuedSubmission> waiting;  // in submission order; the queue runs them in that order
};

struct Device {
  VK_LOADER_DATA loader_data;
  PhysicalDevice* physical = nullptr;
  std::unique_ptr<drv::Device> drv;  // one driver client (own VA space, BOs, rings) per VkDevice
  std::mutex mutex;                        // guards va and the queue's submission state
  std::optional<drv::VaAllocator> va;
  Queue queue;
  // The queue's device packets between host steps, and their pooled state (command_stream.h).
  CommandStream stream;
  // Notified (under `mutex`) when a timeline value is signalled from the host or a waiting
  // submission runs: what host waits on timelines and on queued fences sleep on.
  std::condition_variable progress;
};

struct Buffer;
struct Image;

struct DeviceMemory {
  drv::BoHandle bo = 0;
  uint64_t size = 0;  // allocationSize as asked
  uint8_t* map = nullptr;
  // Buffers bound to it: vkFreeMemory unbinds them, so a later transfer finds them unbound
  // (skipped) instead of writing through a freed mapping. Guarded by Device::mutex.
  std::set<Buffer*> bound;
  std::set<Image*> bound_images;  // the same for images
};

// `value` rounded up to a multiple of `page` (BO and VA ranges are whole pages).
inline uint64_t round_up(uint64_t value, uint64_t page) { return (value + page - 1) / page * page; }

// The first structure of `type` in an input pNext chain, or null.
template <typename T>
const T* find_in_chain(const void* next, VkStructureType type) {
  for (auto* s = static_cast<const VkBaseInStructure*>(next); s != nullptr; s = s->pNext) {
    if (s->sType == type) return reinterpret_cast<const T*>(s);
  }
  return nullptr;
}

// The binding that buffers and images both make: `size` bytes (rounded up to pages) of `memory`
// from `offset`, mapped read/write at a fresh VA of the device (*va, *va_size). A range past the
// memory or an unaligned offset is refused (invalid usage) with a log line naming `command`:
// VK_ERROR_OUT_OF_DEVICE_MEMORY, as is a VA space or bind failure. The caller holds device->mutex.
VkResult bind_memory_range(Device* device, DeviceMemory* memory, uint64_t offset, uint64_t size,
                           const char* command, uint64_t* va, uint64_t* va_size);
// Vulkan 1.1: VkMemoryDedicatedRequirements in the chain of `reqs` says a dedicated allocation is
// neither preferred nor required (a buffer or image is a VA range over any BO); other structures
// are skipped.
void answer_no_dedicated_allocation(VkMemoryRequirements2* reqs);

struct Buffer {
  uint64_t size = 0;
  DeviceMemory* memory = nullptr;  // set by vkBindBufferMemory, cleared by vkFreeMemory
  uint64_t memory_offset = 0;
  uint64_t va = 0;                 // the GPU address of the binding (0 = not bound)
  uint64_t va_size = 0;
};

// A VkBufferView: a range of a buffer read as texels of `format` (buffer_view.cc). No shader reads
// one yet (the compiler refuses texel buffers); it exists for descriptor writes.
struct BufferView {
  Buffer* buffer = nullptr;
  const FormatInfo* format = nullptr;
  uint64_t offset = 0, range = 0;  // range resolved from VK_WHOLE_SIZE at creation
};

// A VkImage: its format, one linear layout (image_layout.h) whatever the tiling, and once bound a
// range of a memory object mapped at a GPU VA (read / write), as a buffer's.
struct Image {
  const FormatInfo* format = nullptr;
  VkImageUsageFlags usage = 0;
  VkImageCreateFlags flags = 0;
  ImageLayout layout;
  DeviceMemory* memory = nullptr;  // set by vkBindImageMemory, cleared by vkFreeMemory
  uint64_t memory_offset = 0;
  uint64_t va = 0;                 // the GPU address of texel (0, 0, 0) of level 0, layer 0
  uint64_t va_size = 0;
};

// A VkImageView: the levels, layers and format of an image it shows, and what the device will be
// given for it: the IMAGE_DESC words the texture unit reads (when a descriptor can express the
// view: image_desc_words), and for a one-level 2D view the render target (address and pitch) an
// output merger writes.
struct ImageView {
  Image* image = nullptr;
  const FormatInfo* format = nullptr;
  VkImageAspectFlags aspects = 0;
  VkImageUsageFlags usage = 0;  // the image's, or VkImageViewUsageCreateInfo's
  ViewShape shape;
  std::optional<std::array<uint32_t, 16>> image_desc;
  uint64_t target_va = 0;  // level base_level, layer base_layer
  uint64_t target_pitch = 0;
  uint64_t layer_pitch = 0;  // from one layer (or 3D slice) of the level to the next
  uint32_t width = 0, height = 0;
};

// A VkSampler as the texture unit reads it: the SAMPLER_STATE word and the SAMPLER_DESC (8 words:
// the state, LOD clamps and bias as binary32, custom border colour). image_view.cc translates.
struct Sampler {
  uint32_t state = 0;
  std::array<uint32_t, 8> desc{};
};

// Recorded commands. gsgpu's command processor has no copy or fill packet (gsgpu.xml: NOP,
// DISPATCH, SYNC, DUMP, HALT, DRAW), so transfers run on the host at vkQueueSubmit, in queue
// order, as gsgpu/cl's host commands do (docs/vulkan-driver.md "Transfers").
struct CopyCommand {
  Buffer* src;
  Buffer* dst;
  std::vector<VkBufferCopy> regions;
};
struct FillCommand {
  Buffer* dst;
  uint64_t offset;
  uint64_t size;  // VK_WHOLE_SIZE resolved at execution
  uint32_t data;
};
struct UpdateCommand {
  Buffer* dst;
  uint64_t offset;
  std::vector<uint8_t> data;
};
// vkCmdPipelineBarrier: kept (its stages and how many buffer barriers passed validation) but runs
// nothing. The queue executes its commands one after another on one timeline, each transfer
// finished and written through coherent memory before the next starts, so every execution and
// memory dependency a barrier can ask for already holds (docs/vulkan-driver.md "Synchronisation").
struct BarrierCommand {
  VkPipelineStageFlags src_stages;
  VkPipelineStageFlags dst_stages;
  uint32_t buffer_barriers;
  uint32_t image_barriers;  // layout transitions: no work, one linear layout for every layout
};
// Image transfers (image_transfer.cc), run on the host as the buffer ones, every region checked.
struct BufferImageCopyCommand {
  Buffer* buffer;
  Image* image;
  bool to_image;  // vkCmdCopyBufferToImage; false: vkCmdCopyImageToBuffer
  std::vector<VkBufferImageCopy> regions;
};
struct ImageCopyCommand {
  Image* src;
  Image* dst;
  std::vector<VkImageCopy> regions;
};
struct ClearImageCommand {
  Image* image;
  bool depth_stencil;  // vkCmdClearDepthStencilImage; false: vkCmdClearColorImage
  VkClearColorValue color;
  VkClearDepthStencilValue depth;
  std::vector<VkImageSubresourceRange> ranges;
};
struct BlitImageCommand {
  Image* src;
  Image* dst;
  std::vector<VkImageBlit> regions;
  VkFilter filter;
};
// vkCmdResolveImage and render-pass resolves (image_resolve.cc): samples averaged per pixel.
struct ResolveImageCommand {
  Image* src;
  Image* dst;
  std::vector<VkImageResolve> regions;
};
void run(const BufferImageCopyCommand& command);
void run(const BlitImageCommand& command);
void run(const ResolveImageCommand& command);
void run(const ImageCopyCommand& command);
void run(const ClearImageCommand& command);
// The largest depth / stencil texel (D32_SFLOAT_S8_UINT's 8 bytes).
inline constexpr uint32_t kMaxDepthStencilBytes = 8;
// The stored texel of a depth / stencil clear of `format` and the bytes of it that `aspects` cover
// (image_clear.cc; the render pass's clears use it too).
void encode_depth_stencil(const FormatInfo& format, const VkClearDepthStencilValue& value,
                          VkImageAspectFlags aspects, uint8_t texel[kMaxDepthStencilBytes],
                          uint8_t mask[kMaxDepthStencilBytes]);

// Draws run on the device (draw.cc): each is a DRAW packet of the queue's command stream, which is
// submitted and waited for before the next host command runs; the render pass's clears run on the
// host (render_pass.cc).
void run(const BeginRenderPassCommand& command);
void run(Device* device, const DrawCommand& command);
// Dispatches run on the device too (dispatch_execute.cc), in the stream like a draw.
void run(Device* device, const DispatchCommand& command);
// Transform feedback's begin / end (transform_feedback.cc): the stream is flushed, then the host
// moves the write offsets between the counter buffers and the stream's offset words.
void run(Device* device, const XfbCountersCommand& command);

using Command = std::variant<CopyCommand, FillCommand, UpdateCommand, BarrierCommand, BufferImageCopyCommand,
                             ImageCopyCommand, ClearImageCommand, BlitImageCommand, ResolveImageCommand, BeginRenderPassCommand,
                             DrawCommand, DispatchCommand, QueryCommand, ResetQueriesCommand,
                             CopyQueryResultsCommand, EventCommand, WaitEventsCommand, XfbCountersCommand>;

struct CommandBuffer;

struct CommandPool {
  uint32_t queue_family = 0;
  std::set<CommandBuffer*> buffers;  // allocated and not yet freed
};

struct CommandBuffer {
  VK_LOADER_DATA loader_data;
  Device* device = nullptr;
  CommandPool* pool = nullptr;
  enum class State { kInitial, kRecording, kExecutable } state = State::kInitial;
  std::vector<Command> commands;
  // Bound descriptor sets and push constants: what the next draw or dispatch's constant buffer
  // holds (binding_model.h; vkCmdBindDescriptorSets, vkCmdPushConstants). Cleared by a reset.
  BindingState bindings;
  // The bound pipeline, render pass, vertex / index buffers and dynamic state (draw_objects.h).
  GraphicsRecordState graphics;
  const ComputePipeline* compute_pipeline = nullptr;  // the compute bind point's (compute_objects.h)
  // VK_COMMAND_BUFFER_LEVEL_SECONDARY; continues_pass: begun with RENDER_PASS_CONTINUE, its draws and
  // clears aimed at the executing primary's attachments by vkCmdExecuteCommands (secondary.cc).
  bool secondary = false;
  bool continues_pass = false;
};

struct Fence {
  bool signaled = false;  // signalled at creation or by a completed wait
  uint32_t ring = 0;
  uint64_t seqno = 0;     // the submission that signals it; 0 = none pending
  bool queued = false;    // its submission waits in Queue::waiting (no seqno yet)
};

// A signal of a timeline semaphore by a submission that has run: `value` is reached when the
// submission's point on the ring retires.
struct TimelineSignal {
  uint64_t value = 0;
  uint32_t ring = 0;
  uint64_t seqno = 0;
};

// A semaphore. Binary: signalled by a submission at its point on the queue's ring (the NOP's
// seqno), consumed by the next submission that waits on it, which first waits for that point.
// Timeline (VK_KHR_timeline_semaphore, timeline.cc): a 64-bit value that only grows.
struct Semaphore {
  enum class State { kUnsignaled, kSignalPending } state = State::kUnsignaled;
  uint32_t ring = 0;
  uint64_t seqno = 0;  // the submission that signals it (kSignalPending)
  bool timeline = false;
  uint64_t value = 0;        // timeline: the value reached (host signals, retired submissions)
  uint64_t last_signal = 0;  // timeline: the highest value any signal operation was issued for
  std::vector<TimelineSignal> pending;  // timeline: run, not known retired; ascending values
};

template <typename T, typename H>
T* from_handle(H handle) {
  return reinterpret_cast<T*>(handle);
}
template <typename H, typename T>
H to_handle(T* object) {
  return reinterpret_cast<H>(object);
}

// Sets the loader's slot of a new dispatchable object.
inline void init_loader_data(VK_LOADER_DATA* data) { data->loaderMagic = ICD_LOADER_MAGIC; }

// The one memory type / heap / queue family of the device (physical_device.cc).
inline constexpr uint32_t kMemoryTypeIndex = 0;
inline constexpr uint32_t kQueueFamilyIndex = 0;

// vkGetInstanceProcAddr / vkGetDeviceProcAddr lookups (icd.cc).
PFN_vkVoidFunction lookup_instance_proc(const char* name);
PFN_vkVoidFunction lookup_device_proc(const char* name);
PFN_vkVoidFunction lookup_physical_device_proc(const char* name);

// Whether vkEnumerateDeviceExtensionProperties lists device extension `name` (physical_device.cc).
bool device_extension_offered(const char* name);

// What vkGetPhysicalDeviceImageFormatProperties answers (image.cc): VK_SUCCESS with *props, or
// VK_ERROR_FORMAT_NOT_SUPPORTED (props zeroed). vkCreateImage refuses what it refuses.
// The sample counts an image may have (image_samples.cc): 1, 2 and 4 for 2D OPTIMAL images of a
// render-target format that are not sampled or stored (the texture unit reads no multisampled image)
// nor cube-compatible, else 1. Also the framebuffer*SampleCounts limits.
inline constexpr VkSampleCountFlags kAttachmentSampleCounts =
    VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_2_BIT | VK_SAMPLE_COUNT_4_BIT;
VkSampleCountFlags image_sample_counts(const FormatInfo& format, VkImageType type, VkImageTiling tiling,
                                       VkImageUsageFlags usage, VkImageCreateFlags flags);
VkResult image_format_properties(const drv::Caps& caps, VkFormat format, VkImageType type, VkImageTiling tiling,
                                 VkImageUsageFlags usage, VkImageCreateFlags flags, VkImageFormatProperties* props);

// A secondary command buffer's inheritance at vkBeginCommandBuffer (secondary.cc).
void begin_secondary(CommandBuffer* cb, const VkCommandBufferBeginInfo* info);

// Runs a command buffer's commands from index `first` (command_buffer.cc): transfers on the host,
// draws, dispatches, queries and event writes as packets of the device's command stream, which is
// flushed (submitted and waited for) before each host command; the caller flushes at the end. Returns the index
// of a vkCmdWaitEvents whose events are not all set (the queue goes on from there once they are),
// or the number of commands when it ran them all.
size_t execute_commands(Device* device, const CommandBuffer& cb, size_t first = 0);

}  // namespace gsgpu::vk
