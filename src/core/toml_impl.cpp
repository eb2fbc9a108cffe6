// toml++'s implementation, compiled once here (every other file includes it with
// TOML_HEADER_ONLY=0, CMakeLists.txt), so that no build links Debian's libtomlplusplus.so and the
// self-contained stoker-static needs no static archive of it.
//
// With its checks on: without NDEBUG toml++ asserts its parser's expectations (TOML_ASSERT)
// instead of assuming them, and the assertion throws (core/toml_guard.h) rather than aborting.
#undef NDEBUG
#include "core/toml_guard.h"

#define TOML_ASSERT(expr) ((expr) ? static_cast<void>(0) : ::stoker::toml_check_failed(#expr))
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>

namespace stoker {

void toml_check_failed(const char* expression) {
  throw TomlCheckFailed(std::string("the parser met input it does not expect (") + expression + ")");
}

}  // namespace stoker
