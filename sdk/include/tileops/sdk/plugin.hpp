#pragma once
// C++ convenience over the tileops plugin ABI, header-only.
//
// A plugin written with this header throws `sdk::Failure` (or any std::exception)
// inside its code; `guard` turns that into a status and a message at the ABI
// boundary, so no exception ever reaches the host. Typical plugin:
//
//   std::unique_ptr<sdk::Kernel> build_rms_norm(const sdk::BuildArgs& args) { ... }
//   TILEOPS_PLUGIN(reg) {
//     reg.info("acme", "1.0.0", "build-id");
//     reg.detector("acme", [](void*, const tileops_device* d) -> int32_t { ... });
//     reg.builder("RMSNormFwdOp", "acme", build_rms_norm);
//   }
#include <tileops/abi.h>
#include <tileops/sdk/shape.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tileops::sdk {

// ---- errors --------------------------------------------------------------------

struct Failure : std::exception {
  tileops_status status;
  std::string message;
  Failure(tileops_status s, std::string m) : status(s), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

[[noreturn]] inline void fail(tileops_status status, std::string message) {
  throw Failure(status, std::move(message));
}
[[noreturn]] inline void unsupported(std::string message) {
  fail(TILEOPS_ERR_UNSUPPORTED, std::move(message));
}
[[noreturn]] inline void invalid(std::string message) {
  fail(TILEOPS_ERR_INVALID_ARGUMENT, std::move(message));
}

// The host API handed to the entry; valid for the life of the process.
inline const tileops_host_api*& host_slot() {
  static const tileops_host_api* host = nullptr;
  return host;
}
inline const tileops_host_api& host() { return *host_slot(); }

// Runs `body` and maps what it throws onto a status and the host's error sink.
template <class F>
tileops_status guard(tileops_error* err, F&& body) noexcept {
  try {
    body();
    return TILEOPS_OK;
  } catch (const Failure& f) {
    host().error_set(err, f.status, f.message.c_str());
    return f.status;
  } catch (const std::bad_alloc&) {
    host().error_set(err, TILEOPS_ERR_OUT_OF_MEMORY, "out of host memory");
    return TILEOPS_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    host().error_set(err, TILEOPS_ERR_INTERNAL, e.what());
    return TILEOPS_ERR_INTERNAL;
  } catch (...) {
    host().error_set(err, TILEOPS_ERR_INTERNAL, "unknown exception in plugin");
    return TILEOPS_ERR_INTERNAL;
  }
}

inline void log(int32_t level, const std::string& message) {
  host().log(level, message.c_str());
}

// ---- dtypes and tensors ----------------------------------------------------------

inline bool same_dtype(tileops_dtype a, tileops_dtype b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
inline constexpr tileops_dtype kFloat32{TILEOPS_DTYPE_FLOAT, 32, 1};
inline constexpr tileops_dtype kFloat16{TILEOPS_DTYPE_FLOAT, 16, 1};
inline constexpr tileops_dtype kBFloat16{TILEOPS_DTYPE_BFLOAT, 16, 1};
inline constexpr tileops_dtype kInt32{TILEOPS_DTYPE_INT, 32, 1};
inline constexpr tileops_dtype kInt64{TILEOPS_DTYPE_INT, 64, 1};

inline std::string dtype_name(tileops_dtype d) {
  if (d.lanes == 1) {
    switch (d.code) {
      case TILEOPS_DTYPE_FLOAT: return "float" + std::to_string(d.bits);
      case TILEOPS_DTYPE_BFLOAT: return "bfloat" + std::to_string(d.bits);
      case TILEOPS_DTYPE_INT: return "int" + std::to_string(d.bits);
      case TILEOPS_DTYPE_UINT: return "uint" + std::to_string(d.bits);
      case TILEOPS_DTYPE_BOOL: return "bool";
      case TILEOPS_DTYPE_FLOAT8_E4M3FN: return "float8_e4m3fn";
      case TILEOPS_DTYPE_FLOAT8_E5M2: return "float8_e5m2";
      default: break;
    }
  }
  return "dtype(" + std::to_string(d.code) + "," + std::to_string(d.bits) + "," +
         std::to_string(d.lanes) + ")";
}

inline size_t itemsize(tileops_dtype d) { return (size_t(d.bits) * d.lanes + 7) / 8; }

inline std::span<const int64_t> shape_of(const tileops_tensor_spec& s) {
  return {s.shape, size_t(s.ndim)};
}
inline std::string format_shape(std::span<const int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// ---- params ----------------------------------------------------------------------

// The manifest's spelling of a param kind ("int", "list[int]", ...).
inline std::string param_kind_name(int32_t kind) {
  switch (kind) {
    case TILEOPS_PARAM_NONE: return "None";
    case TILEOPS_PARAM_BOOL: return "bool";
    case TILEOPS_PARAM_INT: return "int";
    case TILEOPS_PARAM_FLOAT: return "float";
    case TILEOPS_PARAM_STRING: return "str";
    case TILEOPS_PARAM_INT_LIST: return "list[int]";
    case TILEOPS_PARAM_FLOAT_LIST: return "list[float]";
    case TILEOPS_PARAM_DTYPE: return "dtype";
    default: return "kind " + std::to_string(kind);
  }
}

// The named params of one build, as the host passes them (manifest names).
class ParamList {
 public:
  ParamList(const tileops_param* params, size_t n) : params_(params, n) {}

  const tileops_param* find(std::string_view name) const {
    for (const auto& p : params_)
      if (name == p.name) return &p;
    return nullptr;
  }
  const tileops_param& at(std::string_view name) const {
    if (const auto* p = find(name)) return *p;
    invalid("missing parameter '" + std::string(name) + "'");
  }
  bool is_none(std::string_view name) const { return at(name).kind == TILEOPS_PARAM_NONE; }
  int64_t get_int(std::string_view name) const { return expect(name, TILEOPS_PARAM_INT).u.i; }
  bool get_bool(std::string_view name) const { return expect(name, TILEOPS_PARAM_BOOL).u.b != 0; }
  double get_float(std::string_view name) const {
    const auto& p = at(name);
    if (p.kind == TILEOPS_PARAM_INT) return double(p.u.i);
    return expect(name, TILEOPS_PARAM_FLOAT).u.f;
  }
  std::optional<double> get_optional_float(std::string_view name) const {
    if (is_none(name)) return std::nullopt;
    return get_float(name);
  }
  std::optional<int64_t> get_optional_int(std::string_view name) const {
    if (is_none(name)) return std::nullopt;
    return get_int(name);
  }
  std::string_view get_string(std::string_view name) const { return expect(name, TILEOPS_PARAM_STRING).u.s; }
  std::span<const int64_t> get_ints(std::string_view name) const {
    const auto& p = expect(name, TILEOPS_PARAM_INT_LIST);
    return {p.u.ints.data, p.u.ints.len};
  }
  // An int list, or nullopt for None (e.g. a reduction over every axis).
  std::optional<std::span<const int64_t>> get_optional_ints(std::string_view name) const {
    if (is_none(name)) return std::nullopt;
    return get_ints(name);
  }

 private:
  const tileops_param& expect(std::string_view name, int32_t kind) const {
    const auto& p = at(name);
    if (p.kind != kind)
      invalid("parameter '" + std::string(name) + "' should be " + param_kind_name(kind) + ", got " +
              param_kind_name(p.kind));
    return p;
  }
  std::span<const tileops_param> params_;
};

// ---- kernels ---------------------------------------------------------------------

// What a kernel's launch receives.
struct LaunchArgs {
  std::span<const tileops_tensor* const> inputs;   // nullptr: an omitted optional input
  std::span<const tileops_tensor* const> outputs;  // allocated by the host
  void* stream;                                     // the device's current stream
};

// A kernel: compiled for one device and input signature, launched many times. launch
// may run on several threads at once (different streams), and request_tune or
// config_json beside them; the host never runs request_tune and config_json at once.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void launch(const LaunchArgs& args) = 0;
  // Tuning support: override both.
  virtual bool tunable() const { return false; }
  virtual void request_tune(const tileops_device& /*device*/) {}
  // A non-empty JSON object, or "" for none.
  virtual std::string config_json() const { return {}; }
};

// Hands `kernel` to the host through `out`; the host releases it.
inline void export_kernel(std::unique_ptr<Kernel> kernel, tileops_kernel* out) {
  struct Holder {
    std::unique_ptr<Kernel> kernel;
    std::string config;  // keeps config_json's answer alive until the next call
  };
  out->self = new Holder{std::move(kernel), {}};
  out->launch = [](void* self, const tileops_tensor* const* inputs, size_t n_inputs,
                   const tileops_tensor* const* outputs, size_t n_outputs, void* stream,
                   tileops_error* err) -> tileops_status {
    return guard(err, [&] {
      static_cast<Holder*>(self)->kernel->launch(
          {{inputs, n_inputs}, {outputs, n_outputs}, stream});
    });
  };
  if (static_cast<Holder*>(out->self)->kernel->tunable()) {
    out->request_tune = [](void* self, const tileops_device* device,
                           tileops_error* err) -> tileops_status {
      return guard(err, [&] { static_cast<Holder*>(self)->kernel->request_tune(*device); });
    };
  }
  out->config_json = [](void* self) -> const char* {
    auto* h = static_cast<Holder*>(self);
    try {
      h->config = h->kernel->config_json();
    } catch (...) {
      h->config.clear();
    }
    return h->config.empty() ? nullptr : h->config.c_str();
  };
  out->release = [](void* self) { delete static_cast<Holder*>(self); };
}

// What a builder receives.
struct BuildArgs {
  std::string_view op;
  std::span<const tileops_tensor_spec* const> inputs;  // nullptr: omitted optional input
  ParamList params;
};

using BuildFn = std::unique_ptr<Kernel> (*)(const BuildArgs& args);

// ---- registration ------------------------------------------------------------------

// Wraps the entry's registrar; a refused registration throws, failing the entry (the
// host then rolls the whole plugin back).
class Registrar {
 public:
  Registrar(const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info* info,
            tileops_error* err)
      : host_(host), reg_(reg), info_(info), err_(err) {}

  void info(const char* name, const char* version, const char* build_id) {
    info_->name = name;
    info_->version = version;
    info_->build_id = build_id;
  }
  void detector(const char* target, tileops_detect_fn detect, void* user = nullptr) {
    check(host_->register_detector(reg_, target, detect, user, err_));
  }
  // `build` is a plain function pointer: it travels to the host as the builder's user data.
  void builder(const char* op, const char* target, BuildFn build) {
    check(host_->register_kernel_builder(reg_, op, target, &call_builder,
                                         reinterpret_cast<void*>(build), err_));
  }
  void device_runtime(const char* device_type, const tileops_device_runtime& runtime) {
    check(host_->register_device_runtime(reg_, device_type, &runtime, err_));
  }
  void device_facts(const char* device_type, tileops_read_device_facts_fn read, void* user) {
    check(host_->register_device_facts(reg_, device_type, read, user, err_));
  }
  void kernel_type(const tileops_kernel_type& type) {
    check(host_->register_kernel_type(reg_, &type, err_));
  }
  tileops_error* error_sink() const { return err_; }

 private:
  // The host already wrote the refusal into err_; this only unwinds the entry.
  struct Refused {
    tileops_status status;
  };
  void check(tileops_status s) {
    if (s != TILEOPS_OK) throw Refused{s};
  }
  static tileops_status call_builder(void* user, const char* op,
                                     const tileops_tensor_spec* const* inputs, size_t n_inputs,
                                     const tileops_param* params, size_t n_params,
                                     tileops_kernel* out, tileops_error* err) {
    return guard(err, [&] {
      auto build = reinterpret_cast<BuildFn>(user);
      auto kernel = build({op, {inputs, n_inputs}, ParamList(params, n_params)});
      if (!kernel) fail(TILEOPS_ERR_INTERNAL, std::string("the builder for ") + op + " returned no kernel");
      export_kernel(std::move(kernel), out);
    });
  }
  friend tileops_status run_entry(const tileops_host_api*, tileops_registrar*,
                                  tileops_plugin_info*, tileops_error*, void (*)(Registrar&));

  const tileops_host_api* host_;
  tileops_registrar* reg_;
  tileops_plugin_info* info_;
  tileops_error* err_;
};

// The body of tileops_plugin_entry: checks the host's ABI, then runs `body`.
inline tileops_status run_entry(const tileops_host_api* host, tileops_registrar* reg,
                                tileops_plugin_info* info, tileops_error* err,
                                void (*body)(Registrar&)) {
  if (host->abi_major != TILEOPS_ABI_MAJOR) return TILEOPS_ERR_UNSUPPORTED;
  host_slot() = host;
  Registrar registrar(host, reg, info, err);
  try {
    body(registrar);
    return TILEOPS_OK;
  } catch (const Registrar::Refused& refused) {
    return refused.status;
  } catch (...) {
    return guard(err, [] { throw; });  // maps the exception in flight
  }
}

}  // namespace tileops::sdk

// Defines the two exported symbols; the block that follows is the registration body.
#define TILEOPS_PLUGIN(registrar_name)                                                    \
  static void tileops_plugin_body(::tileops::sdk::Registrar& registrar_name);             \
  extern "C" TILEOPS_PLUGIN_EXPORT uint32_t tileops_plugin_abi_version(void) {            \
    return TILEOPS_ABI_VERSION;                                                           \
  }                                                                                       \
  extern "C" TILEOPS_PLUGIN_EXPORT tileops_status tileops_plugin_entry(                   \
      const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info* info,    \
      tileops_error* err) {                                                               \
    return ::tileops::sdk::run_entry(host, reg, info, err, &tileops_plugin_body);         \
  }                                                                                       \
  static void tileops_plugin_body(::tileops::sdk::Registrar& registrar_name)
