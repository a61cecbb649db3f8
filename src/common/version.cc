#include "common/version.h"

namespace sluice {

const char* SluiceVersion() { return SLUICE_VERSION; }

}  // namespace sluice
