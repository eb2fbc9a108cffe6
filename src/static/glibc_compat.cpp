// Linked into stoker-static only (cmake/static_link.cmake). The static libstdc++ of GCC 12 calls
// glibc's arc4random (for std::random_device), which only glibc 2.36 has: that one symbol would
// raise the oldest glibc the binary runs on from 2.35 to 2.36 (Ubuntu 22.04 has 2.35). A
// definition here is what the link resolves the call to; it draws from getrandom (glibc 2.25),
// which is where glibc's own arc4random gets its bytes.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>

extern "C" std::uint32_t arc4random(void) {
  std::uint32_t v = 0;
  for (;;) {
    ssize_t n = getrandom(&v, sizeof v, 0);
    if (n == static_cast<ssize_t>(sizeof v)) return v;
    if (n < 0 && errno != EINTR) return v ^ 0x9e3779b9u;  // no entropy source at all: not reached on Linux >= 3.17
  }
}
