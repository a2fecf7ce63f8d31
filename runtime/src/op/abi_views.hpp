#pragma once
// ABI views of host objects, built on the caller's stack for one call: they point
// into the tensors and descriptions they were made from.
#include <tileops/abi.h>
#include <tileops/params.hpp>
#include <tileops/tensor.hpp>

#include <string>
#include <vector>

namespace tileops::detail {

inline tileops_tensor_spec spec_view(const TensorDesc& d) {
  return {sizeof(tileops_tensor_spec), d.device.to_c(), d.dtype.to_c(),
          int32_t(d.shape.size()), d.shape.data()};
}

inline tileops_tensor tensor_view(const Tensor& t) {
  return {sizeof(tileops_tensor), spec_view(t.desc()), t.data(), t.strides().data()};
}

// Params under their manifest names. Points into `names` and `values`, which must
// outlive the result.
std::vector<tileops_param> param_views(const std::vector<std::string>& names,
                                       const std::vector<ParamValue>& values);

}  // namespace tileops::detail
