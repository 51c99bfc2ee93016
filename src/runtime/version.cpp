#include "cdna4/runtime.hpp"

namespace cdna4 {

const char* version() { return CDNA4_VERSION; }

}  // namespace cdna4
