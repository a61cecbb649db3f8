#include "common/status.h"

namespace sluice {

std::string Status::ToString() const {
  if (ok()) return "OK";
  return message_;
}

}  // namespace sluice
