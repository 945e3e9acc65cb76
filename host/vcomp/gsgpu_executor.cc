// The Executor vcomp sees: one gsgpu OpenCL runtime instance and its platform handle.
#include "host/vcomp/gsgpu_executor.h"

#include <mutex>

namespace gsvirt::vcomp {
namespace {

class GsgpuExecutor final : public Executor {
 public:
  explicit GsgpuExecutor(std::unique_ptr<gsgpu::cl::Instance> instance)
      : instance_(std::move(instance)), name_(instance_->description()) {}
  const std::string& name() const override { return name_; }
  cl_platform_id platform() const override { return instance_->platform(); }
  const cl_icd_dispatch& api() const override { return instance_->api(); }
  bool isolates_contexts() const override { return true; }
  std::unique_ptr<Executor> make_context_executor(std::string* error) override {
    return make_gsgpu_executor(instance_->config(), error);
  }
  void set_output_sink(std::function<void(std::string_view)> sink) override {
    instance_->set_printf_sink(std::move(sink));
  }
  bool validates_arg_handles() const override { return true; }  // gsgpu::cl looks handles up
  bool compiles_in_process() const override { return false; }

 private:
  std::unique_ptr<gsgpu::cl::Instance> instance_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Executor> make_gsgpu_executor(const GsgpuExecutorConfig& config, std::string* error) {
  auto instance = gsgpu::cl::create_instance(config, error);
  if (!instance) return nullptr;
  return std::make_unique<GsgpuExecutor>(std::move(instance));
}

Executor* gsgpu_executor(std::string* error) {
  // Immortal like the host executor: contexts owned by static objects release their objects
  // during exit.
  static std::once_flag once;
  static Executor* executor = nullptr;
  static std::string* init_error = new std::string;
  std::call_once(once, [] { executor = make_gsgpu_executor(gsgpu_config_from_env(), init_error).release(); });
  if (!executor && error) *error = *init_error;
  return executor;
}

}  // namespace gsvirt::vcomp
