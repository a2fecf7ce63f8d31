#include "support/status.hpp"

#include <tileops/errors.hpp>

#include <exception>

namespace tileops::detail {

void throw_status(tileops_status status, const std::string& message) {
  switch (status) {
    case TILEOPS_ERR_INVALID_ARGUMENT: throw ValueError(message);
    case TILEOPS_ERR_UNSUPPORTED: throw OpNotAvailableError(message);
    default: throw BackendError(message);
  }
}

std::string thrown_detail() {
  try {
    throw;
  } catch (const std::exception& e) {
    return std::string(": ") + e.what();
  } catch (...) {
    return {};
  }
}

const char* status_name(tileops_status status) {
  switch (status) {
    case TILEOPS_OK: return "ok";
    case TILEOPS_ERR_INVALID_ARGUMENT: return "invalid argument";
    case TILEOPS_ERR_UNSUPPORTED: return "unsupported";
    case TILEOPS_ERR_INTERNAL: return "internal error";
    case TILEOPS_ERR_OUT_OF_MEMORY: return "out of memory";
    case TILEOPS_ERR_DEVICE: return "device error";
    case TILEOPS_ERR_ALREADY_EXISTS: return "already exists";
    case TILEOPS_ERR_NOT_FOUND: return "not found";
    default: return "unknown status";
  }
}

}  // namespace tileops::detail
