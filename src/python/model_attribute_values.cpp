// Values of attributes: what a class stores on `self` (initializers, methods the initializer runs,
// overrides, properties), and what an attribute read may hold (configuration classes, other
// modules). Split from model_values.cpp (session 41).
#include "python/call_positions.h"
#include "python/checked_int.h"
#include "python/class_constants.h"
#include "python/model_internal.h"
#include "python/reflective_namespace.h"
#include "python/project_fields.h"
#include "python/types.h"
#include "python/types_detail.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <set>

namespace stoker::python {

using namespace model_detail;

int SemanticModel::class_of_self(Node attr) const {
  Node obj = field(attr, "object");
  if (!is(obj, "identifier") || text(obj) != "self") return -1;
  int f = function_at(start(attr));
  return f >= 0 ? functions_[f].klass : -1;
}

std::vector<Value> SemanticModel::init_constant(int klass, std::string_view name) const {
  if (klass < 0 || static_cast<size_t>(klass) >= classes_.size()) return {};
  const Class& c = classes_[static_cast<size_t>(klass)];
  if (!plain_config_class(c)) return {};
  if (auto same = classes_by_name_.find(c.name); same == classes_by_name_.end() || same->second.size() != 1) return {};
  std::string key = c.name + "." + std::string(name);
  if (self_augmented_.count(key) || scopes_[static_cast<size_t>(c.scope)].bindings.count(std::string(name))) return {};
  auto stores = self_stores(key);
  if (stores.empty() || stores.size() > kMaxCandidates || attribute_overridden(klass, name)) return {};
  std::vector<Value> out;
  for (int ai : stores) {
    Node v = self_assignments_[static_cast<size_t>(ai)].second;
    int f = function_at(start(v));
    if (f < 0 || functions_[static_cast<size_t>(f)].klass != klass || !functions_[static_cast<size_t>(f)].initializer())
      return {};
    if (!add_known_values(out, values(v))) return {};
  }
  return out;
}

std::vector<std::set<std::string>> SemanticModel::init_store_names() const {
  std::vector<std::set<std::string>> out(classes_.size());
  for (const auto& [key, value] : self_assignments_) {
    int f = function_at(start(value));
    if (f < 0 || !functions_[static_cast<size_t>(f)].initializer()) continue;
    int c = functions_[static_cast<size_t>(f)].klass;
    size_t dot = key.rfind('.');
    if (c < 0 || dot == std::string::npos || key.compare(0, dot, classes_[static_cast<size_t>(c)].name) != 0) continue;
    out[static_cast<size_t>(c)].insert(key.substr(dot + 1));
  }
  return out;
}

const std::set<std::string>& SemanticModel::self_stores(int klass) const {
  // Built twice at most: once the call sites are all known (resolve_calls' walk sizes callers_
  // after it; before, they may be incomplete, and the stores are built again on each question),
  // kept while the model is being built, then once more when it is (types_ set: the lookups of
  // setattr's loop variables then drop dead bindings). Everything else read here (the stores,
  // scopes and bindings) is complete after collect(). A build made while the model was being built
  // has one set more than there are classes. Without functions there are no methods, and every
  // class's stores are empty whatever the call sites.
  const bool built = types_ != nullptr;
  if (self_stores_built_ && (!built || self_stores_.size() == classes_.size()))
    return self_stores_[static_cast<size_t>(klass)];
  self_stores_built_ = built || callers_.size() == functions_.size();
  auto& out = self_stores_;
  out.assign(classes_.size() + (built ? 0 : 1), {});
  // The class whose method holds `n`, -1 outside methods.
  auto class_at = [&](Node n) {
    int f = function_at(start(n));
    return f >= 0 ? functions_[f].klass : -1;
  };
  for (const auto& [key, value] : self_assignments_) {
    int c = class_at(value);
    if (c < 0) continue;
    const std::string& name = classes_[c].name;
    if (key.size() > name.size() && key[name.size()] == '.' && starts_with(key, name))
      out[static_cast<size_t>(c)].insert(key.substr(name.size() + 1));
  }
  auto is_self = [&](Node n) { return is(unparen(n), "identifier") && text(unparen(n)) == "self"; };
  // `self.__dict__` or `vars(self)`.
  auto own_dict = [&](Node n) {
    n = unparen(n);
    if (is(n, "attribute")) return text(field(n, "attribute")) == "__dict__" && is_self(field(n, "object"));
    return is(n, "call") && text(unparen(field(n, "function"))) == "vars" && is_self(argument(n, 0, ""));
  };
  for (Node a : subscript_assignments_) {
    Node left = unparen(field(a, "left"));
    if (int c = class_at(a); c >= 0 && is(left, "subscript") && own_dict(field(left, "value")))
      out[static_cast<size_t>(c)].insert("*");
  }
  for (Node call : update_calls_)
    if (int c = class_at(call); c >= 0 && own_dict(field(unparen(field(call, "function")), "object")))
      out[static_cast<size_t>(c)].insert("*");
  // `setattr(self, k, v)`: a literal name, or every name `k` may hold (`for k in "na", "nc":`
  // copies a few known attributes); anything else is a computed name.
  for (const CallSite& cs : calls_) {
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "identifier") || text(fn) != "setattr") continue;
    auto a = named_children(field(cs.call, "arguments"));
    int c = class_at(cs.call);
    if (a.size() != 3 || !is_self(a[0]) || c < 0) continue;
    auto& stores = out[static_cast<size_t>(c)];
    std::string literal;
    if (string_literal_value(a[1], src_, literal)) {
      stores.insert(literal);
      continue;
    }
    // A loop variable over a display of string literals.
    std::vector<std::string> names;
    bool all = is(unparen(a[1]), "identifier");
    auto bindings = all ? lookup(text(unparen(a[1])), start(a[1])) : std::vector<const Binding*>{};
    all = all && bindings.size() <= kMaxCandidates && all_bindings_of_kind(bindings, Binding::Kind::LoopTarget);
    for (const Binding* b : bindings) {
      Node seq = unparen(b->value);
      all = all && is(b->target, "identifier") && (is(seq, "expression_list") || is(seq, "tuple") || is(seq, "list"));
      if (!all) break;
      for (Node e : named_children(seq)) {
        std::string v;
        if (is(e, "comment")) continue;
        all = all && string_literal_value(e, src_, v);
        names.push_back(v);
      }
    }
    if (!all || names.size() > 16) {
      stores.insert("*");
      continue;
    }
    stores.insert(names.begin(), names.end());
  }
  return out[static_cast<size_t>(klass)];
}

bool SemanticModel::attribute_overridden(int klass, std::string_view attr) const {
  auto it = overriding_stores_.find(klass);
  if (it == overriding_stores_.end()) {
    // The class's own stores under computed names, and every store of its subclasses here
    // (transitively, by the name the subclass writes for its base).
    std::set<std::string> joined;
    if (self_stores(klass).count("*")) joined.insert("*");
    std::vector<int> pending{klass};
    std::set<int> seen{klass};
    while (!pending.empty() && seen.size() <= 64) {
      const std::string& base = classes_[pending.back()].name;
      pending.pop_back();
      for (size_t c = 0; c < classes_.size(); ++c) {
        bool derives = false;
        for (const auto& b : classes_[c].bases)
          derives |= b == base || (b.size() > base.size() && b[b.size() - base.size() - 1] == '.' &&
                                   b.compare(b.size() - base.size(), base.size(), base) == 0);
        if (!derives || !seen.insert(static_cast<int>(c)).second) continue;
        const auto& stores = self_stores(static_cast<int>(c));
        joined.insert(stores.begin(), stores.end());
        pending.push_back(static_cast<int>(c));
      }
    }
    it = overriding_stores_.emplace(klass, std::move(joined)).first;
  }
  if (it->second.count("*") || it->second.count(std::string(attr))) return true;
  // Subclasses of other modules: only a module-level class has an entry in the facts.
  return facts_ && scopes_[classes_[klass].scope].parent == 0 && facts_->subclass_stores(classes_[klass].name, attr);
}

bool SemanticModel::is_super_call(Node obj) const {
  obj = unparen(obj);
  return is(obj, "call") && text(unparen(field(obj, "function"))) == "super";
}

namespace {

// A method the initializer runs while the instance is built (`self.name(...)` in an initializer of
// its class, outside loops: huggingsound's `self._load_model()` in `SpeechRecognitionModel.__init__`,
// which stores the model and the processor), and that runs again only through `self.name(...)` in
// methods of the class (`finetune` reloading the model): no other text of this file names it (a
// callback handed elsewhere, a call on another object), and no other module names the attribute.
// Its stores define the attribute as the initializer's do: they are made while the instance is
// built, and a later run stores values of the same expressions. Not a dunder, a decorated or a
// static method. O(calls + functions + file text) per question, asked only for a store outside an initializer.
bool init_only_method_impl(const SemanticModel& m, int f, const ExternalFacts* facts) {
  if (f < 0 || static_cast<size_t>(f) >= m.functions().size()) return false;
  const Function& fn = m.functions()[f];
  if (fn.klass < 0 || fn.initializer() || fn.other_decorators || fn.static_method || fn.name.empty() ||
      fn.name.rfind("__", 0) == 0)
    return false;
  const auto& sites = m.callers(f);
  if (sites.empty() || sites.size() > SemanticModel::kMaxCandidates) return false;
  std::set<uint32_t> resolved;
  bool from_initializer = false;
  for (int ci : sites) {
    const CallSite& cs = m.calls()[static_cast<size_t>(ci)];
    if (cs.caller < 0 || cs.caller == f) return false;
    const Function& caller = m.functions()[static_cast<size_t>(cs.caller)];
    if (caller.klass != fn.klass || cs.lambda_depth > 0) return false;
    Node callee = unparen(field(cs.call, "function"));
    if (!is(callee, "attribute") || m.text(unparen(field(callee, "object"))) != "self") return false;
    from_initializer = from_initializer || (caller.initializer() && cs.loops.empty());
    resolved.insert(start(field(callee, "attribute")));
  }
  if (!from_initializer) return false;
  // Every other mention of the name in this file is one of those calls, the definition of a method
  // of that name (this one, another class's), or a call resolved to such other methods only.
  std::string_view src = m.src();
  const std::string& name = fn.name;
  std::set<uint32_t> elsewhere;
  for (const Function& g : m.functions())
    if (g.name == name) elsewhere.insert(start(field(g.node, "name")));
  for (size_t ci = 0; ci < m.calls().size(); ++ci) {
    Node callee = unparen(field(m.calls()[ci].call, "function"));
    if (!is(callee, "attribute") || m.text(field(callee, "attribute")) != name) continue;
    const auto& targets = m.callees(m.calls()[ci].call);
    if (!targets.empty() && std::find(targets.begin(), targets.end(), f) == targets.end())
      elsewhere.insert(start(field(callee, "attribute")));
  }
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = src.find(name); at != std::string_view::npos; at = src.find(name, at + 1)) {
    if (elsewhere.count(static_cast<uint32_t>(at))) continue;
    if (at > 0 && word(src[at - 1])) continue;
    if (at + name.size() < src.size() && word(src[at + name.size()])) continue;
    if (m.inert_text_at(static_cast<uint32_t>(at))) continue;
    if (!resolved.count(static_cast<uint32_t>(at))) return false;
  }
  return !facts || !facts->attribute_mentioned(name);
}

}  // namespace

bool SemanticModel::init_only_method(int f) const {
  // The answer reads the call graph, which grows while the model is built (resolve_calls binds
  // calls as values become known): memoized only once it is final.
  if (!hot_functions_ready_) return init_only_method_impl(*this, f, facts_);
  if (auto it = init_only_memo_.find(f); it != init_only_memo_.end()) return it->second;
  bool r = init_only_method_impl(*this, f, facts_);
  init_only_memo_.emplace(f, r);
  return r;
}

std::vector<Node> SemanticModel::instance_attribute_stores(Node attr) const {
  Node obj = unparen(field(attr, "object"));
  if (!is(obj, "identifier") || text(obj) == "self") return {};
  auto bindings = lookup(text(obj), start(obj));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
  std::vector<Node> out;
  for (const Binding* b : bindings) {
    Node v = b->plain_value();
    if (!is(v, "call")) return {};
    int klass = -1;
    for (const auto& cv : values(unparen(field(v, "function"))))
      if (cv.kind == Value::Kind::Expr && is(cv.expr, "class_definition"))
        if (auto c = class_by_node_.find(cv.expr.id); c != class_by_node_.end()) klass = c->second;
    if (klass < 0) return {};
    auto stores = self_stores(klass, text(field(attr, "attribute")));
    if (stores.empty()) return {};
    for (int ai : stores) {
      Node v = self_assignments_[ai].second;
      int f = function_at(start(v));
      if (f < 0 || (!functions_[f].initializer() && !init_only_method(f)))
        return {};  // stored again later: not known
      if (out.size() < kMaxCandidates) out.push_back(v);
    }
  }
  return out;
}

int model_detail::property_getter(const SemanticModel& m, int klass, std::string_view name) {
  if (klass < 0 || klass >= static_cast<int>(m.classes().size())) return -1;
  const auto& methods = m.classes()[klass].methods;
  auto it = methods.find(std::string(name));
  if (it == methods.end()) return -1;
  Node def = m.functions()[it->second].node;
  Node decorated = parent(def);
  if (!is(decorated, "decorated_definition")) return -1;
  for (Node d : named_children(decorated)) {
    if (!is(d, "decorator")) continue;
    std::string_view e = m.text(named_child(d, 0));
    if (e == "property" || e == "functools.cached_property" || e == "cached_property") return it->second;
  }
  return -1;
}

namespace {

// What names the plain class a name holds an instance of, or the class object itself: every
// binding of it is `x = Cls(...)` (`refs` gets `Cls`), `x = configs.Cls`, the class's own
// definition or import (the name itself), another name so bound, or a parameter of a function of
// this file (not an initializer) that every call site here hands such a name or construction and
// no other module's call passes anything. False when one binding is anything else; whether each
// ref names a class is the caller's question. At most 4 names deep and 64 bindings and call sites
// in all (`budget`), so O(1) per read.
bool config_class_refs(const SemanticModel& m, Node id, int depth, std::vector<Node>& refs, int& budget) {
  if (depth > 4 || !is(id, "identifier")) return false;
  auto bindings = m.lookup(m.text(id), start(id));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
  budget -= static_cast<int>(bindings.size());
  if (budget < 0) return false;
  auto bound = [&](Node v) {
    v = unparen(v);
    if (is(v, "call")) {
      refs.push_back(unparen(field(v, "function")));
      return true;
    }
    if (is(v, "attribute")) {
      refs.push_back(v);
      return true;
    }
    return config_class_refs(m, v, depth + 1, refs, budget);
  };
  for (const Binding* b : bindings) {
    switch (b->kind) {
      case Binding::Kind::Assign:
        if (b->unpack_index >= 0 || is_null(b->value) || !bound(b->value)) return false;
        break;
      case Binding::Kind::Class:
      case Binding::Kind::Import: refs.push_back(id); break;
      case Binding::Kind::Param: {
        if (b->function < 0) return false;
        const Function& fn = m.functions()[static_cast<size_t>(b->function)];
        const Param& p = fn.params[static_cast<size_t>(b->param_index)];
        int position = b->param_index - bound_params(fn);
        if (p.is_variadic || position < 0 || fn.name == "__init__") return false;
        if (const ArgFacts* ext = m.incoming_param_facts(b->function, b->param_index, fact::kValues); ext && ext->passed)
          return false;
        const std::vector<int>& sites = m.callers(b->function);
        budget -= static_cast<int>(sites.size());
        if (sites.empty() || sites.size() > SemanticModel::kMaxCandidates || budget < 0) return false;
        for (int ci : sites) {
          Node arg = m.argument(m.calls()[static_cast<size_t>(ci)].call, p.keyword_only ? -1 : position, p.name);
          if (is_null(arg) || !bound(arg)) return false;
        }
        break;
      }
      default: return false;
    }
  }
  return true;
}

}  // namespace

std::vector<Value> SemanticModel::attribute_values(Node attr) const {
  Node obj = unparen(field(attr, "object"));
  std::string_view name = text(field(attr, "attribute"));
  int klass = class_of_self(attr);
  // The argument the class's `__init__` hands its first base's `__init__` (a class of another
  // module, by its "Class" entry: a parameter of the attribute's name and an attribute of that
  // name typed a host value) through `super().__init__(...)`; null when there is none.
  auto inherited_init_argument = [&](int k) -> Node {
    const Class& c = classes_[k];
    auto init = c.methods.find("__init__");
    if (!facts_ || c.bases.empty() || init == c.methods.end()) return Node{};
    const FunctionFacts* base = facts_->callee(c.bases[0], fact::kClass | fact::kParams);
    if (!base || !base->is_class) return Node{};
    const FunctionFacts::Attr* base_attr = facts_->class_attr(c.bases[0], name);
    bool typed = base_attr && base_attr->kind == static_cast<int>(AbstractType::Kind::Host);
    int position = -1;
    for (size_t i = 1; i < base->params.size(); ++i)
      if (base->params[i].name == name && !base->params[i].star && !base->params[i].double_star)
        position = static_cast<int>(i);
    if (!typed || position < 0) return Node{};
    for (int ci : calls_by_caller_[init->second]) {
      Node callee = unparen(field(calls_[ci].call, "function"));
      if (is(callee, "attribute") && text(field(callee, "attribute")) == "__init__" &&
          is_super_call(field(callee, "object")))
        return argument(calls_[ci].call, base->params[position].keyword_only ? -1 : position - 1, name);
    }
    return Node{};
  };
  if (klass >= 0) {
    std::vector<Value> out;
    std::string key = classes_[klass].name + "." + std::string(name);
    auto stores = self_stores(key);
    // A property of the class (or of a base defined here) that nothing stores over: what its
    // getter returns (`self.device` -> `self.model.device`, `self.unwrapped_model` ->
    // `self.accelerator.unwrap_model(self.model)`).
    if (stores.empty()) {
      std::set<int> seen;
      for (int c = klass; c >= 0 && seen.insert(c).second;) {
        if (int g = property_getter(*this, c, name); g >= 0) {
          for (Node r : functions_[g].returns) add_values(out, values(r));
          if (out.empty()) add_values(out, {Value::unknown()});
          return out;
        }
        int base = -1;
        for (const auto& b : classes_[c].bases)
          if (auto named = classes_by_name_.find(std::string(last_part(b))); named != classes_by_name_.end()) {
            base = named->second.back();
            break;
          }
        c = base;
      }
      // Stored by the initializer of the first base, a class of another module, from the parameter
      // of the attribute's name that the class's `super().__init__(...)` hands an argument
      // (Autoformer's `Exp_Basic.__init__(self, args)` with `self.args = args`, its class entry
      // typing `self.args` a host value): that argument, so `self.args.num_workers` reads the
      // namespace the subclass's constructor is handed (set AA exp_main.py's `_get_data`).
      if (Node a = inherited_init_argument(klass); !is_null(a)) {
        add_values(out, values(a));
        if (out.empty() || attribute_overridden(klass, name)) add_values(out, {Value::unknown()});
        return out;
      }
    }
    for (int ai : stores) {
      Node v = self_assignments_[ai].second;
      // Only initializer assignments (`__init__`, `__post_init__`) define the attribute's value
      // for the rest of the class.
      int f = function_at(start(v));
      // Or a method only an initializer calls (init_only_method): it runs while the instance is built.
      if (f < 0 || (!functions_[f].initializer() && !init_only_method(f))) {
        add_values(out, {Value::unknown()});
        continue;
      }
      add_values(out, values(v));
    }
    // `self.step += 1` in a method: the attribute changes from the initializer's value (Diffuser's
    // `self.step = 0` then `if self.step == 0 and self.sample_freq:` is not always true).
    if (self_augmented_.count(key)) add_values(out, {Value::unknown()});
    if (out.empty() || attribute_overridden(klass, name)) add_values(out, {Value::unknown()});
    return out;
  }
  // `device.type` of a device known to be CUDA: "cuda" (`"mps" in device.type` is False).
  if (name == "type" && types_ && device_kind(obj) == DeviceKind::Cuda) {
    Value v;
    v.kind = Value::Kind::Str;
    v.s = "cuda";
    return {v};
  }
  // args.<dest> where every candidate of args is a parsed namespace.
  auto objs = values(obj);
  bool from_argparse = !objs.empty();
  for (const auto& o : objs)
    if (!namespace_value(o)) {
      from_argparse = false;
      break;
    }
  if (from_argparse) {
    // A parameter another module's call sites hand a namespace reads their values (a dest they
    // do not carry is unknown), with this module's stores; the others this module's parsers'.
    std::vector<Value> out;
    bool local = false;
    for (const auto& o : objs) {
      const ArgFacts* a = namespace_param(o);
      // Imported from the module that parses it: that module's values (imported_namespace).
      if (const FunctionFacts* f = a ? nullptr : imported_namespace(o)) {
        std::vector<Value> declared = keyed_values(f->namespace_values, name);
        add_values(out, namespace_attribute(name, &declared, attr));
        continue;
      }
      if (!a) {
        local = true;
        continue;
      }
      std::vector<Value> declared = keyed_values(a->ns_values, name);
      add_values(out, namespace_attribute(name, &declared, attr));
    }
    if (local) add_values(out, namespace_attribute(name, nullptr, attr));
    return out;
  }
  // `CFG.num_workers` after `import config as CFG`: a constant of another project module.
  if (auto c = module_constant(attr); !c.empty()) return c;
  // `opt.num_workers`, `if opt.display:` where every binding of `opt` constructs a plain
  // configuration class (`opt = Config()`: arcface-pytorch's config/config.py, read in train.py)
  // or is the class object itself (`config = setting_config` handed to `main(config)`: EGE-UNet),
  // also through the parameters of this file's functions (config_classes): its class-level
  // constant (model_detail::class_level_constant), of a class of this file or, in project mode,
  // of another module (its "Config.num_workers" entry, which the project drops when a module
  // stores an attribute of that name). Not when this file stores an attribute of the name on any
  // object (`opt.display = True`). At most 64 bindings and call sites read (config_class_refs).
  if (is(obj, "identifier") && text(obj) != "self" && !attribute_reassigned(name)) {
    std::vector<Node> refs;
    std::vector<Value> out;
    int budget = 64;
    bool all = config_class_refs(*this, obj, 0, refs, budget) && !refs.empty() && refs.size() <= kMaxCandidates;
    auto binding_vals = [this](const Binding& b) { return binding_values(b); };
    for (Node r : refs) {
      if (!all) break;
      int klass = -1;
      for (const auto& cv : values(r))
        if (cv.kind == Value::Kind::Expr && is(cv.expr, "class_definition"))
          if (auto c = class_by_node_.find(cv.expr.id); c != class_by_node_.end()) klass = c->second;
      std::vector<Value> vs;
      if (klass >= 0) {
        vs = class_level_constant(*this, klass, name, self_stores(klass), binding_vals);
        if (vs.empty()) vs = init_constant(klass, name);
      } else if (const std::string& q = qualified_name(r); facts_ && !q.empty() && facts_->project_name(q)) {
        const FunctionFacts* cls = facts_->callee(q, fact::kClass);
        std::string key = q + "." + std::string(name);
        if (cls && cls->is_class) {
          if (module_reads_.size() < 256) module_reads_.insert(key);
          if (const FunctionFacts* f = facts_->callee(key, fact::kConstValues)) vs = to_values(f->const_values);
        }
      }
      all = !vs.empty();
      add_values(out, vs);
    }
    if (all && !out.empty()) return out;
  }
  Value v;
  v.kind = Value::Kind::Expr;
  v.expr = attr;
  return {v};
}

}  // namespace stoker::python
