// The semantic model's side of project mode: naming the project functions a call may invoke,
// reading the facts other modules supply (ExternalFacts), and summarizing this module for them.
#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

#include "python/call_positions.h"
#include "python/frameworks.h"
#include "python/loader_wrappers.h"
#include "python/model_internal.h"
#include "python/project_fields.h"
#include "python/semantic_model.h"
#include "python/types.h"

namespace stoker::python {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Where a return `r` holds the loader construction `loader_call` (by `origins`, loader_origins):
// kWholeResult for r itself, bit i for element i of a returned tuple (the first eight, as
// IncomingCalls::result_per_epoch counts them). O(elements) memoized origin lookups.
template <class Origins>
unsigned returned_loader_bits(Node r, Node loader_call, Origins&& origins) {
  auto holds = [&](Node e) {
    for (Node o : origins(e))
      if (same(o, loader_call)) return true;
    return false;
  };
  r = unparen(r);
  unsigned bits = holds(r) ? kWholeResult : 0;
  if (is(r, "tuple") || is(r, "expression_list"))
    for (uint32_t i = 0; i < named_count(r) && i < 8; ++i)
      if (holds(named_child(r, i))) bits |= 1u << i;
  return bits;
}

// A name bound to one of several project callables in the branches of a choice (set AK
// Time-Series-Library's run.py: `if args.task_name == ...: from exp.x import Exp_X; Exp = Exp_X`
// `elif ...: Exp = Exp_Y` ..., then `exp = Exp(args)`) calls each of them, as a type checker joins
// the declarations: at most this many different callables, more is unknown.
constexpr size_t kMaxAliasCallees = 8;

// `Exp = Exp_Main` then `exp = Exp(args)`: a name every binding of which assigns one imported name
// (or an attribute of one), the same: that name (set AA Autoformer's and set R Informer's scripts).
// Bindings that assign different imported names, each a project name (the branches of a choice),
// give their union "a.X|b.Y" (sorted, at most kMaxAliasCallees members): the call runs one of them.
std::string alias_name(const SemanticModel& m, const ExternalFacts* facts, Node fn) {
  fn = unparen(fn);
  if (!is(fn, "identifier")) return {};
  auto bindings = m.lookup(m.text(fn), start(fn));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return {};
  std::vector<std::string> names;
  for (const Binding* b : bindings) {
    Node v = b->kind == Binding::Kind::Assign && b->unpack_index < 0 ? unparen(b->value) : Node{};
    if (!is(v, "identifier") && !is(v, "attribute")) return {};
    const std::string& q = m.qualified_name(v);
    if (q.empty() || starts_with(q, "builtins.")) return {};
    if (std::find(names.begin(), names.end(), q) == names.end()) names.push_back(q);
  }
  if (names.size() == 1) return names[0];
  if (names.size() > kMaxAliasCallees || !facts) return {};
  for (const auto& q : names)
    if (!facts->project_name(q)) return {};  // a library's callable among them: as before
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& q : names) out += (out.empty() ? "" : "|") + q;
  return out;
}

}  // namespace

std::vector<std::string> split_on(std::string_view s, char sep, bool keep_empty) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= s.size()) {
    size_t at = s.find(sep, from);
    if (at == std::string_view::npos) at = s.size();
    if (keep_empty || at > from) out.emplace_back(s.substr(from, at - from));
    from = at + 1;
  }
  return out;
}

std::string union_join(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return {};
  std::vector<std::string> all = union_members(a);
  for (auto& m : union_members(b)) all.push_back(std::move(m));
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  if (all.size() > kMaxClassUnion) return {};
  std::string out;
  for (const auto& m : all) out += (out.empty() ? "" : "|") + m;
  return out;
}

std::string union_suffix(std::string_view name, std::string_view suffix) {
  std::string out;
  for (const auto& m : union_members(name)) out += (out.empty() ? "" : "|") + m + std::string(suffix);
  return out;
}

bool join_sorted(std::vector<std::string>& dst, const std::vector<std::string>& src, size_t cap) {
  bool truncated = false;
  for (const auto& k : src)
    if (auto at = std::lower_bound(dst.begin(), dst.end(), k); at == dst.end() || *at != k) {
      if (dst.size() < cap) dst.insert(at, k);
      else truncated = true;
    }
  return truncated;
}

std::vector<Value> to_values(const std::vector<ScalarFact>& facts) {
  std::vector<Value> out;
  for (const auto& f : facts) {
    Value v;
    switch (f.kind) {
      case ScalarFact::Kind::Int: v.kind = Value::Kind::Int; v.i = f.i; break;
      case ScalarFact::Kind::Float: v.kind = Value::Kind::Float; v.f = f.f; break;
      case ScalarFact::Kind::Str: v.kind = Value::Kind::Str; v.s = f.s; break;
      case ScalarFact::Kind::Bool: v.kind = Value::Kind::Bool; v.b = f.b; break;
      case ScalarFact::Kind::None: v.kind = Value::Kind::None; break;
      case ScalarFact::Kind::Unknown: break;
    }
    out.push_back(v);
  }
  if (out.empty()) out.push_back(Value::unknown());
  return out;
}

ScalarFact to_scalar_fact(const Value& v) {
  ScalarFact f;
  switch (v.kind) {
    case Value::Kind::Int: f.kind = ScalarFact::Kind::Int; f.i = v.i; break;
    case Value::Kind::Float: f.kind = ScalarFact::Kind::Float; f.f = v.f; break;
    case Value::Kind::Str: f.kind = ScalarFact::Kind::Str; f.s = v.s; break;
    case Value::Kind::Bool: f.kind = ScalarFact::Kind::Bool; f.b = v.b; break;
    case Value::Kind::None: f.kind = ScalarFact::Kind::None; break;
    default: break;  // an expression of this file is unknown elsewhere
  }
  return f;
}

namespace {
// Candidate values joined: at most kMaxCandidates, past that one unknown.
void join_scalars(std::vector<ScalarFact>& into, const std::vector<ScalarFact>& from) {
  for (const auto& v : from) {
    if (std::find(into.begin(), into.end(), v) != into.end()) continue;
    if (into.size() >= SemanticModel::kMaxCandidates) {
      into.assign(1, ScalarFact{});
      return;
    }
    into.push_back(v);
  }
}

// Namespace values of two call sites (ArgFacts::ns_values, sorted by dest): a dest both carry
// takes both's values; one that either lacks is unknown (dropped). O(dests).
void join_namespace_values(std::vector<std::pair<std::string, std::vector<ScalarFact>>>& into,
                           const std::vector<std::pair<std::string, std::vector<ScalarFact>>>& from) {
  std::vector<std::pair<std::string, std::vector<ScalarFact>>> out;
  auto b = from.begin();
  for (auto& entry : into) {
    while (b != from.end() && b->first < entry.first) ++b;
    if (b == from.end() || b->first != entry.first) continue;
    join_scalars(entry.second, b->second);
    bool known = true;
    for (const auto& v : entry.second) known = known && v.kind != ScalarFact::Kind::Unknown;
    if (known) out.push_back(std::move(entry));
  }
  into = std::move(out);
}
}  // namespace

void ArgFacts::join(const ArgFacts& o) {
  if (o.passed) {
    // A site that does not pass a namespace (ns 0 or 2) makes the parameter no known namespace;
    // likewise a dict of settings (its keys' values).
    auto join_keyed = [&](auto& state, auto& values, int site_state, const auto& site_values) {
      // A site handing on a parameter no call passes (ns 3, the uncalled method's) adds nothing:
      // 3 stays only while every site so far is one.
      if (site_state == 3) {
        if (!passed) state = 3;
        return;
      }
      int site = site_state == 1 ? 1 : 2;
      if (!passed || state == 3) {
        state = site;
        values = site == 1 ? site_values : std::decay_t<decltype(values)>{};
      } else if (state == 1 && site == 1) {
        join_namespace_values(values, site_values);
      } else {
        state = 2;
        values.clear();
      }
    };
    join_keyed(ns, ns_values, o.ns, o.ns_values);
    join_keyed(dict, dict_values, o.dict, o.dict_values);
  }
  if (o.passed) {
    if (!passed) {
      elem_cuda = o.elem_cuda;
      elem_types = o.elem_types;
      elems_mixed = o.elems_mixed;
    } else if (elems_mixed || o.elems_mixed || elem_cuda.size() != o.elem_cuda.size() ||
               elem_types.size() != o.elem_types.size()) {
      elems_mixed = true;
      elem_cuda.clear();
      elem_types.clear();
    } else {
      for (size_t i = 0; i < elem_cuda.size(); ++i) elem_cuda[i] = static_cast<char>(elem_cuda[i] | o.elem_cuda[i]);
      for (size_t i = 0; i < elem_types.size(); ++i) {
        AbstractType t = python::join(TypeInference::from_fact(elem_types[i].first, elem_types[i].second),
                                      TypeInference::from_fact(o.elem_types[i].first, o.elem_types[i].second));
        elem_types[i] = {static_cast<int>(t.kind), static_cast<int>(t.device)};
      }
    }
  }
  passed |= o.passed;
  defaulted |= o.defaulted;
  cuda |= o.cuda;
  module |= o.module;
  loader |= o.loader;
  batch |= o.batch;
  step |= o.step;
  device_cuda |= o.device_cuda;
  tensor |= o.tensor;
  untyped |= o.untyped;
  AbstractType t = python::join(TypeInference::from_fact(type_kind, type_device),
                                TypeInference::from_fact(o.type_kind, o.type_device));
  type_kind = static_cast<int>(t.kind);
  type_device = static_cast<int>(t.device);
  if (klass.empty()) klass = o.klass;
  else if (!o.klass.empty() && o.klass != klass) klass = "?";
  join_scalars(values, o.values);
  fed_passed |= o.fed_passed;
  fed_defaulted |= o.fed_defaulted;
  epoch_passed |= o.epoch_passed;
  epoch_defaulted |= o.epoch_defaulted;
  join_scalars(fed_values, o.fed_values);
  join_scalars(epoch_values, o.epoch_values);
  kw_known |= o.kw_known;
  kw_open |= o.kw_open;
  if (join_sorted(kw_names, o.kw_names, kMaxKwNames)) kw_open = true;
  join_sorted(loader_keys, o.loader_keys, kMaxLoaderKeys);
  if (o.passed) {
    // (No copy of the site's elements: the ternary of a vector and a temporary copied them.)
    static const std::vector<ScalarFact> unknown_element{ScalarFact{}};
    join_scalars(elem_values, o.elem_values.empty() ? unknown_element : o.elem_values);
  }
}

void ArgFacts::join_hot(const ArgFacts& site) {
  hot_passed |= site.passed;
  hot_defaulted |= site.defaulted;
  join_scalars(hot_values, site.values);
}

void ArgFacts::join_use(const ArgFacts& site, bool epoch) {
  fed_passed |= site.passed;
  fed_defaulted |= site.defaulted;
  if (site.passed) join_scalars(fed_values, site.values);
  if (!epoch) return;
  epoch_passed |= site.passed;
  epoch_defaulted |= site.defaulted;
  if (site.passed) join_scalars(epoch_values, site.values);
}

std::string SemanticModel::local_name(int f) const {
  if (f < 0 || f >= static_cast<int>(functions_.size())) return {};
  const Function& fn = functions_[f];
  int parent = scopes_[fn.scope].parent;
  if (parent == 0) return fn.klass < 0 ? fn.name : std::string{};
  if (fn.klass >= 0 && parent == classes_[fn.klass].scope && scopes_[parent].parent == 0)
    return classes_[fn.klass].name + "." + fn.name;
  // A closure its module-level function returns (`def init_msn_loss(...): def loss(...): ...;
  // return loss`): "init_msn_loss.loss", what another module's `msn = init_msn_loss(...)` then
  // `msn(...)` calls (FactsTable::resolve reads "init_msn_loss.__call__" as it; rec28). Every
  // return of the outer function names it (the name bound only to that `def` where it is read).
  // Memoized per outer function.
  if (fn.klass < 0 && scopes_[parent].kind == Scope::Kind::Function && scopes_[parent].parent == 0) {
    int outer = scopes_[parent].function;
    if (outer < 0 || functions_[outer].klass >= 0) return {};
    std::string key = "closure:" + std::to_string(outer);
    auto known = memo_.find(key);
    if (known == memo_.end()) {
      int found = -1;
      for (Node r : functions_[outer].returns) {
        r = unparen(r);
        int here = -1;
        if (is(r, "identifier")) {
          auto bindings = lookup(text(r), start(r));
          if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Def && bindings[0]->function >= 0 &&
              scopes_[functions_[bindings[0]->function].scope].parent == functions_[outer].scope)
            here = bindings[0]->function;
        }
        if (here < 0 || (found >= 0 && found != here)) {
          found = -1;
          break;
        }
        found = here;
      }
      known = memo_.emplace(key, found).first;
    }
    if (known->second == f) return functions_[outer].name + "." + fn.name;
  }
  return {};
}

std::string SemanticModel::object_name(Node expr) const {
  expr = unparen(expr);
  if (!facts_ || (!is(expr, "identifier") && !is(expr, "attribute"))) return {};
  const std::string& q = qualified_name(expr);
  if (!q.empty()) return starts_with(q, "builtins.") ? std::string{} : q;
  if (!is(expr, "identifier")) return {};
  // A global of this module: every binding is a module-level assignment.
  auto bindings = lookup(text(expr), start(expr));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
  for (const Binding* b : bindings)
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || scope_at(start(b->target)) != 0) return {};
  return facts_->canonical(text(expr), true);
}

const FunctionFacts* SemanticModel::module_attribute(Node expr, unsigned fields) const {
  if (!facts_) return nullptr;
  expr = unparen(expr);
  std::string name = object_name(expr);
  if (name.empty() && is(expr, "identifier") && lookup(text(expr), start(expr)).empty())
    name = star_imported_name(text(expr));  // `from config import *`
  if (name.empty() || !facts_->project_name(name)) return nullptr;
  if (module_reads_.size() < 256) module_reads_.insert(name);
  return facts_->callee(name, fields);
}

std::vector<Value> SemanticModel::module_constant(Node expr) const {
  const FunctionFacts* f = module_attribute(expr, fact::kConstValues);
  if (!f || f->const_values.empty()) return {};
  return to_values(f->const_values);
}

std::string SemanticModel::registry_of(Node definition) const {
  Node p = parent(definition);
  if (!facts_ || !is(p, "decorated_definition")) return {};
  for (Node d : named_children(p)) {
    if (!is(d, "decorator")) continue;
    for (Node e : named_children(d)) {
      if (is(e, "comment")) continue;
      e = unparen(e);
      if (is(e, "call")) e = unparen(field(e, "function"));  // `@REG.register(name="x")`
      if (!is(e, "attribute")) break;                           // `@REG.register`
      std::string name = object_name(field(e, "object"));
      if (!name.empty()) return name;
      break;
    }
  }
  return {};
}

std::string SemanticModel::registry_lookup(Node e) const {
  e = unparen(e);
  if (!facts_) return {};
  Node obj;
  if (is(e, "call")) {
    Node fn = unparen(field(e, "function"));
    if (!is(fn, "attribute") || text(field(fn, "attribute")) != "get") return {};
    size_t n = named_count(field(e, "arguments"));
    if (n < 1 || n > 2) return {};
    obj = field(fn, "object");
  } else if (is(e, "subscript")) {
    obj = field(e, "value");
  } else {
    return {};
  }
  std::string name = object_name(obj);
  return name.empty() ? std::string{} : facts_->registered(name);
}

// The name a call may invoke in another module: the callee's qualified name through imports
// (`engine.train_one_epoch`, `.utils.Logger`), or a method of an instance a project call built
// (`logger.update(...)` with `logger = utils.Logger()`: `utils.Logger.update`; `model(x)`:
// `models.Net.__call__`). A registry lookup called names every function registered there
// ("a.f|b.g"). Empty for functions of this file and for what cannot be named.
bool SemanticModel::project_call(Node call) const {
  if (!callees(call).empty()) return true;
  const std::string& q = callee_name(call);
  return facts_ && !q.empty() && !starts_with(q, "builtins.") && facts_->project_name(q);
}

std::string SemanticModel::external_name(int ci) const {
  if (!callees_by_call_[ci].empty()) return {};
  Node fn = unparen(field(calls_[ci].call, "function"));
  // `self.m(...)` in a method of a module-level class C whose `m` here is a placeholder (only
  // raises NotImplementedError) that no subclass of this file overrides (resolve_calls left the
  // call without a callee), under no condition: the overrides of m in subclasses of C in other modules, which the
  // FactsTable joins under "C.m[overrides]" (set AL FairMOT: BaseTrainer.__init__'s
  // `self.loss_stats, self.loss = self._get_losses(opt)` is MotTrainer's, in mot.py).
  if (is(fn, "attribute") && is(unparen(field(fn, "object")), "identifier") && text(unparen(field(fn, "object"))) == "self" &&
      facts_ && calls_[ci].caller >= 0 && calls_[ci].guards.empty()) {
    int klass = functions_[calls_[ci].caller].klass;
    std::string method(text(field(fn, "attribute")));
    if (klass >= 0 && scopes_[classes_[klass].scope].parent == 0)
      if (int m = model_detail::inherited_method(classes_, classes_by_name_, klass, method);
          m >= 0 && model_detail::abstract_method(functions_[m].node, src_))
        return facts_->canonical(classes_[klass].name + "." + method + "[overrides]", true);
  }
  // A method of the instance a project call built that `obj` holds (`Net().to(dev)`): "Cls.method".
  auto instance_method = [&](Node obj, const std::string& method, bool construction = false) -> std::string {
    if (!is(obj, "identifier") && !is(obj, "attribute") && !(construction && is(obj, "call"))) return {};
    if (is(obj, "identifier") && text(obj) == "self") return {};
    std::string cls;
    for (const auto& v : values(obj)) {
      if (v.kind != Value::Kind::Expr || !is(v.expr, "call")) continue;
      Node e = v.expr;
      for (int guard = 0; guard < 8 && is(e, "call"); ++guard) {  // Net().to(dev).train()
        Node f = unparen(field(e, "function"));
        // `torch.compile(model)`, `DDP(model)`: the wrapped model's class (its one candidate).
        if (const auto* w = FrameworkTable::get().module_wrapper(callee_name(e))) {
          auto inner = values(argument(e, 0, w->keyword));
          if (inner.size() != 1 || inner[0].kind != Value::Kind::Expr) break;
          e = unparen(inner[0].expr);
          continue;
        }
        if (!is(f, "attribute")) break;
        auto a = text(field(f, "attribute"));
        if (a != "to" && a != "cuda" && a != "train" && a != "eval" && a != "half" && a != "float") break;
        e = unparen(field(f, "object"));
      }
      if (!is(e, "call")) continue;
      std::string c = callee_name(e);
      if (c.empty()) c = class_table_name(unparen(field(e, "function")));
      if (c.empty()) c = alias_name(*this, facts_, field(e, "function"));
      if (c.empty() || starts_with(c, "builtins.")) continue;
      if (!cls.empty() && cls != c) return {};  // instances of different classes
      cls = c;
    }
    // A union (`Exp = Exp_X` / `Exp = Exp_Y` in the branches, `exp = Exp(args)`): each member's method.
    return cls.empty() ? std::string{} : union_suffix(cls, "." + method);
  };
  // `super().__init__(...)` / `super(Sub, self).__init__(...)` in the __init__ of a class whose
  // first base is another module's class: that class's __init__, the arguments bound as a
  // construction's (`DeepFM(..., device=device)` hands the device on to `BaseModel`).
  if (is(fn, "attribute") && text(field(fn, "attribute")) == "__init__") {
    int caller = calls_[ci].caller;
    if (is_super_call(field(fn, "object")) && caller >= 0 && functions_[caller].klass >= 0 &&
        functions_[caller].name == "__init__") {
      const auto& bases = classes_[functions_[caller].klass].bases;
      std::string_view first = bases.empty() ? std::string_view{} : std::string_view(bases[0]);
      if (!first.empty() && !classes_by_name_.count(std::string(first.substr(first.rfind('.') + 1))))
        if (const FunctionFacts* base = facts_ ? facts_->callee(bases[0], fact::kClass) : nullptr; base && base->is_class)
          return bases[0] + ".__init__";
    }
    return {};
  }
  const std::string& q = qualified_name(fn);
  // `next(fetcher)`: the `__next__` of the project class whose instance the argument holds
  // (stargan-v2's InputFetcher in another module moves the batch to the device every step),
  // also of a construction (`next(InputFetcher(loader))`).
  if (q == "builtins.next") return instance_method(unparen(argument(calls_[ci].call, 0, "")), "__next__", true);
  if (!q.empty()) return starts_with(q, "builtins.") ? std::string{} : q;
  if (is(fn, "identifier") && lookup(text(fn), start(fn)).empty())
    if (std::string s = star_imported_name(text(fn)); !s.empty()) return s;  // `from util import *`
  if (std::string t = class_table_name(fn); !t.empty()) return t;  // `Trainer(opt)`: constructs one of them
  if (std::string a = alias_name(*this, facts_, fn); !a.empty()) return a;
  // A registry lookup called: `REG.get(name)(args)`, or `build = REG.get(name)` then `build(args)`
  // (every value of `build` one): the registered functions or classes, each may run.
  // A function of a project module looked up by name (pytorch-template's `metric_fns =
  // [getattr(module_metric, met) for met in config['metrics']]`, `metric(output, target)` per
  // batch): "M.*", which the FactsTable binds to each top-level function of module M.
  auto module_lookup = [&](Node e) -> std::string {
    e = unparen(e);
    if (!is(e, "call") || qualified_name(field(e, "function")) != "builtins.getattr" || !is_null(argument(e, 2, "")))
      return {};
    Node mod = unparen(argument(e, 0, ""));
    if (!is(mod, "identifier")) return {};
    const std::string& q = qualified_name(mod);
    if (q.empty() || starts_with(q, "builtins.")) return {};
    auto bindings = lookup(text(mod), start(mod));
    if (bindings.empty()) return {};
    for (const Binding* b : bindings)
      if (b->kind != Binding::Kind::Import) return {};  // a module imported, not an object
    // (A literal name, `getattr(losses, "NamedHead")`, stays as before: not bound here.)
    std::string literal;
    return string_literal_value(unparen(argument(e, 1, "")), src_, literal) ? std::string{} : q + ".*";
  };
  if (std::string m = module_lookup(fn); !m.empty()) return m;
  // ... also through a name bound to one, or the variable of a loop over a list of them
  // (`for i, metric in enumerate(metric_fns)`, the list a display or a comprehension).
  if (is(fn, "identifier") && text(fn) != "self") {
    std::string found;
    bool all = true;
    auto take = [&](Node e) {
      std::string m = module_lookup(e);
      all = all && !m.empty() && (found.empty() || found == m);
      found = m;
    };
    auto bindings = lookup(text(fn), start(fn));
    for (const Binding* b : bindings) {
      if (!all) break;
      if (b->kind == Binding::Kind::Assign && b->unpack_index < 0) {
        take(b->value);
        continue;
      }
      Node it = b->kind == Binding::Kind::LoopTarget ? unparen(b->value) : Node{};
      if (b->unpack_index >= 0) {
        bool enumerated = is(it, "call") && qualified_name(field(it, "function")) == "builtins.enumerate";
        it = enumerated && b->unpack_index == 1 ? unparen(argument(it, 0, "iterable")) : Node{};
      }
      std::vector<Node> lists;
      if (is(it, "identifier")) {
        for (const auto& v : values(it)) lists.push_back(v.kind == Value::Kind::Expr ? unparen(v.expr) : Node{});
      } else {
        lists.push_back(it);
      }
      for (Node l : lists) {
        if (is(l, "list_comprehension")) take(field(l, "body"));
        else if (is(l, "list") || is(l, "tuple")) for (Node e : named_children(l)) take(e);
        else all = false;
      }
    }
    if (all && !bindings.empty() && !found.empty()) return found;
  }
  if (is(fn, "call") || is(fn, "subscript")) return registry_lookup(fn);
  if (is(fn, "identifier") && text(fn) != "self") {
    std::string reg;
    bool all = true;
    for (const auto& v : values(fn)) {
      std::string r = v.kind == Value::Kind::Expr ? registry_lookup(v.expr) : std::string{};
      reg = r.empty() ? std::string{} : reg.empty() ? r : union_join(reg, r);
      if (reg.empty()) {
        all = false;
        break;
      }
    }
    if (all && !reg.empty()) return reg;
  }
  if (is(fn, "attribute")) return instance_method(unparen(field(fn, "object")), std::string(text(field(fn, "attribute"))));
  if (is(fn, "identifier")) return instance_method(fn, "__call__");
  return {};
}

std::vector<Node> SemanticModel::callee_expressions(Node fn) const {
  fn = unparen(fn);
  if (!is(fn, "identifier")) return {fn};
  auto bindings = lookup(text(fn), start(fn));
  if (bindings.size() > kMaxCandidates) return {};
  std::vector<Node> out;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0) return {};
    out.push_back(unparen(b->value));
  }
  return out;
}

std::string SemanticModel::class_table_name(Node fn) const {
  if (!facts_ || is_null(fn)) return {};
  // `factory[key]` itself, or a name every binding of which is one (`Trainer = factory[key]`).
  std::string out;
  for (Node e : callee_expressions(fn)) {
    if (!is(e, "subscript")) return {};
    const std::string& q = qualified_name(field(e, "value"));
    if (q.empty() || starts_with(q, "builtins.")) return {};
    const FunctionFacts* f = facts_->callee(q, fact::kTable);
    if (!f || f->table_classes.empty() || (!out.empty() && out != q + "[]")) return {};
    out = q + "[]";
  }
  return out;
}

// `model.detect_objects(locs, scores)` where `model` is an nn.Module of no known class on CUDA
// loaded from a checkpoint (`model = torch.load(path)["model"].to(device)`: a pickled model,
// whose class the project defines but no construction names): a call of the method of that name of the project's
// nn.Module classes, "%.detect_objects" (the FactsTable binds it to at most kMaxClassUnion of
// them, in other modules, when the call is hot). Not for the methods every module has (the
// nn.Module API, `forward` through `__call__`) or private ones. O(1) type and taint queries,
// and the receiver's values at most 8 deep.
std::string SemanticModel::unknown_module_method(Node call) const {
  if (!facts_) return {};
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return {};
  std::string method(text(field(fn, "attribute")));
  static const std::set<std::string, std::less<>> kModuleApi = {
      "forward", "to", "cuda", "cpu", "train", "eval", "parameters", "named_parameters", "buffers", "named_buffers",
      "modules", "named_modules", "children", "named_children", "state_dict", "load_state_dict", "apply",
      "zero_grad", "half", "float", "double", "bfloat16", "type", "requires_grad_", "register_buffer",
      "register_parameter", "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
      "add_module", "get_submodule", "extra_repr", "share_memory", "item", "tolist", "numpy", "detach", "size",
      "view", "reshape", "mean", "sum", "get", "items", "keys", "values", "update", "append", "pop", "copy",
      "norm", "max", "min", "argmax", "argmin", "long", "int", "bool", "clone", "contiguous", "permute", "transpose",
      "squeeze", "unsqueeze", "expand", "repeat", "chunk", "split", "add", "mul", "sub", "div", "sigmoid", "softmax",
      "log_softmax", "flatten", "fill_", "zero_", "copy_", "index_select", "gather", "scatter", "masked_fill", "sort",
      "topk", "abs", "exp", "log", "pow", "sqrt", "clamp", "round", "all", "any", "nonzero", "numel", "dim"};
  if (method.empty() || method[0] == '_' || kModuleApi.count(method)) return {};
  Node obj = unparen(field(fn, "object"));
  if (!is(obj, "identifier") && !is(obj, "attribute")) return {};
  if (is(obj, "identifier") && text(obj) == "self") return {};
  // Loaded from a checkpoint: `torch.load(...)[k]` (or a name bound to it, every binding), through
  // `.to(...)`/`.cuda()`/`.eval()`; `moved`: one of those moves it to a device that may be CUDA.
  bool moved = false;
  std::function<bool(Node, int)> loaded = [&](Node e, int depth) -> bool {
    e = unparen(e);
    if (depth > 8 || is_null(e)) return false;
    if (is(e, "call")) {
      Node f = unparen(field(e, "function"));
      if (callee_name(e) == "torch.load") return true;
      if (!is(f, "attribute")) return false;
      auto a = text(field(f, "attribute"));
      if (a != "to" && a != "cuda" && a != "eval" && a != "half" && a != "float") return false;
      if (!loaded(field(f, "object"), depth + 1)) return false;
      if (a == "cuda") moved = true;
      else if (a == "to" && !is_null(argument(e, 0, "device")) && device_kind(argument(e, 0, "device")) == DeviceKind::Cuda)
        moved = true;
      return true;
    }
    if (is(e, "subscript")) return loaded(field(e, "value"), depth + 1);
    if (!is(e, "identifier")) return false;
    auto vs = values(e);
    if (vs.empty()) return false;
    for (const auto& v : vs)
      if (v.kind != Value::Kind::Expr || same(v.expr, e) || !loaded(v.expr, depth + 1)) return false;
    return true;
  };
  AbstractType t = types().type_of(obj);
  if (t.klass != -1) return {};
  bool from_checkpoint = loaded(obj, 0);
  // The types read a pickled object as a tensor (`torch.load`'s usual result), a module or
  // nothing; a module of no known class that was not loaded (an annotated union, a registry's
  // product) is not bound: its class is one of those the program names.
  if (t.kind != AbstractType::Kind::Module && t.kind != AbstractType::Kind::Unknown && t.kind != AbstractType::Kind::Tensor)
    return {};
  if (!from_checkpoint || !(moved || is_cuda(obj))) return {};
  return "%." + method;
}

// What a namespace of this module's parsers holds: `returns_namespace` and the dests' values
// (at most kMaxNamespaceDests, sorted). Only `default=` values travel (the resolved-value form of
// rules.md): a flag's implicit default (`action="store_true"`, `--do_train`) is the run's choice
// there.
void SemanticModel::namespace_facts_of_parsers(FunctionFacts& facts) const {
  facts.returns_namespace = true;
  std::vector<std::string> dests;
  for (const auto& [dest, calls] : argparse_args_) dests.push_back(dest);
  std::sort(dests.begin(), dests.end());
  if (dests.size() > kMaxNamespaceDests) dests.resize(kMaxNamespaceDests);
  for (const auto& dest : dests) {
    bool explicit_default = true;
    for (Node call : argparse_args_.at(dest)) explicit_default = explicit_default && !is_null(argument(call, -1, "default"));
    std::vector<ScalarFact> vs;
    if (!explicit_default) vs.push_back(ScalarFact{});
    else
      for (const auto& v : namespace_attribute(dest)) vs.push_back(to_scalar_fact(v));
    facts.namespace_values.push_back({dest, std::move(vs)});
  }
}

std::string SemanticModel::table_reference(Node call) const {
  auto subs = callee_expressions(field(call, "function"));
  if (subs.size() != 1 || !is(subs[0], "subscript")) return {};
  const std::string& q = qualified_name(field(subs[0], "value"));
  return starts_with(q, "builtins.") ? std::string{} : q;
}

std::string SemanticModel::star_imported_name(std::string_view name) const {
  if (!facts_) return {};
  // At most 8 starred modules, each one recorded query: the answer changes when the starred
  // module (or the package re-exporting the name) comes to define it in a later round.
  int seen = 0;
  for (Node st : named_children(root_)) {
    if (!is(st, "import_from_statement")) continue;
    bool star = false;
    for (Node c : named_children(st)) star |= is(c, "wildcard_import");
    if (!star || ++seen > 8) continue;
    std::string m(text(field(st, "module_name")));
    std::string cand = m + (m.find_first_not_of('.') == std::string::npos ? "" : ".") + std::string(name);
    if (facts_->callee(cand, fact::kExists | fact::kParams)) return cand;
  }
  return {};
}

void SemanticModel::resolve_external_calls() {
  if (!facts_) return;
  ext_name_.assign(calls_.size(), std::string{});
  for (size_t ci = 0; ci < calls_.size(); ++ci) ext_name_[ci] = external_name(static_cast<int>(ci));
}

// The calls still unnamed after resolve_external_calls() whose receiver's abstract type is an
// instance of another module's class: `self.model(x)` with `self.model = exp.get_model()`
// typed `models.Net` (its `__call__`, read as `forward`), `self.exp.get_model()` with
// `self.exp` an `exps.Exp` (its `get_model`). By class, as a type checker names a method.
// True when it named a call (the types' answers so far saw a partial naming).
bool SemanticModel::resolve_typed_external_calls() {
  if (!facts_) return false;
  bool named = false;
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    if (!ext_name_[ci].empty() || !callees_by_call_[ci].empty()) continue;
    Node fn = unparen(field(calls_[ci].call, "function"));
    bool attribute = is(fn, "attribute");
    if (!attribute && !is(fn, "identifier")) continue;
    if (!attribute && text(fn) == "self") continue;
    if (!qualified_name(fn).empty()) continue;  // named (or a builtin) by its imports
    AbstractType called = types_->type_of(fn);
    std::string cls = types_->class_name(called);
    if (cls.empty()) cls = types_->external_union(fn);  // bound to instances of several classes
    else if (called.klass > -2) cls.clear();
    if (!cls.empty()) {
      ext_name_[ci] = union_suffix(cls, ".__call__");  // a class union: each member's forward
      named = true;
      continue;
    }
    if (!attribute) continue;
    AbstractType recv = types_->type_of(field(fn, "object"));
    cls = types_->class_name(recv);
    if (cls.empty()) cls = types_->external_union(field(fn, "object"));  // `agent.update(...)`, A2C or PPO
    else if (recv.klass > -2) cls.clear();
    if (!cls.empty()) {
      ext_name_[ci] = union_suffix(cls, "." + std::string(text(field(fn, "attribute"))));
      named = true;
    }
  }
  return named;
}

const FunctionFacts* SemanticModel::ext_callee(int ci, unsigned fields) const {
  if (!facts_ || ci < 0 || static_cast<size_t>(ci) >= ext_name_.size() || ext_name_[ci].empty()) return nullptr;
  if (ext_name_[ci].find('|') != std::string::npos) return nullptr;  // one of several: no single facts
  return facts_->callee(ext_name_[ci], fields);
}

std::vector<const FunctionFacts*> SemanticModel::ext_callees(int ci, unsigned fields) const {
  std::vector<const FunctionFacts*> out;
  if (!facts_ || ci < 0 || static_cast<size_t>(ci) >= ext_name_.size() || ext_name_[ci].empty()) return out;
  for (const auto& member : union_members(ext_name_[ci])) {
    const FunctionFacts* f = facts_->callee(member, fields);
    if (!f) return {};
    out.push_back(f);
  }
  return out;
}

const FunctionFacts* SemanticModel::ext_callee_of(Node call, unsigned fields) const {
  if (ext_name_.empty()) return nullptr;
  auto it = call_index_.find(call.id);
  return it == call_index_.end() ? nullptr : ext_callee(it->second, fields);
}

const ArgFacts* SemanticModel::ext_param(int f, int pi, unsigned fields) const {
  if (!facts_ || f < 0) return nullptr;
  std::string name = local_name(f);
  return name.empty() ? nullptr : facts_->incoming_param(name, pi, fields);
}

bool SemanticModel::namespace_facts(Node a, std::vector<std::pair<std::string, std::vector<ScalarFact>>>& out) const {
  out.clear();
  auto vs = values(a);
  if (vs.empty()) return false;
  for (const auto& v : vs)
    if (!namespace_value(v)) return false;
  // The table of one kind of candidate, once per model: a namespace other modules hand a
  // parameter here (its sites' values), or one of this module's parsers (each dest declared
  // with an explicit `default=` on every add_argument, and the dests of other modules'
  // namespace helpers it calls), each with this module's stores; only dests whose values are
  // all known travel (an absent dest reads as unknown), at most kMaxNamespaceDests.
  auto table = [&](const ArgFacts* param) -> const std::vector<std::pair<std::string, std::vector<ScalarFact>>>& {
    if (auto it = namespace_tables_.find(param); it != namespace_tables_.end()) return it->second;
    std::vector<std::pair<std::string, std::vector<ScalarFact>>> built;
    auto add = [&](const std::string& dest, const std::vector<Value>& values) {
      std::vector<ScalarFact> facts;
      for (const auto& v : values) {
        if (v.kind == Value::Kind::Unknown || v.kind == Value::Kind::Expr) return;
        facts.push_back(to_scalar_fact(v));
      }
      if (!facts.empty() && facts.size() <= kMaxCandidates) built.push_back({dest, std::move(facts)});
    };
    if (param) {
      for (const auto& [dest, facts] : param->ns_values) {
        std::vector<Value> declared = to_values(facts);
        add(dest, namespace_attribute(dest, &declared));
      }
    } else {
      // A handed namespace also carries a switch's implicit default (`action="store_true"`:
      // False, as this module reads it; rules.md, "Resolved value"): the callee's guards of the
      // flag resolve as they would here (set AJ End-to-end-ASR-Pytorch: `if
      // self.paras.cudnn_ctc:` in bin/train_asr.py of main.py's `--cudnn-ctc`). A namespace
      // *returned* by a helper keeps it unknown (namespace_facts_of_parsers: CodeT5's
      // `--do_train`).
      std::set<std::string> dests;
      for (const auto& [dest, calls] : argparse_args_) {
        bool explicit_default = true;
        for (Node call : calls) {
          std::string action;
          string_literal_value(argument(call, -1, "action"), src_, action);
          explicit_default = explicit_default && (!is_null(argument(call, -1, "default")) ||
                                                  action == "store_true" || action == "store_false");
        }
        if (explicit_default) dests.insert(dest);
      }
      for (const FunctionFacts* f : ext_namespaces())
        for (const auto& [dest, facts] : f->namespace_values)
          if (!argparse_args_.count(dest)) dests.insert(dest);
      for (const auto& dest : dests) add(dest, namespace_attribute(dest));
    }
    std::sort(built.begin(), built.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    if (built.size() > kMaxNamespaceDests) built.resize(kMaxNamespaceDests);
    auto& slot = namespace_tables_[param];
    slot = std::move(built);
    return slot;
  };
  bool first = true;
  for (const auto& v : vs) {
    const auto& t = table(namespace_param(v));
    if (first) out = t;
    else join_namespace_values(out, t);
    first = false;
  }
  return true;
}

bool SemanticModel::ext_param_flag(Node id, unsigned field) const {
  if (!facts_) return false;
  for (const Binding* b : lookup(text(id), start(id)))
    if (b->kind == Binding::Kind::Param)
      if (const ArgFacts* a = ext_param(b->function, b->param_index, field)) {
        bool v = field == fact::kCuda ? a->cuda : field == fact::kModule ? a->module
                 : field == fact::kLoader ? a->loader : field == fact::kDevice ? a->device_cuda : false;
        if (v) return true;
      }
  return false;
}

bool SemanticModel::ext_loader_item(Node subscript) const {
  if (!facts_) return false;
  Node c = unparen(field(subscript, "value"));
  std::string key;
  if (!is(c, "identifier") || !string_literal_value(unparen(field(subscript, "subscript")), src_, key)) return false;
  auto bindings = lookup(text(c), start(c));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Param) return false;
    const ArgFacts* a = ext_param(b->function, b->param_index, fact::kLoader);
    if (!a || !std::binary_search(a->loader_keys.begin(), a->loader_keys.end(), key)) return false;
  }
  return true;
}

bool SemanticModel::each_external_hot_argument(
    const std::function<bool(size_t, const ParamSummary&, Node)>& visit) const {
  // The arguments a call here passes to parameters of other modules' functions that those
  // functions iterate in a hot loop; `visit` returns true to stop. A call of one of several
  // (a class union's method, `exp.train(loader)` with `Exp` chosen in branches): each candidate's.
  for (size_t ci = 0; ci < ext_name_.size(); ++ci) {
    if (ext_name_[ci].empty()) continue;
    for (const FunctionFacts* ext : ext_callees(static_cast<int>(ci), fact::kParams)) {
      for (size_t i = 0; i < ext->params.size(); ++i) {
        const ParamSummary& p = ext->params[i];
        if ((!p.iterated_hot && p.hot_keys.empty()) || p.star || p.double_star) continue;
        int position = p.keyword_only ? -1 : static_cast<int>(i) - (ext->method ? 1 : 0);
        Node a = argument(calls_[ci].call, position, p.name);
        if (is_null(a)) continue;
        if (p.iterated_hot && visit(ci, p, a)) return true;
        // A dict handed there whose items under those keys are iterated (`Solver(data)` with
        // `data = {'tr_loader': tr_loader}`): each such item is handed on.
        if (!p.hot_keys.empty())
          for (const auto& [key, item] : dict_entries(a).items)
            if (std::binary_search(p.hot_keys.begin(), p.hot_keys.end(), key) && visit(ci, p, item)) return true;
      }
    }
  }
  return false;
}

bool SemanticModel::hot_param_per_epoch(size_t ci, const ParamSummary& p, Node passed) const {
  // The parameter's own epoch loop, the call in a loop of this module around what it passes, or
  // the calling function called in one.
  return p.iterated_per_epoch || call_repeats_for(static_cast<int>(ci), passed) ||
         function_called_in_loop(calls_[ci].caller);
}

bool SemanticModel::each_external_hot_param(Node loader_call,
                                             const std::function<bool(size_t, const ParamSummary&)>& visit) const {
  // The parameters of other modules' functions, iterated in a hot loop there, that a call here
  // passes the loader to; `visit` returns true to stop.
  return each_external_hot_argument([&](size_t ci, const ParamSummary& p, Node a) {
    bool passed = false;
    for (Node o : loader_origins(a)) passed |= same(o, loader_call);
    return passed && visit(ci, p);
  });
}

bool SemanticModel::external_feeds_training(Node loader_call) const {
  if (!facts_ || is_null(loader_call)) return false;
  // Passed to a function of another module that iterates that parameter in a hot loop.
  if (each_external_hot_param(loader_call, [](size_t, const ParamSummary&) { return true; })) return true;
  // Returned by a function whose callers in other modules iterate what it returns.
  int f = function_at(start(loader_call));
  const IncomingCalls* in = f >= 0 ? facts_->incoming(local_name(f), fact::kResult) : nullptr;
  // Also as an element of a returned tuple: a caller's hot loop iterates the one loader element
  // (`datas, testLoader = build_dataset_test(...)`, SemanticModel::summarize's trace).
  auto origins = [&](Node e) -> const std::vector<Node>& { return loader_origins(e); };
  if (in && in->result_feeds_training)
    for (Node r : functions_[f].returns)
      if (returned_loader_bits(r, loader_call, origins)) return true;
  // Stored by a class's initializer on the instance (`self.train = DataLoader(...)` in
  // `Cifar.__init__`) whose attribute a hot loop of another module iterates (`for batch in
  // dataset.train` after `dataset = Cifar(...)`).
  if (f >= 0 && functions_[f].klass >= 0 && functions_[f].initializer()) {
    const std::string& cls = classes_[functions_[f].klass].name;
    if (const IncomingCalls* ctor = facts_->incoming(cls + ".__init__", fact::kResult))
      for (const auto& a : ctor->attrs_fed) {
        auto indexed = self_assignments_by_key_.find(cls + "." + a);
        if (indexed == self_assignments_by_key_.end()) continue;
        for (int ai : indexed->second) {
          if (function_at(start(self_assignments_[ai].second)) != f) continue;
          for (Node o : loader_origins(self_assignments_[ai].second))
            if (same(o, loader_call)) return true;
        }
      }
  }
  // Returned (as the result or as an element of a returned tuple) to callers that hand it to a
  // function iterating it per epoch: `train_loader, val_loader = get_loaders()` then
  // `train(epoch, train_loader)` in an epoch loop.
  if (in && in->result_per_epoch)
    for (Node r : functions_[f].returns)
      if (returned_loader_bits(r, loader_call, origins) & in->result_per_epoch) return true;
  return false;
}

Node SemanticModel::batch_sampler_size(Node sampler, int depth) const {
  sampler = unparen(sampler);
  if (!is(sampler, "call") || depth > 3) return Node{};
  const std::string& q = callee_name(sampler);
  if (q == "torch.utils.data.BatchSampler" || q == "torch.utils.data.sampler.BatchSampler")
    return argument(sampler, 1, "batch_size");
  if (Node bs = argument(sampler, -1, "batch_size"); !is_null(bs)) return bs;
  // A function of another module returning a batch sampler of one of its parameters' size.
  if (const FunctionFacts* ext = ext_callee_of(sampler, fact::kBatchSize);
      ext && ext->batch_size_param >= 0 && static_cast<size_t>(ext->batch_size_param) < ext->params.size()) {
    const ParamSummary& p = ext->params[ext->batch_size_param];
    if (p.star || p.double_star) return Node{};
    int position = p.keyword_only ? -1 : ext->batch_size_param - (ext->method ? 1 : 0);
    return argument(sampler, position, p.name);
  }
  // A class of this module that keeps the batch sampler it is given (`self.batch_sampler =
  // batch_sampler` from __init__'s first parameter) and iterates it in `__iter__` (an
  // iteration-based wrapper): its batches are that sampler's.
  Node fn = unparen(field(sampler, "function"));
  if (!is(fn, "identifier")) return Node{};
  auto bindings = lookup(text(fn), start(fn));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Class) return Node{};
  auto named = classes_by_name_.find(std::string(text(fn)));
  if (named == classes_by_name_.end()) return Node{};
  for (int ki : named->second) {
    const Class& k = classes_[ki];
    if (!same(k.node, bindings[0]->value)) continue;
    auto init_it = k.methods.find("__init__");
    auto iter_it = k.methods.find("__iter__");
    if (init_it == k.methods.end() || iter_it == k.methods.end()) return Node{};
    const Function& init = functions_[init_it->second];
    if (init.params.size() < 2) return Node{};
    const std::string& given = init.params[1].name;
    for (const auto& l : loops_) {
      if (l.function != iter_it->second || !is(l.node, "for_statement")) continue;
      Node over = unparen(field(l.node, "right"));
      if (!is(over, "attribute") || text(unparen(field(over, "object"))) != "self") continue;
      auto stores = self_assignments_by_key_.find(k.name + "." + std::string(text(field(over, "attribute"))));
      if (stores == self_assignments_by_key_.end() || stores->second.size() != 1) continue;
      Node v = unparen(self_assignments_[stores->second.front()].second);
      if (!is(v, "identifier") || text(v) != given) continue;
      auto vs = values(argument(sampler, 0, given));
      if (vs.size() != 1 || vs[0].kind != Value::Kind::Expr) return Node{};
      return batch_sampler_size(vs[0].expr, depth + 1);
    }
  }
  return Node{};
}

namespace {
// `name[0]`: the first item of what the parameter `name` holds.
bool first_item_of(Node expr, std::string_view name, std::string_view src) {
  expr = unparen(expr);
  if (!is(expr, "subscript") || named_count(expr) != 2) return false;
  Node v = unparen(field(expr, "value")), i = named_child(expr, 1);
  return is(v, "identifier") && text(v, src) == name && is(i, "integer") && text(i, src) == "0";
}
}  // namespace

std::vector<int> SemanticModel::returned_elements_cuda(int f) const {
  // The elements every return has (the shortest arity, at most kMaxTupleElements): `return (ids,
  // texts, speakers, ...)` with 12 elements on one path and 6 on another gives the first 6.
  const auto& returns = functions_[f].returns;
  size_t arity = 0;
  for (Node r : returns) {
    Node u = unparen(r);
    if (!is(u, "tuple") && !is(u, "expression_list")) return {};
    size_t n = 0;
    for (Node e : named_children(u)) {
      if (is(e, "list_splat")) return {};
      ++n;
    }
    if (n == 0) return {};
    n = std::min(n, kMaxTupleElements);
    arity = arity ? std::min(arity, n) : n;
  }
  std::vector<int> cuda(arity, 0);
  for (Node r : returns)
    for (size_t i = 0; i < arity; ++i) cuda[i] |= is_cuda(named_child(unparen(r), static_cast<uint32_t>(i))) ? 1 : 0;
  return cuda;
}

bool SemanticModel::returns_first_item(int f) const {
  if (f < 0) return false;
  const Function& fn = functions_[f];
  size_t pi = static_cast<size_t>(bound_params(fn));
  if (fn.params.size() <= pi || fn.params[pi].is_variadic || fn.returns.empty()) return false;
  for (Node r : fn.returns)
    if (!first_item_of(r, fn.params[pi].name, src_)) return false;
  return true;
}

// O(candidates x returns).
bool SemanticModel::collate_returns_one_item(Node collate) const {
  if (is_null(collate)) return false;
  auto vs = values(collate);
  if (vs.empty() || vs.size() > kMaxCandidates) return false;
  for (const auto& v : vs) {
    if (v.kind != Value::Kind::Expr) return false;
    Node e = unparen(v.expr);
    if (is(e, "function_definition")) {
      if (!returns_first_item(function_of(e))) return false;
      continue;
    }
    if (is(e, "lambda")) {  // `lambda b: b[0]`
      Node ps = field(e, "parameters");
      if (is_null(ps) || named_count(ps) < 1 || !is(named_child(ps, 0), "identifier") ||
          !first_item_of(field(e, "body"), text(named_child(ps, 0)), src_))
        return false;
      continue;
    }
    if (!is(e, "call")) return false;
    // An instance: its class's `__call__`, here or in another module.
    AbstractType t = types_->type_of(e);
    if (t.kind != AbstractType::Kind::Object) return false;
    if (t.klass >= 0) {
      auto m = classes_[t.klass].methods.find("__call__");
      if (m == classes_[t.klass].methods.end() || !returns_first_item(m->second)) return false;
      continue;
    }
    std::string cls = t.klass <= -2 ? types_->class_name(t) : std::string{};
    if (cls.empty() || cls.find('|') != std::string::npos || !facts_) return false;
    const FunctionFacts* call = facts_->callee(cls + ".__call__", fact::kBatchSize);
    if (!call || !call->returns_first_item) return false;
  }
  return true;
}

int SemanticModel::batch_size_param(int f) const {
  int out = -1;
  for (Node r : functions_[f].returns) {
    auto vs = values(r);
    if (vs.empty() || vs.size() > kMaxCandidates) return -1;
    for (const auto& v : vs) {
      if (v.kind != Value::Kind::Expr) return -1;
      Node bs = unparen(batch_sampler_size(v.expr));
      if (!is(bs, "identifier")) return -1;
      auto bindings = lookup(text(bs), start(bs));
      if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->function != f) return -1;
      if (out >= 0 && out != bindings[0]->param_index) return -1;
      out = bindings[0]->param_index;
    }
  }
  return out;
}

// For each argument passed to a parameter that another module's function iterates in a hot loop,
// per epoch (the parameter's own epoch loop, the call in a loop of this module, or its function
// called in one): the call whose result the argument is, through a name bound to that result
// or to one element of it (a tuple target of the assignment itself). O(calls x parameters x 17
// bindings).
std::unordered_map<const void*, unsigned> SemanticModel::results_iterated_per_epoch() const {
  std::unordered_map<const void*, unsigned> out;
  if (!facts_) return out;
  each_external_hot_argument([&](size_t ci, const ParamSummary& p, Node arg) {
    Node a = unparen(arg);
    if (!is(a, "identifier")) return false;
    auto bindings = lookup(text(a), start(a));
    if (bindings.size() > kMaxCandidates) return false;
    for (const Binding* b : bindings) {
      if (b->kind != Binding::Kind::Assign) continue;
      Node v = unparen(b->value);
      if (!is(v, "call") || call_index_.find(v.id) == call_index_.end()) continue;
      unsigned bit = kWholeResult;
      if (b->unpack_index >= 0) {
        // Only a name of the assignment's own tuple target (`a, b = f()`), not a nested one.
        Node t = b->target;
        Node pattern = is(t, "identifier") ? parent(t) : t;
        if (!(is(pattern, "pattern_list") || is(pattern, "tuple_pattern")) || !is(parent(pattern), "assignment") ||
            b->unpack_index >= 8)
          continue;
        Node named = named_child(pattern, static_cast<uint32_t>(b->unpack_index));
        if (!is(named, "identifier") || text(named) != text(a)) continue;
        bit = 1u << b->unpack_index;
      }
      if (hot_param_per_epoch(ci, p, v)) out[v.id] |= bit;
    }
    return false;
  });
  // Iterated per epoch here: `train_loader, test_loader = get_loader(args)` then a hot loop of
  // this module over `train_loader` inside `while True:`, or `test_loader` handed to a function
  // of this module whose loop iterates it and which runs in a loop (as a construction here is
  // judged, loop_runs_per_epoch_for, with the target name standing for the construction).
  // O(external calls x elements x loops iterating them).
  for (size_t ci = 0; ci < calls_.size() && ci < ext_name_.size(); ++ci) {
    if (ext_name_[ci].empty()) continue;
    Node call = calls_[ci].call;
    Node asg = parent(call);
    if (!is(asg, "assignment") || !same(unparen(field(asg, "right")), call)) continue;
    Node pattern = field(asg, "left");
    // The whole result bound to a name a hot loop here iterates per epoch (RAFT's `train_loader =
    // datasets.fetch_dataloader(args)` then `for ... in enumerate(train_loader)` inside `while
    // should_keep_training:`, set AM): the whole result, per epoch.
    if (is(pattern, "identifier")) {
      bool feeds = false, per_epoch = false;
      for (int l : loops_iterating(call)) {  // the call is the name's loader origin
        feeds |= loops_[l].kind == LoopKind::Hot;
        per_epoch |= loop_runs_per_epoch_for(l, call);
      }
      if (feeds && per_epoch) out[call.id] |= kWholeResult | kWholeLocalEpoch;
      continue;
    }
    if (!is(pattern, "pattern_list") && !is(pattern, "tuple_pattern")) continue;
    for (uint32_t i = 0; i < named_count(pattern) && i < 8; ++i) {
      Node t = named_child(pattern, i);
      // Also `self.train_loader` of `self.train_loader, self.nclass = get_loader(args)`: the loops
      // over the attribute in the class's methods (loader_origins).
      if (!is(t, "identifier") && !(is(t, "attribute") && text(unparen(field(t, "object"))) == "self")) continue;
      bool feeds = false, per_epoch = false;
      for (int l : loops_iterating(t)) {
        feeds |= loops_[l].kind == LoopKind::Hot;
        per_epoch |= loop_runs_per_epoch_for(l, t);
      }
      if (feeds && per_epoch) out[call.id] |= 1u << i;
    }
    // Handed on: the function returns the names unpacked from the call in a tuple display whose
    // elements its own callers iterate per epoch (`train_loader, val_loader, num_data =
    // get_cifar100_dataloaders(...)` then `return train_loader, val_loader, num_data,
    // num_classes` in mdistiller's `get_dataset(cfg)`, whose caller hands both to the trainer):
    // the call's element at the name's position, per epoch. O(returns x elements).
    int f = calls_[ci].caller;
    const IncomingCalls* in = f >= 0 && facts_ ? facts_->incoming(local_name(f), fact::kResult) : nullptr;
    if (!in || !in->result_per_epoch) continue;
    for (Node r : functions_[f].returns) {
      r = unparen(r);
      if (!is(r, "expression_list") && !is(r, "tuple")) continue;
      for (uint32_t j = 0; j < named_count(r) && j < 8; ++j) {
        if (!(in->result_per_epoch & (1u << j))) continue;
        Node e = unparen(named_child(r, j));
        if (!is(e, "identifier")) continue;
        for (const Binding* b : lookup(text(e), start(e)))
          if (b->kind == Binding::Kind::Assign && b->unpack_index >= 0 && b->unpack_index < 8 &&
              same(unparen(b->value), call) && same(parent(b->target), pattern))
            out[call.id] |= 1u << b->unpack_index;
      }
    }
  }
  return out;
}

std::optional<bool> SemanticModel::external_iteration_per_epoch(Node loader_call) const {
  if (!facts_ || is_null(loader_call)) return std::nullopt;
  bool found = false;
  bool per_epoch = each_external_hot_param(loader_call, [&](size_t ci, const ParamSummary& p) {
    found = true;
    return hot_param_per_epoch(ci, p, loader_call);
  });
  if (per_epoch) return true;
  if (found) return false;
  // Returned as an element of a returned tuple (`return datas, testLoader`) to callers whose hot
  // loops iterate it (IncomingCalls::result_feeds_training): per epoch where a caller's bit for
  // that element says so, else once (test.py's and predict.py's test loader; set AA
  // Efficient-Segmentation-Networks). Returned whole: below.
  int f = function_at(start(loader_call));
  const IncomingCalls* in = f >= 0 ? facts_->incoming(local_name(f), fact::kResult | fact::kInLoop) : nullptr;
  if (!in || !in->result_feeds_training) return std::nullopt;
  bool element = false;
  auto origins = [&](Node e) -> const std::vector<Node>& { return loader_origins(e); };
  for (Node r : functions_[f].returns) {
    unsigned bits = returned_loader_bits(r, loader_call, origins);
    // Returned whole to callers whose hot loops iterate it: per epoch where a caller's loop
    // iterates the result per epoch (the whole result's bit, results_iterated_per_epoch), else,
    // called outside loops only, once (a `test_loader = datasets.fetch_test_loader(args)`
    // iterated after training); called in a loop, as before (rebuilt per pass).
    if ((bits & kWholeResult) && (in->result_per_epoch & kWholeResult)) return true;
    if ((bits & kWholeResult) && !in->in_loop) return false;
    if (bits & kWholeResult) return std::nullopt;
    if (bits & in->result_per_epoch) return true;
    element |= bits != 0;
  }
  return element ? std::optional<bool>(false) : std::nullopt;
}

bool SemanticModel::ext_classes_hold_cuda() const {
  auto on_cuda = [](int d) { return d == static_cast<int>(TypeDevice::Cuda) || d == static_cast<int>(TypeDevice::Any); };
  auto holds = [&](const FunctionFacts* f) {
    if (!f || !f->is_class) return false;
    if (!f->framework.empty() && FrameworkTable::get().uses_cuda(f->framework)) return true;  // a Trainer subclass
    if (f->iter_kind >= 0 && on_cuda(f->iter_device)) return true;
    for (const auto& a : f->attrs)
      if (on_cuda(a.device)) return true;
    return false;
  };
  for (const auto& name : ext_name_)
    if (!name.empty() && holds(facts_->callee(name, fact::kClass))) return true;
  for (const auto& c : classes_)
    for (const auto& b : c.bases)
      if (holds(facts_->callee(b, fact::kClass))) return true;
  return false;
}

int SemanticModel::devkind_of(const std::vector<Node>& exprs) const {
  // The join of what each expression names, as device_kind joins a name's values: one that may be
  // CUDA makes the whole may be CUDA (`return "cuda"` in one branch, the caller's `device_name`
  // in another); otherwise every expression must name a device. An integer literal is not taken
  // for a device (a rank, a count: an ordinal only where a move uses it).
  bool cuda = false, cpu = false, other = false, unknown = false;
  for (Node e : exprs) {
    e = unparen(e);
    if (is_null(e) || is(e, "integer")) {
      unknown = true;
      continue;
    }
    switch (device_kind(e)) {
      case DeviceKind::Cuda: cuda = true; break;
      case DeviceKind::Cpu: cpu = true; break;
      case DeviceKind::Other: other = true; break;
      default: unknown = true; break;
    }
  }
  if (cuda) return 2;
  if (unknown) return 0;
  if (cpu && !other) return 1;
  return other ? 3 : 0;
}

bool SemanticModel::ext_devices_cuda() const {
  // Called in project mode only, where device_kind reads other modules' devices (a module
  // attribute imported from one, what one of its functions returns). O(calls) device questions,
  // each memoized.
  for (const auto& cs : calls_) {
    Node fn = unparen(field(cs.call, "function"));
    Node dev{};
    if (is(fn, "attribute") && text(field(fn, "attribute")) == "to") dev = argument(cs.call, 0, "device");
    if (is_null(dev)) dev = argument(cs.call, -1, "device");
    if (is_null(dev)) continue;
    if (device_kind(dev) == DeviceKind::Cuda) return true;
  }
  return false;
}

ModuleSummary SemanticModel::summarize(const std::function<bool(std::string_view)>& is_project_name) const {
  ModuleSummary out;
  out.uses_cuda = uses_cuda_;
  out.cuda_instances = types().cuda_instance_classes();
  // Module-level imports (re-exports through a package's __init__.py).
  for (const auto& [name, list] : scopes_[0].bindings)
    if (!list.empty() && list.back().kind == Binding::Kind::Import) out.imports.push_back({name, list.back().qualified});
  std::sort(out.imports.begin(), out.imports.end());
  for (Node st : named_children(root_))
    if (is(st, "import_from_statement"))
      for (Node c : named_children(st))
        if (is(c, "wildcard_import")) out.star_imports.push_back(std::string(text(field(st, "module_name"))));
  // Names written after a dot or as a whole string: one byte scan (comments included, which
  // only adds names).
  {
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::set<std::string_view> names;
    for (size_t i = 0; i + 1 < src_.size() && names.size() <= kMaxAttributeNames; ++i) {
      char c = src_[i];
      if (c != '.' && c != '"' && c != '\'') continue;
      size_t b = i + 1;
      while (b < src_.size() && (src_[b] == ' ' || src_[b] == '\t') && c == '.') ++b;
      if (b >= src_.size() || !(std::isalpha(static_cast<unsigned char>(src_[b])) || src_[b] == '_')) continue;
      size_t e = b;
      while (e < src_.size() && word(src_[e])) ++e;
      if (c != '.' && (e >= src_.size() || src_[e] != c)) continue;  // a string: the whole of it
      names.insert(src_.substr(b, e - b));
    }
    if (names.size() > kMaxAttributeNames) out.attribute_names = {"*"};
    else
      for (std::string_view n : names) out.attribute_names.emplace_back(n);
  }
  // Attributes stored on a project module (`config.batch_size = 32`, `config.epochs += 1`,
  // `setattr(config, k, v)`: "config.*"): one walk over the tree.
  {
    std::set<std::string> stores;
    auto module_object = [&](Node obj) -> std::string {
      obj = unparen(obj);
      if (!is(obj, "identifier") && !is(obj, "attribute")) return {};
      const std::string& q = qualified_name(obj);
      return q.empty() || starts_with(q, "builtins.") || !is_project_name(q) ? std::string{} : q;
    };
    std::vector<Node> stack{root_}, targets;
    while (!stack.empty()) {
      Node n = stack.back();
      stack.pop_back();
      if (is(n, "assignment") || is(n, "augmented_assignment")) {
        targets.assign(1, field(n, "left"));
        while (!targets.empty()) {
          Node t = unparen(targets.back());
          targets.pop_back();
          if (is(t, "attribute")) {
            if (std::string q = module_object(field(t, "object")); !q.empty())
              stores.insert(q + "." + std::string(text(field(t, "attribute"))));
          } else if (is(t, "pattern_list") || is(t, "tuple_pattern") || is(t, "list_pattern")) {
            for (Node c : named_children(t)) targets.push_back(c);
          }
        }
      } else if (is(n, "call") && callee_name(n) == "builtins.setattr") {
        if (std::string q = module_object(argument(n, 0, "")); !q.empty()) stores.insert(q + ".*");
      }
      for (Node c : named_children(n)) stack.push_back(c);
    }
    if (stores.size() > 256) out.module_stores = {"*"};
    else out.module_stores.assign(stores.begin(), stores.end());
  }

  // Which parameters and calls a hot loop iterates, per epoch, under which keys (summary_params.cpp).
  const ParamIteration iteration = param_iteration();
  auto params_of = [&](int f) { return param_summaries(f, iteration); };
  // The methods each method calls on `self` (`self.process(x)`), at most 16 per method: O(calls).
  std::vector<std::vector<std::string>> self_calls(functions_.size());
  for (const CallSite& cs : calls_) {
    if (cs.caller < 0 || functions_[cs.caller].klass < 0 || self_calls[cs.caller].size() >= 16) continue;
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "attribute") || text(unparen(field(fn, "object"))) != "self") continue;
    std::string meth(text(field(fn, "attribute")));
    auto& list = self_calls[cs.caller];
    if (std::find(list.begin(), list.end(), meth) == list.end()) list.push_back(std::move(meth));
  }
  // The functions whose returns are not known to be CUDA: (function, index into out.functions),
  // given their TaintSources once the calls are listed.
  std::vector<std::pair<int, size_t>> returns_follow_of;
  for (size_t f = 0; f < functions_.size(); ++f) {
    std::string name = local_name(static_cast<int>(f));
    if (name.empty()) continue;
    FunctionFacts facts;
    facts.method = bound_params(functions_[f]) == 1;
    facts.has_hot_loop = function_has_hot_loop_[f] != 0;
    facts.steps = function_steps_[0][f] != 0;
    facts.steps_forward = function_steps_[1][f] != 0;
    // A return that hands back a parameter of the function, as it is or prepared by a framework
    // (EasyContext's `prepare_dataloader(mode, loader, accelerator)`: `return loader` in some
    // modes, `return accelerator.prepare(loader)` in data_parallel): no loader of its own. A
    // caller's loader_origins then follows the loader it hands in (the wrapper path), whose
    // workers, pinning and batch size the returned loader has on every path.
    auto own_param = [&](Node e) {
      e = unparen(e);
      if (!is(e, "identifier")) return false;
      auto bindings = lookup(text(e), start(e));
      if (bindings.empty()) return false;
      for (const Binding* b : bindings)
        if (b->kind != Binding::Kind::Param || b->function != static_cast<int>(f) || b->param_index < 0 ||
            functions_[f].params[static_cast<size_t>(b->param_index)].is_variadic)
          return false;
      return true;
    };
    auto hands_back_param = [&](Node r) {
      r = unparen(r);
      if (own_param(r)) return true;
      if (!is(r, "call")) return false;
      Node fn = unparen(field(r, "function"));
      if (!is(fn, "attribute") || !FrameworkTable::get().is_prepare_method(text(field(fn, "attribute")))) return false;
      auto args = named_children(field(r, "arguments"));
      return args.size() == 1 && own_param(args[0]);
    };
    AbstractType returned = AbstractType::bottom();
    for (Node r : functions_[f].returns) {
      returned = join(returned, types().type_of(r));
      facts.returns_cuda |= is_cuda(r);
      if (!hands_back_param(r)) facts.returns_loader |= is_loader_impl(r);
      facts.returns_module |= is_module_value(r);
    }
    facts.returns_tensor = uses_cuda_ && returned.kind == AbstractType::Kind::Tensor && cuda_answer(returned) == CudaAnswer::Cuda;
    facts.ret_elem_cuda = returned_elements_cuda(static_cast<int>(f));
    facts.returns_class = types().class_name(returned);  // `get_model()` returns a `models.Net`
    if (facts.returns_class.empty() && returned.klass == -1 &&
        (returned.kind == AbstractType::Kind::Module || returned.kind == AbstractType::Kind::Object))
      for (Node r : functions_[f].returns) {  // one of several classes: `return A(...)` / `return B(...)`
        if (types().type_of(r).kind == AbstractType::Kind::None) continue;
        std::string c = types().class_names(r, TypeInference::Path{});
        facts.returns_class = c.empty() ? std::string{} : facts.returns_class.empty() ? c : union_join(facts.returns_class, c);
        if (facts.returns_class.empty()) break;
      }
    facts.returns_module |= returned.kind == AbstractType::Kind::Module;  // by its types: `model.module if p else model`
    facts.devkind = devkind_of(functions_[f].returns);
    types().return_facts(static_cast<int>(f), facts);
    types().dependence_facts(static_cast<int>(f), facts);
    if (functions_[f].klass < 0) facts.registry = registry_of(functions_[f].node);
    facts.params = params_of(static_cast<int>(f));
    facts.batch_size_param = batch_size_param(static_cast<int>(f));
    facts.workers_param = loader_workers_param(*this, static_cast<int>(f));
    facts.returns_first_item = returns_first_item(static_cast<int>(f));
    // Every return an argparse namespace (`return parser.parse_args()` in a `configs.add_args(parser)`
    // helper): the values of the attributes this module's parsers declare travel with it.
    if (!argparse_args_.empty() && !functions_[f].returns.empty()) {
      bool ns = true;
      for (Node r : functions_[f].returns) {
        auto vs = values(r);
        ns = ns && !vs.empty();
        for (const auto& v : vs) ns = ns && namespace_value(v);
        if (!ns) break;
      }
      if (ns) namespace_facts_of_parsers(facts);
    }
    facts.returns_mask = returns_mask(static_cast<int>(f), 0);
    if (functions_[f].klass >= 0) facts.self_calls = self_calls[f];
    if (!facts.returns_cuda) returns_follow_of.push_back({static_cast<int>(f), out.functions.size()});
    out.functions.push_back({std::move(name), std::move(facts)});
  }
  // The methods each class's methods call on `self` once per step, unamortized: O(calls).
  std::vector<std::vector<std::string>> hot_self_calls(classes_.size());
  for (const CallSite& cs : calls_) {
    if (cs.caller < 0 || functions_[cs.caller].klass < 0 || cs.lambda_depth > 0) continue;
    auto& list = hot_self_calls[static_cast<size_t>(functions_[cs.caller].klass)];
    Node fn = unparen(field(cs.call, "function"));
    if (list.size() >= 16 || !is(fn, "attribute") || text(unparen(field(fn, "object"))) != "self") continue;
    // Under no condition at all: a call the base runs only when a setting allows
    // (`if opt.debug > 0: self.debug(...)`, the setting unresolved in the base's module) is not
    // known to run per step.
    if (!cs.guards.empty()) continue;
    HotContext h = frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth);
    if (!h.hot || h.every != 0 || h.once_per_epoch || h.flag_guarded) continue;
    std::string meth(text(field(fn, "attribute")));
    if (std::find(list.begin(), list.end(), meth) == list.end()) list.push_back(std::move(meth));
  }
  // A module-level class: calling it constructs an instance (its __init__'s parameters).
  for (size_t c = 0; c < classes_.size(); ++c) {
    if (scopes_[classes_[c].scope].parent != 0) continue;
    FunctionFacts facts;
    facts.method = true;
    facts.returns_module = is_subclass_of(static_cast<int>(c), {"torch.nn.Module", "torch.nn.modules.module.Module"});
    auto init = classes_[c].methods.find("__init__");
    if (init != classes_[c].methods.end()) facts.params = params_of(init->second);
    types().class_facts(static_cast<int>(c), facts);
    for (const auto& b : classes_[c].bases)
      if (facts.bases.size() < 4 && b != "object" && !starts_with(b, "builtins.")) facts.bases.push_back(b);
    facts.registry = registry_of(classes_[c].node);
    // Only a class whose initializer leaves every option to the call (loader_class_ 1): one
    // that stores `self.num_workers` is a loader of another module's call that passes none.
    facts.loader_class = loader_class(static_cast<int>(c)) && loader_class_[c] == 1;
    facts.hot_self_calls = hot_self_calls[c];
    std::sort(facts.hot_self_calls.begin(), facts.hot_self_calls.end());
    {  // a subclass's stores reach another module's class; any class's tell what its instances hold
      const auto& stores = self_stores(static_cast<int>(c));
      if (stores.size() > 16) facts.self_stores = {"*"};  // the facts keep at most 16 names
      else facts.self_stores.assign(stores.begin(), stores.end());
    }
    out.functions.push_back({classes_[c].name, std::move(facts)});
  }
  // Module-level names bound once to a dict display of classes (`train_factory = {"ctdet":
  // CtdetTrainer, ...}`): a class of this module by its name, an imported one by its qualified
  // name; the table keeps the entry only when every value is a project class.
  std::vector<std::pair<std::string, FunctionFacts>> tables;
  for (const auto& [name, list] : scopes_[0].bindings) {
    if (list.size() != 1 || list[0].kind != Binding::Kind::Assign || list[0].unpack_index >= 0) continue;
    Node d = unparen(list[0].value);
    if (!is(d, "dictionary") || classes_by_name_.count(name) || named_count(d) == 0 || named_count(d) > 8) continue;
    FunctionFacts facts;
    for (Node pair : named_children(d)) {
      Node v = is(pair, "pair") ? unparen(field(pair, "value")) : Node{};
      std::string written;
      if (!is_null(v) && is(v, "identifier") && classes_by_name_.count(std::string(text(v)))) {
        auto bindings = lookup(text(v), start(v));
        if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Class) written = std::string(text(v));
      } else if (!is_null(v) && (is(v, "identifier") || is(v, "attribute"))) {
        written = qualified_name(v);
        if (starts_with(written, "builtins.") || !is_project_name(written)) written.clear();
      }
      if (written.empty()) {
        facts.table_classes.clear();
        break;
      }
      facts.table_classes.push_back(std::move(written));
    }
    if (!facts.table_classes.empty()) tables.push_back({name, std::move(facts)});
  }
  // A module-level parser (`parser = argparse.ArgumentParser(...)` bound once, opts.py's), which
  // other modules import to parse the command line themselves (`from opts import parser`;
  // `args = parser.parse_args()`): its entry carries this module's argparse defaults as a
  // namespace-returning function's does (SemanticModel::ext_namespaces; rec28b).
  if (!argparse_args_.empty())
    for (const auto& [name, list] : scopes_[0].bindings) {
      if (list.size() != 1 || list[0].kind != Binding::Kind::Assign || list[0].unpack_index >= 0) continue;
      Node v = unparen(list[0].value);
      if (is_null(v) || !is(v, "call") || callee_name(v) != "argparse.ArgumentParser") continue;
      FunctionFacts facts;
      namespace_facts_of_parsers(facts);
      tables.push_back({name, std::move(facts)});
    }
  // Module-level names bound only to devices (`DEVICE = torch.device("cuda" if ... else "cpu")`):
  // what a module importing the name moves tensors to. And names bound only to host constants
  // by module-level assignments (`num_workers = 0`, `a, b = 8, 0`) that no `global` statement
  // rebinds: what `CFG.num_workers` reads in another module (the table drops them when a module
  // stores into the attribute).
  for (const auto& [name, list] : scopes_[0].bindings) {
    if (list.empty() || list.size() > kMaxCandidates || classes_by_name_.count(name)) continue;
    std::vector<Node> values;
    bool assigns = true, unpacked = false;
    for (const Binding& b : list) {
      if (b.kind != Binding::Kind::Assign || is_null(b.value)) {
        assigns = false;
        break;
      }
      unpacked |= b.unpack_index >= 0;
      values.push_back(b.value);
    }
    if (!assigns) continue;
    FunctionFacts facts;
    if (!unpacked) facts.devkind = devkind_of(values);
    if (!declared_global(name)) {
      bool constant = true;
      for (const Binding& b : list)
        for (const Value& v : binding_values(b)) {
          constant = constant && v.kind != Value::Kind::Unknown && v.kind != Value::Kind::Expr;
          ScalarFact f = to_scalar_fact(v);
          auto& cs = facts.const_values;
          if (constant && std::find(cs.begin(), cs.end(), f) == cs.end()) cs.push_back(std::move(f));
        }
      if (!constant || facts.const_values.size() > kMaxCandidates) facts.const_values.clear();
    }
    if (facts.devkind || !facts.const_values.empty()) tables.push_back({name, std::move(facts)});
  }
  std::sort(tables.begin(), tables.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& t : tables) out.functions.push_back(std::move(t));

  // A name every binding of which is a parameter of a method no call passes (no call site here,
  // none in another module: a class built dynamically, set AK Time-Series-Library's
  // `models/Koopa.py` `Model(configs)` that the experiments build through an importlib-backed dict,
  // whose `data_provider(configs, 'train')` hands on its `configs`), or a parameter whose every
  // call site here hands it such a name (at most 4 deep): what it holds is nothing a resolved
  // call passes, so the site adds nothing to the namespace join (ArgFacts::ns 3), as a launcher the
  // prefilter leaves out adds no call. Methods only: a function may be a callback or an entry
  // point handed to a library (`fire.Fire(main)`).
  std::function<bool(Node, int)> uncalled_param = [&](Node a, int depth) -> bool {
    a = unparen(a);
    if (depth > 4 || !is(a, "identifier")) return false;
    auto bindings = lookup(text(a), start(a));
    if (bindings.empty() || bindings.size() > kMaxCandidates) return false;
    for (const Binding* b : bindings) {
      if (b->kind != Binding::Kind::Param || b->function < 0) return false;
      const Function& fn = functions_[b->function];
      if (b->param_index < 0 || static_cast<size_t>(b->param_index) >= fn.params.size()) return false;
      const Param& p = fn.params[b->param_index];
      int position = b->param_index - bound_params(fn);
      if (fn.klass < 0 || p.is_variadic || !is_null(p.default_value) || position < 0) return false;
      if (const ArgFacts* ext = ext_param(b->function, b->param_index, fact::kValues); ext && (ext->passed || ext->defaulted))
        return false;
      for (int ci : init_sites(b->function))
        if (!uncalled_param(argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name), depth + 1)) return false;
    }
    return true;
  };
  auto arg_facts = [&](Node a, bool dead) {
    ArgFacts f;
    f.passed = true;
    f.cuda = is_cuda(a);
    f.module = is_module_value(a);
    f.loader = is_loader_impl(a);
    f.batch = is_batch_impl(a) && !is_cuda(a);
    f.step = is_step_data(a);
    f.device_cuda = device_kind(a) == DeviceKind::Cuda;
    AbstractType t = types().type_of(a);
    f.module |= t.kind == AbstractType::Kind::Module;  // `model` after `model = model.to(device)`
    f.tensor = t.kind == AbstractType::Kind::Tensor && cuda_answer(t) == CudaAnswer::Cuda;
    // A value of unknown type leaves the others' answer ("may be CUDA" holds if one caller's does).
    f.untyped = !f.tensor && t.kind != AbstractType::Kind::Unknown && t.kind != AbstractType::Kind::Bottom;
    // The type itself (a Bottom, met in a cycle, is unknown here); a class index does not travel.
    f.type_kind = static_cast<int>(t.kind == AbstractType::Kind::Bottom ? AbstractType::Kind::Unknown : t.kind);
    f.type_device = static_cast<int>(t.device);
    f.klass = types().class_name(t);  // an instance of a project class: its class travels
    if (f.klass.empty()) f.klass = "?";
    // An argument of a call in a branch that never runs (`if args.use_cached:` of a store_true
    // flag left False), unknown there because no binding reaches dead code (`moments = samples`
    // under the flag): it types nothing (Bottom, no class), so the live call sites' types decide
    // (mar's `DiagonalGaussianDistribution(moments)` of the CUDA encoder output). Its other facts
    // stay, as before.
    if (dead && t.kind == AbstractType::Kind::Unknown) {
      f.type_kind = static_cast<int>(AbstractType::Kind::Bottom);
      f.type_device = 0;
      f.klass.clear();
    }
    // A tuple display: the taint of each element (`fn(dn_args=(targets, self.dn_number))`).
    if (Node u = unparen(a); (is(u, "tuple") || is(u, "list")) && named_count(u) >= 1 && named_count(u) <= 8) {
      for (Node e : named_children(u)) {
        if (is(e, "list_splat") || is(e, "comment")) {
          f.elem_cuda.clear();
          f.elem_types.clear();
          break;
        }
        f.elem_cuda.push_back(is_cuda(e) ? 1 : 0);
        AbstractType et = types().type_of(e);
        if (et.kind == AbstractType::Kind::Bottom) et = AbstractType::unknown();
        f.elem_types.push_back({static_cast<int>(et.kind), static_cast<int>(et.device)});
      }
    } else {
      // A name bound to a tuple, a call returning one (`batch = to_device(batch, device)`): the
      // elements' taint where known (elements_cuda), their types not.
      f.elem_cuda = elements_cuda(a);
    }
    f.elems_mixed = f.elem_cuda.empty();
    std::vector<ScalarFact> vs;
    // Scalar values flow one call deep: a parameter handed on is unknown to the next module
    // (a chain of rounds along every call path otherwise).
    bool through_param = false;
    if (is(unparen(a), "identifier"))
      for (const Binding* b : lookup(text(unparen(a)), start(a))) through_param |= b->kind == Binding::Kind::Param;
    if (through_param) vs.push_back(ScalarFact{});
    else
      for (const auto& v : values(a)) vs.push_back(to_scalar_fact(v));
    ArgFacts vals;
    vals.values = std::move(vs);
    f.join(vals);
    // An argparse namespace: its attributes' values travel (ArgFacts::ns_values), also when it
    // is a parameter here that other modules hand one (`get_data(args)` -> `get_imagenet(args)`).
    f.ns = namespace_facts(a, f.ns_values) ? 1 : uncalled_param(a, 0) ? 3 : 2;
    // A dict of settings: its literal keys' values travel (ArgFacts::dict_values).
    f.dict = !through_param && dict_facts(a, f.dict_values) ? 1 : 2;
    // A dict holding loaders under literal keys (ArgFacts::loader_keys).
    if (Node u = unparen(a); is(u, "identifier") || is(u, "dictionary") || is(u, "call")) {
      std::set<std::string> keys;
      for (const auto& [key, item] : dict_entries(u).items)
        if (keys.size() < kMaxLoaderKeys && !keys.count(key) && is_loader_impl(item)) keys.insert(key);
      f.loader_keys.assign(keys.begin(), keys.end());
    }
    // The values its elements may take (a tuple of strings a dispatch loop reads).
    std::vector<ScalarFact> evs;
    for (const auto& v : element_values(a)) evs.push_back(to_scalar_fact(v));
    join_scalars(f.elem_values, evs);
    return f;
  };
  const auto per_epoch_results = results_iterated_per_epoch();
  // `samples = samples.to(device)` in a loop over a loader whose batch is not a tensor by its
  // type (DETR's NestedTensor built by the collate_fn): the batch object's own `to`/`cuda`, a
  // method of a project class this module cannot name. A call of "*.to" ("*.cuda"): the project
  // binds it to the methods of that name of its classes that are not nn.Modules (FactsTable), the
  // receiver a host batch, so the copies in the method are the step's (detr22).
  auto batch_object_move = [&](Node call) -> std::string {
    Node fn = unparen(field(call, "function"));
    if (!is(fn, "attribute")) return {};
    auto method = text(field(fn, "attribute"));
    if (method != "to" && method != "cuda") return {};
    Node obj = unparen(field(fn, "object"));
    if (!is(obj, "identifier") || text(obj) == "self") return {};
    if (!is_batch_value(obj) || is_cuda(obj)) return {};
    auto k = types().type_of(obj).kind;
    if (k != AbstractType::Kind::Unknown && k != AbstractType::Kind::Object) return {};
    return "*." + std::string(method);
  };
  // The argument nodes of each outgoing call made by a named function, and the outgoing call of
  // each call node that gives exactly one (taint_sources).
  std::vector<std::pair<size_t, ArgNodes>> arg_nodes;
  std::unordered_map<const void*, size_t> call_out;
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    const void* cs_call_id = calls_[ci].call.id;
    size_t emitted = 0;
    std::string names = ci < ext_name_.size() ? ext_name_[ci] : external_name(static_cast<int>(ci));
    if (names.empty()) names = batch_object_move(calls_[ci].call);
    if (names.empty()) names = unknown_module_method(calls_[ci].call);
    if (names.empty()) {
      // `factory[key](...)`, `C = factory[key]; C(...)` with `factory` a project name not (yet)
      // known as a dict of classes: a reference, so that the project analyzes its module (one
      // without torch and loops is left out otherwise) and this one learns what it holds.
      std::string ref = table_reference(calls_[ci].call);
      if (!ref.empty() && is_project_name(ref)) {
        OutgoingCall oc;
        oc.callee = std::move(ref);
        oc.line = ts_node_start_point(calls_[ci].call).row + 1;
        out.calls.push_back(std::move(oc));
      }
      continue;
    }
    // A call of one of several project functions (a class union, a registry lookup): a call of each.
    std::vector<std::string> members = union_members(names);
    // A name bound by several imports of different project functions (benchmarking-gnns's
    // `from train.train_SBMs import train_epoch_dense as train_epoch` in one branch and
    // `... train_epoch_sparse as train_epoch` in the other; set AH, rec28b): qualified_name()
    // names the first one written, and the call may run each, so each gets the call (as a type
    // checker joins the declarations). Only the first written counts for the call's own
    // outgoing index (call_out), as before.
    const size_t primary = members.size();
    if (Node fn = unparen(field(calls_[ci].call, "function"));
        is(fn, "identifier") && members.size() == 1 && is_project_name(members[0])) {
      auto bindings = lookup(text(fn), start(fn));
      bool all_imports = bindings.size() > 1 && bindings.size() <= kMaxCandidates;
      for (const Binding* b : bindings) all_imports = all_imports && b->kind == Binding::Kind::Import;
      if (all_imports)
        for (const Binding* b : bindings)
          if (!b->qualified.empty() && std::find(members.begin(), members.end(), b->qualified) == members.end())
            members.push_back(b->qualified);
    }
    size_t primary_index = 0;
    for (size_t mi = 0; mi < members.size(); ++mi) {
      std::string& name = members[mi];
      if (name.empty() || (!starts_with(name, "*.") && !starts_with(name, "%.") && !is_project_name(name))) continue;
      const CallSite& cs = calls_[ci];
      OutgoingCall oc;
      oc.callee = std::move(name);
      oc.line = ts_node_start_point(cs.call).row + 1;
      HotContext h = frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth);
      oc.hot = h.hot;
      oc.every = h.every;
      oc.once_per_epoch = h.once_per_epoch;
      oc.flag_guarded = h.flag_guarded;
      // A call in an out-of-memory handler runs on a failure, not per step (rules/SY004.md).
      const bool oom_handler = model_detail::in_oom_handler(cs.call, src_);
      if (oom_handler) oc.once_per_epoch = true;
      oc.in_loop = !cs.loops.empty() || function_called_in_loop(cs.caller);
      oc.caller = local_name(cs.caller);
      rebuild_context(cs, oc.rebuilds, oc.rebuilds_if_caller);
      if (!h.hot && cs.lambda_depth == 0 && cs.caller >= 0) {
        // Hot when its function is: as frame_hot_context for a function without a hot loop here.
        bool in_hot_loop = false;
        for (int l : cs.loops) in_hot_loop |= loops_[l].kind == LoopKind::Hot;
        if (!in_hot_loop && !oc.caller.empty()) {
          HotContext g;
          g.hot = true;
          apply_guards(g, cs.guards, 0, Node{});
          oc.hot_if_caller = true;
          oc.caller_every = g.every;
          oc.caller_once_per_epoch = g.once_per_epoch || oom_handler;
          oc.caller_flag_guarded = g.flag_guarded;
        }
      }
      oc.result_feeds_training = iteration.iterated_calls.count(cs.call.id) != 0;
      if (auto it = per_epoch_results.find(cs.call.id); it != per_epoch_results.end()) oc.result_per_epoch = it->second;
      if (auto it = iteration.attrs_iterated.find(cs.call.id); it != iteration.attrs_iterated.end()) {
        oc.attrs_fed = it->second;
        std::sort(oc.attrs_fed.begin(), oc.attrs_fed.end());
      }
      ArgNodes nodes;
      nodes.caller = cs.caller;
      const bool dead = guards_dead(model_detail::branch_guards(cs.call));
      for (auto a : named_children(field(cs.call, "arguments"))) {
        auto k = kind(a);
        if (k == "keyword_argument" || k == "dictionary_splat" || k == "comment") continue;
        if (k == "list_splat") {
          oc.splat = true;
          break;
        }
        oc.positional.push_back(arg_facts(a, dead));
        nodes.positional.push_back(a);
      }
      Kwargs kw = keyword_arguments(cs.call);
      if (!kw.complete) oc.splat = true;
      // What the splats spread: CUDA elements make the parameters they bind maybe CUDA.
      for (auto a : named_children(field(cs.call, "arguments")))
        if ((is(a, "list_splat") || is(a, "dictionary_splat")) && is_cuda(named_child(a, 0))) oc.splat_cuda = true;
      for (const auto& [key, value] : kw.items) {
        oc.keywords.push_back({key, arg_facts(value, dead)});
        nodes.keywords.push_back(value);
      }
      if (!oc.caller.empty()) arg_nodes.push_back({out.calls.size(), std::move(nodes)});
      if (mi < primary) {
        ++emitted;
        primary_index = out.calls.size();
      }
      out.calls.push_back(std::move(oc));
    }
    if (emitted == 1) call_out[cs_call_id] = primary_index;
  }
  taint_sources(out, arg_nodes, returns_follow_of, call_out);
  out.module_reads.assign(module_reads_.begin(), module_reads_.end());
  return out;
}

// What a value's CUDA taint certainly follows (speed15; FunctionFacts::returns_follow,
// OutgoingCall::positional_follow): a mirror of is_cuda_impl restricted to the steps where the
// taint of an operand is the value's (arithmetic, conditional branches, subscripts, names bound
// to such expressions, a few tensor methods, a call of another module's function whose return is
// CUDA when an argument is or when its facts say so), ending at the function's parameters and at
// the returns of the module's outgoing calls. An expression whose type already decides is left
// out (CUDA: nothing to relay; host: not CUDA whatever its operands). Each node is visited once
// per summary (memoized; a cycle contributes nothing): O(nodes) per module.
void SemanticModel::taint_sources(ModuleSummary& out, const std::vector<std::pair<size_t, ArgNodes>>& arg_nodes,
                                  const std::vector<std::pair<int, size_t>>& returns_of,
                                  const std::unordered_map<const void*, size_t>& call_out) const {
  struct Found {
    std::vector<std::pair<int, int>> params;  // (function, parameter index)
    std::vector<size_t> calls;                // outgoing call indices
  };
  std::unordered_map<const void*, Found> memo;
  static const Found kNone;
  // Tensor methods whose result lives where the tensor does (none of is_cuda_impl's host methods).
  static const std::set<std::string, std::less<>> passing = {
      "view", "reshape", "float", "half", "double", "bfloat16", "long", "int", "bool", "contiguous", "permute",
      "transpose", "flatten", "unsqueeze", "squeeze", "clone", "detach", "mean", "sum", "softmax", "sigmoid",
      "relu", "exp", "sqrt", "abs", "clamp", "expand", "expand_as", "repeat", "chunk", "split", "type_as",
      "masked_fill", "mul", "add", "sub", "div", "matmul", "norm", "max", "min", "argmax", "t", "pow"};
  std::function<const Found&(Node, int)> walk = [&](Node e, int depth) -> const Found& {
    e = unparen(e);
    if (is_null(e) || depth > 24) return kNone;
    auto [slot, fresh] = memo.try_emplace(e.id);
    if (!fresh) return slot->second;  // done, or in progress (a cycle: nothing)
    if (types().cuda(e) != CudaAnswer::Undecided) return slot->second;
    Found got;
    auto add = [&](Node n) {
      const Found& f = walk(n, depth + 1);
      got.params.insert(got.params.end(), f.params.begin(), f.params.end());
      got.calls.insert(got.calls.end(), f.calls.begin(), f.calls.end());
    };
    auto k = kind(e);
    if (k == "identifier") {
      auto bindings = lookup(text(e), start(e));
      if (bindings.size() <= kMaxCandidates)
        for (const Binding* b : bindings) {
          if (b->kind == Binding::Kind::Param) {
            if (b->function >= 0 && b->param_index >= 0 &&
                !functions_[b->function].params[static_cast<size_t>(b->param_index)].is_variadic)
              got.params.push_back({b->function, b->param_index});
          } else if (b->kind == Binding::Kind::Assign || b->kind == Binding::Kind::With) {
            if (b->unpack_index < 0) {
              add(b->value);
            } else if (Node v = unparen(b->value);
                       (is(v, "tuple") || is(v, "expression_list") || is(v, "list")) &&
                       b->unpack_index < static_cast<int>(named_count(v))) {
              add(named_child(v, static_cast<uint32_t>(b->unpack_index)));
            }
          } else if (b->kind == Binding::Kind::AugAssign) {
            add(field(b->value, "right"));
          }
        }
    } else if (k == "subscript") {
      // `targets[0]` of a tuple whose element 0 is host (elements_cuda): it follows nothing.
      Node index = unparen(field(e, "subscript"));
      auto c = is(index, "integer") ? constant(index) : std::nullopt;
      std::vector<char> elems;
      if (c && c->kind == Value::Kind::Int && c->i >= 0) elems = elements_cuda(field(e, "value"));
      if (!(c && c->kind == Value::Kind::Int && c->i >= 0 && static_cast<size_t>(c->i) < elems.size() &&
            elems[static_cast<size_t>(c->i)] == 0))
        add(field(e, "value"));
    } else if (k == "binary_operator") {
      if (!(text(field(e, "operator")) == "%" && is_str_expr(field(e, "left")))) {
        add(field(e, "left"));
        add(field(e, "right"));
      }
    } else if (k == "unary_operator") {
      add(field(e, "argument"));
    } else if (k == "conditional_expression") {
      auto parts = named_children(e);
      if (parts.size() == 3) {
        add(parts[0]);
        add(parts[2]);
      }
    } else if (k == "boolean_operator") {
      add(field(e, "left"));
      add(field(e, "right"));
    } else if (k == "list" || k == "tuple" || k == "expression_list") {
      for (Node c : named_children(e)) add(is(c, "list_splat") ? named_child(c, 0) : c);
    } else if (k == "call") {
      Node fn = unparen(field(e, "function"));
      auto targets = callees(e);
      const FunctionFacts* ext = targets.empty() ? ext_callee_of(e, fact::kReturnsCuda | fact::kReturnDep) : nullptr;
      if (!targets.empty()) {
        // A function of this module: its return's dependence on the arguments, where known.
        for (int f : targets) {
          const ReturnDependence& d = types().return_dependence(f);
          if (!d.known) continue;
          std::vector<Node> args;
          for (const auto& use : d.uses) {
            if (use.moved) continue;  // moved to CUDA: CUDA whatever the argument
            Node a = types().site_argument(f, use.param, e);
            if (!is_null(a) && use.called) {
              bool nothing = false;
              a = called_result(a, nothing);
              if (nothing) continue;
            }
            if (is_null(a)) {
              args.clear();
              break;
            }
            args.push_back(a);
          }
          for (Node a : args) add(a);
        }
      } else if (ext) {
        // Another module's function: what it returns with these arguments, or its return facts.
        if (auto args = dep_site_arguments(*ext, e)) {
          for (Node a : *args) add(a);
        } else if (auto it = call_out.find(e.id); it != call_out.end()) {
          got.calls.push_back(it->second);
        }
      } else if (is(fn, "attribute")) {
        std::string_view m = text(field(fn, "attribute"));
        std::string q = qualified_name(fn);
        if (passing.count(m) && !starts_with(q, "torch.") && !starts_with(q, "numpy.") &&
            !starts_with(q, "builtins.") && !starts_with(q, "math."))
          add(field(fn, "object"));
      }
    }
    std::sort(got.params.begin(), got.params.end());
    got.params.erase(std::unique(got.params.begin(), got.params.end()), got.params.end());
    std::sort(got.calls.begin(), got.calls.end());
    got.calls.erase(std::unique(got.calls.begin(), got.calls.end()), got.calls.end());
    if (got.params.size() > 16) got.params.resize(16);
    if (got.calls.size() > 16) got.calls.resize(16);
    Found& at = memo[e.id];  // references into the map stay valid
    at = std::move(got);
    return at;
  };
  auto sources = [&](Node e, int function) {
    TaintSources t;
    const Found& f = walk(e, 0);
    for (auto [fn, p] : f.params)
      if (fn == function) t.params.push_back(p);
    for (size_t c : f.calls) t.calls.push_back(static_cast<int>(c));
    return t;
  };
  for (const auto& [index, nodes] : arg_nodes) {
    OutgoingCall& oc = out.calls[index];
    auto fill = [&](std::vector<TaintSources>& follow, size_t i, const ArgFacts& facts, Node a) {
      if (facts.cuda) return;
      TaintSources t = sources(a, nodes.caller);
      if (t.empty()) return;
      follow.resize(std::max(follow.size(), i + 1));
      follow[i] = std::move(t);
    };
    for (size_t i = 0; i < nodes.positional.size() && i < oc.positional.size(); ++i)
      fill(oc.positional_follow, i, oc.positional[i], nodes.positional[i]);
    for (size_t i = 0; i < nodes.keywords.size() && i < oc.keywords.size(); ++i)
      fill(oc.keyword_follow, i, oc.keywords[i].second, nodes.keywords[i]);
  }
  for (auto [f, index] : returns_of) {
    TaintSources t;
    for (Node r : functions_[f].returns) {
      TaintSources s = sources(r, f);
      t.params.insert(t.params.end(), s.params.begin(), s.params.end());
      t.calls.insert(t.calls.end(), s.calls.begin(), s.calls.end());
    }
    std::sort(t.params.begin(), t.params.end());
    t.params.erase(std::unique(t.params.begin(), t.params.end()), t.params.end());
    std::sort(t.calls.begin(), t.calls.end());
    t.calls.erase(std::unique(t.calls.begin(), t.calls.end()), t.calls.end());
    out.functions[index].second.returns_follow = std::move(t);
  }
}

}  // namespace stoker::python
