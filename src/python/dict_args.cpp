// Dicts of settings handed across modules (rec25ab, set AB DDPM): a dict display, `dict(k=v)`,
// or a name bound to one (`modelConfig = {"device": "cuda:0", "batch_size": 80, ...};
// train(modelConfig)` in Main.py) handed to a function of another module, which reads
// `torch.device(modelConfig["device"])`. The call site's literal keys travel with their values
// (ArgFacts::dict_values, read with fact::kDictArg), and `d["key"]` of the parameter reads them.
#include "python/model_internal.h"
#include "python/project_fields.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace stoker::python {

using namespace model_detail;

namespace {

void add_value(std::vector<Value>& out, const Value& v) {
  ScalarFact f = to_scalar_fact(v);
  for (const auto& o : out)
    if (to_scalar_fact(o) == f) return;
  out.push_back(v);
}

bool known(const Value& v) { return v.kind != Value::Kind::Unknown && v.kind != Value::Kind::Expr; }

}  // namespace

std::vector<Value> model_detail::keyed_values(
    const std::vector<std::pair<std::string, std::vector<ScalarFact>>>& entries, std::string_view key) {
  auto at = std::lower_bound(entries.begin(), entries.end(), key,
                             [](const auto& entry, std::string_view k) { return entry.first < k; });
  return at != entries.end() && at->first == key ? to_values(at->second) : std::vector<Value>{Value::unknown()};
}

bool SemanticModel::dict_facts(Node a, std::vector<std::pair<std::string, std::vector<ScalarFact>>>& out) const {
  out.clear();
  Node u = unparen(a);
  if (!is(u, "identifier") && !is(u, "dictionary") && !is(u, "call")) return false;
  // Every candidate a dict display or `dict(k=v)`; a None (`model_config=None` rebinding the
  // name only when a caller passes one) is never subscripted.
  bool any = false;
  for (const auto& v : values(u)) {
    if (v.kind == Value::Kind::None) continue;
    if (v.kind != Value::Kind::Expr) return false;
    Node e = unparen(v.expr);
    bool display = is(e, "dictionary") || (is(e, "call") && qualified_name(field(e, "function")) == "builtins.dict");
    if (!display) return false;
    any = true;
  }
  if (!any) return false;
  // The entries as `**` would expand the dict at the call: the displays, the updates and the
  // literal-key stores before it; one under a key that is not known makes every key unknown.
  Kwargs entries = dict_entries(u);
  if (!entries.complete) return false;
  std::map<std::string, std::vector<Value>> by_key;
  std::set<std::string> unknown_keys;
  for (const auto& [key, item] : entries.items) {
    if (unknown_keys.count(key)) continue;
    auto& slot = by_key[key];
    for (const auto& v : values(item)) {
      if (!known(v)) {
        unknown_keys.insert(key);
        by_key.erase(key);
        break;
      }
      add_value(slot, v);
    }
  }
  for (auto& [key, vs] : by_key) {
    if (vs.empty() || vs.size() > kMaxCandidates) continue;
    std::vector<ScalarFact> facts;
    for (const auto& v : vs) facts.push_back(to_scalar_fact(v));
    out.push_back({key, std::move(facts)});
    if (out.size() >= kMaxDictKeys) break;
  }
  return true;
}

const ArgFacts* SemanticModel::param_dict_arg(Node subscript, std::string* key, int* function) const {
  if (!facts_) return nullptr;
  Node obj = unparen(field(subscript, "value"));
  std::string literal;
  if (!is(obj, "identifier") || !string_literal_value(unparen(field(subscript, "subscript")), src_, literal))
    return nullptr;
  auto bindings = lookup(text(obj), start(obj));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->function < 0)
    return nullptr;
  int f = bindings[0]->function, pi = bindings[0]->param_index;
  const Param& p = functions_[f].params[pi];
  // Only other modules' call sites: those of this module hand values the model reads itself.
  if (p.is_variadic || !init_sites(f).empty()) return nullptr;
  const ArgFacts* a = ext_param(f, pi, fact::kDictArg);
  if (!a || !a->passed || a->dict != 1) return nullptr;
  if (a->defaulted) {
    // A site leaving it to its default: a None (subscripting it raises), or nothing is known.
    if (is_null(p.default_value)) return nullptr;
    for (const auto& v : values(p.default_value))
      if (v.kind != Value::Kind::None) return nullptr;
  }
  if (key) *key = std::move(literal);
  if (function) *function = f;
  return a;
}

std::optional<std::vector<Value>> SemanticModel::param_dict_item(Node subscript) const {
  std::string key;
  int f = -1;
  const ArgFacts* a = param_dict_arg(subscript, &key, &f);
  if (!a) return std::nullopt;
  Node obj = unparen(field(subscript, "value"));
  std::vector<Value> out;
  for (const auto& v : keyed_values(a->dict_values, key)) add_value(out, v);
  // A store of the function into the dict under that key (before or after the read: not
  // told apart), under a key that is not a literal, or an update, may replace the value.
  for (Node st : subscript_assignments_) {
    Node l = unparen(field(st, "left"));
    if (!is(unparen(field(l, "value")), "identifier") || text(unparen(field(l, "value"))) != text(obj) ||
        function_at(start(st)) != f)
      continue;
    std::string stored;
    if (!string_literal_value(unparen(field(l, "subscript")), src_, stored) || stored == key)
      return std::vector<Value>{Value::unknown()};
  }
  for (Node u : update_calls_) {
    Node o = unparen(field(field(u, "function"), "object"));
    if (is(o, "identifier") && text(o) == text(obj) && function_at(start(u)) == f)
      return std::vector<Value>{Value::unknown()};
  }
  if (out.size() > kMaxCandidates) return std::vector<Value>{Value::unknown()};
  return out;
}

std::optional<std::vector<Value>> SemanticModel::forwarded_values(Node splat, std::string_view key) const {
  if (!facts_ || !is(splat, "dictionary_splat")) return std::nullopt;
  Node d = unparen(named_child(splat, 0));
  if (!is(d, "identifier")) return std::nullopt;
  auto bindings = lookup(text(d), start(d));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->function < 0)
    return std::nullopt;
  int f = bindings[0]->function, pi = bindings[0]->param_index;
  const Function& fn = functions_[f];
  if (pi < 0 || static_cast<size_t>(pi) >= fn.params.size() || !fn.params[pi].double_star || !callers(f).empty())
    return std::nullopt;
  // Every other mention of the parameter in the function (a store, `kwargs.pop(...)`,
  // `kwargs.setdefault(...)`, a read) may change or judge what the splats pass: nothing known.
  std::string_view name = text(d);
  bool only_splats = for_each_identifier(field(fn.node, "body"), /*skip_scopes=*/false, [&](Node n) {
    return text(n) != name || is(parent(n), "dictionary_splat");
  }, 65536);
  if (!only_splats) return std::nullopt;
  const ArgFacts* a = ext_param(f, pi, fact::kDictArg);
  if (!a || !a->passed || a->dict != 1) return std::nullopt;
  std::vector<Value> out;
  for (const auto& v : keyed_values(a->dict_values, key)) add_value(out, v);
  return out;
}

std::optional<std::vector<long long>> SemanticModel::forwarded_counts(Node splat, std::string_view key) const {
  auto vs = forwarded_values(splat, key);
  if (!vs || vs->empty()) return std::nullopt;
  std::vector<long long> out;
  for (const Value& v : *vs) {
    if (v.kind != Value::Kind::Int || v.i < 1) return std::nullopt;
    out.push_back(v.i);
  }
  return out;
}

}  // namespace stoker::python
