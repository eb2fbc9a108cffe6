// Target (b): the suppression-comment lexers, Python (`#` comments, strings, f-strings) and
// C/C++ (`//`, `/* */`, string and raw-string literals), on arbitrary bytes; then matching
// against one synthetic diagnostic per line, and `--add-ignore`'s edits, applied.
#include "core/analyzer.h"
#include "core/suppression.h"
#include "fuzz_support.h"

namespace {

void run(const std::string& path, const std::string& text) {
  using namespace stoker;
  SourceFile file(std::string(stoker::fuzz::kFuzzDir) + path, text);
  SuppressionScan scan = scan_suppressions(file);
  (void)scan;
  // One diagnostic per line (at most 64), with codes of both front ends, so that line and
  // file suppressions have something to match and unused ones are reported (ST001).
  AnalysisResult result;
  const char* codes[] = {"DL001", "SY001", "CU003", "TX002"};
  uint32_t rows = std::min<uint32_t>(file.lines.line_count(), 64);
  for (uint32_t row = 1; row <= rows; ++row) {
    Diagnostic d;
    d.code = codes[row % 4];
    d.file = file.path;
    d.range = {file.lines.line_start(row), file.lines.line_end(file.text, row)};
    result.diagnostics.push_back(std::move(d));
  }
  std::vector<Diagnostic> all = result.diagnostics;
  Settings settings;
  settings.report_unused_ignores = true;
  apply_suppressions(file, settings, result);
  std::vector<Edit> edits = add_ignore_edits(file, all);
  std::string edited = apply_edits(file.text, edits);
  // The edited text is scanned again: every added comment must lex.
  SourceFile again(file.path, std::move(edited));
  scan_suppressions(again);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = stoker::fuzz::bytes(data, size);
  if (!stoker::fuzz::consumer_would_analyze(text)) return -1;
  run("input.py", text);
  run("input.cu", text);
  return 0;
}
