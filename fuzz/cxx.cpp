// Target (e): the C++/CUDA front end (clang in process, shim headers, the CU/DL checks, C++
// suppressions) through analyze(), on small inputs: run it with -max_len=4096, clang is slow.
// The file is CUDA when its text looks like CUDA, C++ otherwise, so both language modes run.
#include "core/analyzer.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stoker;
  if (size > 16384) return -1;  // beyond what this target is for; the seed files are smaller
  std::string text = fuzz::bytes(data, size);
  if (!fuzz::consumer_would_analyze(text)) return -1;
  bool cuda = text.find("__global__") != std::string::npos || text.find("<<<") != std::string::npos ||
              text.find("cuda") != std::string::npos;
  SourceFile file(std::string(fuzz::kFuzzDir) + (cuda ? "input.cu" : "input.cpp"), std::move(text));
  Settings settings;
  settings.report_unused_ignores = true;
  analyze(file, settings);
  return 0;
}
