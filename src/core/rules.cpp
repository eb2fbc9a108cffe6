#include "core/rules.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace stoker {

extern const char* const kRuleDocuments[];
extern const unsigned kRuleDocumentCount;

#ifndef STOKER_DOCS_URL
#define STOKER_DOCS_URL "https://github.com/stoker-dev/stoker/blob/main/rules/"
#endif

std::string RuleInfo::url() const { return std::string(STOKER_DOCS_URL) + code + ".md"; }

static std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::string RuleInfo::section(std::string_view heading) const {
  std::string marker = "## " + std::string(heading) + "\n";
  size_t at = document.find(marker);
  if (at == std::string::npos) return {};
  size_t start = at + marker.size();
  size_t end = document.find("\n## ", start);
  return trim(std::string_view(document).substr(start, end == std::string::npos ? std::string::npos : end - start));
}

static std::vector<std::pair<std::string, std::string>> code_blocks(std::string_view section) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = 0;
  while ((pos = section.find("```", pos)) != std::string_view::npos) {
    size_t lang_end = section.find('\n', pos);
    if (lang_end == std::string_view::npos) break;
    std::string lang = trim(section.substr(pos + 3, lang_end - pos - 3));
    size_t close = section.find("\n```", lang_end);
    if (close == std::string_view::npos) break;
    out.emplace_back(lang, std::string(section.substr(lang_end + 1, close - lang_end)));
    pos = close + 4;
  }
  return out;
}

static std::vector<std::string> parse_list(std::string_view v) {
  std::string s = trim(v);
  if (!s.empty() && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto t = trim(item);
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

RuleInfo RuleRegistry::parse_document(std::string_view text) {
  if (text.substr(0, 4) != "---\n") throw std::runtime_error("rule document without front matter");
  size_t end = text.find("\n---\n", 4);
  if (end == std::string_view::npos) throw std::runtime_error("unterminated front matter");
  RuleInfo info;
  std::stringstream fm{std::string(text.substr(4, end - 4))};
  std::string line;
  while (std::getline(fm, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "code") info.code = value;
    else if (key == "name") info.name = value;
    else if (key == "family") info.family = value;
    else if (key == "summary") info.summary = value;
    else if (key == "severity") {
      auto s = severity_from_string(value);
      if (!s) throw std::runtime_error("bad severity: " + value);
      info.severity = *s;
    } else if (key == "languages") info.languages = parse_list(value);
    else if (key == "fix") info.fix = value;
    else if (key == "impact") info.impact_model = value;
    else if (key == "redirected-from") info.redirected_from = parse_list(value);
  }
  if (info.code.empty() || info.name.empty()) throw std::runtime_error("rule document without code or name");
  info.document = std::string(text.substr(end + 5));
  info.examples = code_blocks(info.section("Example"));
  info.use_instead = code_blocks(info.section("Use instead"));
  return info;
}

RuleRegistry::RuleRegistry(std::vector<RuleInfo> rules) : rules_(std::move(rules)) {
  std::sort(rules_.begin(), rules_.end(), [](const RuleInfo& a, const RuleInfo& b) { return a.code < b.code; });
}

const RuleRegistry& RuleRegistry::builtin() {
  static const RuleRegistry registry = [] {
    std::vector<RuleInfo> rules;
    for (unsigned i = 0; i < kRuleDocumentCount; ++i) rules.push_back(parse_document(kRuleDocuments[i]));
    return RuleRegistry(std::move(rules));
  }();
  return registry;
}

const RuleInfo* RuleRegistry::find(std::string_view code) const {
  for (const auto& r : rules_)
    if (r.code == code) return &r;
  return nullptr;
}

bool RuleRegistry::is_valid_selector(std::string_view sel) const {
  if (sel == "ALL") return true;
  auto prefix_of = [&](std::string_view code) { return code.substr(0, sel.size()) == sel; };
  for (const auto& r : rules_) {
    if (prefix_of(r.code)) return true;
    for (const auto& old : r.redirected_from)
      if (prefix_of(old)) return true;
  }
  return false;
}

const RuleInfo* RuleRegistry::redirect_target(std::string_view code) const {
  for (const auto& r : rules_)
    for (const auto& old : r.redirected_from)
      if (old == code) return &r;
  return nullptr;
}

size_t selector_rank(std::string_view sel, std::string_view code) {
  if (sel.empty()) return 0;
  if (sel == "ALL") return 2;
  if (code.substr(0, sel.size()) == sel) return 2 * (sel.size() + 1);
  size_t best = 0;
  if (const RuleInfo* r = RuleRegistry::builtin().find(code))
    for (const auto& old : r->redirected_from)
      if (std::string_view(old).substr(0, sel.size()) == sel) best = 2 * (sel.size() + 1) - 1;
  return best;
}

bool selector_covers(std::string_view selector, std::string_view code) {
  return selector != "ALL" && selector_rank(selector, code) > 0;
}

static size_t match_len(const std::vector<std::string>& sels, std::string_view code) {
  size_t best = 0;
  for (const auto& s : sels) best = std::max(best, selector_rank(s, code));
  return best;
}

bool RuleSelection::enabled(std::string_view code) const {
  size_t sel = std::max(match_len(select, code), match_len(extend_select, code));
  size_t ign = match_len(ignore, code);
  return sel > 0 && sel > ign;
}

}  // namespace stoker
