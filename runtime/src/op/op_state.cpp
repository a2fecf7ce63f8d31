#include "op/op_state.hpp"

#include "device/device_runtime.hpp"
#include "loader/plugin_loader.hpp"
#include "op/abi_views.hpp"
#include "op/call_check_pool.hpp"
#include "op/composite.hpp"
#include "registry/registrar.hpp"
#include "registry/registry.hpp"
#include "support/format.hpp"
#include "support/log.hpp"
#include "support/status.hpp"

#include <tileops/errors.hpp>
#include <tileops/stream.hpp>

#include <new>
#include <optional>
#include <type_traits>

namespace tileops::detail {
namespace {

std::vector<const KernelTypeRecord*> installed_kernel_types(const std::string& op) {
  std::vector<const KernelTypeRecord*> out;
  const auto& kinds = Registry::get().snapshot().kernel_types;
  if (auto it = kinds.find(op); it != kinds.end())
    for (const auto& k : it->second) out.push_back(&k);
  return out;
}

const manifest::OpSpec& find_spec(std::string_view name) {
  load_all_plugins();
  const auto& manifest = manifest::Manifest::builtin();
  if (const auto* spec = manifest.find(name)) return *spec;
  auto nearest = manifest.nearest(name, 3);
  throw ValueError("unknown op '" + std::string(name) + "'" +
                   (nearest.empty() ? std::string() : "; did you mean " + join(nearest) + "?"));
}

}  // namespace

// Built on every call, so nothing in it is initialised that the call does not use:
// zeroing all of it (2 KB) was 6% of a memo hit. describe_call sets in_ptrs for every
// input of the spec and out_ptrs for every output slot.
struct OpState::Described {
  union Slot {  // room for a description, constructed only where a tensor is given
    Slot() {}
    TensorDesc desc;
  };
  static_assert(std::is_trivially_destructible_v<TensorDesc>, "slots are never destroyed");
  Slot in[kMaxTensors];
  const TensorDesc* in_ptrs[kMaxTensors];
  Slot out[kMaxTensors];
  const TensorDesc* out_ptrs[kMaxTensors];
  bool any_out = false;
};

OpState::OpState(std::string_view name, const Params& params, Target target)
    : name_(name),
      spec_(&find_spec(name)),
      inputs_(spec_->inputs()),
      outputs_(spec_->outputs()),
      signature_(spec_->bind(params)),
      requested_(std::move(target)),
      in_tree_(name_, installed_kernel_types(name_)) {
  if (inputs_.size() > kMaxTensors || outputs_.size() > kMaxTensors)
    throw ValueError(name_ + ": more than " + std::to_string(kMaxTensors) +
                     " inputs or outputs are not supported");
  const auto values = signature_->params();
  for (size_t i = 0; i < spec_->params().size(); ++i) {
    param_names_.push_back(spec_->params()[i].name);
    param_values_.push_back(values[i]);
  }
  abi_params_ = param_views(param_names_, param_values_);
  if (requested_) Registry::get().snapshot().require_target(*requested_);
}

OpState::~OpState() = default;

Params OpState::params() const {
  Params out;
  for (size_t i = 0; i < param_names_.size(); ++i) out.emplace_back(param_names_[i], param_values_[i]);
  return out;
}

Target OpState::target() const {
  std::shared_lock lock(mutex_);
  if (route_.kind == Route::kUnsettled) return std::nullopt;
  return route_.target;
}

void OpState::describe_call(std::span<const Tensor> inputs, std::span<Tensor> outputs,
                       Described& d) const {
  const size_t n_in = inputs_.size();
  if (inputs.size() > n_in) {
    std::vector<std::string> names;
    for (const auto& t : inputs_) names.push_back(t.name);
    throw ValueError(name_ + " takes " + std::to_string(n_in) + " inputs (" + join(names) +
                     "), got " + std::to_string(inputs.size()));
  }
  if (outputs.size() != outputs_.size())
    throw ValueError(name_ + " has " + std::to_string(outputs_.size()) +
                     " outputs, got " + std::to_string(outputs.size()) + " output slots");
  for (size_t i = 0; i < n_in; ++i)  // omitted trailing inputs are absent
    d.in_ptrs[i] =
        i < inputs.size() && inputs[i].defined() ? new (&d.in[i].desc) TensorDesc(inputs[i].desc()) : nullptr;
  for (size_t j = 0; j < outputs.size(); ++j) {
    d.out_ptrs[j] = outputs[j].defined() ? new (&d.out[j].desc) TensorDesc(outputs[j].desc()) : nullptr;
    d.any_out |= outputs[j].defined();
  }
}

namespace {

// The device every given input is on, or nullptr when they are on several (or none is
// given): the call whose check can be remembered.
const Device* one_device(DescList inputs) {
  const Device* device = nullptr;
  for (const TensorDesc* d : inputs) {
    if (!d) continue;
    if (!device)
      device = &d->device;
    else if (!(*device == d->device))
      return nullptr;
  }
  return device;
}

}  // namespace

void OpState::call(std::span<const Tensor> inputs, std::span<Tensor> outputs) {
  Described d;
  describe_call(inputs, outputs, d);
  const DescList in(d.in_ptrs, inputs_.size());
  const Device* remembered = d.any_out ? nullptr : one_device(in);
  const manifest::CallCheck* check = nullptr;
  KernelRef kernel;
  bool room = false;  // for another remembered check
  uint64_t revokes = 0;
  if (remembered) {
    std::shared_lock lock(mutex_);
    if (auto* hit = checked_.find(*remembered, in)) {
      check = hit->check.get();
      kernel = hit->kernel;
    }
    room = checked_count_ < kMaxRememberedChecks;
    revokes = revokes_;
  }
  const bool keeps_kernel = remembered && (check || room);  // the check is (or is about to be) remembered
  std::optional<PooledCallCheck> pooled;  // a call checked afresh and not remembered
  if (!check && remembered && room) {
    check = &remember_check(*remembered, in);
  } else if (!check) {
    pooled.emplace();
    signature_->check(in, d.any_out ? DescList(d.out_ptrs, outputs.size()) : DescList(), **pooled);
    check = &**pooled;
  }
  if (writes_nothing(*check, inputs)) {
    fill_outputs(*check, inputs, outputs);
    return;
  }
  const Device& device = check->device();
  try {
    if (!kernel) {
      {
        std::shared_lock lock(mutex_);
        kernel = find_kernel(device, in);
      }
      if (!kernel) {
        Route route = route_for(device);
        if (route.kind == Route::kComposite) {
          std::shared_ptr<CompositeRunner> runner;
          {
            std::unique_lock lock(mutex_);
            if (!composite_) composite_ = std::make_shared<CompositeRunner>(*spec_, *signature_, route.target, tuned_);
            runner = composite_;
          }
          runner->run(inputs, outputs, *check);
          return;
        }
        kernel = kernel_for(route, device, in);
      }
      if (keeps_kernel) remember_kernel(*remembered, in, kernel, revokes);
    }
    launch(*kernel, *check, inputs, outputs);
  } catch (...) {
    revoke();
    throw;
  }
}

KernelRef OpState::find_kernel(const Device& device, DescList inputs) {
  if (route_.kind == Route::kTarget) {
    if (auto* hit = target_memo_.find(device, inputs)) return *hit;
  } else if (route_.kind == Route::kInTree) {
    return in_tree_.find(device, inputs);
  }
  return {};
}

const manifest::CallCheck& OpState::remember_check(const Device& device, DescList inputs) {
  auto fresh = std::make_unique<manifest::CallCheck>();
  signature_->check(inputs, DescList(), *fresh);  // a failed check throws: nothing is remembered
  std::unique_lock lock(mutex_);
  if (auto* hit = checked_.find(device, inputs)) return *hit->check;  // another thread checked it first
  ++checked_count_;
  return *checked_.insert(device, inputs, {std::move(fresh), nullptr}).check;
}

void OpState::remember_kernel(const Device& device, DescList inputs, const KernelRef& kernel, uint64_t revokes) {
  std::unique_lock lock(mutex_);
  if (revokes_ != revokes) return;  // a kernel found before a revoke must not outlive it
  if (auto* hit = checked_.find(device, inputs)) hit->kernel = kernel;
}

Route OpState::route_for(const Device& device) {
  std::unique_lock lock(mutex_);
  if (route_.kind == Route::kUnsettled)
    route_ = settle_route(name_, spec_->is_composite(), requested_, device);
  return route_;
}

KernelRef OpState::kernel_for(const Route& route, const Device& device, DescList inputs) {
  std::unique_lock lock(mutex_);
  if (route.kind == Route::kTarget) {
    if (auto* hit = target_memo_.find(device, inputs)) return *hit;
    KernelRef kernel = build_target_kernel(route, device, inputs);
    tune_new(kernel, device);
    target_memo_.insert(device, inputs, kernel);
    built_.emplace_back(kernel, device);
    return kernel;
  }
  if (KernelRef hit = in_tree_.find(device, inputs)) return hit;
  bool built = false;
  KernelRef kernel = in_tree_.resolve(device, inputs, abi_params_, built);
  if (built) {
    try {
      tune_new(kernel, device);
    } catch (...) {
      in_tree_.discard(kernel);
      throw;
    }
    built_.emplace_back(kernel, device);
  }
  in_tree_.remember(device, inputs, kernel);
  return kernel;
}

KernelRef OpState::build_target_kernel(const Route& route, const Device& device,
                                       DescList inputs) {
  tileops_tensor_spec specs[kMaxTensors];
  const tileops_tensor_spec* spec_ptrs[kMaxTensors];
  for (size_t i = 0; i < inputs.size(); ++i) {
    spec_ptrs[i] = nullptr;
    if (inputs[i]) spec_ptrs[i] = &(specs[i] = spec_view(*inputs[i]));
  }
  DeviceRuntime::of(device).set_current(device);
  const BuilderRecord& builder = *route.builder;
  const std::string who = "target '" + route.target + "'";
  tileops_kernel out{};
  out.struct_size = sizeof out;
  tileops_error err;
  tileops_status status;
  try {
    status = builder.build(builder.user, name_.c_str(), spec_ptrs, inputs.size(),
                           abi_params_.data(), abi_params_.size(), &out, &err);
  } catch (...) {
    const std::string detail = thrown_detail();
    Registry::get().record_failure({origin(builder.plugin), "build", who + " threw" + detail});
    throw BackendError(who + ": the builder for " + name_ + " threw" + detail);
  }
  if (status != TILEOPS_OK)
    throw_status(status, who + " cannot build " + name_ + " for " + device.str() + ": " +
                             describe(err, status));
  return adopt_kernel(out, who, origin(builder.plugin), name_);
}

void OpState::tune_new(const KernelRef& kernel, const Device& device) {
  if (tuned_) tune(*kernel, device);
}

void OpState::tune(const KernelHandle& kernel, const Device& device) {
  if (kernel.tunable()) {
    kernel.tune(device, name_);
  } else if (!warned_untunable_) {
    warned_untunable_ = true;
    logger().warn("{}: {} built a kernel without request_tune(); it runs untuned", name_,
                  kernel.origin());
  }
}

bool OpState::writes_nothing(const manifest::CallCheck& check,
                             std::span<const Tensor> inputs) const {
  for (size_t j = 0; j < outputs_.size(); ++j)
    if (numel(view(check.outputs()[j].shape)) != 0) return false;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && signature_->input_written(i) && inputs[i].numel() != 0)
      return false;
  return true;
}

void OpState::fill_outputs(const manifest::CallCheck& check, std::span<const Tensor> inputs,
                           std::span<Tensor> outputs) const {
  for (size_t j = 0; j < outputs.size(); ++j) {
    const auto& spec = outputs_[j];
    if (spec.alias >= 0) {
      outputs[j] = inputs[size_t(spec.alias)];
    } else if (outputs[j].defined()) {
      if (!outputs[j].is_contiguous())
        throw ValueError(name_ + ": output buffer '" + spec.name + "' must be contiguous");
    } else {
      const auto& inferred = check.outputs()[j];
      outputs[j] = Tensor::empty(view(inferred.shape), inferred.dtype, inferred.device);
    }
  }
}

void OpState::launch(const KernelHandle& kernel, const manifest::CallCheck& check,
                     std::span<const Tensor> inputs, std::span<Tensor> outputs) {
  const size_t n_in = inputs_.size();
  // Contiguous copies of strided inputs, made only when one is strided: an array of
  // optional tensors here would be zeroed (3 KB) on every call.
  std::vector<Tensor> copies;
  tileops_tensor in_views[kMaxTensors];
  const tileops_tensor* in_ptrs[kMaxTensors] = {};
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) continue;
    const Tensor* t = &inputs[i];
    if (!t->is_contiguous()) {
      // A written input reaches the kernel as the caller passed it, unless the spec
      // declares it contiguous; every other input is made contiguous.
      if (!signature_->input_written(i)) {
        copies.reserve(inputs.size());  // once: the pointers taken below stay valid
        t = &copies.emplace_back(t->contiguous());
      }
      else if (signature_->input_contiguous(i))
        throw ValueError(name_ + ": input '" + inputs_[i].name +
                         "' is written in place and must be contiguous");
    }
    in_ptrs[i] = &(in_views[i] = tensor_view(*t));
  }
  fill_outputs(check, inputs, outputs);
  tileops_tensor out_views[kMaxTensors];
  const tileops_tensor* out_ptrs[kMaxTensors];
  for (size_t j = 0; j < outputs.size(); ++j) out_ptrs[j] = &(out_views[j] = tensor_view(outputs[j]));
  kernel.launch(in_ptrs, n_in, out_ptrs, outputs.size(), current_stream(check.device()), name_);
}

void OpState::revoke() {
  std::unique_lock lock(mutex_);
  ++revokes_;
  route_ = {};
  target_memo_.clear();
  checked_.for_each([](const SignatureKey&, Remembered& r) { r.kernel = nullptr; });
  in_tree_.clear();
  built_.clear();
  composite_.reset();
}

void OpState::request_tune() {
  std::unique_lock lock(mutex_);
  tuned_ = true;
  for (const auto& [kernel, device] : built_) tune(*kernel, device);
  if (composite_) composite_->request_tune();
}

std::string OpState::kernel_config() const {
  // Exclusive: a kernel's config_json may answer in storage its next call reuses (abi.h),
  // so two threads asking at once, or one asking while another tunes, must not overlap.
  std::unique_lock lock(mutex_);
  for (const auto& [kernel, device] : built_)
    if (auto config = kernel->config_json(); !config.empty()) return config;
  return composite_ ? composite_->kernel_config() : std::string();
}

Roofline OpState::roofline(std::span<const Tensor> inputs) const {
  Described d;
  Tensor no_outputs[kMaxTensors];
  describe_call(inputs, std::span<Tensor>(no_outputs, outputs_.size()), d);
  PooledCallCheck pooled;
  manifest::CallCheck& check = *pooled;
  signature_->check(DescList(d.in_ptrs, inputs_.size()), DescList(), check);
  auto r = signature_->roofline(check);
  return {r.flops, r.bytes};
}

}  // namespace tileops::detail
