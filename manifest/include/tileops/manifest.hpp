#pragma once
// The manifest library: specs, bound signatures and call checks, workloads, validator.
#include <tileops/manifest/bound_signature.hpp>
#include <tileops/manifest/json.hpp>
#include <tileops/manifest/manifest.hpp>
#include <tileops/manifest/op_spec.hpp>
#include <tileops/manifest/validate.hpp>
#include <tileops/manifest/workload.hpp>
