#pragma once
// Everything an application needs: tensors, devices, streams, backends, ops.
#include <tileops/backend.hpp>
#include <tileops/device.hpp>
#include <tileops/dtype.hpp>
#include <tileops/errors.hpp>
#include <tileops/log.hpp>
#include <tileops/op.hpp>
#include <tileops/ops/all.hpp>  // typed op classes, generated from the specs
#include <tileops/params.hpp>
#include <tileops/stream.hpp>
#include <tileops/tensor.hpp>
#include <tileops/version.hpp>
