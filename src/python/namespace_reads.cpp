// Whether a module may read its own namespace by a computed name (namespace_reads.h). A byte
// scan of the text, linear in it.
#include "python/namespace_reads.h"

#include <cctype>
#include <string>

namespace stoker::python {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The first byte at or after `p` that is not a blank (newlines and continuations too: the
// arguments of a call may span lines).
size_t skip_blanks(std::string_view t, size_t p) {
  while (p < t.size() && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r' || t[p] == '\\')) ++p;
  return p;
}

// Does the module define a function of that name at its top level (`def eval(model, loader):`
// at the start of a line), so that its calls of the name are not the builtin's?
bool defines_function(std::string_view t, std::string_view name) {
  for (std::string_view def : {"def ", "async def "}) {
    std::string head = std::string(def) + std::string(name);
    for (size_t at = t.find(head); at != std::string_view::npos; at = t.find(head, at + 1)) {
      if (at > 0 && t[at - 1] != '\n') continue;
      size_t p = at + head.size();
      while (p < t.size() && (t[p] == ' ' || t[p] == '\t')) ++p;
      if (p < t.size() && t[p] == '(') return true;
    }
  }
  return false;
}

// Is the first argument of the call whose `(` is at `open` a name or a dotted name (`self`,
// `self.model`, `torch.nn`) followed by a comma?
bool named_first_argument(std::string_view t, size_t open) {
  size_t p = skip_blanks(t, open + 1);
  bool any = false;
  while (p < t.size() && (std::isalpha(static_cast<unsigned char>(t[p])) || t[p] == '_')) {
    while (p < t.size() && word_char(t[p])) ++p;
    any = true;
    p = skip_blanks(t, p);
    if (p >= t.size() || t[p] != '.') break;
    p = skip_blanks(t, p + 1);
  }
  return any && p < t.size() && t[p] == ',';
}

}  // namespace

bool reads_namespace_by_name(std::string_view t, const std::function<bool(size_t)>& code) {
  enum class Tail { Call, EmptyCall, NonNameCall, Any };
  static constexpr struct {
    std::string_view word;
    Tail tail;
    bool attribute;  // also after a dot (`importlib.import_module(`)
  } kReads[] = {{"eval", Tail::Call, false},          {"exec", Tail::Call, false},
                {"globals", Tail::Call, false},       {"locals", Tail::Call, false},
                {"vars", Tail::EmptyCall, false},     {"__import__", Tail::Call, false},
                {"getattr", Tail::NonNameCall, false}, {"import_module", Tail::Call, true},
                {"sys.modules", Tail::Any, false}};
  for (const auto& [word, tail, attribute] : kReads) {
    bool own_function = false, asked = false;
    for (size_t at = t.find(word); at != std::string_view::npos; at = t.find(word, at + 1)) {
      if (at > 0 && (word_char(t[at - 1]) || (t[at - 1] == '.' && !attribute))) continue;  // part of a word, an attribute
      size_t e = at + word.size();
      if (e < t.size() && word_char(t[e])) continue;
      if (code && !code(at)) continue;
      if (tail != Tail::Any) {
        size_t p = e;
        while (p < t.size() && (t[p] == ' ' || t[p] == '\t')) ++p;
        if (p >= t.size() || t[p] != '(') continue;
        if (tail == Tail::EmptyCall) {
          size_t q = skip_blanks(t, p + 1);
          if (q >= t.size() || t[q] != ')') continue;
        }
        if (tail == Tail::NonNameCall && named_first_argument(t, p)) continue;
        if (!asked) {
          own_function = defines_function(t, word);
          asked = true;
        }
        if (own_function) break;
      }
      return true;
    }
  }
  return false;
}

}  // namespace stoker::python
