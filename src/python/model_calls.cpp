// The call graph: call sites with their enclosing loops and guards, their callees among the
// functions and methods of the file, the indexes built once over them, and class inheritance.
#include "python/model_internal.h"

#include <algorithm>
#include <functional>

namespace stoker::python {

using namespace model_detail;

// ---------------------------------------------------------------------------------------
// Calls.

void SemanticModel::resolve_calls() {
  walk([&](Node n, const WalkFrame& frame) {
    if (!is(n, "call")) return;
    CallSite cs;
    cs.call = n;
    cs.caller = frame.function;
    cs.loops = frame.loops;
    cs.guards = frame.guards;
    cs.guard_loop_depth = frame.guard_loop_depth;
    cs.lambda_depth = frame.lambda_depth;
    call_index_[n.id] = static_cast<int>(calls_.size());
    calls_.push_back(std::move(cs));
  });
  callers_.assign(functions_.size(), {});
  callees_by_call_.assign(calls_.size(), {});
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    Node call = calls_[ci].call;
    Node fn = unparen(field(call, "function"));
    std::vector<int> targets;
    auto add_class_method = [&](int klass, std::string_view method) {
      // The method, or one inherited from a base class defined in this file.
      std::set<int> seen;
      while (klass >= 0 && seen.insert(klass).second) {
        auto it = classes_[klass].methods.find(std::string(method));
        if (it != classes_[klass].methods.end()) {
          targets.push_back(it->second);
          return;
        }
        int next = -1;
        for (const auto& b : classes_[klass].bases) {
          auto named = classes_by_name_.find(std::string(last_part(b)));
          if (named != classes_by_name_.end()) next = named->second.back();
        }
        klass = next;
      }
    };
    auto instance_class = [&](Node expr) -> int {
      // The class whose instance the expression holds: Net(), Net().to(dev), ...
      for (const auto& v : values(expr)) {
        if (v.kind != Value::Kind::Expr) continue;
        Node e = v.expr;
        for (int guard = 0; guard < 8 && is(e, "call"); ++guard) {
          Node f = unparen(field(e, "function"));
          if (is(f, "attribute")) {
            auto a = text(field(f, "attribute"));
            if (a == "to" || a == "cuda" || a == "train" || a == "eval" || a == "half" || a == "float") {
              e = unparen(field(f, "object"));
              continue;
            }
          }
          for (const auto& cv : values(f))
            if (cv.kind == Value::Kind::Expr && is(cv.expr, "class_definition")) {
              auto c = class_by_node_.find(cv.expr.id);
              if (c != class_by_node_.end()) return c->second;
            }
          break;
        }
      }
      return -1;
    };
    if (is(fn, "identifier")) {
      for (const auto& v : values(fn)) {
        if (v.kind != Value::Kind::Expr) continue;
        if (is(v.expr, "function_definition")) {
          auto f = function_by_node_.find(v.expr.id);
          if (f != function_by_node_.end()) targets.push_back(f->second);
        }
      }
      int klass = instance_class(fn);
      if (klass >= 0) {
        add_class_method(klass, "forward");
        add_class_method(klass, "__call__");
      }
    } else if (is(fn, "attribute")) {
      Node obj = unparen(field(fn, "object"));
      std::string_view method = text(field(fn, "attribute"));
      int klass = -1;
      if (is(obj, "identifier") && text(obj) == "self") {
        int f = function_at(start(call));
        klass = f >= 0 ? functions_[f].klass : -1;
      } else {
        klass = instance_class(obj);
      }
      if (klass >= 0) add_class_method(klass, method);
      // self.model(x) where self.model holds an instance of a class defined here
      int attr_class = instance_class(fn);
      if (attr_class >= 0) {
        add_class_method(attr_class, "forward");
        add_class_method(attr_class, "__call__");
      }
    }
    if (is(fn, "identifier") && text(fn) == "self") {
      int f = function_at(start(call));
      int klass = f >= 0 ? functions_[f].klass : -1;
      if (klass >= 0) add_class_method(klass, "forward");
    }
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    callees_by_call_[ci] = targets;
    for (int t : targets) callers_[t].push_back(static_cast<int>(ci));
  }
  // Class bases, now that imports resolve.
  for (auto& c : classes_) {
    Node supers = field(c.node, "superclasses");
    for (auto b : named_children(supers)) {
      if (is(b, "keyword_argument")) continue;
      std::string q = qualified_name(b);
      c.bases.push_back(q.empty() ? std::string(text(b)) : q);
    }
  }
}

void SemanticModel::build_indexes() {
  for (size_t c = 0; c < classes_.size(); ++c) {
    class_by_node_.emplace(classes_[c].node.id, static_cast<int>(c));
    classes_by_name_[classes_[c].name].push_back(static_cast<int>(c));
  }
  for (size_t f = 0; f < functions_.size(); ++f) function_by_node_.emplace(functions_[f].node.id, static_cast<int>(f));
  for (size_t i = 0; i < self_assignments_.size(); ++i)
    self_assignments_by_key_[self_assignments_[i].first].push_back(static_cast<int>(i));
  loops_by_function_.assign(functions_.size(), {});
  for (size_t l = 0; l < loops_.size(); ++l)
    if (loops_[l].function >= 0) loops_by_function_[loops_[l].function].push_back(static_cast<int>(l));
}

void SemanticModel::index_calls() {
  calls_by_caller_.assign(functions_.size(), {});
  calls_in_loop_.assign(loops_.size(), {});
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    if (calls_[ci].caller >= 0) calls_by_caller_[calls_[ci].caller].push_back(static_cast<int>(ci));
    std::vector<int> seen_loops;
    for (int l : calls_[ci].loops)
      if (std::find(seen_loops.begin(), seen_loops.end(), l) == seen_loops.end()) {
        seen_loops.push_back(l);
        calls_in_loop_[l].push_back(static_cast<int>(ci));
      }
  }
  step_call_[0].assign(calls_.size(), -1);
  step_call_[1].assign(calls_.size(), -1);
  loader_call_.assign(calls_.size(), 0);
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    Node call = calls_[ci].call;
    std::string q = callee_name(call);
    for (auto name : kLoaderNames)
      if (q == name) loader_call_[ci] = 1;
    Node fn = unparen(field(call, "function"));
    if (!is(fn, "attribute")) continue;
    auto m = text(field(fn, "attribute"));
    if (m != "append" && m != "extend") continue;
    Node obj = unparen(field(fn, "object"));
    if (is(obj, "identifier")) appends_[{scope_at(start(call)), std::string(text(obj))}].push_back(call);
  }
}

std::vector<int> SemanticModel::callees(Node call) const {
  auto it = call_index_.find(call.id);
  return it == call_index_.end() ? std::vector<int>{} : callees_by_call_[it->second];
}

const std::vector<int>& SemanticModel::callers(int f) const {
  if (f < 0 || f >= static_cast<int>(callers_.size())) return kNoCallers;
  return callers_[f];
}

bool SemanticModel::is_subclass_of(int klass, std::initializer_list<std::string_view> bases) const {
  std::set<int> seen;
  std::function<bool(int)> rec = [&](int k) {
    if (k < 0 || !seen.insert(k).second) return false;
    for (const auto& b : classes_[k].bases) {
      for (auto want : bases)
        if (b == want) return true;
      auto named = classes_by_name_.find(b);
      if (named != classes_by_name_.end())
        for (int c : named->second)
          if (rec(c)) return true;
    }
    return false;
  };
  return rec(klass);
}

}  // namespace stoker::python
