// toml++'s implementation, compiled once here (every other file includes it with
// TOML_HEADER_ONLY=0, CMakeLists.txt), so that no build links Debian's libtomlplusplus.so and the
// self-contained stoker-static needs no static archive of it.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
