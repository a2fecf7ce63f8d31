#include "registry/registrar.hpp"

#include "registry/op_catalog.hpp"
#include "support/format.hpp"
#include "support/log.hpp"
#include "support/status.hpp"

#include <tileops/backend.hpp>
#include <tileops/stream.hpp>

#include <algorithm>
#include <cstring>

namespace tileops::detail {
namespace {

// Refuses a registration: the message goes to the plugin (err) and poisons the
// transaction so the whole plugin is rolled back whatever the entry returns.
tileops_status refuse(tileops_registrar* reg, tileops_error* err, tileops_status status,
                      std::string message) {
  if (err) {
    err->status = status;
    err->message = message;
  }
  if (!reg->refusal) reg->refusal = std::move(message);
  return status;
}

bool blank(const char* s) { return s == nullptr || *s == '\0'; }

// Empty when `op` is in the manifest, else the refusal message.
std::string unknown_op(const char* what, const char* op) {
  const auto& catalog = op_catalog();
  if (catalog.knows(op)) return {};
  auto nearest = catalog.nearest(op, 3);
  return std::string(what) + ": '" + op + "' is not an op of the manifest" +
         (nearest.empty() ? std::string() : "; did you mean " + join(nearest) + "?");
}

template <class Records, class Match>
const auto* find_staged(const Records& records, Match match) {
  for (const auto& r : records)
    if (match(r)) return &r;
  return static_cast<const typename Records::value_type*>(nullptr);
}

tileops_status register_detector(tileops_registrar* reg, const char* target,
                                  tileops_detect_fn detect, void* user, tileops_error* err) {
  if (blank(target))
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT, "register_detector: empty target name");
  if (target == BUILTIN)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  "register_detector: target name 'builtin' is reserved for the in-tree "
                  "implementation");
  if (!detect)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  std::string("register_detector('") + target + "'): detect is NULL");
  const DetectorRecord* existing = reg->base->detector(target);
  if (!existing)
    existing = find_staged(reg->staged.detectors, [&](auto& d) { return d.target == target; });
  if (existing)
    return refuse(reg, err, TILEOPS_ERR_ALREADY_EXISTS,
                  std::string("target '") + target + "' already has a detector (registered by " +
                      origin(existing->plugin) + "); a target is one set of kernels from one "
                      "provider");
  reg->staged.detectors.push_back({target, detect, user, reg->plugin});
  return TILEOPS_OK;
}

tileops_status register_kernel_builder(tileops_registrar* reg, const char* op, const char* target,
                                       tileops_build_kernel_fn build, void* user,
                                       tileops_error* err) {
  if (blank(op) || blank(target) || !build)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  "register_kernel_builder: op, target and build are required");
  if (target == BUILTIN)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  "register_kernel_builder: target name 'builtin' is reserved for the in-tree "
                  "implementation");
  if (auto message = unknown_op("register_kernel_builder", op); !message.empty())
    return refuse(reg, err, TILEOPS_ERR_NOT_FOUND, std::move(message));
  const BuilderRecord* existing = reg->base->builder(op, target);
  if (!existing)
    existing = find_staged(reg->staged.builders,
                           [&](auto& b) { return b.op == op && b.target == target; });
  if (existing)
    return refuse(reg, err, TILEOPS_ERR_ALREADY_EXISTS,
                  std::string("target '") + target + "' already has a kernel builder for " + op +
                      " (registered by " + origin(existing->plugin) +
                      "); two backends on one target are not supported");
  reg->staged.builders.push_back({op, target, build, user, reg->plugin});
  return TILEOPS_OK;
}

tileops_status register_device_runtime(tileops_registrar* reg, const char* device_type,
                                       const tileops_device_runtime* runtime, tileops_error* err) {
  if (blank(device_type) || !runtime)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  "register_device_runtime: device type and runtime are required");
  if (!TILEOPS_STRUCT_HAS(runtime, synchronize) || !runtime->alloc || !runtime->free || !runtime->copy ||
      !runtime->synchronize)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  std::string("register_device_runtime('") + device_type +
                      "'): alloc, free, copy and synchronize are required");
  Device device(device_type);
  const DeviceRuntimeRecord* existing = reg->base->runtime(device);
  if (!existing)
    existing = find_staged(reg->staged.runtimes,
                           [&](auto& r) { return r.device_type == device_type; });
  if (existing)
    return refuse(reg, err, TILEOPS_ERR_ALREADY_EXISTS,
                  std::string("device type '") + device_type +
                      "' already has a device runtime (registered by " +
                      origin(existing->plugin) + ")");
  DeviceRuntimeRecord record{device_type, {}, reg->plugin};
  std::memcpy(&record.runtime, runtime, std::min(runtime->struct_size, sizeof record.runtime));
  record.runtime.struct_size = sizeof record.runtime;
  reg->staged.runtimes.push_back(std::move(record));
  return TILEOPS_OK;
}

tileops_status register_device_facts(tileops_registrar* reg, const char* device_type,
                                     tileops_read_device_facts_fn read, void* user,
                                     tileops_error* err) {
  if (blank(device_type) || !read)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  "register_device_facts: device type and read are required");
  if (std::strcmp(device_type, "cuda") == 0 && !reg->builtin)
    return refuse(reg, err, TILEOPS_ERR_ALREADY_EXISTS,
                  "register_device_facts: device facts for 'cuda' are read by the built-in "
                  "CUDA plugin; no other plugin may register them");
  Device device(device_type);
  const FactsReaderRecord* existing = reg->base->facts_reader(device);
  if (!existing)
    existing = find_staged(reg->staged.facts_readers,
                           [&](auto& f) { return f.device_type == device_type; });
  if (existing)
    return refuse(reg, err, TILEOPS_ERR_ALREADY_EXISTS,
                  std::string("register_device_facts: device type '") + device_type +
                      "' already has a facts reader (registered by " + origin(existing->plugin) +
                      "); facts belong to a device type, not a target");
  reg->staged.facts_readers.push_back({device_type, read, user, reg->plugin});
  return TILEOPS_OK;
}

std::vector<std::string> copy_strings(const char* const* items, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.emplace_back(items[i] ? items[i] : "");
  return out;
}

// Whether a chain of preferred_over leads from `from` to the key `target` through
// `types`, the chain so far in `path` (extended to it when it does). `walked`: the
// keys already searched from, none of which leads there.
bool prefers_into(const KernelTypeRecord& from, const std::string& target,
                  const std::vector<const KernelTypeRecord*>& types, std::vector<std::string>& path,
                  std::vector<std::string>& walked) {
  for (const auto& key : from.preferred_over) {
    path.push_back("'" + key + "'");
    if (key == target) return true;
    const auto next = std::find_if(types.begin(), types.end(), [&](auto* t) { return t->key == key; });
    if (next != types.end() && std::find(walked.begin(), walked.end(), key) == walked.end()) {
      walked.push_back(key);
      if (prefers_into(**next, target, types, path, walked)) return true;
    }
    path.pop_back();
  }
  return false;
}

// The chain of preferences from `record` back to itself through the kernel types of
// its op, registered and staged ("'a' over 'b' over 'a'"); empty when there is none.
// Selection ranks preferred_over transitively, so a cycle would leave no type
// preferred: it is refused here, and the plugin that would close it rolls back.
std::string preference_cycle(const tileops_registrar& reg, const KernelTypeRecord& record) {
  std::vector<const KernelTypeRecord*> types;
  if (auto it = reg.base->kernel_types.find(record.op); it != reg.base->kernel_types.end())
    for (const auto& t : it->second) types.push_back(&t);
  for (const auto& t : reg.staged.kernel_types)
    if (t.op == record.op) types.push_back(&t);
  std::vector<std::string> path{"'" + record.key + "'"}, walked;
  return prefers_into(record, record.key, types, path, walked) ? join(path, " over ") : std::string();
}

tileops_status register_kernel_type(tileops_registrar* reg, const tileops_kernel_type* type,
                                    tileops_error* err) {
  if (!type || !TILEOPS_STRUCT_HAS(type, build) || blank(type->op) || blank(type->key) ||
      blank(type->interface) || !type->build)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  "register_kernel_type: op, key, interface and build are required");
  if (auto message = unknown_op("register_kernel_type", type->op); !message.empty())
    return refuse(reg, err, TILEOPS_ERR_NOT_FOUND, std::move(message));
  // The in-tree forward calls one kernel interface, named like the op: a type declaring
  // another would be selected for calls whose contract it does not implement.
  if (std::strcmp(type->interface, type->op) != 0)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  std::string("kernel type '") + type->key + "' of " + type->op + " implements interface '" +
                      type->interface + "'; " + type->op + "'s in-tree forward calls only the interface '" +
                      type->op + "'");
  auto same_key = [&](const KernelTypeRecord& k) { return k.key == type->key; };
  const KernelTypeRecord* existing = nullptr;
  if (auto it = reg->base->kernel_types.find(type->op); it != reg->base->kernel_types.end())
    existing = find_staged(it->second, same_key);
  if (!existing)
    existing = find_staged(reg->staged.kernel_types,
                           [&](auto& k) { return k.op == type->op && same_key(k); });
  if (existing)
    return refuse(reg, err, TILEOPS_ERR_ALREADY_EXISTS,
                  std::string(type->op) + " already has a kernel type '" + type->key +
                      "' (registered by " + origin(existing->plugin) +
                      "); an implementation added from outside needs a new key");
  if ((type->n_devices && !type->devices) || (type->n_archs && !type->supported_archs) ||
      (type->n_preferred_over && !type->preferred_over))
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  std::string("kernel type '") + type->key + "' of " + type->op +
                      ": devices, supported_archs and preferred_over must point at their counts of items");
  if (type->n_archs > 0 && type->n_devices != 1)
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  std::string("kernel type '") + type->key + "' of " + type->op +
                      " declares supported_archs, so it must list exactly one device type, "
                      "got " + std::to_string(type->n_devices));
  KernelTypeRecord record{
      type->op,
      type->key,
      type->interface,
      copy_strings(type->devices, type->n_devices),
      std::vector<int32_t>(type->supported_archs, type->supported_archs + type->n_archs),
      type->general != 0,
      copy_strings(type->preferred_over, type->n_preferred_over),
      type->user,
      type->refusal,
      type->identity,
      type->build,
      reg->plugin};
  if (record.devices.empty()) record.devices.push_back("cuda");
  if (auto cycle = preference_cycle(*reg, record); !cycle.empty())
    return refuse(reg, err, TILEOPS_ERR_INVALID_ARGUMENT,
                  std::string("kernel type '") + type->key + "' of " + type->op +
                      ": its preferred_over closes a cycle (" + cycle + "), which would leave none preferred");
  reg->staged.kernel_types.push_back(std::move(record));
  return TILEOPS_OK;
}

void* current_stream_of(const tileops_device* device) {
  return device && device->type ? current_stream(Device::from_c(*device)) : nullptr;
}

void error_set(tileops_error* err, tileops_status status, const char* message) {
  if (!err) return;
  err->status = status;
  err->message = message ? message : "";
}

void log_message(int32_t level, const char* message) {
  const bool known = level >= TILEOPS_LOG_TRACE && level <= TILEOPS_LOG_ERROR;
  logger().log(known ? spdlog_level(static_cast<LogLevel>(level)) : spdlog::level::info, "{}", message ? message : "");
}

}  // namespace

const tileops_host_api& host_api() {
  static const tileops_host_api api{
      sizeof(tileops_host_api), TILEOPS_ABI_MAJOR,       TILEOPS_ABI_MINOR,
      register_detector,        register_kernel_builder, register_device_facts,
      register_device_runtime,  register_kernel_type,    current_stream_of,
      error_set,                log_message};
  return api;
}

std::string describe(const tileops_error& err, tileops_status status) {
  if (!err.message.empty()) return err.message;
  return std::string(status_name(status)) + " (status " + std::to_string(status) + "; the backend gave no message)";
}

}  // namespace tileops::detail
