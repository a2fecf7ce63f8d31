// The C API: thin wrappers that turn exceptions into statuses and a per-thread
// message.
#include "device/current_stream.hpp"
#include "device/device_runtime.hpp"

#include <tileops/backend.hpp>
#include <tileops/errors.hpp>
#include <tileops/log.hpp>
#include <tileops/op.hpp>
#include <tileops/stream.hpp>
#include <tileops/tileops.h>
#include <tileops/version.hpp>

#include <boost/container/small_vector.hpp>

#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

struct tileops_op {
  tileops::Op op;
  std::vector<std::string> input_names = op.input_names();  // the C strings handed out
  std::vector<std::string> output_names = op.output_names();
};
struct tileops_array {
  tileops::Tensor tensor;
};

namespace {

// Room for a call's tensors before tileops_op_call takes the heap: the manifest's ops
// take at most 5 inputs or outputs.
constexpr size_t kCallTensors = 8;

thread_local std::string last_error;
thread_local std::string last_kind;
thread_local std::string last_target;  // tileops_op_target's answer
thread_local std::string last_config;  // tileops_op_kernel_config's answer

template <class F>
tileops_status guarded(F&& body) noexcept {
  last_error.clear();
  last_kind.clear();
  try {
    body();
    return TILEOPS_OK;
  } catch (const tileops::Error& e) {
    last_error = e.what();
    last_kind = e.kind();
    if (dynamic_cast<const tileops::ValueError*>(&e)) return TILEOPS_ERR_INVALID_ARGUMENT;
    if (dynamic_cast<const tileops::OpNotAvailableError*>(&e)) return TILEOPS_ERR_UNSUPPORTED;
    if (dynamic_cast<const tileops::UnknownTargetError*>(&e)) return TILEOPS_ERR_NOT_FOUND;
    return TILEOPS_ERR_INTERNAL;
  } catch (const std::bad_alloc&) {
    last_error = "out of host memory";
    last_kind = "BackendError";
    return TILEOPS_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    last_error = e.what();
    last_kind = "BackendError";
    return TILEOPS_ERR_INTERNAL;
  }
}

// Refuses a NULL pointer the call cannot do without: "<fn>: <what> is NULL".
void require(const void* pointer, const char* fn, const char* what) {
  if (!pointer) throw tileops::ValueError(std::string(fn) + ": " + what + " is NULL");
}

// A list of `len` elements at `data`, which may be NULL only when empty.
template <class T>
std::vector<T> list_of(const T* data, size_t len, const char* name) {
  if (len && !data)
    throw tileops::ValueError(std::string("parameter '") + name + "': a list of " + std::to_string(len) +
                              " elements at NULL");
  return std::vector<T>(data, data + len);
}

tileops::Params to_params(const tileops_param* params, size_t n) {
  if (n) require(params, "tileops_op_create", "params");
  tileops::Params out;
  for (size_t i = 0; i < n; ++i) {
    const tileops_param& p = params[i];
    const char* name = p.name ? p.name : "";
    tileops::ParamValue v;
    switch (p.kind) {
      case TILEOPS_PARAM_NONE: v = std::monostate{}; break;
      case TILEOPS_PARAM_BOOL: v = p.u.b != 0; break;
      case TILEOPS_PARAM_INT: v = p.u.i; break;
      case TILEOPS_PARAM_FLOAT: v = p.u.f; break;
      case TILEOPS_PARAM_STRING: v = std::string(p.u.s ? p.u.s : ""); break;
      case TILEOPS_PARAM_INT_LIST: v = list_of(p.u.ints.data, p.u.ints.len, name); break;
      case TILEOPS_PARAM_FLOAT_LIST: v = list_of(p.u.floats.data, p.u.floats.len, name); break;
      case TILEOPS_PARAM_DTYPE: v = tileops::DType::from_c(p.u.dtype); break;
      default:
        throw tileops::ValueError(std::string("parameter '") + name + "' has unknown kind " + std::to_string(p.kind));
    }
    out.emplace_back(name, std::move(v));
  }
  return out;
}

// Records (load failures, loaded plugins) copied once into storage that lives for the
// process, so the C strings handed out stay valid. Loading only appends to them, at any
// time (load_plugin_entry), so every read of the storage holds its lock. The registry is
// asked outside that lock: a log sink it reports to may call back into the C API.
template <class T>
class StableRecords {
 public:
  explicit StableRecords(std::vector<T> (*current)()) : current_(current) {}

  // Record `index`, valid for the process, or nullptr past the end; `count` (when not
  // NULL) gets the number of records.
  const T* at(size_t index, size_t* count) {
    std::vector<T> now = current_();
    std::lock_guard lock(mutex_);
    for (size_t i = kept_.size(); i < now.size(); ++i) kept_.push_back(std::move(now[i]));
    if (count) *count = kept_.size();
    return index < kept_.size() ? &kept_[index] : nullptr;
  }
  size_t count() {
    size_t n = 0;
    at(0, &n);
    return n;
  }

 private:
  std::vector<T> (*const current_)();
  std::mutex mutex_;
  std::deque<T> kept_;
};

StableRecords<tileops::LoadFailure>& stable_failures() {
  static StableRecords<tileops::LoadFailure> records(&tileops::load_failures);
  return records;
}

// The `ndim` dims at `shape`, refused (ValueError, prefixed with `fn`) when they cannot be read.
tileops::ShapeView shape_arg(const char* fn, int32_t ndim, const int64_t* shape) {
  if (ndim < 0) throw tileops::ValueError(std::string(fn) + ": ndim " + std::to_string(ndim));
  if (ndim > 0 && !shape)
    throw tileops::ValueError(std::string(fn) + ": ndim " + std::to_string(ndim) + " with a null shape");
  return tileops::ShapeView(shape, size_t(ndim));
}

// The device `device` names, refused (ValueError, prefixed with `fn`) without a type.
tileops::Device device_arg(const char* fn, const tileops_device& device) {
  require(device.type, fn, "device.type");
  return tileops::Device::from_c(device);
}

// The plugins that loaded (loading only appends to them).
std::vector<tileops::PluginInfo> loaded_plugins() {
  std::vector<tileops::PluginInfo> loaded;
  for (auto& p : tileops::plugins())
    if (p.state == "loaded") loaded.push_back(std::move(p));
  return loaded;
}

StableRecords<tileops::PluginInfo>& stable_plugins() {
  static StableRecords<tileops::PluginInfo> records(&loaded_plugins);
  return records;
}

// The registered targets as C strings that live for the process: each name is kept once,
// each distinct list once (a plugin loaded later may insert a name anywhere in it).
const std::vector<const char*>& stable_targets() {
  static std::mutex mu;
  static std::set<std::string, std::less<>> names;
  static std::deque<std::vector<const char*>> lists;
  const std::vector<std::string> registered = tileops::registered_targets();  // outside the lock, as above
  std::lock_guard lock(mu);
  std::vector<const char*> now;
  for (const auto& t : registered) now.push_back(names.insert(t).first->c_str());
  if (lists.empty() || lists.back() != now) lists.push_back(std::move(now));
  return lists.back();
}

}  // namespace

extern "C" {

const char* tileops_last_error(void) { return last_error.c_str(); }
const char* tileops_last_error_kind(void) { return last_kind.c_str(); }

const char* tileops_version(void) { return tileops::version_string(); }

uint32_t tileops_abi_version(void) { return tileops::abi_version(); }

tileops_status tileops_set_log_sink(tileops_log_sink sink, void* user) {
  return guarded([&] {
    if (!sink) return tileops::set_log_sink({});
    tileops::set_log_sink([sink, user](tileops::LogLevel level, std::string_view message) {
      const std::string terminated(message);  // records are rare; the C sink needs a NUL
      sink(user, static_cast<int32_t>(level), terminated.c_str());
    });
  });
}

tileops_status tileops_set_log_level(int32_t level) {
  return guarded([&] { tileops::set_log_level(static_cast<tileops::LogLevel>(level)); });
}

int32_t tileops_log_level(void) { return static_cast<int32_t>(tileops::log_level()); }

tileops_status tileops_load_plugins(void) {
  return guarded([] { tileops::load_plugins(); });
}

size_t tileops_load_failure_count(void) {
  try {
    return stable_failures().count();
  } catch (...) {  // out of host memory for the copy: no count rather than no process
    return 0;
  }
}

tileops_status tileops_load_failure(size_t index, const char** path, const char** stage,
                                    const char** reason) {
  return guarded([&] {
    size_t count = 0;
    const tileops::LoadFailure* failure = stable_failures().at(index, &count);
    if (!failure)
      throw tileops::ValueError("load failure " + std::to_string(index) + " does not exist; there are " +
                                std::to_string(count));
    if (path) *path = failure->path.c_str();
    if (stage) *stage = failure->stage.c_str();
    if (reason) *reason = failure->reason.c_str();
  });
}

size_t tileops_plugin_count(void) {
  try {
    return stable_plugins().count();
  } catch (...) {  // as tileops_load_failure_count
    return 0;
  }
}

tileops_status tileops_plugin(size_t index, const char** path, const char** name, const char** version,
                              int* builtin) {
  return guarded([&] {
    size_t count = 0;
    const tileops::PluginInfo* plugin = stable_plugins().at(index, &count);
    if (!plugin)
      throw tileops::ValueError("plugin " + std::to_string(index) + " does not exist; " + std::to_string(count) +
                                " loaded");
    if (path) *path = plugin->path.c_str();
    if (name) *name = plugin->name.c_str();
    if (version) *version = plugin->version.c_str();
    if (builtin) *builtin = plugin->builtin ? 1 : 0;
  });
}

tileops_status tileops_targets(const char* const** names, size_t* count) {
  return guarded([&] {
    require(names, "tileops_targets", "names");
    require(count, "tileops_targets", "count");
    const auto& targets = stable_targets();
    *names = targets.data();
    *count = targets.size();
  });
}

tileops_status tileops_array_from_blob(void* data, tileops_device device, tileops_dtype dtype,
                                       int32_t ndim, const int64_t* shape,
                                       const int64_t* strides, tileops_array** out) {
  return guarded([&] {
    require(out, "tileops_array_from_blob", "out");
    tileops::ShapeView s = shape_arg("tileops_array_from_blob", ndim, shape);
    tileops::ShapeView st = strides ? tileops::ShapeView(strides, size_t(ndim)) : tileops::ShapeView();
    *out = new tileops_array{tileops::Tensor::from_blob(data, s, tileops::DType::from_c(dtype),
                                                        device_arg("tileops_array_from_blob", device), st)};
  });
}

tileops_status tileops_array_empty(tileops_device device, tileops_dtype dtype, int32_t ndim,
                                   const int64_t* shape, tileops_array** out) {
  return guarded([&] {
    require(out, "tileops_array_empty", "out");
    *out = new tileops_array{tileops::Tensor::empty(shape_arg("tileops_array_empty", ndim, shape),
                                                    tileops::DType::from_c(dtype),
                                                    device_arg("tileops_array_empty", device))};
  });
}

void tileops_array_release(tileops_array* array) { delete array; }
// The accessors answer a zero value for a NULL handle rather than crash.
void* tileops_array_data(const tileops_array* a) { return a ? a->tensor.data() : nullptr; }
int32_t tileops_array_ndim(const tileops_array* a) { return a ? int32_t(a->tensor.ndim()) : -1; }
const int64_t* tileops_array_shape(const tileops_array* a) { return a ? a->tensor.shape().data() : nullptr; }
const int64_t* tileops_array_strides(const tileops_array* a) { return a ? a->tensor.strides().data() : nullptr; }
tileops_dtype tileops_array_dtype(const tileops_array* a) { return a ? a->tensor.dtype().to_c() : tileops_dtype{}; }
tileops_device tileops_array_device(const tileops_array* a) {
  return a ? a->tensor.device().to_c() : tileops_device{nullptr, -1};
}

tileops_status tileops_array_copy(tileops_array* dst, const tileops_array* src) {
  return guarded([&] {
    require(dst, "tileops_array_copy", "dst");
    require(src, "tileops_array_copy", "src");
    dst->tensor.copy_from(src->tensor);
  });
}

tileops_status tileops_array_to(const tileops_array* array, tileops_device device, tileops_array** out) {
  return guarded([&] {
    require(array, "tileops_array_to", "array");
    require(out, "tileops_array_to", "out");
    *out = new tileops_array{array->tensor.to(device_arg("tileops_array_to", device))};
  });
}

tileops_status tileops_array_from_dlpack(DLManagedTensor* managed, tileops_array** out) {
  return guarded([&] {
    require(out, "tileops_array_from_dlpack", "out");
    // The handle first: once the tensor holds `managed`, nothing may fail before it is returned.
    auto array = std::make_unique<tileops_array>();
    array->tensor = tileops::Tensor::from_dlpack(managed);
    *out = array.release();
  });
}

tileops_status tileops_array_to_dlpack(const tileops_array* array, DLManagedTensor** out) {
  return guarded([&] {
    require(array, "tileops_array_to_dlpack", "array");
    require(out, "tileops_array_to_dlpack", "out");
    *out = array->tensor.to_dlpack();
  });
}

tileops_status tileops_stream_create(tileops_device device, void** out) {
  return guarded([&] {
    require(out, "tileops_stream_create", "out");
    const tileops::Device d = device_arg("tileops_stream_create", device);
    *out = tileops::detail::DeviceRuntime::of(d).stream_create(d);
  });
}

tileops_status tileops_stream_destroy(tileops_device device, void* stream) {
  return guarded([&] {
    const tileops::Device d = device_arg("tileops_stream_destroy", device);
    tileops::detail::DeviceRuntime::of(d).stream_destroy(d, stream);
  });
}

void* tileops_current_stream(tileops_device device) {
  try {
    return device.type ? tileops::current_stream(tileops::Device::from_c(device)) : nullptr;
  } catch (...) {  // out of host memory naming a new device type: it has no stream set
    return nullptr;
  }
}

tileops_status tileops_set_current_stream(tileops_device device, void* stream) {
  return guarded(
      [&] { tileops::detail::set_current_stream(device_arg("tileops_set_current_stream", device), stream); });
}

tileops_status tileops_stream_synchronize(tileops_device device, void* stream) {
  return guarded([&] {
    const tileops::Device d = device_arg("tileops_stream_synchronize", device);
    tileops::detail::DeviceRuntime::of(d).synchronize(d, stream);
  });
}

tileops_status tileops_op_create(const char* name, const tileops_param* params, size_t n_params,
                                 const char* target, tileops_op** out) {
  return guarded([&] {
    require(out, "tileops_op_create", "out");
    tileops::Target t;
    if (target) t = std::string(target);
    *out = new tileops_op{tileops::Op(name ? name : "", to_params(params, n_params), t)};
  });
}

void tileops_op_destroy(tileops_op* op) { delete op; }
size_t tileops_op_num_inputs(const tileops_op* op) { return op ? op->input_names.size() : 0; }
size_t tileops_op_num_outputs(const tileops_op* op) { return op ? op->output_names.size() : 0; }

const char* tileops_op_input_name(const tileops_op* op, size_t index) {
  return op && index < op->input_names.size() ? op->input_names[index].c_str() : nullptr;
}

const char* tileops_op_output_name(const tileops_op* op, size_t index) {
  return op && index < op->output_names.size() ? op->output_names[index].c_str() : nullptr;
}

const char* tileops_op_target(const tileops_op* op) {
  try {
    const tileops::Target target = op ? op->op.target() : tileops::Target();
    if (!target) return nullptr;
    last_target = *target;
    return last_target.c_str();
  } catch (...) {  // out of host memory for the copy: no answer rather than no process
    return nullptr;
  }
}

tileops_status tileops_op_request_tune(tileops_op* op) {
  return guarded([&] {
    require(op, "tileops_op_request_tune", "op");
    op->op.request_tune();
  });
}

tileops_status tileops_op_kernel_config(const tileops_op* op, const char** json) {
  return guarded([&] {
    require(op, "tileops_op_kernel_config", "op");
    require(json, "tileops_op_kernel_config", "json");
    last_config = op->op.kernel_config();
    *json = last_config.c_str();
  });
}

tileops_status tileops_set_default_target(const char* target) {
  return guarded([&] { tileops::set_default_target(target ? tileops::Target(target) : tileops::Target()); });
}

tileops_status tileops_op_call(tileops_op* op, tileops_array* const* inputs, size_t n_inputs,
                               tileops_array** outputs, size_t n_outputs) {
  return guarded([&] {
    require(op, "tileops_op_call", "op");
    if (n_inputs) require(inputs, "tileops_op_call", "inputs");
    if (n_outputs) require(outputs, "tileops_op_call", "outputs");
    // On the stack for any op's count (the op refuses more than it takes, by name).
    boost::container::small_vector<tileops::Tensor, kCallTensors> in, out;
    for (size_t i = 0; i < n_inputs; ++i) inputs[i] ? in.emplace_back(inputs[i]->tensor) : in.emplace_back();
    for (size_t j = 0; j < n_outputs; ++j) outputs[j] ? out.emplace_back(outputs[j]->tensor) : out.emplace_back();
    op->op.call({in.data(), in.size()}, {out.data(), out.size()});
    // A handle for each output the call allocated: all of them or, when host memory runs
    // out, none (the slots stay NULL). The call took exactly the op's outputs, a handful:
    // a mask of them fits in 64 bits.
    uint64_t handed = 0;
    try {
      for (size_t j = 0; j < n_outputs; ++j)
        if (!outputs[j]) {
          outputs[j] = new tileops_array{std::move(out[j])};
          handed |= uint64_t(1) << j;
        }
    } catch (...) {
      for (size_t j = 0; j < n_outputs; ++j)
        if (handed >> j & 1) {
          delete outputs[j];
          outputs[j] = nullptr;
        }
      throw;
    }
  });
}

}  // extern "C"
