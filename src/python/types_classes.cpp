#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "python/call_positions.h"
#include "python/frameworks.h"
#include "python/model_internal.h"
#include "python/project_fields.h"
#include "python/semantic_model.h"
#include "python/module_api.h"
#include "python/types.h"
#include "python/types_detail.h"

// The classes of the module as types: class hierarchy, framework and module bases, constructions,
// class iteration, and the facts other project modules read of this module's classes and
// functions (project mode). Split from types.cpp by concern (issue 10's layout).

namespace stoker::python {

std::vector<std::pair<std::string_view, Node>> type_detail::record_fields(const SemanticModel& m, int klass) {
  std::vector<std::pair<std::string_view, Node>> out;
  const Class& c = m.classes()[klass];
  bool record = std::any_of(c.bases.begin(), c.bases.end(), [](const std::string& b) {
    return b == "typing.NamedTuple" || b == "NamedTuple";
  });
  if (Node d = parent(c.node); !record && is(d, "decorated_definition"))
    for (Node dec : named_children(d)) {
      if (!is(dec, "decorator")) continue;
      Node e = unparen(named_child(dec, 0));
      if (is(e, "call")) e = unparen(field(e, "function"));
      std::string_view word = is(e, "attribute") ? text(field(e, "attribute"), m.src()) : text(e, m.src());
      if (word == "dataclass") record = true;
    }
  if (!record) return out;
  // A subclass of a class of this file puts its bases' fields first: positions unknown here.
  for (const auto& b : c.bases)
    for (const Class& other : m.classes())
      if (&other != &c && other.name == last_part(b)) return out;
  for (Node st : named_children(field(c.node, "body"))) {
    if (!is(st, "expression_statement")) continue;
    Node a = named_child(st, 0);
    if (!is(a, "assignment") || is_null(field(a, "type")) || !is(field(a, "left"), "identifier")) continue;
    out.push_back({text(field(a, "left"), m.src()), field(a, "right")});
  }
  return out;
}

using Kind = AbstractType::Kind;
using namespace type_detail;

int TypeInference::base_class(int klass) const {
  // The first base class defined here (single inheritance is what the attribute lookup follows):
  // the class after `klass` in its method resolution order (model_detail::class_mro, which the
  // method lookup of calls follows).
  for (const auto& b : m_.classes()[klass].bases) {
    auto named = m_.classes_by_name_.find(std::string(last_part(b)));
    if (named != m_.classes_by_name_.end()) return named->second.back();
  }
  return -1;
}

int TypeInference::module_class(int klass) const {
  if (module_class_.empty()) module_class_.assign(m_.classes().size(), -2);
  if (klass < 0 || klass >= static_cast<int>(module_class_.size())) return -1;
  signed char& memo = module_class_[klass];
  if (memo != -2) return memo;
  memo = -1;  // in progress: unknown
  int result = 0;
  if (m_.is_subclass_of(klass, {"torch.nn.Module", "torch.nn.modules.module.Module"}) || m_.is_lightning_module(klass)) {
    result = 1;
  } else {
    for (const auto& base : m_.classes()[klass].bases) {
      if (base == "object" || base == "builtins.object" || starts_with(base, "torch.utils.data.") ||
          starts_with(base, "abc.") || starts_with(base, "enum.") || starts_with(base, "typing.") ||
          base == "Exception" || base == "dict" || base == "list")
        continue;
      // A framework object class (`class CLTrainer(transformers.Trainer)`): an object, not a module.
      if (FrameworkTable::get().object_class(base) >= 0) continue;
      if (starts_with(base, "torch.nn.") || starts_with(base, "transformers.") || starts_with(base, "timm.")) {
        result = 1;
        break;
      }
      // A base class defined here decides, or one of another project module (its facts); any
      // other base (imported from elsewhere) is unknown.
      auto named = m_.classes_by_name_.find(std::string(last_part(base)));
      int local = named == m_.classes_by_name_.end() ? -1 : named->second.back();
      int r = local >= 0 && local != klass ? module_class(local) : -1;
      if (local < 0 && m_.facts_)
        if (const FunctionFacts* ext = m_.facts_->callee(base, fact::kClass); ext && ext->is_class) r = ext->module_kind;
      if (r == 1) {
        result = 1;
        break;
      }
      if (r == -1) result = -1;
    }
  }
  memo = static_cast<signed char>(result);
  return result;
}

AbstractType TypeInference::instance_of(int klass) const {
  int mc = module_class(klass);
  if (mc < 0) return AbstractType::unknown();
  AbstractType t = AbstractType::of(mc ? Kind::Module : Kind::Object);
  t.klass = klass;
  if (!mc) t.framework = framework_base(klass);
  return t;
}

int TypeInference::framework_base(int klass) const {
  if (framework_base_.empty()) framework_base_.assign(m_.classes().size(), -3);
  if (klass < 0 || klass >= static_cast<int>(framework_base_.size())) return -1;
  int& memo = framework_base_[klass];
  if (memo != -3) return memo == -4 ? -1 : memo;
  memo = -4;  // in progress: none
  const auto& table = FrameworkTable::get();
  int result = -1;
  for (const auto& base : m_.classes()[klass].bases) {
    result = table.object_class(base);
    if (result >= 0) break;
    auto named = m_.classes_by_name_.find(std::string(last_part(base)));
    if (named != m_.classes_by_name_.end()) {
      int local = named->second.back();
      result = local != klass ? framework_base(local) : -1;
    } else if (m_.facts_) {
      if (const FunctionFacts* ext = m_.facts_->callee(base, fact::kClass); ext && ext->is_class)
        result = ext->framework.empty() ? -1 : table.object_class(ext->framework);
    }
    if (result >= 0) break;
  }
  memo = result;
  return result;
}

int TypeInference::class_of_callee(Node fn) const {
  for (const auto& v : m_.values(fn))
    if (v.kind == Value::Kind::Expr && is(v.expr, "class_definition")) {
      auto c = m_.class_by_node_.find(v.expr.id);
      if (c != m_.class_by_node_.end()) return c->second;
    }
  return -1;
}

std::vector<int> TypeInference::table_classes(Node fn) const {
  fn = unparen(fn);
  if (!is(fn, "subscript")) return {};
  std::vector<Node> elems;
  if (Node d = unparen(field(fn, "value")); is(d, "dictionary")) {
    // `{"pixel": PixelEncoder, ...}[kind]` written out: every value (a literal key picks its own).
    std::string key, k;
    bool literal = string_literal_value(unparen(field(fn, "subscript")), m_.src(), key);
    for (Node p : named_children(d)) {
      if (is(p, "comment")) continue;
      if (!is(p, "pair")) return {};  // `**other`
      if (literal && string_literal_value(unparen(field(p, "key")), m_.src(), k) && k != key) continue;
      elems.push_back(field(p, "value"));
    }
  } else {
    elems = m_.subscripted_elements(fn);
  }
  if (elems.empty() || elems.size() > SemanticModel::kMaxCandidates) return {};
  std::vector<int> out;
  for (Node e : elems) {
    e = unparen(e);
    if (!is(e, "identifier") && !is(e, "attribute")) return {};
    int k = class_of_callee(e);
    if (k < 0 || m_.scopes_[m_.classes()[k].scope].parent != 0) return {};
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

int TypeInference::framework_class_of_callee(Node fn) const {
  const std::string& q = m_.qualified_name(fn);
  return q.empty() ? -1 : FrameworkTable::get().object_class(q);
}

const std::vector<Node>& TypeInference::constructor_calls(int klass) const {
  if (!constructors_built_) {
    constructors_built_ = true;
    for (const auto& cs : m_.calls()) {
      Node fn = unparen(field(cs.call, "function"));
      if (!is(fn, "identifier") && !is(fn, "attribute")) continue;
      // Only names bound to a class here can construct one: skip the value resolution otherwise.
      std::string_view name = is(fn, "identifier") ? text(fn, m_.src()) : text(field(fn, "attribute"), m_.src());
      if (!m_.classes_by_name_.count(std::string(name))) continue;
      int c = class_of_callee(fn);
      if (c >= 0) constructors_[c].push_back(cs.call);
    }
  }
  static const std::vector<Node> kNone;
  auto it = constructors_.find(klass);
  return it == constructors_.end() ? kNone : it->second;
}

AbstractType TypeInference::class_iter(int klass, Path path) const {
  // A project class with __iter__: what it yields (or the iterator it returns).
  std::set<int> seen;
  for (int c = klass; c >= 0 && seen.insert(c).second;) {
    auto mit = m_.classes()[c].methods.find("__iter__");
    if (mit != m_.classes()[c].methods.end()) {
      bool any = false;
      // A placeholder `__iter__` (its body only raises NotImplementedError: HALOs' DataLoader
      // base, a class picked by a configuration string): what is iterated is an instance of a
      // subclass here, so what their own or inherited `__iter__` yield, joined (as the calls of
      // `self.m(...)` on such a placeholder run the overrides). At most kMaxCandidates
      // definitions; O(classes x MRO).
      if (model_detail::abstract_method(m_.functions()[mit->second].node, m_.src())) {
        std::vector<int> defs;
        for (size_t sc = 0; sc < m_.classes().size(); ++sc) {
          if (static_cast<int>(sc) == klass) continue;
          auto mro = model_detail::class_mro(m_.classes(), m_.classes_by_name_, static_cast<int>(sc));
          if (std::find(mro.begin(), mro.end(), klass) == mro.end()) continue;
          for (int k : mro)
            if (auto d = m_.classes()[k].methods.find("__iter__"); d != m_.classes()[k].methods.end()) {
              if (d->second != mit->second && std::find(defs.begin(), defs.end(), d->second) == defs.end())
                defs.push_back(d->second);
              break;
            }
          if (defs.size() > SemanticModel::kMaxCandidates) return AbstractType::unknown();
        }
        AbstractType t = AbstractType::bottom();
        for (int d : defs) {
          bool yields_any = false;
          AbstractType y = call_iter(d, path, yields_any);
          if (!yields_any) return AbstractType::unknown();
          t = join(t, y);
        }
        return defs.empty() ? AbstractType::unknown() : t;
      }
      // `def __iter__(self): ...; return self` (no yield, every return the instance itself): the
      // class is its own iterator, and an element is what its `__next__` returns (of this class or
      // a base: its returns joined; a `__next__` with no return, or none found, is unknown).
      // O(MRO + the returns).
      const Function& fi = m_.functions()[mit->second];
      bool returns_self = yields(mit->second).empty() && !fi.returns.empty() && !fi.params.empty();
      for (Node r : fi.returns)
        returns_self = returns_self && is(unparen(r), "identifier") && text(unparen(r), m_.src()) == fi.params[0].name;
      if (returns_self) return method_returns(klass, "__next__", path);
      AbstractType t = call_iter(mit->second, path, any);
      return any ? t : AbstractType::unknown();
    }
    c = base_class(c);
  }
  return AbstractType::unknown();
}

AbstractType TypeInference::host_forward(int klass) const {
  // A CPU tensor, or a container of them, by its types: a `forward` whose every return is one
  // (`return [(torch.as_tensor(i), torch.as_tensor(j)) for i, j in indices]` after `C.cpu()`).
  // Or host values computed: Python numbers, numpy arithmetic (MAML's `Meta.forward` returns
  // `np.array(corrects) / n`, accuracies counted with `.item()`: set AO miniimagenet_train.py:76).
  // Not a container display (`self.outputs = {}` filled by item stores of CUDA tensors).
  auto host_tensors = [](const AbstractType& t) {
    return (t.device == TypeDevice::Cpu && tensor_like(t)) || t.kind == Kind::HostScalar || t.kind == Kind::Host;
  };
  if (klass <= -2) {
    const FunctionFacts* cls = ext_class(klass);
    size_t i = static_cast<size_t>(-2 - klass);
    if (!cls || !m_.facts_ || i >= ext_classes_.size()) return AbstractType::unknown();
    const FunctionFacts* f = m_.facts_->callee(ext_classes_[i] + ".forward", fact::kHostReturn);
    if (!f) return AbstractType::unknown();
    AbstractType t = ext_return(*f);
    return host_tensors(t) ? t : AbstractType::unknown();
  }
  AbstractType t = method_returns(klass, "forward", Path{});
  return host_tensors(t) ? t : AbstractType::unknown();
}

AbstractType TypeInference::method_returns(int klass, std::string_view name, Path path) const {
  std::set<int> seen;
  for (int c = klass; c >= 0 && seen.insert(c).second; c = base_class(c)) {
    auto mit = m_.classes()[c].methods.find(std::string(name));
    if (mit == m_.classes()[c].methods.end()) continue;
    const auto& returns = m_.functions()[mit->second].returns;
    if (returns.empty() || !yields(mit->second).empty()) return AbstractType::unknown();
    AbstractType t = AbstractType::bottom();
    for (Node r : returns) t = join(t, value(r, path));
    return t;
  }
  return AbstractType::unknown();
}

// ---------------------------------------------------------------------------------------
// Classes of other project modules (project mode).

AbstractType TypeInference::from_fact(int kind, int device) {
  bool tensors = device >= 0 && (device & kTensorsFact);  // a container of tensors (device_fact)
  if (tensors) device &= ~kTensorsFact;
  if (kind < 0 || kind > static_cast<int>(Kind::Unknown) || device < 0 || device > static_cast<int>(TypeDevice::Any))
    return AbstractType::unknown();
  AbstractType t = AbstractType::of(static_cast<Kind>(kind), static_cast<TypeDevice>(device));
  t.tensors = tensors && t.kind == Kind::HostContainer;
  return t;
}

AbstractType TypeInference::ext_return(const FunctionFacts& f) {
  AbstractType t = from_fact(f.ret_kind, f.ret_device);
  if (t.kind == Kind::Bottom) return AbstractType::unknown();
  // A module whose device its types leave open, which the CUDA taint says may be on CUDA.
  if (t.kind == Kind::Module && t.device == TypeDevice::Unresolved && f.returns_cuda) t.device = TypeDevice::Any;
  // An instance of a framework class (`prepare_accelerator(args)` returning `Accelerator(...)`).
  if (t.kind == Kind::Object && !f.ret_framework.empty()) t.framework = FrameworkTable::get().object_class(f.ret_framework);
  return t;
}

const FunctionFacts* TypeInference::ext_function(Node call, unsigned fields) const {
  if (!m_.facts_) return nullptr;
  if (const FunctionFacts* f = m_.ext_callee_of(call, fields)) return f;
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return nullptr;
  std::string_view meth = text(field(fn, "attribute"), m_.src());
  if (meth == "forward" || meth == "generate") return nullptr;
  AbstractType recv = value(field(fn, "object"), Path{});
  if ((recv.kind != Kind::Module && recv.kind != Kind::Object) || recv.klass > -2) return nullptr;
  size_t i = static_cast<size_t>(-2 - recv.klass);
  if (i >= ext_classes_.size()) return nullptr;
  return m_.facts_->callee(ext_classes_[i] + "." + std::string(meth), fields);
}

const FunctionFacts* TypeInference::ext_method(Node attribute, unsigned fields) const {
  attribute = unparen(attribute);
  if (!m_.facts_ || !is(attribute, "attribute")) return nullptr;
  AbstractType recv = value(field(attribute, "object"), Path{});
  if ((recv.kind != Kind::Module && recv.kind != Kind::Object) || recv.klass > -2) return nullptr;
  size_t i = static_cast<size_t>(-2 - recv.klass);
  if (i >= ext_classes_.size()) return nullptr;
  return m_.facts_->callee(ext_classes_[i] + "." + std::string(text(field(attribute, "attribute"), m_.src())), fields);
}

std::vector<const FunctionFacts*> TypeInference::ext_union_functions(Node call, unsigned fields) const {
  std::vector<const FunctionFacts*> out;
  if (!m_.facts_ || m_.ext_name_.empty()) return out;
  auto it = m_.call_index_.find(call.id);
  if (it == m_.call_index_.end()) return out;
  const std::string& name = m_.ext_name_[it->second];
  if (name.find('|') == std::string::npos) return out;
  for (const auto& member : union_members(name)) {
    const FunctionFacts* f = m_.facts_->callee(member, fields);
    if (!f) return {};
    out.push_back(f);
  }
  return out;
}

namespace {

int sliced_param_uncached(const SemanticModel& m, int function) {
  const Function& fn = m.functions()[function];
  // The parameter a name is bound to: itself (not variadic), or element 0 of a `*args` one.
  auto param_of = [&](Node e) {
    e = unparen(e);
    if (!is(e, "identifier")) return -1;
    auto bindings = m.lookup(m.text(e), start(e));
    if (bindings.size() != 1) return -1;
    const Binding* b = bindings[0];
    if (b->kind == Binding::Kind::Param)
      return b->function == function && !fn.params[b->param_index].is_variadic ? b->param_index : -1;
    if (m.function_at(b->at) != function) return -1;
    Node v = b->plain_value();
    if (!is(v, "subscript") || m.text(unparen(field(v, "subscript"))) != "0") return -1;
    Node c = unparen(field(v, "value"));
    auto cb = is(c, "identifier") ? m.lookup(m.text(c), start(c)) : std::vector<const Binding*>{};
    if (cb.size() != 1 || cb[0]->kind != Binding::Kind::Param || cb[0]->function != function) return -1;
    const Param& p = fn.params[cb[0]->param_index];
    return p.is_variadic && !p.double_star ? cb[0]->param_index : -1;
  };
  auto sliced = [&](Node y) {
    y = unparen(y);
    return is(y, "subscript") && is(unparen(field(y, "subscript")), "slice") ? unparen(field(y, "value")) : Node{};
  };
  int found = -1;
  bool any = false;
  std::vector<Node> stack{field(fn.node, "body")};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    auto k = kind(n);
    if (k == "function_definition" || k == "class_definition" || k == "lambda") continue;
    if (k != "yield") {
      for (Node c : named_children(n)) stack.push_back(c);
      continue;
    }
    for (Node c : all_children(n))
      if (kind(c) == "from") return -1;
    Node y = named_count(n) ? unparen(named_child(n, 0)) : Node{};
    int p = -1;
    if (Node x = sliced(y); !is_null(x)) {
      p = param_of(x);
    } else if (is(y, "call") && m.callee_name(y) == "builtins.tuple" && is(field(y, "arguments"), "generator_expression")) {
      // `tuple(x[i:i + bs] for x in tensors)` of a `*tensors` parameter (the generator is the
      // call's whole argument list).
      Node g = field(y, "arguments");
      Node clause{};
      for (Node c : named_children(g))
        if (is(c, "for_in_clause")) clause = is_null(clause) ? c : Node{};
      Node x = sliced(field(g, "body"));
      Node src = is_null(clause) ? Node{} : unparen(field(clause, "right"));
      auto sb = is(src, "identifier") ? m.lookup(m.text(src), start(src)) : std::vector<const Binding*>{};
      if (!is_null(x) && is(x, "identifier") && !is_null(clause) && m.text(x) == m.text(unparen(field(clause, "left"))) &&
          sb.size() == 1 && sb[0]->kind == Binding::Kind::Param && sb[0]->function == function &&
          fn.params[sb[0]->param_index].is_variadic && !fn.params[sb[0]->param_index].double_star)
        p = sb[0]->param_index;
    }
    if (p < 0 || (found >= 0 && p != found)) return -1;
    found = p;
    any = true;
  }
  return any ? found : -1;
}

}  // namespace

// Memoized: asked of a call's callee for each binding of a loop over it (SemanticModel::is_batch).
int type_detail::sliced_param(const SemanticModel& m, int function) {
  if (function < 0) return -1;
  return m.memo("sliced_param:" + std::to_string(function), [&] { return sliced_param_uncached(m, function); });
}

int TypeInference::passed_through(int function) const {
  // Every yield is `yield from p` or `yield x` of the loop variable of `for x in p:`, p a
  // parameter never rebound: the generator hands out the elements of p (a progress logger's
  // `log_every(iterable)`), whatever the callers pass.
  const Function& fn = m_.functions()[function];
  auto param_of = [&](Node e) {
    e = unparen(e);
    if (!is(e, "identifier")) return -1;
    auto bindings = m_.lookup(text(e, m_.src()), start(e));
    if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->function != function)
      return -1;
    const Param& p = fn.params[bindings[0]->param_index];
    return p.is_variadic ? -1 : bindings[0]->param_index;
  };
  int found = -1;
  for (const auto& [y, from] : yields(function)) {
    int p = -1;
    if (from) {
      p = param_of(y);
    } else if (is(unparen(y), "identifier")) {
      auto bindings = m_.lookup(text(unparen(y), m_.src()), start(y));
      if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::LoopTarget && bindings[0]->unpack_index < 0 &&
          is(bindings[0]->target, "identifier") && is(parent(bindings[0]->target), "for_statement"))
        p = param_of(bindings[0]->value);
    }
    if (p < 0 || (found >= 0 && p != found)) return -1;
    found = p;
  }
  return found;
}

void TypeInference::return_facts(int function, FunctionFacts& out) const {
  auto known = [](const AbstractType& t) { return t.kind != Kind::Unknown && t.kind != Kind::Bottom; };
  if (!yields(function).empty()) {  // a generator: what iterating a call gives
    out.yields_param = passed_through(function);
    if (int p = out.yields_param < 0 ? sliced_param(m_, function) : -1; p >= 0) out.yields_param = kYieldsSlices - p;
    AbstractType y = AbstractType::bottom();
    for (const auto& [v, from] : yields(function)) y = join(y, is_null(v) ? AbstractType::of(Kind::None)
                                                             : from ? iter(v, Path{}) : value(v, Path{}));
    if (known(y)) {
      out.yield_kind = static_cast<int>(y.kind);
      out.yield_device = static_cast<int>(y.device);
    }
    return;
  }
  // A return in a branch that never runs (its condition known false from the parameters' call
  // sites: `if dataset == "cityscapes":` with every caller passing the argparse default
  // "camvid") returns nothing: its names resolve to no binding, and their unknown type would
  // hide what the live returns give (set AA Efficient-Segmentation-Networks'
  // build_dataset_train, a tuple of two loaders per dataset). All of them dead: all kept.
  std::vector<Node> returns;
  for (Node r : m_.functions()[function].returns)
    if (!m_.guards_dead(model_detail::branch_guards(r))) returns.push_back(r);
  if (returns.empty()) returns = m_.functions()[function].returns;
  if (returns.empty()) return;
  AbstractType whole = AbstractType::bottom();
  size_t arity = 0;
  for (Node r : returns) {
    whole = join(whole, value(r, Path{}));
    Node u = unparen(r);
    if (is(u, "call") && m_.callees(u).empty()) {
      // `return build(args)` of another module's builder: its tuple passes on element-wise
      // (`models/__init__.py`'s `build_model` wrapping `models/mdetr.py`'s `build`).
      if (const FunctionFacts* ef = ext_function(u, fact::kReturnType)) arity = std::max(arity, ef->ret_elems.size());
      continue;
    }
    if (!is(u, "tuple") && !is(u, "expression_list")) continue;
    size_t n = 0;
    bool splat = false;
    for (Node e : named_children(u)) {
      splat |= is(e, "list_splat");
      ++n;
    }
    if (!splat) arity = std::max(arity, n);
  }
  if (known(whole)) {
    out.ret_kind = static_cast<int>(whole.kind);
    out.ret_device = device_fact(whole);
    if (whole.kind == Kind::Object && whole.framework >= 0)
      out.ret_framework = FrameworkTable::get().class_name(whole.framework);
  }
  arity = std::min<size_t>(arity, 8);
  bool any_class = false;
  std::vector<std::string> classes;
  for (size_t i = 0; i < arity; ++i) {
    AbstractType e = AbstractType::bottom();
    for (Node r : returns) e = join(e, value(r, Path::single(static_cast<int>(i))));
    // A device element that its types leave unresolved (`torch.device("cuda:0" if n > 0 else "cpu")`
    // in `return device, list_ids`): where every return is a tuple display, what the elements name
    // (devkind_of), so that `device, ids = prepare_device(n)` in another module unpacks a device
    // that may be CUDA.
    if (e.kind == Kind::Device && e.device == TypeDevice::Unresolved) {
      std::vector<Node> elems;
      for (Node r : returns) {
        Node u = unparen(r);
        Node el = is(u, "tuple") || is(u, "expression_list") ? named_child(u, static_cast<uint32_t>(i)) : Node{};
        if (is_null(el) || is(el, "list_splat")) {
          elems.clear();
          break;
        }
        elems.push_back(el);
      }
      int dk = elems.empty() ? 0 : m_.devkind_of(elems);
      if (dk == 2) e.device = TypeDevice::Cuda;
      else if (dk == 1) e.device = TypeDevice::Cpu;
    }
    if (known(e)) out.ret_elems.push_back({static_cast<int>(e.kind), device_fact(e)});
    else out.ret_elems.push_back({-1, 0});
    // The class (or union) of the element's instances in every return (`return model, criterion`).
    std::string c;
    if (e.kind == Kind::Module || e.kind == Kind::Object)
      for (Node r : returns) {
        std::string rc = class_names(r, Path::single(static_cast<int>(i)));
        c = rc.empty() ? std::string{} : c.empty() ? rc : union_join(c, rc);
        if (c.empty()) break;
      }
    any_class |= !c.empty();
    classes.push_back(std::move(c));
  }
  if (any_class) out.ret_elem_classes = std::move(classes);
}

const FunctionFacts* TypeInference::ext_class(int klass) const {
  size_t i = static_cast<size_t>(-2 - klass);
  if (klass > -2 || i >= ext_classes_.size() || !m_.facts_) return nullptr;
  if (ext_classes_[i].find('|') != std::string::npos) return nullptr;  // a class union: no one class's facts
  const FunctionFacts* f = m_.facts_->callee(ext_classes_[i], fact::kClass);
  return f && f->is_class ? f : nullptr;
}

const FunctionFacts* TypeInference::ext_base(int klass, std::string* name) const {
  if (!m_.facts_) return nullptr;
  for (const auto& b : m_.classes()[klass].bases) {
    if (m_.classes_by_name_.count(std::string(last_part(b)))) continue;
    const FunctionFacts* f = m_.facts_->callee(b, fact::kClass);
    if (f && f->is_class) {
      if (name) *name = b;
      return f;
    }
  }
  return nullptr;
}

int TypeInference::ext_instance_class(Node call) const {
  if (!m_.facts_ || m_.ext_name_.empty()) return -1;
  auto it = m_.call_index_.find(call.id);
  if (it == m_.call_index_.end()) return -1;
  return ext_class_index(m_.ext_name_[it->second]);
}

int TypeInference::ext_class_index(std::string_view written) const {
  if (!m_.facts_ || written.empty()) return -1;
  if (written.find('|') != std::string_view::npos) {
    // A class union: every member a class of another module, all modules or all not.
    std::string key;
    int kind = -1;
    for (const auto& member : union_members(written)) {
      const FunctionFacts* f = m_.facts_->callee(member, fact::kClass);
      if (!f || !f->is_class || f->module_kind < 0 || (kind >= 0 && f->module_kind != kind)) return -1;
      kind = f->module_kind;
      std::string c = m_.facts_->canonical(member);
      key = union_join(key.empty() ? c : key, c);
      if (c.empty() || key.empty()) return -1;
    }
    for (size_t i = 0; i < ext_classes_.size(); ++i)
      if (ext_classes_[i] == key) return -2 - static_cast<int>(i);
    if (ext_classes_.size() >= SemanticModel::kMaxCandidates * 4) return -1;
    ext_classes_.push_back(std::move(key));
    return -2 - static_cast<int>(ext_classes_.size() - 1);
  }
  const FunctionFacts* f = m_.facts_->callee(written, fact::kClass);
  if (!f || !f->is_class || f->module_kind < 0) return -1;
  // One index per class, whichever name reaches it (`.models.Net`, `pkg.Net` re-exported).
  std::string key = m_.facts_->canonical(written);
  if (key.empty()) key = std::string(written);
  for (size_t i = 0; i < ext_classes_.size(); ++i)
    if (ext_classes_[i] == key) return -2 - static_cast<int>(i);
  if (ext_classes_.size() >= SemanticModel::kMaxCandidates * 4) return -1;
  ext_classes_.push_back(std::move(key));
  return -2 - static_cast<int>(ext_classes_.size() - 1);
}

std::vector<std::string> TypeInference::cuda_instance_classes() const {
  std::vector<std::string> out;
  if (!m_.facts_) return out;
  // The project classes of other modules a class object may be, as this module writes them
  // (qualified through its imports): a class named, a name bound to one, or `table[a][b]` of
  // dict displays of them (P-tuning-v2's `PREFIX_MODELS[config.model_type][task_type]`); `None`
  // entries hold nothing. Library classes (`AutoModelForSequenceClassification`) are none of
  // them: only the project's classes are collected (a may-set, not a type). False when an
  // expression is not understood.
  std::function<bool(Node, int, int, std::vector<std::string>&)> class_objects =
      [&](Node e, int pending, int depth, std::vector<std::string>& got) -> bool {
    e = unparen(e);
    if (is_null(e) || depth > 8 || got.size() > 32) return false;
    if (is(e, "none")) return pending == 0;
    if (is(e, "subscript")) return class_objects(field(e, "value"), pending + 1, depth + 1, got);
    if (is(e, "dictionary")) {
      if (pending == 0) return false;
      for (Node pair : named_children(e)) {
        if (is(pair, "comment")) continue;
        if (!is(pair, "pair") || !class_objects(field(pair, "value"), pending - 1, depth + 1, got)) return false;
      }
      return true;
    }
    if (!is(e, "identifier") && !is(e, "attribute")) return false;
    if (const std::string& q = m_.qualified_name(e); !q.empty()) {
      if (pending != 0) return false;
      const FunctionFacts* f = m_.facts_->callee(q, fact::kClass);
      if (f && f->is_class && f->module_kind == 1 && std::find(got.begin(), got.end(), q) == got.end()) got.push_back(q);
      return true;  // a library class: none of the project's
    }
    if (!is(e, "identifier")) return false;
    auto bindings = m_.lookup(text(e, m_.src()), start(e));
    if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
    for (const Binding* b : bindings)
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !class_objects(b->value, pending, depth + 1, got))
        return false;
    return true;
  };
  // A function of this module whose returned module another module places on CUDA (rec23b,
  // FactsTable via cuda_instances below: P-tuning-v2's `model = get_model(...)` handed to
  // `Trainer(model=model)`): the project classes its returns may construct, directly or with
  // `from_pretrained`/`from_config` of a class object, are instances on CUDA.
  for (size_t f = 0; f < m_.functions().size(); ++f) {
    const Function& fn = m_.functions()[f];
    if (fn.klass >= 0 || fn.returns.empty() || m_.scopes_[fn.scope].parent != 0 || !m_.facts_->class_on_cuda(fn.name))
      continue;
    std::vector<std::string> got;
    for (Node r : fn.returns) {
      std::vector<Node> built;
      r = unparen(r);
      if (is(r, "call")) {
        built.push_back(r);
      } else if (is(r, "identifier")) {
        for (const Binding* b : m_.lookup(text(r, m_.src()), start(r)))
          if (b->is_plain_assign() && is(unparen(b->value), "call"))
            built.push_back(unparen(b->value));
      }
      for (Node c : built) {
        Node callee = unparen(field(c, "function"));
        if (is(callee, "attribute")) {
          std::string_view meth = text(field(callee, "attribute"), m_.src());
          if (meth == "from_pretrained" || meth == "from_config") callee = field(callee, "object");
        }
        std::vector<std::string> classes;
        if (class_objects(callee, 0, 0, classes))
          for (auto& k : classes)
            if (std::find(got.begin(), got.end(), k) == got.end()) got.push_back(std::move(k));
      }
    }
    for (auto& k : got)
      if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(std::move(k));
  }
  if (!m_.uses_cuda()) {
    std::sort(out.begin(), out.end());
    return out;
  }
  for (const Scope& s : m_.scopes_)
    for (const auto& [name, list] : s.bindings)
      for (const Binding& b : list) {
        if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || !is(unparen(b.value), "call")) continue;
        AbstractType t = binding_part(b, Path{});
        if (t.kind != Kind::Module || t.klass > -2) {
          // A module of no known class returned by a function of another module and placed on
          // CUDA here (`model = get_model(...)`, then `Trainer(model=model)`): that function, so
          // that its module marks the classes its returns construct (above, there).
          Node call = unparen(b.value);
          const FunctionFacts* ext = t.klass == -1 ? m_.ext_callee_of(call, fact::kReturnsModule) : nullptr;
          if (!ext || !ext->returns_module) continue;
          auto ci = m_.call_index_.find(call.id);
          if (ci == m_.call_index_.end() || static_cast<size_t>(ci->second) >= m_.ext_name_.size()) continue;
          const std::string& fname = m_.ext_name_[ci->second];
          if (fname.empty() || fname.find('|') != std::string::npos) continue;
          TypeDevice moved = moved_device(&b);
          if (moved != TypeDevice::Cuda && moved != TypeDevice::Any) continue;
          if (std::find(out.begin(), out.end(), fname) == out.end()) out.push_back(fname);
          continue;
        }
        TypeDevice d = t.device;
        if (TypeDevice moved = moved_device(&b); moved != TypeDevice::Unresolved) d = join(d, moved);
        if (d != TypeDevice::Cuda && d != TypeDevice::Any) continue;
        for (const std::string& klass : union_members(ext_classes_[static_cast<size_t>(-2 - t.klass)]))
          if (std::find(out.begin(), out.end(), klass) == out.end()) out.push_back(klass);
      }
  // Submodules: `self.quantizer = Quantize(...)` in a class of this module on CUDA.
  for (const auto& [key, v] : m_.self_assignments_) {
    if (!is(unparen(v), "call")) continue;
    int f = m_.function_at(start(v));
    int owner = f >= 0 ? m_.functions()[f].klass : -1;
    if (owner < 0) continue;
    AbstractType t = value(v, Path{});
    if (t.kind != Kind::Module || t.klass > -2 || !class_on_cuda(owner)) continue;
    // A class union (`{"a": A, "b": B}[name](...)`): each member may be the instance.
    for (const std::string& klass : union_members(ext_classes_[static_cast<size_t>(-2 - t.klass)]))
      if (std::find(out.begin(), out.end(), klass) == out.end()) out.push_back(klass);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int TypeInference::class_by_canonical(const std::string& name) const {
  if (!m_.facts_ || name.empty() || name == "?") return -1;
  // A class of this module (another module returned or passed an instance of it).
  auto dot = name.rfind('.');
  if (dot != std::string::npos) {
    std::string local = name.substr(dot + 1);
    auto named = m_.classes_by_name_.find(local);
    if (named != m_.classes_by_name_.end() && m_.facts_->canonical(local, true) == name)
      for (int c : named->second)
        if (m_.scopes_[m_.classes()[c].scope].parent == 0) return c;
  }
  return ext_class_index(name);
}

AbstractType TypeInference::returned_instance(const FunctionFacts& f) const {
  int klass = class_by_canonical(f.returns_class);
  if (klass == -1) return AbstractType::unknown();
  AbstractType t = instance_type(klass, f.returns_module && f.returns_cuda ? TypeDevice::Any : TypeDevice::Unresolved);
  return t.kind == Kind::Module || t.kind == Kind::Object ? t : AbstractType::unknown();
}

AbstractType TypeInference::instance_type(int klass, TypeDevice module_device) const {
  AbstractType t;
  if (klass >= 0) {
    t = instance_of(klass);
  } else if (const FunctionFacts* f = ext_class(klass)) {
    t = AbstractType::of(f->module_kind == 1 ? Kind::Module : Kind::Object);
    t.klass = klass;
    if (t.kind == Kind::Object && !f->framework.empty()) t.framework = FrameworkTable::get().object_class(f->framework);
  } else if (size_t i = static_cast<size_t>(-2 - klass);
             klass <= -2 && i < ext_classes_.size() && ext_classes_[i].find('|') != std::string::npos) {
    // A class union (ext_class_index checked that its members agree): no members' facts.
    const FunctionFacts* first = m_.facts_->callee(union_members(ext_classes_[i])[0], fact::kClass);
    if (first && first->is_class) {
      t = AbstractType::of(first->module_kind == 1 ? Kind::Module : Kind::Object);
      t.klass = klass;
    }
  }
  if (t.kind == Kind::Module) t.device = module_device;
  return t;
}

std::string TypeInference::class_names(Node expr, Path path, int depth) const {
  expr = unparen(expr);
  if (is_null(expr) || !m_.facts_) return {};
  AbstractType t = value(expr, path);
  if (t.kind != Kind::Module && t.kind != Kind::Object) return {};
  std::string own = class_name(t);
  if (!own.empty() || t.klass != -1 || t.framework >= 0 || depth >= 2) return own;
  auto k = kind(expr);
  if ((k == "tuple" || k == "expression_list") && path.size()) {
    int i = path.at(0), n = 0;
    for (Node c : named_children(expr)) {
      if (is(c, "list_splat")) return {};
      if (n++ == i) return class_names(c, path.rest(), depth);
    }
    return {};
  }
  // A construction of a torch.nn module (`nn.Linear(...)`): calling it runs no project code.
  auto library_module = [&](Node e) {
    e = unparen(e);
    return path.size() == 0 && is(e, "call") && starts_with(m_.qualified_name(unparen(field(e, "function"))), "torch.nn.") &&
           value(e, Path{}).kind == Kind::Module;
  };
  if (k == "conditional_expression") {
    auto parts = named_children(expr);
    if (parts.size() != 3) return {};
    std::string a = class_names(parts[0], path, depth + 1), b = class_names(parts[2], path, depth + 1);
    // An arm that constructs a torch.nn module (`torch.nn.MSELoss() if opt.mse_loss else
    // FocalLoss()`, the CenterNet/FairMOT heatmap criterion: set AL, set F) runs no project code
    // when called: the project classes the expression may be are the other arm's.
    if (a.empty() && !b.empty() && library_module(parts[0])) return b;
    if (b.empty() && !a.empty() && library_module(parts[2])) return a;
    return union_join(a, b);
  }
  // `sampler or Uniform(diffusion)` (guided-diffusion's TrainLoop keeps the caller's schedule
  // sampler, a union of classes of another module, or a default instance; set BF): either
  // operand's instance, the union of both (the join of the two types names no class when they
  // differ). An operand typed None (an optional left at its default) adds nothing. O(operands).
  if (k == "boolean_operator" && m_.text(field(expr, "operator")) == "or") {
    Node l = field(expr, "left"), r = field(expr, "right");
    bool l_none = value(l, path).kind == Kind::None, r_none = value(r, path).kind == Kind::None;
    std::string a = l_none ? std::string{} : class_names(l, path, depth + 1);
    std::string b = r_none ? std::string{} : class_names(r, path, depth + 1);
    if ((a.empty() && !l_none) || (b.empty() && !r_none)) return {};
    return a.empty() ? b : b.empty() ? a : union_join(a, b);
  }
  // A module moved or cast (`(A(...) if c else B(...)).to(dev)`, `model.cuda().eval()`): the same
  // instance, so the classes of the receiver.
  if (k == "call") {
    Node f = unparen(field(expr, "function"));
    // `_ENCODERS[kind](...)` of a dict display of this module's classes (rad's make_encoder):
    // an instance of any of them, each named.
    if (auto table = path.size() == 0 ? table_classes(f) : std::vector<int>{}; table.size() > 1) {
      std::string out;
      for (int c : table) {
        std::string n = class_name(instance_of(c));
        if (n.empty()) return {};
        out = out.empty() ? n : union_join(out, n);
        if (out.empty()) return {};
      }
      return out;
    }
    if (!is(f, "attribute")) return {};
    std::string_view meth = text(field(f, "attribute"), m_.src());
    if (meth != "train" && meth != "eval" && !module_move_or_cast(meth)) return {};
    return class_names(field(f, "object"), path, depth);  // a subexpression: no new level
  }
  if (k == "attribute") {
    // `self.policy`, assigned instances of different classes in the branches of `__init__`
    // (`GaussianPolicy(...)` or `DeterministicPolicy(...)`): the union of every assignment's.
    int klass = m_.class_of_self(expr);
    if (klass < 0) return {};
    auto stores = m_.self_stores(klass, m_.text(field(expr, "attribute")));
    if (stores.empty() || stores.size() > SemanticModel::kMaxCandidates) return {};
    std::string out;
    for (int ai : stores) {
      Node v = m_.self_assignments_[ai].second;
      if (is_null(v)) return {};
      AbstractType vt = value(v, path);
      if (vt.kind == Kind::None) continue;  // an optional instance
      std::string c = class_names(v, path, depth + 1);
      // A branch that assigns a torch.nn module (`self.Prediction = nn.Linear(...)` for CTC,
      // `Attention(...)` of another module for Attn: set H deep-text-recognition-benchmark's
      // model.py) runs no project code when called, as the ternary's arm above: the project
      // classes the attribute may hold are the other branches'.
      if (c.empty() && library_module(v)) continue;
      if (c.empty()) return {};
      out = out.empty() ? c : union_join(out, c);
    }
    return out;
  }
  if (k != "identifier") return {};
  // A parameter of a function here: the union of what its call sites pass (here, and the class
  // every call site of another module passes): `policy` of `eval_policy(policy, ...)`, called
  // with a `BCQ.BCQ` in one function and a `DDPG.DDPG` in another.
  auto param_classes = [&](int fi, int pi) -> std::string {
    if (fi < 0 || pi < 0 || static_cast<size_t>(fi) >= m_.functions().size()) return {};
    const Function& fn = m_.functions()[fi];
    if (static_cast<size_t>(pi) >= fn.params.size()) return {};
    const Param& p = fn.params[pi];
    if (p.is_variadic || pi < bound_params(fn) || m_.step_hook(fi)) return {};
    std::string out;
    // Call sites of other modules: the class every one of them passes.
    if (const ArgFacts* ext = m_.ext_param(fi, pi, fact::kArgClass); ext && ext->passed) {
      if (ext->klass.empty() || ext->klass == "?") return {};
      out = ext->klass;
    }
    std::vector<Node> sites;
    for (int ci : m_.callers(fi)) sites.push_back(m_.calls()[ci].call);
    if (fn.klass >= 0 && fn.name == "__init__")
      for (Node c : constructor_calls(fn.klass)) sites.push_back(c);
    if (sites.size() > SemanticModel::kMaxCandidates) return {};
    int position = pi - bound_params(fn);
    for (Node call : sites) {
      if (SemanticModel::has_splat_argument(call)) return {};
      Node a = m_.argument(call, p.keyword_only ? -1 : position, p.name);
      if (is_null(a)) a = p.default_value;
      if (is_null(a)) return {};
      if (value(a, path).kind == Kind::None) continue;  // an optional instance
      // Each call site one class: a site passing a name bound to several (SlowFast's `test_meter`,
      // an `AVAMeter` or a `TestMeter` in the branches of one caller) gives the parameter none.
      std::string c = class_names(a, path, depth + 1);
      if (c.empty() || c.find('|') != std::string::npos) return {};
      out = out.empty() ? c : union_join(out, c);
      if (out.empty()) return {};
    }
    return out;
  };
  auto bindings = visible(m_, expr);
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return {};
  std::string out;
  for (const Binding* b : bindings) {
    if (b->kind == Binding::Kind::Param) {
      std::string c = param_classes(b->function, b->param_index);
      out = out.empty() && c.empty() ? std::string{} : out.empty() ? c : union_join(out, c);
      if (out.empty()) return {};
      continue;
    }
    if (b->kind != Binding::Kind::Assign) return {};
    // A name unpacked from a call's tuple (`model, criterion = build_a(args)` in one branch,
    // `build_b(args)` in another: DAB-DETR's build_model_main): the element at its position.
    Path own = b->unpack_index >= 0 ? target_path(b->target) : Path{};
    if (b->unpack_index >= 0 && (own.size() == 0 || !own.append(path).valid())) return {};
    AbstractType bt = binding_part(*b, path);
    if (bt.kind == Kind::None) continue;  // an optional instance
    std::string c = class_name(bt);
    if (c.empty() && bt.klass == -1 && (bt.kind == Kind::Module || bt.kind == Kind::Object))
      c = class_names(b->value, own.append(path), depth + 1);
    out = out.empty() && c.empty() ? std::string{} : out.empty() ? c : union_join(out, c);
    if (out.empty()) return {};
  }
  return out;
}

std::vector<int> TypeInference::local_class_union(Node expr) const {
  expr = unparen(expr);
  std::string u;
  // A parameter (of a function, not a step hook or a bound one): the union of the classes its
  // call sites here pass, each site's own union included (class_names gives a parameter none
  // where one site passes a name bound to several). O(sites x class_names).
  auto bindings = is(expr, "identifier") ? visible(m_, expr) : std::vector<const Binding*>{};
  if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Param && bindings[0]->function >= 0) {
    int fi = bindings[0]->function, pi = bindings[0]->param_index;
    const Function& fn = m_.functions()[fi];
    if (pi < 0 || static_cast<size_t>(pi) >= fn.params.size() || fn.params[pi].is_variadic || pi < bound_params(fn) ||
        m_.step_hook(fi) || m_.callers(fi).empty() || m_.callers(fi).size() > SemanticModel::kMaxCandidates)
      return {};
    if (const ArgFacts* ext = m_.ext_param(fi, pi, fact::kArgClass); ext && ext->passed) return {};
    for (int ci : m_.callers(fi)) {
      Node a = site_argument(fi, pi, m_.calls()[ci].call);
      std::string c = is_null(a) ? std::string{} : class_names(a, Path{});
      if (c.empty()) return {};
      u = u.empty() ? c : union_join(u, c);
      if (u.empty()) return {};
    }
  } else {
    u = class_names(expr, Path{});
  }
  if (u.find('|') == std::string::npos) return {};
  std::vector<int> out;
  for (const auto& member : union_members(u)) {
    int k = class_by_canonical(member);
    if (k < 0) return {};
    out.push_back(k);
  }
  return out;
}

// Also a single class of another module whose type a join with a library module lost
// (`torch.nn.MSELoss() if opt.mse_loss else FocalLoss()`: class_names leaves the torch arm out).
std::string TypeInference::external_union(Node expr) const {
  AbstractType t = value(unparen(expr), Path{});
  if ((t.kind != Kind::Module && t.kind != Kind::Object) || t.klass != -1 || t.framework >= 0) return {};
  std::string u = class_names(expr, Path{});
  if (u.empty()) return {};
  for (const auto& member : union_members(u))
    if (class_by_canonical(member) > -2) return {};  // a class of this module: its own calls
  return ext_class_index(u) <= -2 ? u : std::string{};
}

std::string TypeInference::class_name(const AbstractType& t) const {
  if ((t.kind != Kind::Module && t.kind != Kind::Object) || t.framework >= 0 || !m_.facts_) return {};
  if (t.klass >= 0) {
    const Class& c = m_.classes()[t.klass];
    return m_.scopes_[c.scope].parent == 0 ? m_.facts_->canonical(c.name, true) : std::string{};
  }
  size_t i = static_cast<size_t>(-2 - t.klass);
  return t.klass <= -2 && i < ext_classes_.size() ? ext_classes_[i] : std::string{};
}

AbstractType TypeInference::ext_member(std::string_view cls, std::string_view attr, TypeDevice owner, bool* present) const {
  const FunctionFacts::Attr* a = m_.facts_ ? m_.facts_->class_attr(cls, attr) : nullptr;
  if (present) *present = a != nullptr;
  if (!a) return AbstractType::unknown();
  AbstractType t = from_fact(a->kind, a->device);
  if (t.kind == Kind::Module || t.kind == Kind::Tensor) t.device = join(t.device, owner);
  if (t.kind == Kind::Object && !a->framework.empty()) t.framework = FrameworkTable::get().object_class(a->framework);
  return t;
}

namespace {
// The calls `self.register_buffer(...)` / `self.register_parameter(...)` of each class's methods,
// by class, in call order: filled incrementally over the model's calls (a call is appended once
// and never changes), so a question costs O(the class's register calls) instead of O(calls).
// This thread's; keyed by the TypeInference and its model, and emptied when a model starts
// (collect()), so it never holds the calls of a model that is gone.
struct RegisteredIndex {
  const void* owner = nullptr;
  const void* model = nullptr;
  size_t scanned = 0;
  std::unordered_map<int, std::vector<int>> by_class;
};
RegisteredIndex& registered_index() {
  thread_local RegisteredIndex index;
  return index;
}
}  // namespace

void clear_registered_index() { registered_index() = RegisteredIndex{}; }

bool TypeInference::registered_tensor(int klass, std::string_view attr) const {
  // `self.register_buffer("mean", t)` / `self.register_parameter("w", p)` in a method of the class.
  if (klass >= 0) {
    RegisteredIndex& index = registered_index();
    if (index.owner != this || index.model != &m_) {
      index = RegisteredIndex{};
      index.owner = this;
      index.model = &m_;
    }
    const auto& calls = m_.calls();
    for (; index.scanned < calls.size(); ++index.scanned) {
      const auto& cs = calls[index.scanned];
      if (cs.caller < 0) continue;
      int c = m_.functions()[cs.caller].klass;
      if (c < 0) continue;
      Node fn = unparen(field(cs.call, "function"));
      if (!is(fn, "attribute")) continue;
      auto meth = text(field(fn, "attribute"), m_.src());
      if (meth != "register_buffer" && meth != "register_parameter") continue;
      if (text(unparen(field(fn, "object")), m_.src()) != "self") continue;
      index.by_class[c].push_back(static_cast<int>(index.scanned));
    }
    auto found = index.by_class.find(klass);
    if (found == index.by_class.end()) return false;
    for (int ci : found->second) {
      std::string name;
      if (string_literal_value(m_.argument(calls[static_cast<size_t>(ci)].call, 0, "name"), m_.src(), name) && name == attr)
        return true;
    }
    return false;
  }
  for (const auto& cs : m_.calls()) {
    if (cs.caller < 0 || m_.functions()[cs.caller].klass != klass) continue;
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "attribute")) continue;
    auto meth = text(field(fn, "attribute"), m_.src());
    if (meth != "register_buffer" && meth != "register_parameter") continue;
    if (text(unparen(field(fn, "object")), m_.src()) != "self") continue;
    std::string name;
    if (string_literal_value(m_.argument(cs.call, 0, "name"), m_.src(), name) && name == attr) return true;
  }
  return false;
}

void TypeInference::class_facts(int klass, FunctionFacts& out) const {
  out.is_class = true;
  out.module_kind = module_class(klass);
  if (int fw = framework_base(klass); fw >= 0) out.framework = FrameworkTable::get().class_name(fw);
  auto keep = [](const AbstractType& t) { return t.kind != Kind::Unknown && t.kind != Kind::Bottom; };
  AbstractType it = class_iter(klass, Path{});
  if (keep(it)) {
    out.iter_kind = static_cast<int>(it.kind);
    out.iter_device = static_cast<int>(it.device);
  }
  // The attributes assigned in the class and its bases here (the facts of an imported base
  // are that base's own), and the registered buffers and parameters.
  std::set<std::string> names;
  std::set<int> seen;
  for (int c = klass; c >= 0 && seen.insert(c).second; c = base_class(c)) {
    std::string prefix = m_.classes()[c].name + ".";
    for (const auto& [key, v] : m_.self_assignments_)
      if (key.compare(0, prefix.size(), prefix) == 0) names.insert(key.substr(prefix.size()));
    for (const auto& cs : m_.calls()) {
      if (cs.caller < 0 || m_.functions()[cs.caller].klass != c) continue;
      Node fn = unparen(field(cs.call, "function"));
      if (!is(fn, "attribute")) continue;
      auto meth = text(field(fn, "attribute"), m_.src());
      std::string name;
      if ((meth == "register_buffer" || meth == "register_parameter") &&
          string_literal_value(m_.argument(cs.call, 0, "name"), m_.src(), name))
        names.insert(name);
    }
  }
  for (const auto& name : names) {
    if (out.attrs.size() >= 64) break;
    AbstractType t = member_type(klass, name, TypeDevice::Unresolved);
    // A tensor the types leave to the CUDA taint (a factory given a device: `self._scale =
    // torch.full((1,), s, device=dev)` in a lazy initializer handed `outputs.device`, beside
    // `self._scale = None` in `__init__`): on the GPU where every store is such a factory that this
    // module takes for "may be CUDA" (or None), as the class's own methods read it, so a subclass
    // of another module finds it there too (its `self._scale.to(device=outputs.device)` copies
    // nothing: torch's ShardedGradScaler over GradScaler).
    if ((t.kind == Kind::Tensor && t.device == TypeDevice::Unresolved) || t.kind == Kind::Unknown) {
      bool factory = false, other = false;
      // A tensor every store of which the CUDA taint takes for "may be CUDA" (`self.parameters =
      // parameters` of a class the encoder of a CUDA module constructs with its output, mar's
      // DiagonalGaussianDistribution): on the GPU for the other modules too, as this module's
      // own reads find it (`posterior.parameters` of `posterior = vae.encode(x)` in the engine).
      bool tainted = t.kind == Kind::Tensor, stored = false;
      for (int c = klass, guard = 0; c >= 0 && guard < 16 && (!other || tainted); c = base_class(c), ++guard) {
        auto stores = m_.self_stores(c, name);
        if (stores.size() > SemanticModel::kMaxCandidates) other = true, tainted = false;
        for (size_t i = 0; i < stores.size() && (!other || tainted); ++i) {
          Node v = unparen(m_.self_assignments_[stores[i]].second);
          if (is(v, "none")) continue;
          const bool cuda = m_.is_cuda(v);
          stored = true;
          tainted = tainted && cuda;
          if (is(v, "call") && m_.qualified_name(unparen(field(v, "function"))).rfind("torch.", 0) == 0 &&
              !is_null(m_.argument(v, -1, "device")) && cuda)
            factory = true;
          else
            other = true;
        }
      }
      if ((factory && !other) || (tainted && stored)) t = AbstractType::of(Kind::Tensor, TypeDevice::Cuda);
    }
    if (!keep(t)) continue;
    // A device its types leave unresolved (`self.device = self._acquire_device()`, returning
    // `torch.device('cuda:{}'.format(gpu))` or the CPU's): what the stored values name
    // (devkind_of), so a subclass of another module moves to a device that may be CUDA (set R
    // Informer2020's and set AA Autoformer's `Exp_Basic`).
    if (t.kind == Kind::Device && t.device == TypeDevice::Unresolved) {
      std::vector<Node> stored;
      for (int c = klass, guard = 0; c >= 0 && guard < 16 && stored.size() <= SemanticModel::kMaxCandidates;
           c = base_class(c), ++guard) {
        for (int ai : m_.self_stores(c, name)) stored.push_back(m_.self_assignments_[ai].second);
        if (!stored.empty()) break;
      }
      int dk = stored.empty() || stored.size() > SemanticModel::kMaxCandidates ? 0 : m_.devkind_of(stored);
      if (dk == 2) t.device = TypeDevice::Cuda;
      else if (dk == 1) t.device = TypeDevice::Cpu;
    }
    out.attrs.push_back({name, static_cast<int>(t.kind), static_cast<int>(t.device),
                         t.kind == Kind::Object && t.framework >= 0 ? FrameworkTable::get().class_name(t.framework)
                                                                     : std::string{}});
  }
}

bool TypeInference::class_on_cuda(int klass) const {
  const int n = static_cast<int>(m_.classes().size());
  if (klass < 0 || klass >= n || !m_.uses_cuda()) return false;
  if (!class_cuda_.empty()) return class_cuda_[klass] > 0;
  // Every class at once, on the first question: a class is on CUDA when an instance of it or of
  // a subclass here is, so each instance found marks its class and the bases above it.
  class_cuda_.assign(m_.classes().size(), 0);
  bool grew = false;
  auto mark = [&](int c) {
    for (int guard = 0; c >= 0 && guard < 16; c = base_class(c), ++guard)
      if (!class_cuda_[c]) class_cuda_[c] = 1, grew = true;
  };
  auto on_cuda = [](TypeDevice d) { return d == TypeDevice::Cuda || d == TypeDevice::Any; };
  // Only calls that name a class of this module (`Queue(...)`, `Queue(...).to(device)`) are typed
  // here: inferring every binding this early would answer questions the later ones depend on
  // in another order (yolov7's loss.py kept its SY003 findings only without).
  auto names_class = [&](Node call) {
    for (int guard = 0; guard < 4 && is(call, "call"); ++guard) {
      Node fn = unparen(field(call, "function"));
      if (is(fn, "identifier")) return m_.classes_by_name_.count(std::string(text(fn, m_.src()))) != 0;
      if (!is(fn, "attribute")) return false;
      call = unparen(field(fn, "object"));
    }
    return false;
  };
  const auto& table = FrameworkTable::get();
  for (int c = 0; c < n; ++c)
    if (int fw = framework_base(c); fw >= 0 && table.uses_cuda(table.class_name(fw))) mark(c);
  // A Lightning module of a program whose Trainer is not told `accelerator="cpu"`: the Trainer
  // moves it to the accelerator, with its buffers and submodules (deep-vector-quantization's
  // quantizer, whose forward reads `self.data_initialized.item()`).
  if (m_.lightning_gpu_)
    for (int c = 0; c < n; ++c)
      if (m_.is_lightning_module(c)) mark(c);
  // Bound to a name on CUDA or moved there in place.
  for (const Scope& sc : m_.scopes_)
    for (const auto& [name, list] : sc.bindings)
      for (const Binding& b : list) {
        if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || !names_class(unparen(b.value))) continue;
        AbstractType t = binding_part(b, Path{});
        if (t.kind != Kind::Module || t.klass < 0 || t.klass >= n || class_cuda_[t.klass]) continue;
        TypeDevice d = t.device;
        if (TypeDevice moved = moved_device(&b); moved != TypeDevice::Unresolved) d = join(d, moved);
        if (on_cuda(d)) mark(t.klass);
      }
  // Another module's instance (project mode).
  if (m_.facts_)
    for (int c = 0; c < n; ++c)
      if (!class_cuda_[c] && m_.scopes_[m_.classes()[c].scope].parent == 0 && m_.facts_->class_on_cuda(m_.classes()[c].name)) mark(c);
  // Submodules: `self.q = Queue(...)` in a method of a class on CUDA, to a fixpoint (each round
  // marks at least one class: at most `n` rounds over the stores).
  std::vector<std::pair<int, int>> stores;  // (owner class, stored class)
  for (const auto& [key, v] : m_.self_assignments_) {
    if (!names_class(unparen(v))) continue;
    int f = m_.function_at(start(v));
    int owner = f >= 0 ? m_.functions()[f].klass : -1;
    if (owner < 0) continue;
    AbstractType t = value(v, Path{});
    if (t.kind == Kind::Module && t.klass >= 0 && t.klass < n && t.klass != owner) stores.push_back({owner, t.klass});
  }
  for (int round = 0; round <= n && !stores.empty(); ++round) {
    grew = false;
    for (const auto& [owner, held] : stores)
      if (class_cuda_[owner] && !class_cuda_[held]) mark(held);
    if (!grew) break;
  }
  return class_cuda_[klass] > 0;
}

namespace {
// A value that holds parameters of the module storing it on itself (they move with the module):
// `nn.Parameter(t)`, `nn.ParameterDict(...)`, `nn.ParameterList(...)`, a name every binding of
// which holds one (`weight_dict = nn.ParameterDict()`), or the element at `position` of what a
// method of the class returns (`self.embedding_dict, self.weight_dict = self.init_weight()`,
// set AJ NGCF-PyTorch). Not a module (`nn.Linear`): its attributes are read through it.
bool parameter_holder(const SemanticModel& m, Node v, int position, int depth) {
  v = unparen(v);
  if (is_null(v) || depth > 4) return false;
  if (position >= 0) {
    if (!is(v, "tuple") && !is(v, "expression_list")) {
      if (!is(v, "identifier")) return false;
      auto bs = m.lookup(text(v, m.src()), start(v));
      if (bs.empty() || bs.size() > 4) return false;
      for (const Binding* b : bs)
        if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !parameter_holder(m, b->value, position, depth + 1))
          return false;
      return true;
    }
    if (position >= static_cast<int>(named_count(v))) return false;
    return parameter_holder(m, named_child(v, static_cast<uint32_t>(position)), -1, depth + 1);
  }
  if (is(v, "call")) {
    static const std::set<std::string, std::less<>> holders = {
        "torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.ParameterDict", "torch.nn.ParameterList",
        "torch.nn.modules.container.ParameterDict", "torch.nn.modules.container.ParameterList"};
    return holders.count(m.callee_name(v)) > 0;
  }
  if (!is(v, "identifier")) return false;
  auto bs = m.lookup(text(v, m.src()), start(v));
  if (bs.empty() || bs.size() > 4) return false;
  for (const Binding* b : bs)
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !parameter_holder(m, b->value, -1, depth + 1))
      return false;
  return true;
}
}  // namespace

void TypeInference::decide_buffer_devices() const {
  class_on_cuda(0);
  if (buffers_built_) return;
  buffers_built_ = true;
  // `self.register_buffer("attr", ...)` (or `register_parameter`) in a method of each class: one
  // pass over the methods' calls (SemanticModel::calls_by_caller_), O(calls).
  buffers_.assign(m_.classes().size(), {});
  for (size_t f = 0; f < m_.functions().size() && f < m_.calls_by_caller_.size(); ++f) {
    int c = m_.functions()[f].klass;
    if (c < 0) continue;
    for (int ci : m_.calls_by_caller_[f]) {
      Node call = m_.calls()[ci].call;
      Node fn = unparen(field(call, "function"));
      if (!is(fn, "attribute")) continue;
      auto meth = text(field(fn, "attribute"), m_.src());
      if (meth != "register_buffer" && meth != "register_parameter") continue;
      if (text(unparen(field(fn, "object")), m_.src()) != "self") continue;
      std::string name;
      if (string_literal_value(m_.argument(call, 0, "name"), m_.src(), name)) buffers_[static_cast<size_t>(c)].insert(name);
    }
  }
  // Parameters the class stores on itself (`self.bias = nn.Parameter(...)`), which `module.to(device)`
  // moves with the registered buffers: on CUDA in a class that is (NGCF's embedding tables).
  auto owner_class = [&](Node at) {
    int f = m_.function_at(start(at));
    return f >= 0 ? m_.functions()[f].klass : -1;
  };
  auto attr_of = [](const std::string& key) { return key.substr(key.rfind('.') + 1); };
  for (const auto& [key, v] : m_.self_assignments_) {
    int c = owner_class(v);
    if (c < 0 || !class_cuda_[static_cast<size_t>(c)] || !parameter_holder(m_, v, -1, 0)) continue;
    buffers_[static_cast<size_t>(c)].insert(attr_of(key));
  }
  // `self.a, self.b = self.init_weight()`: the element of each return of the class's method.
  for (const auto& [key, stores] : m_.self_unpacked_by_key_)
    for (const auto& [call, target] : stores) {
      int c = owner_class(target);
      if (c < 0 || !class_cuda_[static_cast<size_t>(c)]) continue;
      Node pattern = parent(target);
      if (!is(pattern, "pattern_list") && !is(pattern, "tuple_pattern")) continue;
      int position = -1;
      for (uint32_t i = 0; i < named_count(pattern); ++i)
        if (same(named_child(pattern, i), target)) position = static_cast<int>(i);
      Node fn = unparen(field(call, "function"));
      if (position < 0 || !is(fn, "attribute") || text(unparen(field(fn, "object")), m_.src()) != "self") continue;
      auto callees = m_.callees(call);
      bool holder = !callees.empty();
      for (int callee : callees) {
        const auto& returns = m_.functions()[static_cast<size_t>(callee)].returns;
        holder = holder && m_.functions()[static_cast<size_t>(callee)].klass >= 0 && !returns.empty();
        for (Node r : returns) holder = holder && parameter_holder(m_, r, position, 0);
      }
      if (holder) buffers_[static_cast<size_t>(c)].insert(attr_of(key));
    }
}

bool TypeInference::buffer_on_cuda(int klass, std::string_view attr) const {
  if (klass < 0 || klass >= static_cast<int>(m_.classes().size()) || !class_on_cuda(klass)) return false;
  decide_buffer_devices();
  // Registered by the class or a base here.
  std::set<int> seen;
  for (int c = klass; c >= 0 && seen.insert(c).second; c = base_class(c))
    if (buffers_[static_cast<size_t>(c)].count(attr)) return true;
  return false;
}

}  // namespace stoker::python
