#pragma once
// The state behind one tileops::Op: its bound signature, the target decision, the
// memo tables, the in-tree kernels and a composite's sub-ops.
#include "op/in_tree.hpp"
#include "op/kernel_handle.hpp"
#include "op/route.hpp"
#include "op/signature_map.hpp"

#include <tileops/manifest.hpp>
#include <tileops/op.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

namespace tileops::detail {

class CompositeRunner;

class OpState {
 public:
  static constexpr size_t kMaxTensors = 16;
  // Signatures whose checks an op remembers (about 6 KB each); calls with more distinct
  // signatures than this are checked every time, as before there was a memo.
  static constexpr size_t kMaxRememberedChecks = 256;

  OpState(std::string_view name, const Params& params, Target target);
  ~OpState();

  void call(std::span<const Tensor> inputs, std::span<Tensor> outputs);

  const std::string& name() const { return name_; }
  const manifest::OpSpec& spec() const { return *spec_; }
  const manifest::BoundSignature& signature() const { return *signature_; }
  Params params() const;
  Target target() const;
  void request_tune();
  std::string kernel_config() const;
  Roofline roofline(std::span<const Tensor> inputs) const;

 private:
  struct Described;  // the inputs and caller outputs of one call, as descriptions
  void describe_call(std::span<const Tensor> inputs, std::span<Tensor> outputs, Described& d) const;
  // Returns the settled route, settling it on the first call.
  Route route_for(const Device& device);
  KernelRef kernel_for(const Route& route, const Device& device, DescList inputs);
  // The memoised kernel for the call on the settled route, if any (mutex_ held).
  KernelRef find_kernel(const Device& device, DescList inputs);
  // Checks a signature not checked before and remembers its check (see checked_);
  // there must be room (checked_count_ < kMaxRememberedChecks).
  const manifest::CallCheck& remember_check(const Device& device, DescList inputs);
  // Keeps `kernel` with the remembered check of the signature, unless the op revoked its
  // kernels since `revokes` was read.
  void remember_kernel(const Device& device, DescList inputs, const KernelRef& kernel, uint64_t revokes);
  KernelRef build_target_kernel(const Route& route, const Device& device, DescList inputs);
  // Tunes a kernel just built when the op is in tuned mode.
  void tune_new(const KernelRef& kernel, const Device& device);
  // Tunes on `device` (with it current), or warns once that the kernel cannot be tuned.
  void tune(const KernelHandle& kernel, const Device& device);
  void launch(const KernelHandle& kernel, const manifest::CallCheck& check,
              std::span<const Tensor> inputs, std::span<Tensor> outputs);
  void fill_outputs(const manifest::CallCheck& check, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const;
  bool writes_nothing(const manifest::CallCheck& check, std::span<const Tensor> inputs) const;
  void revoke();

  std::string name_;
  const manifest::OpSpec* spec_;
  // The spec's tensors, held here: the per-call path reads them several times, and the
  // spec's accessors are calls into the manifest library.
  std::span<const manifest::TensorSpec> inputs_, outputs_;
  std::shared_ptr<const manifest::BoundSignature> signature_;
  Target requested_;
  std::vector<std::string> param_names_;
  std::vector<ParamValue> param_values_;
  std::vector<tileops_param> abi_params_;

  mutable std::shared_mutex mutex_;  // guards everything below
  // The checks of signatures that passed, for calls that give no output buffers and have
  // every input on the call device. Nothing else reaches the checker's verdict (a
  // TensorDesc is device, dtype and shape; the params are the op's), so such a call
  // whose signature passed before is not checked again: the check was 46% of a memo
  // hit. Entries live as long as the op (a hit is used after the lock is released).
  // Each also keeps the kernel a call of its signature found, so that a memo hit is one
  // lookup (the kernels' memo was a second); revoke() drops those with the memo.
  struct Remembered {
    std::unique_ptr<const manifest::CallCheck> check;
    KernelRef kernel;
  };
  SignatureMap<Remembered> checked_;
  size_t checked_count_ = 0;
  uint64_t revokes_ = 0;  // revoke() calls so far
  Route route_;
  SignatureMap<KernelRef> target_memo_;
  InTreeKernels in_tree_;
  std::shared_ptr<CompositeRunner> composite_;  // shared: a revoke may drop it mid-run
  std::vector<std::pair<KernelRef, Device>> built_;  // build order: tuning, kernel_config
  bool tuned_ = false;
  bool warned_untunable_ = false;
};

}  // namespace tileops::detail
