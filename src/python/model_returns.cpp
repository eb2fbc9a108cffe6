// What a call hands back, for the CUDA taint: a call typed by its return's dependence on this
// call's arguments (here or in another module), and `d["key"]` read through the stores of that
// key into the dict a call hands back or a name was bound to. Split from model_devices.cpp by
// concern (issue 10's layout).
#include "python/model_internal.h"

#include <functional>
#include <set>

#include "python/dict_fills.h"
#include "python/project_fields.h"

#include "python/types.h"

namespace stoker::python {

using namespace model_detail;

std::optional<bool> SemanticModel::site_return_cuda(int function, Node call) const {
  const ReturnDependence& d = types_->return_dependence(function);
  if (!d.known) return std::nullopt;
  for (Node n : d.fixed_nodes)
    if (is_cuda_impl(n)) return true;
  for (const auto& use : d.uses) {
    if (use.moved) return true;  // the argument moved to CUDA (types_returns.cpp)
    Node a = types_->site_argument(function, use.param, call);
    if (!is_null(a) && use.called) {
      bool nothing = false;
      a = called_result(a, nothing);
      if (nothing) continue;
    }
    if (is_null(a)) return std::nullopt;
    if (is_cuda_impl(a)) return true;
    // A parameter no call reaches: what the callee's parameter may be at any call (the join).
    if (unresolved_argument(a)) {
      const Function& fn = functions_[function];
      auto it = scopes_[fn.scope].bindings.find(fn.params[use.param].name);
      if (it == scopes_[fn.scope].bindings.end()) return std::nullopt;
      for (const Binding& b : it->second)
        if (b.kind == Binding::Kind::Param && b.param_index == use.param && binding_is_cuda(b)) return true;
    }
  }
  return false;
}

std::optional<std::vector<Node>> SemanticModel::dep_site_arguments(const FunctionFacts& f, Node call) const {
  if (!f.dep_known) return std::nullopt;
  std::vector<Node> args;
  for (Node a : named_children(field(call, "arguments")))
    if (is(a, "list_splat") || is(a, "dictionary_splat")) return std::nullopt;
  for (const auto& [i, device] : f.dep_uses) {
    if (i < 0 || static_cast<size_t>(i) >= f.params.size() || (f.method && i == 0)) return std::nullopt;
    const ParamSummary& p = f.params[static_cast<size_t>(i)];
    if (p.star || p.double_star) return std::nullopt;
    Node a = argument(call, p.keyword_only ? -1 : i - (f.method ? 1 : 0), p.name);
    if (device == ReturnDependence::kMovedFact) continue;  // moved to CUDA: no taint of its own to follow
    if (!is_null(a) && device == ReturnDependence::kCalledFact) {
      bool nothing = false;
      a = called_result(a, nothing);
      if (nothing) continue;
      if (is_null(a)) return std::nullopt;
      args.push_back(a);
      continue;
    }
    if (is_null(a) || unresolved_argument(a)) return std::nullopt;
    args.push_back(a);
  }
  return args;
}

std::optional<bool> SemanticModel::site_return_cuda(const FunctionFacts& f, Node call) const {
  auto args = dep_site_arguments(f, call);
  if (!args) return std::nullopt;
  if (f.dep_cuda) return true;
  for (const auto& use : f.dep_uses)
    if (use.second == ReturnDependence::kMovedFact) return true;  // an argument moved to CUDA
  for (Node a : *args)
    if (is_cuda_impl(a)) return true;
  return false;
}

bool SemanticModel::keyed_store_cuda(Node dict, const std::string& key, int depth) const {
  dict = unparen(dict);
  Step step(*this);  // the model's work budget and depth limit
  if (!step || depth > 4) return false;
  if (is(dict, "call")) {
    // A call that hands back its argument: that argument's stores.
    Node v = dict;
    if (const FunctionFacts* ext = ext_callee_of(v, fact::kReturnDep | fact::kReturnsFollow)) {
      // Its parameters that a return is (dep_uses, not a tensor on their device) or, where the
      // dependence is not known, that the returns' CUDA taint follows (returns_follow: `return
      // loss_dict` on one path, a dict rebuilt from it on another).
      std::vector<int> params;
      if (ext->dep_known) {
        for (const auto& [i, d] : ext->dep_uses)
          if (d == 0) params.push_back(i);
      } else {
        params = ext->returns_follow.params;
      }
      for (int i : params) {
        if (i < 0 || static_cast<size_t>(i) >= ext->params.size() || (ext->method && i == 0)) continue;
        const ParamSummary& p = ext->params[static_cast<size_t>(i)];
        if (p.star || p.double_star) continue;
        Node a = argument(v, p.keyword_only ? -1 : i - (ext->method ? 1 : 0), p.name);
        if (!is_null(a) && keyed_store_cuda(a, key, depth + 1)) return true;
      }
      return false;
    }
    for (int f : callees(v)) {
      const ReturnDependence& d = types_->return_dependence(f);
      if (!d.known) {
        // A return of the parameter itself on one path (`return loss_dict` when there is one
        // process), whatever the other returns are.
        for (Node r : functions_[f].returns) {
          r = unparen(r);
          if (!is(r, "identifier")) continue;
          auto rb = lookup(text(r), start(r));
          if (rb.size() == 1 && rb[0]->kind == Binding::Kind::Param && rb[0]->function == f &&
              keyed_store_cuda(types_->site_argument(f, rb[0]->param_index, v), key, depth + 1))
            return true;
        }
        continue;
      }
      for (const auto& use : d.uses)
        if (!use.device && !use.called && !use.moved && keyed_store_cuda(types_->site_argument(f, use.param, v), key, depth + 1))
          return true;
    }
    return false;
  }
  if (!is(dict, "identifier")) return false;
  auto stores = subscript_stores_.find({scope_at(start(dict)), std::string(text(dict))});
  if (stores != subscript_stores_.end())
    for (Node store : stores->second) {
      std::string k;
      Node target = unparen(field(store, "left"));
      if (string_literal_value(unparen(field(target, "subscript")), src_, k) && k == key &&
          is_cuda_impl(field(store, "right")))
        return true;
    }
  // A helper of this module that fills the dict from another argument's items (dict_fills.h):
  // what that argument holds under the key (a dict display's value, a `dict(...)` keyword, the
  // stores of the key into a name).
  for (Node a : dict_fill_sources(*this, *types_, dict)) {
    a = unparen(a);
    Node v{};
    if (is(a, "dictionary")) {
      for (Node c : named_children(a)) {
        std::string k;
        if (is(c, "pair") && string_literal_value(unparen(field(c, "key")), src_, k) && k == key) v = field(c, "value");
      }
    } else if (is(a, "call") && qualified_name(unparen(field(a, "function"))) == "builtins.dict") {
      v = argument(a, -1, key);
    } else if (is(a, "identifier") && keyed_store_cuda(a, key, depth + 1)) {
      return true;
    }
    if (!is_null(v) && is_cuda_impl(v) && !is_module_value(v)) return true;
  }
  // The names and calls the dict came from: `b = a`, `b = f(a)`.
  auto bindings = lookup(text(dict), start(dict));
  if (bindings.size() > kMaxCandidates) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0) continue;
    Node v = unparen(b->value);
    if ((is(v, "identifier") && !same(v, dict)) || is(v, "call"))
      if (keyed_store_cuda(v, key, depth + 1)) return true;
  }
  return false;
}

bool SemanticModel::returns_python_values(int f) const {
  if (f < 0 || static_cast<size_t>(f) >= functions_.size()) return false;
  static const std::set<std::string, std::less<>> conversions = {"builtins.str", "builtins.int", "builtins.float",
                                                                 "builtins.bool", "builtins.len"};
  // `.tolist()` gives Python lists; string methods (no tensor has them) give strings.
  static const std::set<std::string, std::less<>> host_methods = {
      "tolist", "strip", "lstrip", "rstrip", "lower", "upper", "split", "rsplit", "replace", "format", "join"};
  std::function<bool(Node, int)> host = [&](Node e, int depth) -> bool {
    e = unparen(e);
    if (depth > 8 || is_null(e)) return false;
    auto k = kind(e);
    if (k == "string" || k == "concatenated_string" || k == "integer" || k == "float" || k == "true" ||
        k == "false" || k == "none")
      return true;
    if (k == "list" || k == "tuple" || k == "set") {
      for (Node x : named_children(e))
        if (!host(x, depth + 1)) return false;
      return true;
    }
    if (k == "dictionary") {
      for (Node p : named_children(e))
        if (!is(p, "pair") || !host(field(p, "value"), depth + 1)) return false;
      return true;
    }
    if (k == "list_comprehension" || k == "set_comprehension") return host(field(e, "body"), depth + 1);
    if (k == "dictionary_comprehension") {
      Node body = field(e, "body");
      return is(body, "pair") && host(field(body, "value"), depth + 1);
    }
    if (k == "call") {
      Node fn = unparen(field(e, "function"));
      if (is(fn, "attribute") && host_methods.count(text(field(fn, "attribute")))) return true;
      return conversions.count(callee_name(e)) > 0;
    }
    return false;
  };
  const auto& returns = functions_[static_cast<size_t>(f)].returns;
  if (returns.empty()) return false;
  for (Node r : returns)
    if (!host(r, 0)) return false;
  return true;
}

bool SemanticModel::collate_python_values(Node collate) const {
  if (is_null(collate)) return false;
  std::vector<int> fns;
  for (const auto& v : values(collate)) {
    int g = v.kind == Value::Kind::Expr ? function_of(unparen(v.expr)) : -1;
    if (g < 0) {
      fns.clear();
      break;
    }
    fns.push_back(g);
  }
  // `dataset.collate_fn` of an instance of a class of this file: that class's method; of another
  // project module's class: that method's facts.
  Node c = unparen(collate);
  if (fns.empty() && is(c, "attribute")) {
    AbstractType t = types().type_of(field(c, "object"));
    if (t.kind == AbstractType::Kind::Object && t.klass <= -2) {
      const FunctionFacts* f = types().ext_method(c, fact::kReturnType);
      return f && f->returns_py_values;
    }
    if (t.kind != AbstractType::Kind::Object || t.klass < 0) return false;
    auto method = classes()[t.klass].methods.find(std::string(text(field(c, "attribute"))));
    if (method == classes()[t.klass].methods.end()) return false;
    fns.push_back(method->second);
  }
  if (fns.empty()) return false;
  for (int g : fns)
    if (!returns_python_values(g)) return false;
  return true;
}

}  // namespace stoker::python
