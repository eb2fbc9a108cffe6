#include "fix/edits.h"

#include <algorithm>
#include <stdexcept>

namespace stoker::fix {

bool fix_is_applicable(const Fix& fix, bool unsafe) {
  if (fix.edits.empty()) return false;
  switch (fix.applicability) {
    case Applicability::Safe: return true;
    case Applicability::Unsafe: return unsafe;
    case Applicability::DisplayOnly: return false;
  }
  return false;
}

bool edits_conflict(const Edit& a, const Edit& b) {
  if (a.range.start == b.range.start) return true;
  if (a.range.start < b.range.end && b.range.start < a.range.end) return true;
  auto inserts_inside = [](const Edit& ins, const Edit& other) {
    return ins.range.start == ins.range.end && other.range.start < ins.range.start && ins.range.start < other.range.end;
  };
  return inserts_inside(a, b) || inserts_inside(b, a);
}

std::string apply_edits(std::string_view text, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    return a.range.start != b.range.start ? a.range.start < b.range.start : a.range.end < b.range.end;
  });
  std::string out;
  out.reserve(text.size() + 64);
  uint32_t pos = 0;
  for (size_t i = 0; i < edits.size(); ++i) {
    const Edit& e = edits[i];
    if (e.range.start > e.range.end || e.range.end > text.size())
      throw std::invalid_argument("edit range " + std::to_string(e.range.start) + ".." + std::to_string(e.range.end) +
                                  " is outside the text (" + std::to_string(text.size()) + " bytes)");
    if (i > 0 && edits_conflict(edits[i - 1], e))
      throw std::invalid_argument("overlapping edits at byte " + std::to_string(e.range.start));
    out.append(text.substr(pos, e.range.start - pos));
    out.append(e.replacement);
    pos = e.range.end;
  }
  out.append(text.substr(pos));
  return out;
}

std::string_view dominant_newline(std::string_view text) {
  size_t lf = 0, crlf = 0;
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') (i > 0 && text[i - 1] == '\r') ? ++crlf : ++lf;
  return crlf > lf ? "\r\n" : "\n";
}

std::string with_newlines(std::string_view s, std::string_view newline) {
  if (newline == "\n") return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r')) out.append(newline);
    else out.push_back(s[i]);
  }
  return out;
}

namespace {

bool same_edits(const std::vector<Edit>& a, const std::vector<Edit>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i].range == b[i].range) || a[i].replacement != b[i].replacement) return false;
  return true;
}

// Edits of one fix must be in bounds and must not conflict with each other.
bool fix_is_well_formed(const Fix& fix, size_t text_size) {
  for (size_t i = 0; i < fix.edits.size(); ++i) {
    const auto& e = fix.edits[i];
    if (e.range.start > e.range.end || e.range.end > text_size) return false;
    for (size_t j = 0; j < i; ++j)
      if (edits_conflict(fix.edits[j], e)) return false;
  }
  return true;
}

}  // namespace

MergeResult merge_fixes(std::string_view text, const std::vector<Diagnostic>& diags, bool unsafe,
                        std::string_view newline) {
  MergeResult r;
  std::vector<const Fix*> accepted;
  std::vector<Edit> edits;
  for (const auto& d : diags) {
    if (!d.fix || !fix_is_applicable(*d.fix, unsafe)) continue;
    const Fix& fix = *d.fix;
    if (!fix_is_well_formed(fix, text.size())) {
      r.invalid.push_back(d.code + " (" + fix.title + ")");
      continue;
    }
    bool duplicate = std::any_of(accepted.begin(), accepted.end(), [&](const Fix* f) { return same_edits(f->edits, fix.edits); });
    if (duplicate) {
      r.applied.push_back({d.code, fix.title, fix.applicability});
      continue;
    }
    bool conflict = false;
    for (const auto& e : fix.edits)
      for (const auto& taken : edits)
        if (edits_conflict(e, taken)) conflict = true;
    if (conflict) {
      ++r.deferred;
      continue;
    }
    accepted.push_back(&fix);
    for (const auto& e : fix.edits) edits.push_back({e.range, with_newlines(e.replacement, newline)});
    r.applied.push_back({d.code, fix.title, fix.applicability});
  }
  r.text = edits.empty() ? std::string(text) : apply_edits(text, std::move(edits));
  return r;
}

}  // namespace stoker::fix
