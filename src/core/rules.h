// The rule registry. Each rule's metadata and documentation come from its document in rules/,
// embedded at build time: the document is the single source of a rule's explanation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"

namespace stoker {

struct RuleInfo {
  std::string code;          // DL001
  std::string name;          // synchronous-data-loader
  std::string family;        // DL
  std::string summary;       // one sentence (front matter `summary`)
  Severity severity = Severity::Warning;
  std::vector<std::string> languages;  // python, cpp
  std::string fix;           // never | sometimes | always
  std::string impact_model;  // serial-loader, ...
  std::string document;      // the markdown body (without front matter)
  // Codes redirected to this rule (front matter `redirected-from`, as ruff's rule redirects): the
  // catalog's GU007 is the same pattern as DD001. A redirected code selects, ignores and
  // suppresses this rule; findings carry this rule's code.
  std::vector<std::string> redirected_from;
  std::vector<std::pair<std::string, std::string>> examples;      // (language, code) under "## Example"
  std::vector<std::pair<std::string, std::string>> use_instead;   // under "## Use instead"
  std::string url() const;
  // The text of one "## Heading" section, without the heading.
  std::string section(std::string_view heading) const;
};

class RuleRegistry {
 public:
  // Parses a document (front matter + markdown). Throws std::runtime_error on malformed input.
  static RuleInfo parse_document(std::string_view text);
  static const RuleRegistry& builtin();
  explicit RuleRegistry(std::vector<RuleInfo> rules);
  const RuleInfo* find(std::string_view code) const;
  const std::vector<RuleInfo>& all() const { return rules_; }
  // True when `selector` is a known code or a prefix of one (family "SY", "SY00", "ALL"), a
  // redirected code included.
  bool is_valid_selector(std::string_view selector) const;
  // The rule a redirected code leads to (GU007 -> DD001); null for other codes.
  const RuleInfo* redirect_target(std::string_view code) const;

 private:
  std::vector<RuleInfo> rules_;
};

// How specifically `selector` names `code` (0: not at all): a longer matching prefix ranks
// higher, "ALL" lowest; a match through one of the rule's redirected codes (the builtin
// registry's) ranks just below a match of the same length on the code itself, so that
// `--select DD --ignore GU` keeps DD001 while `--select GU --ignore DD` drops it.
size_t selector_rank(std::string_view selector, std::string_view code);
// True when `selector` names `code` or one of its redirected codes (`# noqa: GU007` on DD001).
bool selector_covers(std::string_view selector, std::string_view code);

// Which rules are enabled: ruff's model (select, then ignore; the longest matching prefix wins).
struct RuleSelection {
  std::vector<std::string> select{"ALL"};
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  bool enabled(std::string_view code) const;
};

}  // namespace stoker
