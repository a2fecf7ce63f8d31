#pragma once
// The exceptions of the public C++ API. Plugins never throw across the ABI: their
// status codes are mapped onto these by the host.
#include <stdexcept>
#include <string>

namespace tileops {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // The class name, as printed before the message ("OpNotAvailableError").
  virtual const char* kind() const noexcept { return "Error"; }
};

// An invalid call or construction: a signature, a parameter, a value.
class ValueError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "ValueError"; }
};

// A backend (plugin, target, kernel) failed or refused.
class BackendError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "BackendError"; }
};

class UnknownTargetError : public BackendError {
 public:
  using BackendError::BackendError;
  const char* kind() const noexcept override { return "UnknownTargetError"; }
};

class AmbiguousTargetError : public BackendError {
 public:
  using BackendError::BackendError;
  const char* kind() const noexcept override { return "AmbiguousTargetError"; }
};

class OpNotAvailableError : public BackendError {
 public:
  using BackendError::BackendError;
  const char* kind() const noexcept override { return "OpNotAvailableError"; }
};

}  // namespace tileops
