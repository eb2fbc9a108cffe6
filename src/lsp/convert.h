// Diagnostics in LSP terms: UTF-16 positions in the editor's text, severities, rule links, and
// the fix edits carried in `data` so that a code action never has to analyze again.
#pragma once

#include <string>

#include "core/diagnostic.h"
#include "core/rules.h"
#include "core/source.h"
#include "lsp/protocol.h"

namespace stoker::lsp {

// Maps byte offsets of an analyzed SourceFile to LSP positions in the text the editor holds
// (which still has the BOM that SourceFile strips: one UTF-16 unit on the first line).
class PositionMapper {
 public:
  explicit PositionMapper(const SourceFile& file) : file_(file) {}
  json position(uint32_t offset) const;
  json range(TextRange r) const;
  // An editor position as a byte offset into the analyzed text.
  uint32_t offset(uint32_t line, uint32_t character) const;

 private:
  const SourceFile& file_;
};

json to_lsp_diagnostic(const Diagnostic& d, const PositionMapper& map, const std::string& uri,
                       const RuleRegistry& rules);

// The `data` payload: {"fix": {"title", "applicability", "edits": [{"range", "newText"}]}}.
json fix_data(const Fix& fix, const PositionMapper& map);

int lsp_severity(Severity s);

}  // namespace stoker::lsp
