// The semantic model's side of project mode: naming the project functions a call may invoke,
// reading the facts other modules supply (ExternalFacts); the summary of this module for them is
// summary.cpp.
#include <algorithm>
#include <functional>
#include <cctype>
#include <set>
#include <tuple>

#include "python/call_positions.h"
#include "python/class_constants.h"
#include "python/frameworks.h"
#include "python/loader_wrappers.h"
#include "python/model_internal.h"
#include "python/model_argparse.h"
#include "python/module_api.h"
#include "python/project_fields.h"
#include "python/semantic_model.h"
#include "python/types.h"

namespace stoker::python {

using model_detail::starts_with;

namespace {

// Where a return `r` holds the loader construction `loader_call` (by `origins`, loader_origins):
// kWholeResult for r itself, bit i for element i of a returned tuple (the first eight, as
// IncomingCalls::result_per_epoch counts them). O(elements) memoized origin lookups.
// A returned dict holding the loader as an item (SemanticModel::dict_entries: `return dataloaders`
// of `{x: DataLoader(...) for x in ['train', 'val']}`, set BA ChangeFormer) is the whole result
// too: its callers' facts say whether its loader keys are iterated (ret_loader_keys).
template <class Origins>
unsigned returned_loader_bits(const SemanticModel& m, Node r, Node loader_call, Origins&& origins) {
  auto holds = [&](Node e) {
    for (Node o : origins(e))
      if (same(o, loader_call)) return true;
    return false;
  };
  r = unparen(r);
  unsigned bits = holds(r) ? kWholeResult : 0;
  if (!bits)
    for (const auto& [key, item] : m.dict_entries(r).items)
      if (holds(item)) bits = kWholeResult;
  // A dict of loaders under unknown keys (a comprehension over `datasets.items()`, directly or
  // through a name: SemanticModel::dict_values_of), whole or as a tuple element (egnn's `return
  // dataloaders, charge_scale`, set BM): its callers' `d[k]` reads (ret_loader_dicts).
  auto in_dict = [&](Node e) {
    for (Node v : m.dict_values_of(e))
      if (holds(v)) return true;
    return false;
  };
  if (!bits && in_dict(r)) bits = kWholeResult;
  if (is(r, "tuple") || is(r, "expression_list"))
    for (uint32_t i = 0; i < named_count(r) && i < 8; ++i)
      if (holds(named_child(r, i)) || in_dict(named_child(r, i))) bits |= 1u << i;
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
template <class StarName>
std::string alias_name(const SemanticModel& m, const ExternalFacts* facts, Node fn, const StarName& star_name) {
  fn = unparen(fn);
  if (!is(fn, "identifier")) return {};
  auto bindings = m.lookup(m.text(fn), start(fn));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return {};
  std::vector<std::string> names;
  for (const Binding* b : bindings) {
    Node v = b->plain_value();
    if (!is(v, "identifier") && !is(v, "attribute")) return {};
    std::string q = m.qualified_name(v);
    // `agent = RNDAgent` with RNDAgent bound by `from agents import *` (set BB's RND train.py).
    if (q.empty() && is(v, "identifier") && m.lookup(m.text(v), start(v)).empty()) q = star_name(m.text(v));
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
  Node obj{};
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
  // `self.m(...)` in a method of a module-level class C that neither C nor a base of it here
  // defines: the method C inherits from a base of another module (set AJ End-to-end-ASR-Pytorch:
  // Solver.exec in bin/train_asr.py runs `self.backward(loss)` of BaseSolver in src/solver.py per
  // step). Named "C.m", which the FactsTable resolves through C's bases in order; a method no
  // project class defines (a library base's: `self.log` of a LightningModule) names nothing.
  if (is(fn, "attribute") && is(unparen(field(fn, "object")), "identifier") && text(unparen(field(fn, "object"))) == "self" &&
      facts_ && calls_[ci].caller >= 0) {
    int klass = functions_[calls_[ci].caller].klass;
    std::string method(text(field(fn, "attribute")));
    if (klass >= 0 && scopes_[classes_[klass].scope].parent == 0 && !starts_with(method, "__") &&
        model_detail::inherited_method(classes_, classes_by_name_, klass, method) < 0) {
      std::string name = facts_->canonical(classes_[klass].name, true);
      if (!name.empty()) {
        name += "." + method;
        if (facts_->callee(name, fact::kExists)) return name;
      }
    }
  }
  auto star = [this](std::string_view name) { return star_imported_name(name); };
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
      if (c.empty()) c = alias_name(*this, facts_, field(e, "function"), star);
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
  // `utils.get_loaders(args)` with `utils` a module the starred module imports (`from
  // models.trainer import *` over its `import utils`: set BA ChangeFormer's main_cd.py).
  if (Node o = is(fn, "attribute") ? unparen(field(fn, "object")) : Node{};
      is(o, "identifier") && lookup(text(o), start(o)).empty() && is(field(fn, "attribute"), "identifier"))
    if (std::string s = star_imported_name(std::string(text(o)) + "." + std::string(text(field(fn, "attribute"))));
        !s.empty())
      return s;
  if (std::string t = class_table_name(fn); !t.empty()) return t;  // `Trainer(opt)`: constructs one of them
  if (std::string d = display_choice_name(fn); !d.empty()) return d;  // `{"a": A, "b": B}[name](...)`
  if (std::string a = alias_name(*this, facts_, fn, star); !a.empty()) return a;
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
      if (b->is_plain_assign()) {
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
  if (is(fn, "subscript")) {
    if (std::string r = registry_lookup(fn); !r.empty()) return r;
    // `l['function'](outputs, labels)` over a list of dict displays (model_detail::
    // dict_element_items: MGN's `self.loss.append({'function': TripletLoss(...), ...})`): the
    // `__call__` of each class whose instance a display holds there, or the function it names
    // (as the module writes it: the FactsTable keeps the project's). At most kMaxClassUnion.
    std::string names;
    for (Node item : model_detail::dict_element_items(*this, fn))
      for (const auto& v : values(item)) {
        std::string name;
        if (v.kind == Value::Kind::Expr && is(v.expr, "call")) {
          name = callee_name(v.expr);
          if (!name.empty()) name += ".__call__";
        } else if (v.kind == Value::Kind::Expr && is(v.expr, "identifier")) {
          name = qualified_name(v.expr);  // a function imported by name
        }
        if (name.empty() || starts_with(name, "builtins.")) continue;
        names = names.empty() ? name : union_join(names, name);
        if (names.empty()) return {};  // too many
      }
    return names;
  }
  if (is(fn, "call")) return registry_lookup(fn);
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
  // A name bound to a choice among functions of other project modules (continual-learning's
  // `train_fn = train_fromp if checkattr(args, 'fromp') else (train_gen_classifier if ... else
  // train_cl)`, then `train_fn(model, ...)`; set AO main.py:421), or bound to one in each branch:
  // each may run, as for a class union. Every binding an assignment of such names, through
  // conditional expressions; each name one the imports qualify and the project defines (a
  // function of this module, or a builtin, leaves the call as it was). O(bindings x arms).
  if (is(fn, "identifier") && text(fn) != "self") {
    std::string chosen;
    bool all = true;
    std::function<void(Node, int)> arm = [&](Node e, int depth) {
      e = unparen(e);
      if (!all) return;
      if (is(e, "conditional_expression") && depth < 4) {
        auto parts = named_children(e);
        if (parts.size() != 3) {
          all = false;
          return;
        }
        arm(parts[0], depth + 1);
        arm(parts[2], depth + 1);
        return;
      }
      const std::string q = is(e, "identifier") || is(e, "attribute") ? qualified_name(e) : std::string{};
      if (q.empty() || starts_with(q, "builtins.") || !facts_->callee(q, fact::kExists)) {
        all = false;
        return;
      }
      chosen = chosen.empty() ? q : union_join(chosen, q);
      all = !chosen.empty();
    };
    auto bindings = lookup(text(fn), start(fn));
    bool conditional = false;
    for (const Binding* b : bindings) {
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || is_null(b->value)) {
        all = false;
        break;
      }
      conditional = conditional || is(unparen(b->value), "conditional_expression");
      arm(b->value, 0);
    }
    // (One plain name bound once is an alias, alias_name's; bound in branches, a choice too.)
    if (all && (conditional || bindings.size() > 1) && !chosen.empty()) return chosen;
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

// `{"vqvae": VQQuantize, "gumbel": GumbelQuantize}[args.flavor]` itself, or a name every binding
// of which is one (`Quantizer = {...}[key]`, then `Quantizer(dim)`: deep-vector-quantization's
// vqvae.py): the union of the project names of other modules the display's values are ("a.A|b.B"),
// each may be called. Every value a name the imports qualify to a function or class another
// project module defines; "" otherwise, or past kMaxClassUnion. O(bindings x entries).
std::string SemanticModel::display_choice_name(Node fn) const {
  if (!facts_ || is_null(fn)) return {};
  std::string out;
  for (Node e : callee_expressions(fn)) {
    if (!is(e, "subscript")) return {};
    Node display = unparen(field(e, "value"));
    if (!is(display, "dictionary")) return {};
    bool any = false;
    for (Node pair : named_children(display)) {
      if (is(pair, "comment")) continue;
      if (!is(pair, "pair")) return {};  // `**base`
      Node v = unparen(field(pair, "value"));
      if (!is(v, "identifier") && !is(v, "attribute")) return {};
      if (is(v, "identifier")) {  // imported, not this module's own
        auto bindings = lookup(text(v), start(v));
        if (bindings.empty()) return {};
        for (const Binding* b : bindings)
          if (b->kind != Binding::Kind::Import) return {};
      }
      const std::string& q = qualified_name(v);
      if (q.empty() || starts_with(q, "builtins.") || !facts_->callee(q, fact::kExists)) return {};
      out = out.empty() ? q : union_join(out, q);
      if (out.empty()) return {};
      any = true;
    }
    if (!any) return {};
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
  // nn.Module's own API, and the methods of tensors and containers a value of unknown type may be.
  static const std::set<std::string, std::less<>> kTensorOrContainer = {
      "item", "tolist", "numpy", "detach", "size",
      "view", "reshape", "mean", "sum", "get", "items", "keys", "values", "update", "append", "pop", "copy",
      "norm", "max", "min", "argmax", "argmin", "long", "int", "bool", "clone", "contiguous", "permute", "transpose",
      "squeeze", "unsqueeze", "expand", "repeat", "chunk", "split", "add", "mul", "sub", "div", "sigmoid", "softmax",
      "log_softmax", "flatten", "fill_", "zero_", "copy_", "index_select", "gather", "scatter", "masked_fill", "sort",
      "topk", "abs", "exp", "log", "pow", "sqrt", "clamp", "round", "all", "any", "nonzero", "numel", "dim"};
  if (method.empty() || method[0] == '_' || module_api_method(method) || kTensorOrContainer.count(method)) return {};
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
// there. Except for an options object: when every `add_argument` of the module is a call on a
// parser the instance holds (`self.parser.add_argument(...)` in a class's method: CenterNet's
// `opts`, monodepth2's `MonodepthOptions`, whose `parse()` returns `self.parser.parse_args()`),
// the namespace is that object's, read by the trainers it is handed to as the parsing script
// reads its own: a switch's implicit default (False for `store_true`) travels too, as with a
// namespace handed on by the module that parses it (`namespace_facts`; fopts).
void SemanticModel::namespace_facts_of_parsers(FunctionFacts& facts) const {
  facts.returns_namespace = true;
  std::vector<std::string> dests;
  for (const auto& [dest, calls] : argparse_args_) dests.push_back(dest);
  std::sort(dests.begin(), dests.end());
  if (dests.size() > kMaxNamespaceDests) dests.resize(kMaxNamespaceDests);
  bool options_object = !argparse_args_.empty();
  for (const auto& [dest, calls] : argparse_args_) {
    for (Node call : calls) {
      Node fn = unparen(field(call, "function"));
      Node recv = is(fn, "attribute") ? unparen(field(fn, "object")) : Node{};
      Node self = is(recv, "attribute") ? unparen(field(recv, "object")) : Node{};
      bool held = !is_null(self) && is(self, "identifier") && text(self) == "self";
      if (held) {
        int f = function_at(start(call));
        held = f >= 0 && functions_[f].klass >= 0;
      }
      options_object = options_object && held;
      if (!options_object) break;
    }
    if (!options_object) break;
  }
  for (const auto& dest : dests) {
    bool explicit_default = true;
    Node set_value = sets_defaults_ ? model_detail::last_set_default(*this, dest) : Node{};
    for (Node call : argparse_args_.at(dest)) {
      std::string action;
      if (options_object) string_literal_value(argument(call, -1, "action"), src_, action);
      explicit_default = explicit_default && (!is_null(argument(call, -1, "default")) || !is_null(set_value) ||
                                              action == "store_true" || action == "store_false");
    }
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
  // A call of a parameter that other modules' call sites hand a project function by name
  // (ArgFacts::func: finetune-hf-vits' `model(..., monotonic_alignment_function=maximum_path)`,
  // whose forward calls `monotonic_alignment_function(neg_cent, mask)`, set BJ): a call of that
  // function, with this call's hotness and arguments, beside any function of this module the
  // name may also hold (a default: `f = default_fn if f is None else f`). The name's bindings:
  // the parameter itself, or assignments of a conditional expression one arm of which is the
  // parameter; at most kMaxCandidates bindings. O(parameter calls x bindings).
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    if (!ext_name_[ci].empty()) continue;
    Node fn = unparen(field(calls_[ci].call, "function"));
    if (!is(fn, "identifier") || text(fn) == "self") continue;
    auto bindings = lookup(text(fn), start(fn));
    if (bindings.empty() || bindings.size() > kMaxCandidates) continue;
    std::string names;
    bool other = false;
    auto take_param = [&](const Binding* b) {
      if (b->kind != Binding::Kind::Param || b->function < 0 || b->param_index < 0) return false;
      const ArgFacts* a = ext_param(b->function, b->param_index, fact::kArgClass);
      if (!a || !a->passed || a->func.empty() || a->func == "?") return true;
      names = names.empty() ? a->func : union_join(names, a->func);
      return true;
    };
    for (const Binding* b : bindings) {
      if (take_param(b)) continue;
      Node v = b->plain_value();
      if (!is(v, "conditional_expression") || named_count(v) != 3) {
        other = true;
        break;
      }
      bool param_arm = false;
      for (Node arm : {named_child(v, 0), named_child(v, 2)}) {
        arm = unparen(arm);
        if (!is(arm, "identifier")) continue;
        for (const Binding* ab : lookup(text(arm), start(arm))) param_arm = take_param(ab) || param_arm;
      }
      if (!param_arm) {
        other = true;
        break;
      }
    }
    if (!other && !names.empty()) ext_name_[ci] = names;
  }
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
  if (!string_literal_value(unparen(field(subscript, "subscript")), src_, key)) return false;
  // `self.dataloaders['train']` with `self.dataloaders = dataloaders` the only store of the
  // attribute in the class, of a parameter of the storing method (set BA ChangeFormer's CDTrainer):
  // that parameter's item. At most kMaxCandidates stores, each judged as the name.
  if (int klass = is(c, "attribute") ? class_of_self(c) : -1; klass >= 0) {
    auto stores = self_stores(klass, text(field(c, "attribute")));
    if (stores.empty() || stores.size() > kMaxCandidates) return false;
    for (int ai : stores) {
      Node v = unparen(self_assignments_[ai].second);
      if (!is(v, "identifier")) return false;
      int g = function_at(start(v));
      auto bindings = lookup(text(v), start(v));
      if (bindings.empty() || bindings.size() > kMaxCandidates) return false;
      for (const Binding* b : bindings) {
        if (b->kind != Binding::Kind::Param || b->function != g) return false;
        const ArgFacts* a = ext_param(b->function, b->param_index, fact::kLoader);
        if (!a || !std::binary_search(a->loader_keys.begin(), a->loader_keys.end(), key)) return false;
      }
    }
    return true;
  }
  if (!is(c, "identifier")) return false;
  auto bindings = lookup(text(c), start(c));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Param) return false;
    const ArgFacts* a = ext_param(b->function, b->param_index, fact::kLoader);
    if (!a || !std::binary_search(a->loader_keys.begin(), a->loader_keys.end(), key)) return false;
  }
  return true;
}

std::vector<std::string> SemanticModel::returned_loader_keys(int f) const {
  std::set<std::string> keys;
  if (f < 0 || functions_[f].returns.empty()) return {};
  for (Node r : functions_[f].returns) {
    bool any = false;
    for (const auto& [key, item] : dict_entries(r).items)
      if (is_loader_impl(item)) {
        any = true;
        if (keys.size() < kMaxLoaderKeys) keys.insert(key);
      }
    if (!any) return {};
  }
  return {keys.begin(), keys.end()};
}

std::vector<Node> SemanticModel::dict_values_of(Node e) const {
  std::vector<Node> out;
  auto of_display = [&](Node v) -> bool {
    v = unparen(v);
    if (is(v, "dictionary_comprehension")) {
      Node body = field(v, "body");
      if (!is(body, "pair")) return false;
      out.push_back(field(body, "value"));
      return true;
    }
    if (!is(v, "dictionary")) return false;
    bool any = false;
    for (Node p : named_children(v)) {
      if (is(p, "comment")) continue;
      if (!is(p, "pair")) return false;  // `**other`
      out.push_back(field(p, "value"));
      any = true;
    }
    return any;
  };
  e = unparen(e);
  if (is(e, "identifier")) {
    auto bindings = lookup(text(e), start(e));
    if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
    for (const Binding* b : bindings) {
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !is(b->target, "identifier")) return {};
      if (subscript_stores_.count({scope_at(start(b->target)), std::string(text(e))})) return {};
      if (!of_display(b->value)) return {};
    }
    // Filled further by a method call (`d.update(other)`, `d.setdefault(k, v)`): not only these.
    // One look-up in the index model_scopes builds (no scan of the file's calls per query).
    if (method_filled_.count(std::string(text(e)))) return {};
    return out;
  }
  if (!of_display(e)) return {};
  return out;
}

unsigned SemanticModel::returned_loader_dicts(int f) const {
  if (f < 0 || functions_[f].returns.empty()) return 0;
  auto loaders = [&](Node e) {
    auto vals = dict_values_of(e);
    if (vals.empty()) return false;
    for (Node v : vals)
      if (!is_loader_impl(v)) return false;
    return true;
  };
  unsigned all = ~0u;
  for (Node r : functions_[f].returns) {
    r = unparen(r);
    unsigned bits = loaders(r) ? kWholeResult : 0;
    if (is(r, "tuple") || is(r, "expression_list"))
      for (uint32_t i = 0; i < named_count(r) && i < 8; ++i)
        if (loaders(named_child(r, i))) bits |= 1u << i;
    all &= bits;
    if (!all) return 0;
  }
  return all;
}

std::vector<Node> SemanticModel::ext_loader_dict_item(Node subscript) const {
  if (!facts_ || !is(subscript, "subscript")) return {};
  Node c = unparen(field(subscript, "value"));
  if (!is(c, "identifier") || is(unparen(field(subscript, "subscript")), "slice")) return {};
  auto bindings = lookup(text(c), start(c));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
  // The caller's dict changed after the call (`dataloaders['meta'] = info`, `d.update(...)`,
  // `d.setdefault(...)`): an item may then be what no returned display shows.
  std::string name(text(c));
  if (method_filled_.count(name)) return {};
  std::vector<Node> out;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign || !is(b->target, "identifier")) return {};
    if (appended_or_stored(scope_at(start(b->target)), name)) return {};
    Node v = unparen(b->value);
    if (!is(v, "call")) return {};
    unsigned bit = kWholeResult;
    Node stand = v;
    if (b->unpack_index >= 0) {
      Node pattern = parent(b->target);
      if (b->unpack_index >= 8 || !(is(pattern, "pattern_list") || is(pattern, "tuple_pattern")) ||
          !is(parent(pattern), "assignment") ||
          !same(named_child(pattern, static_cast<uint32_t>(b->unpack_index)), b->target))
        return {};
      // `a, *b, c = f()`: c is not the result's item 2.
      for (Node el : named_children(pattern))
        if (is(el, "list_splat_pattern")) return {};
      bit = 1u << b->unpack_index;
      stand = b->target;
    }
    const FunctionFacts* ext = ext_callee_of(v, fact::kReturnsLoader);
    if (!ext || !(ext->ret_loader_dicts & bit)) return {};
    out.push_back(stand);
  }
  return out;
}

std::vector<std::string> SemanticModel::ext_returned_loader_keys(Node e) const {
  e = unparen(e);
  if (!facts_) return {};
  std::vector<Node> calls;
  if (is(e, "call")) {
    calls.push_back(e);
  } else if (is(e, "identifier")) {
    auto bindings = lookup(text(e), start(e));
    if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
    for (const Binding* b : bindings) {
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !is(unparen(b->value), "call")) return {};
      calls.push_back(unparen(b->value));
    }
  }
  std::set<std::string> keys;
  for (Node c : calls) {
    const FunctionFacts* ext = ext_callee_of(c, fact::kReturnsLoader);
    if (!ext || ext->ret_loader_keys.empty()) return {};
    keys.insert(ext->ret_loader_keys.begin(), ext->ret_loader_keys.end());
  }
  return {keys.begin(), keys.end()};
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

std::vector<int> SemanticModel::loader_returners(Node loader_call) const {
  std::vector<int> out;
  int f = function_at(start(loader_call));
  if (f < 0) return out;
  out.push_back(f);
  auto origins = [&](Node e) -> const std::vector<Node>& { return loader_origins(e); };
  // Breadth first from the builder, kMaxLoaderRelays functions at most (the builder included).
  for (size_t i = 0; i < out.size() && out.size() < kMaxLoaderRelays; ++i)
    for (int ci : callers(out[i])) {
      int g = calls_[ci].caller;
      if (g < 0 || std::find(out.begin(), out.end(), g) != out.end()) continue;
      bool hands_on = false;
      for (Node r : functions_[g].returns) hands_on = hands_on || returned_loader_bits(*this, r, loader_call, origins) != 0;
      for (const auto& [site, x] : yielded_loaders(g)) hands_on = hands_on || returned_loader_bits(*this, x, loader_call, origins) != 0;
      if (hands_on) out.push_back(g);
      if (out.size() >= kMaxLoaderRelays) break;
    }
  return out;
}

bool SemanticModel::external_feeds_training(Node loader_call) const {
  if (!facts_ || is_null(loader_call)) return false;
  // Passed to a function of another module that iterates that parameter in a hot loop.
  if (each_external_hot_param(loader_call, [](size_t, const ParamSummary&) { return true; })) return true;
  int f = function_at(start(loader_call));
  auto origins = [&](Node e) -> const std::vector<Node>& { return loader_origins(e); };
  // Returned by a function whose callers in other modules iterate what it returns, or by a
  // function of this module that hands it on from such a call (loader_returners).
  // Also as an element of a returned tuple: a caller's hot loop iterates the one loader element
  // (`datas, testLoader = build_dataset_test(...)`, SemanticModel::summarize's trace).
  for (int g : loader_returners(loader_call)) {
    const IncomingCalls* gin = facts_->incoming(local_name(g), fact::kResult);
    if (!gin) continue;
    for (Node r : functions_[g].returns) {
      unsigned bits = returned_loader_bits(*this, r, loader_call, origins);
      if (bits && gin->result_feeds_training) return true;
      // Returned (as the result or as an element of a returned tuple) to callers that hand it to
      // a function iterating it per epoch: `train_loader, val_loader = get_loaders()` then
      // `train(epoch, train_loader)` in an epoch loop.
      if (bits & gin->result_per_epoch) return true;
      // An element a caller's hot loop iterates, per epoch or not (IncomingCalls::result_fed).
      if (bits & gin->result_fed) return true;
    }
    // Yielded by a loader generator (yielded_loaders) whose callers draw or iterate its result.
    for (const auto& [site, x] : yielded_loaders(g))
      if (returned_loader_bits(*this, x, loader_call, origins) && gin->result_feeds_training) return true;
  }
  // Stored by a class's initializer on the instance (`self.train = DataLoader(...)` in
  // `Cifar.__init__`) whose attribute a hot loop of another module iterates (`for batch in
  // dataset.train` after `dataset = Cifar(...)`).
  if (f >= 0 && functions_[f].klass >= 0 && functions_[f].initializer()) {
    const std::string& cls = classes_[functions_[f].klass].name;
    if (const IncomingCalls* ctor = facts_->incoming(cls + ".__init__", fact::kResult))
      for (const auto& a : ctor->attrs_fed) {
        for (int ai : self_stores(functions_[f].klass, a)) {
          if (function_at(start(self_assignments_[ai].second)) != f) continue;
          for (Node o : loader_origins(self_assignments_[ai].second))
            if (same(o, loader_call)) return true;
        }
      }
  }
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
      auto stores = self_stores(ki, text(field(over, "attribute")));
      if (stores.size() != 1) continue;
      Node v = unparen(self_assignments_[stores.front()].second);
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
    // `dataloaders['train']` of a dict of loaders another module's call returns
    // (ext_loader_dict_item): the name the call binds.
    if (is(a, "subscript") && !ext_loader_dict_item(a).empty()) a = unparen(field(a, "value"));
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
      // A loop keeping the batches on the host (loop_keeps_batches_on_host) feeds nothing, as in
      // param_iteration.
      for (int l : loops_iterating(call)) {  // the call is the name's loader origin
        feeds |= loops_[l].kind == LoopKind::Hot && !loop_keeps_batches_on_host(l);
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
        feeds |= loops_[l].kind == LoopKind::Hot && !loop_keeps_batches_on_host(l);
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
    if (in && in->result_per_epoch) out[call.id] |= handed_on_elements(ci, in->result_per_epoch);
  }
  return out;
}

unsigned SemanticModel::handed_on_elements(size_t ci, unsigned returned) const {
  unsigned out = 0;
  int f = calls_[ci].caller;
  Node call = calls_[ci].call;
  Node asg = parent(call);
  if (f < 0 || !returned || !is(asg, "assignment") || !same(unparen(field(asg, "right")), call)) return 0;
  Node pattern = field(asg, "left");
  if (!is(pattern, "pattern_list") && !is(pattern, "tuple_pattern")) return 0;
  for (Node r : functions_[f].returns) {
    r = unparen(r);
    if (!is(r, "expression_list") && !is(r, "tuple")) continue;
    for (uint32_t j = 0; j < named_count(r) && j < 8; ++j) {
      if (!(returned & (1u << j))) continue;
      Node e = unparen(named_child(r, j));
      if (!is(e, "identifier")) continue;
      for (const Binding* b : lookup(text(e), start(e)))
        if (b->kind == Binding::Kind::Assign && b->unpack_index >= 0 && b->unpack_index < 8 &&
            same(unparen(b->value), call) && same(parent(b->target), pattern))
          out |= 1u << b->unpack_index;
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
  // Also through functions of this module that hand it on from such a call (loader_returners):
  // the first answer of one that says per epoch, else once where one says so.
  auto origins = [&](Node e) -> const std::vector<Node>& { return loader_origins(e); };
  auto answer = [&](int f) -> std::optional<bool> {
    const IncomingCalls* in = facts_->incoming(local_name(f), fact::kResult | fact::kInLoop);
    if (!in || (!in->result_feeds_training && !in->result_fed)) return std::nullopt;
    bool element = false;
    for (Node r : functions_[f].returns) {
      unsigned bits = returned_loader_bits(*this, r, loader_call, origins);
      // Without the whole result's bit, only the elements a caller's hot loop iterates.
      if (!in->result_feeds_training) bits &= in->result_fed | in->result_per_epoch;
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
  };
  std::optional<bool> out;
  for (int g : loader_returners(loader_call)) {
    std::optional<bool> a = answer(g);
    if (a == true) return true;
    if (a) out = false;
  }
  return out;
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
    if (!name.empty() && holds(facts_->callee(name, fact::kClass | fact::kAttrsCuda))) return true;
  for (const auto& c : classes_)
    for (const auto& b : c.bases)
      if (holds(facts_->callee(b, fact::kClass | fact::kAttrsCuda))) return true;
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

}  // namespace stoker::python
