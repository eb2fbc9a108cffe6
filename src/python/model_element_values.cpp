// Element values: what iterating a container of constants gives (a dispatch loop's variable:
// displays, dataclass field defaults, parameters' call sites and defaults). Split from
// model_values.cpp at 1,829 lines in session 31.
#include "python/call_positions.h"
#include "python/model_internal.h"
#include "python/types.h"
#include "python/types_detail.h"

#include <algorithm>

namespace stoker::python {

using namespace model_detail;

std::vector<Value> SemanticModel::element_values(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return {Value::unknown()};
  auto cached = elem_values_cache_.find(expr.id);
  if (cached != elem_values_cache_.end())
    return cached->second.done ? cached->second.values : std::vector<Value>{Value::unknown()};
  Step step(*this);
  if (!step) return {Value::unknown()};  // too deep: unknown, not remembered
  elem_values_cache_[expr.id];           // in progress
  std::vector<Value> out;
  add_values(out, element_values_uncached(expr));  // empty: no element on any path (`[]`)
  ValuesEntry& e = elem_values_cache_[expr.id];
  e.done = true;
  e.values = out;
  return out;
}

namespace {
// `field(default_factory=lambda: [])`, `field(default_factory=list)`, `field(default=())`: the
// expression whose elements a dataclass field's default holds; null when not known.
Node field_default_elements(const SemanticModel& m, Node d, bool& empty_factory) {
  empty_factory = false;
  d = unparen(d);
  if (!is(d, "call")) return d;
  const std::string& q = m.callee_name(d);
  if (q != "dataclasses.field") return Node{};
  Node factory = m.argument(d, -1, "default_factory");
  if (!is_null(factory)) {
    factory = unparen(factory);
    if (is(factory, "lambda")) return unparen(field(factory, "body"));
    if (is(factory, "identifier") && m.lookup(m.text(factory), start(factory)).empty()) {
      std::string_view f = m.text(factory);
      empty_factory = f == "list" || f == "tuple" || f == "dict" || f == "set";
    }
    return Node{};
  }
  return m.argument(d, -1, "default");
}
}  // namespace

// O(elements + bindings + call sites) per node, each node once (memoized).
std::vector<Value> SemanticModel::element_values_uncached(Node expr) const {
  const std::vector<Value> unknown{Value::unknown()};
  // `args.callbacks` of an instance of a dataclass of this file (by its abstract type), a field of
  // callables: the elements of what its constructions here pass for the field, and of the field's
  // default (a construction elsewhere, or a parameter typed so, may leave it). Known only in
  // project mode when no other module's text names the field (no keyword passes it, nothing
  // stores it there) and this module stores nothing into the field of such an instance
  // (`a.callbacks = ...`, `a.callbacks.append(...)`, `setattr(a, "callbacks", ...)`; a store
  // into `self.callbacks` of another class is another attribute). Huggingsound's
  // `training_step_callbacks: list[Callable] = field(default_factory=lambda: [])`: empty.
  // O(file text) per field name, once per query node (element_values memoizes).
  // Does this module store into attribute `attr` of an instance of class `klass` other than by
  // `decl` (a dataclass field's declaration; without one, an assignment in an initializer of
  // `klass`, `self.attr = ...` in `__init__`)? A mention of the word that is an assignment or
  // augmented-assignment target, the object of an attribute (`.append(...)`) or a subscript, an
  // unpacking target, a string (`setattr(a, "attr", ...)`), or a node not resolved, is one,
  // unless its object is `self` of another class. O(file text), memoized per (class, name).
  auto attribute_mutated = [&](std::string_view attr, int klass, Node decl) -> bool {
    return memo("attr-mutated:" + std::to_string(klass) + "." + std::string(attr), [&] {
      auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      for (size_t at = src_.find(attr); at != std::string_view::npos; at = src_.find(attr, at + 1)) {
        size_t e = at + attr.size();
        if ((at > 0 && ident(src_[at - 1])) || (e < src_.size() && ident(src_[e]))) continue;
        if (inert_text_at(static_cast<uint32_t>(at))) continue;
        Node n = ts_node_named_descendant_for_byte_range(root_, static_cast<uint32_t>(at), static_cast<uint32_t>(e));
        if (is_null(n) || start(n) != at || end(n) != e) return 1;
        Node p = parent(n);
        if (is(p, "keyword_argument") && same(field(p, "name"), n)) continue;
        if (is(p, "assignment") && same(field(p, "left"), n) && !is_null(decl) && same(field(p, "right"), decl)) continue;
        if (!is(p, "attribute") || !same(field(p, "attribute"), n)) {
          if (is(n, "string") || is(n, "string_content")) return 1;
          continue;  // a local name of that spelling
        }
        int other = class_of_self(p);
        if (other >= 0 && other != klass) continue;
        Node up = parent(p);
        if ((is(up, "assignment") || is(up, "augmented_assignment")) && same(field(up, "left"), p)) {
          int f = function_at(start(p));
          if (is_null(decl) && is(up, "assignment") && other == klass && f >= 0 && functions_[f].initializer()) continue;
          return 1;
        }
        if (is(up, "attribute") || is(up, "subscript")) return 1;
        if (is(up, "pattern_list") || is(up, "tuple_pattern") || is(up, "list_pattern")) return 1;
      }
      return 0;
    }) != 0;
  };
  auto record_field_elements = [&](Node expr) -> std::vector<Value> {
    if (!types_ || !facts_) return unknown;
    Node obj = unparen(field(expr, "object"));
    AbstractType ot = types_->type_of(obj);
    if (ot.kind != AbstractType::Kind::Object || ot.klass < 0) return unknown;
    std::string_view attr = text(field(expr, "attribute"));
    auto fields = type_detail::record_fields(*this, ot.klass);
    int index = -1;
    for (size_t i = 0; i < fields.size(); ++i)
      if (fields[i].first == attr) index = static_cast<int>(i);
    if (index < 0 || is_null(fields[index].second) || facts_->word_mentioned(attr)) return unknown;
    // Only a field of callables (`list[Callable]`): a parser filling a dataclass's fields from the
    // command line or a config file (HfArgumentParser, OmegaConf.structured), which names no
    // field, parses strings and numbers, never functions.
    Node decl_stmt = parent(fields[index].second);
    if (!is(decl_stmt, "assignment") || text(field(decl_stmt, "type")).find("Callable") == std::string_view::npos)
      return unknown;
    // Every mention of the word here: the declaration, a keyword argument, or a read of the
    // attribute that stores nothing into it (not an assignment or augmented-assignment target,
    // not the object of a method call or subscript store), unless the object is `self` of
    // another class (`self.callbacks = callbacks` of the trainer the field is handed to).
    if (attribute_mutated(attr, ot.klass, fields[index].second)) return unknown;
    std::vector<Value> out;
    for (int ci : constructor_calls(ot.klass)) {
      Node call = calls_[ci].call;
      Node a = argument(call, index, attr);
      if (is_null(a)) {
        if (has_splat_argument(call)) return unknown;
        continue;
      }
      add_values(out, element_values(a));
    }
    bool empty_factory = false;
    Node d = field_default_elements(*this, fields[index].second, empty_factory);
    // A fresh empty list per instance that nothing fills: no element.
    if (empty_factory || ((is(d, "list") || is(d, "tuple") || is(d, "dictionary")) && named_count(d) == 0)) return out;
    if (is_null(d)) return unknown;
    add_values(out, element_values(d));
    return out;
  };
  auto k = kind(expr);
  if (k == "tuple" || k == "list" || k == "set") {
    std::vector<Value> out;
    for (Node e : named_children(expr)) {
      if (is(e, "comment")) continue;
      if (is(e, "list_splat")) return unknown;
      add_values(out, values(e));
    }
    // An empty display: unknown, as a list may be filled later (`missing = []` handed to a
    // function that appends); only a field default that nothing fills is known empty.
    if (out.empty()) return unknown;
    return out;
  }
  if (k == "call") {
    const std::string& q = callee_name(expr);
    if (q != "builtins.tuple" && q != "builtins.list" && q != "builtins.sorted" && q != "builtins.set" &&
        q != "builtins.frozenset" && q != "builtins.reversed")
      return unknown;
    Node arguments = field(expr, "arguments");
    if (is(arguments, "generator_expression")) return element_values(arguments);  // `tuple(k for k in ...)`
    auto args = named_children(arguments);
    if (args.empty()) return unknown;  // `list()`: filled later, perhaps
    if (is(args[0], "list_splat") || is(args[0], "dictionary_splat") || is(args[0], "keyword_argument"))
      return unknown;
    return element_values(args[0]);
  }
  if (k == "generator_expression" || k == "list_comprehension" || k == "set_comprehension") {
    // `k for k in source if cond`: a subset of the source's elements.
    Node body = unparen(field(expr, "body"));
    Node clause{};
    for (Node c : named_children(expr)) {
      if (!is(c, "for_in_clause")) continue;
      if (!is_null(clause)) return unknown;  // nested loops
      clause = c;
    }
    if (is_null(clause) || !is(body, "identifier")) return unknown;
    Node left = unparen(field(clause, "left"));
    if (!is(left, "identifier") || text(left) != text(body)) return unknown;
    return element_values(field(clause, "right"));
  }
  // Iterating None yields nothing (it raises): `def __init__(self, callbacks=None)`.
  if (k == "none") return {};
  if (k == "attribute") {
    // `self.iou_types`, set in `__init__` (or `__post_init__`) only.
    int klass = class_of_self(expr);
    if (klass < 0) return record_field_elements(expr);
    std::string key = classes_[klass].name + "." + std::string(text(field(expr, "attribute")));
    auto stores = self_stores(key);
    if (stores.empty()) return unknown;
    std::vector<Value> out;
    for (int ai : stores) {
      Node v = self_assignments_[ai].second;
      int f = function_at(start(v));
      if (f < 0 || !functions_[f].initializer()) return unknown;
      add_values(out, element_values(v));
    }
    if (self_augmented_.count(key)) return unknown;  // `self.names += [...]` in a method
    // No element (a parameter defaulting to None, a field nothing fills, stored in `__init__`):
    // only while nothing here fills the attribute (`self.names.append(...)`).
    if (out.empty()) {
      std::string_view attr = text(field(expr, "attribute"));
      if (!facts_ || facts_->word_mentioned(attr) || attribute_mutated(attr, klass, Node{})) return unknown;
    }
    return out;
  }
  if (k != "identifier") return unknown;
  auto bindings = lookup(text(expr), start(expr));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return unknown;
  if (!inserts_built_) {  // `name.insert(i, v)` adds what appends_ does not index: one scan
    inserts_built_ = true;
    for (const auto& c : calls_) {
      Node fn = unparen(field(c.call, "function"));
      if (!is(fn, "attribute") || text(field(fn, "attribute")) != "insert") continue;
      Node obj = unparen(field(fn, "object"));
      if (is(obj, "identifier")) inserted_names_.insert({scope_at(start(c.call)), std::string(text(obj))});
    }
  }
  std::vector<Value> out;
  for (const Binding* b : bindings) {
    if (b->is_plain_assign()) {
      add_values(out, element_values(b->value));
      if (!is(unparen(b->value), "list") || !is(b->target, "identifier")) continue;
      // A list display and what the scope appends to the name (`iou_types = ["bbox"]` then
      // `iou_types.append("segm")`): any other way of adding elements is unknown.
      std::pair<int, std::string> key{scope_at(start(b->target)), std::string(text(b->target))};
      if (inserted_names_.count(key) || subscript_stores_.count(key)) return unknown;
      auto found = appends_.find(key);
      if (found == appends_.end()) continue;
      for (Node call : found->second) {
        Node arg = argument(call, 0, "");
        if (is_null(arg)) return unknown;
        bool extend = text(field(unparen(field(call, "function")), "attribute")) == "extend";
        add_values(out, extend ? element_values(arg) : values(arg));
      }
      continue;
    }
    if (b->kind != Binding::Kind::Param) return unknown;
    const Function& fn = functions_[b->function];
    const Param& p = fn.params[b->param_index];
    if (p.is_variadic || b->param_index < bound_params(fn)) return unknown;
    int position = b->param_index - bound_params(fn);
    const std::vector<int> sites = init_sites(b->function);
    bool default_used = sites.empty();
    bool called = !sites.empty();
    if (const ArgFacts* ext = ext_param(b->function, b->param_index, fact::kElemValues)) {  // other modules
      called |= ext->passed || ext->defaulted;
      if (sites.empty()) default_used = false;
      default_used |= ext->defaulted;
      if (ext->passed) {
        if (ext->elem_values.empty()) return unknown;
        add_values(out, to_values(ext->elem_values));
      }
    }
    for (int ci : sites) {
      Node call = calls_[ci].call;
      Node a = argument(call, p.keyword_only ? -1 : position, p.name);
      if (is_null(a)) {
        if (has_splat_argument(call)) return unknown;
        default_used = true;
        continue;
      }
      add_values(out, element_values(a));
    }
    if (default_used) {
      if (is_null(p.default_value)) return unknown;
      // A None default of a function no known call reaches (an entry point, a library's API)
      // tells nothing of what its callers pass: not an empty container.
      if ((!called || !facts_) && is(unparen(p.default_value), "none")) return unknown;
      add_values(out, element_values(p.default_value));
    }
  }
  return out;
}

}  // namespace stoker::python
