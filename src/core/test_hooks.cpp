#include "core/test_hooks.h"

#include <cstdlib>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>

namespace stoker::test_hooks {

void fail_if_requested(std::string_view text) {
  static const std::string spec = [] {
    const char* v = std::getenv("STOKER_TEST_FAIL_ON");
    return std::string(v ? v : "");
  }();
  if (spec.empty()) return;
  size_t colon = spec.find(':');
  if (colon == std::string::npos || colon + 1 == spec.size()) return;
  std::string_view kind = std::string_view(spec).substr(0, colon);
  std::string_view marker = std::string_view(spec).substr(colon + 1);
  if (text.find(marker) == std::string_view::npos) return;
  if (kind == "bad_alloc") throw std::bad_alloc();
  if (kind == "other") throw 42;
  throw std::runtime_error("injected failure (STOKER_TEST_FAIL_ON)");
}

void sync_after_discovery() {
  const char* fifo = std::getenv("STOKER_TEST_SYNC_AFTER_DISCOVERY");
  if (!fifo || !*fifo) return;
  { std::ofstream(fifo) << "discovered\n"; }
  std::ifstream in(fifo);
  std::string line;
  std::getline(in, line);
}

}  // namespace stoker::test_hooks
