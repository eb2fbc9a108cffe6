// Target (c): configuration files through the real loader (toml++, then every key's checks),
// as stoker.toml and as pyproject.toml ([tool.stoker]); a configuration that loads is written
// back as `stoker config --show` does.
#include <sstream>

#include "core/config.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stoker;
  std::string text = fuzz::bytes(data, size);
  for (const char* name : {"stoker.toml", "pyproject.toml"}) {
    try {
      std::optional<Settings> s = parse_config_text(std::string(fuzz::kFuzzDir) + name, text, Settings{});
      if (s) {
        std::ostringstream out;
        write_effective_config(out, *s, std::string(fuzz::kFuzzDir) + "train.py");
        for (const auto& [glob, codes] : s->per_file_ignores) glob_match(glob, "src/a/train.py");
        for (const auto& glob : s->exclude) glob_match(glob, "src/a/train.py");
      }
    } catch (const ConfigError& e) {
      (void)e.describe();  // the only exception the loader may throw
    }
  }
  return 0;
}
