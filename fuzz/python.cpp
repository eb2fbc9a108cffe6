// Target (a): the Python front end on arbitrary bytes, through analyze(), the entry point that
// `stoker check` and the language server call (parse, semantic model, rules, suppressions).
#include "core/analyzer.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stoker;
  std::string text = fuzz::bytes(data, size);
  if (!fuzz::consumer_would_analyze(text)) return -1;  // not kept in the corpus
  SourceFile file(std::string(fuzz::kFuzzDir) + "input.py", std::move(text));
  Settings settings;
  settings.report_unused_ignores = true;  // ST001: the suppression bookkeeping runs too
  analyze(file, settings);
  return 0;
}
