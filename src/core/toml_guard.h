#pragma once
// toml++ 3.3 (Debian 12) guards its parser's expectations with __builtin_assume() in release
// builds, and some malformed documents break them (`[` then a line break then `[`: the key parser
// is entered on the line break), which is undefined behaviour. toml_impl.cpp, the one file that
// compiles toml++'s implementation, turns those checks into this exception instead; config.cpp
// reports it as invalid TOML.
#include <stdexcept>

namespace stoker {

struct TomlCheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void toml_check_failed(const char* expression);

}  // namespace stoker
