#include "python/checker.h"

#include "python/parser.h"

namespace stoker::python {

AnalysisResult check(const SourceFile& file, const Settings& settings) {
  AnalysisResult result;
  ParsedModule module(file.text);
  auto errors = module.error_ranges();
  if (!errors.empty()) {
    auto p = file.lines.position(file.text, errors.front().start);
    result.notices.push_back({file.path,
                              "syntax error at " + std::to_string(p.row) + ":" + std::to_string(p.column) +
                                  " (" + std::to_string(errors.size()) + " in file); analyzed what parsed",
                              errors.front()});
  }
  return result;
}

}  // namespace stoker::python
