#pragma once
// One op's spec as loaded: metadata in manifest order, and the compiled signature
// behind bind(). Owned by a Manifest; never copied.
#include <tileops/dtype.hpp>
#include <tileops/params.hpp>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tileops::manifest {

class BoundSignature;
struct WorkloadCase;
namespace detail {
struct CompiledSpec;
}

enum class ParamKind : uint8_t { Int, Float, Bool, Str, Enum, IntList, FloatList, DType };

struct ParamSpec {
  std::string name;
  std::string type_text;  // as written: "float | None"
  ParamKind kind = ParamKind::Int;
  bool nullable = false;                    // `X | None`
  std::vector<std::string> enum_values;     // ParamKind::Enum
  std::vector<DType> dtype_values;          // ParamKind::DType; empty: any dtype
  std::optional<ParamValue> default_value;  // nullopt: required; monostate: a null default
  bool kw_only = false;
  int line = 0;

  bool required() const { return !default_value.has_value(); }
};

// A boolean tensor property: a constant, or an expression over params that bind()
// settles.
struct TensorFlag {
  bool value = false;
  std::string expr;  // non-empty: decided per params
  bool is_expr() const { return !expr.empty(); }
};

struct ValuesSpec {  // the range workload inputs are drawn from: [low, high)
  std::string low;
  std::string high;
};

struct TensorSpec {
  std::string name;
  std::string dtype_text;
  std::string shape_text;
  TensorFlag optional;
  TensorFlag mutated;
  TensorFlag write_only;
  TensorFlag contiguous;
  bool host = false;        // `device: cpu`: host-side metadata, not on the call device
  bool buffer_out = false;  // outputs: the caller may pass the buffer
  int alias = -1;           // outputs: the input index this output returns, or -1
  std::optional<ValuesSpec> values;
  int line = 0;
};

enum class IndexKind : uint8_t { Dim, Shape, DType };

struct IndexSpec {
  std::string name;
  IndexKind kind = IndexKind::Dim;
  std::vector<DType> dtypes;  // IndexKind::DType: the allowed dtypes (empty: any)
};

struct CompositionStep {
  std::string op;
  std::vector<std::pair<std::string, std::string>> params;  // name -> expression text
  std::vector<std::string> inputs;                          // "" for an omitted optional input
  std::vector<std::string> outputs;
  int line = 0;
};

struct RooflineSpec {
  std::string flops;  // expression; empty when not given
  std::string bytes;  // expression; empty: derived from the signature
  std::string bytes_note;
  std::string roof_key = "cuda_core";
};

class OpSpec {
 public:
  explicit OpSpec(std::unique_ptr<detail::CompiledSpec> compiled);
  OpSpec(OpSpec&&) noexcept;
  OpSpec& operator=(OpSpec&&) noexcept;
  ~OpSpec();

  const std::string& name() const;
  const std::string& family() const;
  bool implemented() const;
  const std::string& ref_api() const;
  const std::string& doc() const;
  const std::string& file() const;
  int line() const;

  std::span<const IndexSpec> indices() const;
  std::span<const ParamSpec> params() const;
  std::span<const TensorSpec> inputs() const;
  std::span<const TensorSpec> outputs() const;
  std::span<const std::string> shape_rules() const;
  std::span<const std::pair<std::string, std::string>> lets() const;  // name, expression

  bool is_composite() const;
  std::span<const CompositionStep> composition() const;
  const RooflineSpec& roofline() const;
  std::string_view roof_key() const;

  // Positions in manifest order, for callers that want to look up once and index later.
  std::optional<size_t> param_index(std::string_view name) const;
  std::optional<size_t> input_index(std::string_view name) const;
  std::optional<size_t> output_index(std::string_view name) const;
  std::optional<size_t> index_slot(std::string_view name) const;

  // Checks user params (types, enum values, required ones, unknown names with a
  // nearest-name hint), fills defaults and evaluates the rules that read only params.
  // Throws ValueError naming the op, the param and the value received.
  std::shared_ptr<const BoundSignature> bind(const Params& params) const;

  // Every workload row expanded over its dtype cases; throws ValueError naming the
  // row when one does not instantiate.
  std::vector<WorkloadCase> workload_cases() const;

  const detail::CompiledSpec& compiled() const { return *compiled_; }

 private:
  std::unique_ptr<detail::CompiledSpec> compiled_;
};

}  // namespace tileops::manifest
