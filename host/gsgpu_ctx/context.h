// One gsgpu native context: the host side of one guest's gsgpu/drv device.
//
// submit_cmd hands the stream to the generated decoder (dispatch_requests), which checks every
// length and calls one handle_<request> per request; the handlers live in one file per family
// (context.cc: responses, caps, faults, counters, reset; bo.cc; va.cc; submit.cc). A malformed
// stream makes the context fatal (sticky); a bad id, range or ring is the request's status, with
// a log line naming the request and the field.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gsgpu/drv/drv.h"
#include "host/gsgpu_ctx/bo_table.h"
#include "host/gsgpu_ctx/gsgpu_ctx.h"
#include "host/gsgpu_ctx/timelines.h"
#include "host/renderer/context.h"
#include "protocol/gsgpu_ctx/gsgpu_ctx_decoder.h"

namespace gsvirt::gsgpu_ctx {

class GsgpuContext final : public renderer::Context, public proto::Handlers {
 public:
  // nullptr (logged) when the device cannot be opened.
  static std::unique_ptr<GsgpuContext> create(const renderer::ContextCreateInfo& info,
                                              const ContextConfig& config);
  ~GsgpuContext() override;

  // renderer::Context
  int submit_cmd(const void* data, size_t size) override;
  bool fatal() const override { return fatal_; }
  void attach_resource(std::shared_ptr<renderer::Resource> resource) override;
  void detach_resource(uint32_t resource_id) override;
  bool submit_fence(uint32_t ring_idx, uint64_t fence_id) override;

  const std::string& fatal_message() const { return fatal_message_; }

  // proto::Handlers
  bool begin_request(const proto::ReqHeader& hdr, const char* name, uint32_t rsp_size) override;
  void refuse_field(const char* field, const std::string& why) override;
  void end_request(const proto::ReqHeader& hdr, const void* rsp, uint32_t rsp_size) override;
  proto::Status handle_set_response_buffer(const proto::SetResponseBuffer& r,
                                           proto::SetResponseBufferRsp* rsp) override;
  proto::Status handle_get_caps(const proto::GetCaps& r, proto::GetCapsRsp* rsp) override;
  proto::Status handle_bo_create(const proto::BoCreate& r, proto::BoCreateRsp* rsp) override;
  proto::Status handle_bo_destroy(const proto::BoDestroy& r, proto::BoDestroyRsp* rsp) override;
  proto::Status handle_va_bind(const proto::VaBind& r, proto::VaBindRsp* rsp) override;
  proto::Status handle_va_unbind(const proto::VaUnbind& r, proto::VaUnbindRsp* rsp) override;
  proto::Status handle_submit(const proto::Submit& r, proto::SubmitRsp* rsp) override;
  proto::Status handle_read_faults(const proto::ReadFaults& r, proto::ReadFaultsRsp* rsp) override;
  proto::Status handle_read_counters(const proto::ReadCounters& r, proto::ReadCountersRsp* rsp) override;
  proto::Status handle_reset(const proto::Reset& r, proto::ResetRsp* rsp) override;

 private:
  GsgpuContext(const renderer::ContextCreateInfo& info, const ContextConfig& config);

  // Logs "<request>: <field>: <why>" and returns `status` (kInvalidArgument by default).
  proto::Status refuse(const char* field, const std::string& why,
                       proto::Status status = proto::Status::kInvalidArgument);
  void set_fatal(const std::string& message);
  // Checks that rsp_off can hold `size` bytes of response in the current buffer.
  bool response_fits(uint32_t rsp_off, uint32_t size, std::string* why) const;
  // An attached host-visible resource, or nullptr (logged against `field`).
  const std::shared_ptr<renderer::Resource>* attached_blob(uint32_t res_id, const char* field);
  // Frees a BO on the device and forgets its id.
  void free_bo(uint32_t bo_id);
  // Waits until the device's counters and faults account for every submission the fence page
  // shows retired (the device reports a retirement just before its own bookkeeping).
  void settle_retired();
  // Moves the device's new faults into faults_ with guest seqnos.
  void collect_faults();
  // A device status as the response status (the values are the same).
  static proto::Status from_drv(gsgpu::drv::Status status) { return proto::Status(int32_t(status)); }

  const uint32_t ctx_id_;
  const ContextConfig config_;
  // Outlives the device: the device thread reports retirements into it until the device closes.
  Timelines timelines_;
  std::unique_ptr<gsgpu::drv::LocalDevice> device_;
  BoTable bos_;
  std::unordered_map<uint32_t, std::shared_ptr<renderer::Resource>> resources_;
  std::deque<proto::FaultRecord> faults_;  // read by READ_FAULTS, newest kMaxQueuedFaults
  std::vector<uint32_t> packet_copy_;      // SUBMIT's packets, copied before they are checked
  std::vector<gsgpu::drv::BoHandle> submit_handles_;

  const char* current_request_ = "";
  bool fatal_ = false;
  std::string fatal_message_;
};

}  // namespace gsvirt::gsgpu_ctx
