// The call graph: call sites with their enclosing loops and guards, their callees among the
// functions and methods of the file, the indexes built once over them, and class inheritance.
#include "python/call_positions.h"
#include "python/frameworks.h"
#include "python/model_internal.h"
#include "python/types.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace stoker::python {

using namespace model_detail;

// ---------------------------------------------------------------------------------------
// Calls.

void SemanticModel::resolve_calls() {
  // Class bases, now that imports resolve: before the calls, whose `self.m()` and `super().m()`
  // look the method up along the class's method resolution order (filled after them, the bases
  // were empty there and an inherited `self.get()` had no callee; rec27a).
  for (auto& c : classes_) {
    Node supers = field(c.node, "superclasses");
    for (auto b : named_children(supers)) {
      if (is(b, "keyword_argument")) continue;
      std::string q = qualified_name(b);
      c.bases.push_back(q.empty() ? std::string(text(b)) : q);
    }
  }
  // The per-caller index of the calls is built once they are all known (index_calls); until then
  // every function has none (what the bases now let be read, a subclass's `super().__init__`
  // arguments, is read again afterwards: the values are dropped once the calls are resolved).
  calls_by_caller_.assign(functions_.size(), {});
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
  // What `c.append(x)` adds to a container, once over the calls: `self.flows.append(x)` in a
  // method of class k under (k, "flows"), `layers.append(x)` under (-1 - scope, "layers"). A
  // container also `extend`ed or `insert`ed into holds elements no append shows (kept apart).
  std::map<std::pair<int, std::string>, std::vector<Node>> appended_elements;
  std::set<std::pair<int, std::string>> extended;
  // The key of a container read or written in function `fn` (-1: module level); false when it
  // is neither `self.<name>` in a method nor a bare name.
  auto container_key = [&](Node obj, int fn, std::pair<int, std::string>& key) {
    if (is(obj, "attribute") && is(unparen(field(obj, "object")), "identifier") &&
        text(unparen(field(obj, "object"))) == "self") {
      int k = fn >= 0 ? functions_[fn].klass : -1;
      if (k < 0) return false;
      key = {k, std::string(text(field(obj, "attribute")))};
      return true;
    }
    if (!is(obj, "identifier")) return false;
    key = {-1 - scope_at(start(obj)), std::string(text(obj))};
    return true;
  };
  for (const auto& cs : calls_) {
    Node f = unparen(field(cs.call, "function"));
    if (!is(f, "attribute")) continue;
    std::string_view meth = text(field(f, "attribute"));
    if (meth != "append" && meth != "extend" && meth != "insert" && meth != "__setitem__") continue;
    std::pair<int, std::string> key;
    if (!container_key(unparen(field(f, "object")), cs.caller, key)) continue;
    if (meth == "append") appended_elements[key].push_back(argument(cs.call, 0, ""));
    else extended.insert(key);
  }
  // The appends into the container a call site reads (`self.flows` in a method of the class
  // that appends, `layers` in the scope that appends), or null when another call adds elements.
  auto module_appends = [&](Node container, uint32_t at) -> const std::vector<Node>* {
    std::pair<int, std::string> key;
    if (!container_key(container, function_at(at), key) || extended.count(key)) return nullptr;
    auto found = appended_elements.find(key);
    return found == appended_elements.end() || found->second.size() > kMaxCandidates ? nullptr : &found->second;
  };
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    Node call = calls_[ci].call;
    Node fn = unparen(field(call, "function"));
    std::vector<int> targets;
    auto add_class_method = [&](int klass, std::string_view method) {
      // The method, or one inherited from a base class defined in this file.
      if (int m = inherited_method(classes_, classes_by_name_, klass, method); m >= 0) targets.push_back(m);
    };
    std::function<int(Node, int)> instance_class_at = [&](Node expr, int depth) -> int {
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
              // A name moved or cast (`net = Net(); model = net.to(device)`, `model =
              // model.cuda()`): the class of its instance there, a few names deep.
              if (is(e, "identifier") && depth < 4)
                if (int k = instance_class_at(e, depth + 1); k >= 0) return k;
              continue;
            }
          }
          int fn_def = -1;
          for (const auto& cv : values(f)) {
            if (cv.kind != Value::Kind::Expr) continue;
            if (is(cv.expr, "class_definition")) {
              auto c = class_by_node_.find(cv.expr.id);
              if (c != class_by_node_.end()) return c->second;
            } else if (is(cv.expr, "function_definition")) {
              if (auto fi = function_by_node_.find(cv.expr.id); fi != function_by_node_.end()) fn_def = fi->second;
            }
          }
          // `self._init_model()`: the method of the class of the function that stored it.
          if (fn_def < 0 && is(f, "attribute") && is(unparen(field(f, "object")), "identifier") &&
              text(unparen(field(f, "object"))) == "self")
            if (int at = function_at(start(e)); at >= 0 && functions_[at].klass >= 0)
              fn_def = inherited_method(classes_, classes_by_name_, functions_[at].klass, text(field(f, "attribute")));
          // A function or method of this file every return of which builds one instance of a
          // class of this file (`self.gcn = self._init_model()` with `return GraphConv(...)`,
          // KGIN's Recommender): that class. One call deep.
          if (fn_def >= 0 && depth == 0 && !functions_[fn_def].returns.empty()) {
            int klass = -1;
            for (Node r : functions_[fn_def].returns) {
              int k = is(unparen(r), "call") ? instance_class_at(r, depth + 1) : -1;
              if (k < 0 || (klass >= 0 && k != klass)) {
                klass = -1;
                break;
              }
              klass = k;
            }
            if (klass >= 0) return klass;
          }
          break;
        }
      }
      return -1;
    };
    auto instance_class = [&](Node expr) { return instance_class_at(expr, 0); };
    if (is(fn, "identifier")) {
      for (const auto& v : values(fn)) {
        if (v.kind != Value::Kind::Expr) continue;
        if (is(v.expr, "function_definition")) {
          auto f = function_by_node_.find(v.expr.id);
          if (f != function_by_node_.end()) targets.push_back(f->second);
        } else if (is(v.expr, "call")) {
          closure_targets(v.expr, targets);
        }
      }
      int klass = instance_class(fn);
      if (klass >= 0) {
        add_class_method(klass, "forward");
        add_class_method(klass, "__call__");
      }
      // `next(fetcher)` of an instance of a class defined here: its `__next__` (stargan-v2's
      // InputFetcher, whose `__next__` moves the batch to the device every step).
      if (klass < 0 && qualified_name(fn) == "builtins.next") {
        Node a = unparen(argument(call, 0, ""));
        int k = is(a, "identifier") || is(a, "attribute") || is(a, "call") ? instance_class(a) : -1;
        if (k >= 0) add_class_method(k, "__next__");
      }
    } else if (is(fn, "call")) {
      // `batchify(fn, chunk)(inputs)`: the closure the factory returns, as for a name bound to
      // the factory's call (nerf-pytorch's run_network).
      closure_targets(fn, targets);
    } else if (is(fn, "attribute")) {
      Node obj = unparen(field(fn, "object"));
      std::string_view method = text(field(fn, "attribute"));
      int klass = -1;
      if (is(obj, "identifier") && text(obj) == "self") {
        int f = function_at(start(call));
        klass = f >= 0 ? functions_[f].klass : -1;
      } else if (is(obj, "call") && is(unparen(field(obj, "function")), "identifier") &&
                 text(unparen(field(obj, "function"))) == "super" &&
                 lookup("super", start(obj)).empty()) {  // the builtin, not a name bound here
        // `super().get_loss()`, `super(Perplexity, self).get_loss()` in a method of class C: the
        // first definition after C (or after the named class) in C's method resolution order, as
        // Python looks it up for an instance of C (pytorch-seq2seq's `Perplexity.get_loss`
        // running `NLLLoss.get_loss` per step; rec27a). Not `__init__`: the constructors' chain
        // stays as it was (their parameters' values come from the constructions).
        int f = function_at(start(call));
        int own = f >= 0 ? functions_[f].klass : -1;
        auto sargs = named_children(field(obj, "arguments"));
        int after = own;
        if (!sargs.empty() && is(unparen(sargs[0]), "identifier")) {
          auto named = classes_by_name_.find(std::string(text(unparen(sargs[0]))));
          after = named != classes_by_name_.end() ? named->second.back() : -1;
        }
        if (own >= 0 && after >= 0 && method != "__init__") {
          auto mro = class_mro(classes_, classes_by_name_, own);
          auto at = std::find(mro.begin(), mro.end(), after);
          for (auto it = at == mro.end() ? mro.end() : at + 1; it != mro.end(); ++it)
            if (auto m = classes_[*it].methods.find(std::string(method)); m != classes_[*it].methods.end()) {
              targets.push_back(m->second);
              break;
            }
        }
      } else {
        klass = instance_class(obj);
        // `LLaMA.from_pretrained_llama3_meta(...)`: a classmethod or staticmethod of a class defined
        // here, called on the class itself (set H llm.c). Not another method (`Base.forward(self,
        // x)` hands its receiver as an argument).
        if (klass < 0 && is(obj, "identifier"))
          for (const auto& v : values(obj)) {
            if (v.kind != Value::Kind::Expr || !is(v.expr, "class_definition")) continue;
            auto c = class_by_node_.find(v.expr.id);
            if (c == class_by_node_.end()) continue;
            int m = model_detail::inherited_method(classes_, classes_by_name_, c->second, method);
            if (m < 0) break;
            bool bound_to_class = functions_[m].static_method;
            if (Node dp = parent(functions_[m].node); !bound_to_class && is(dp, "decorated_definition"))
              for (Node d : named_children(dp))
                bound_to_class = bound_to_class || (is(d, "decorator") && text(unparen(named_child(d, 0))) == "classmethod");
            if (bound_to_class && std::find(targets.begin(), targets.end(), m) == targets.end()) targets.push_back(m);
            break;
          }
      }
      if (klass >= 0) {
        size_t before = targets.size();
        add_class_method(klass, method);
        // `self.m(...)` whose method here is a placeholder (its body only raises
        // NotImplementedError, model_detail::abstract_method): what runs is a subclass's
        // override. Those of this file's subclasses of the caller's class (each subclass's own
        // or inherited definition, once), or none: then the call is named for the overrides in
        // other modules (external_name, "C.m[overrides]"; set AL FairMOT's BaseTrainer.__init__
        // running `self._get_losses(opt)` of MotTrainer in mot.py). O(classes x MRO).
        // Only a call under no condition: one the base makes when a setting allows (`if
        // opt.test: self.save_result(...)`, the setting unresolved here) is not known to run, as
        // for the overrides a base's loop runs (FunctionFacts::hot_self_calls).
        if (targets.size() == before + 1 && is(obj, "identifier") && text(obj) == "self" && calls_[ci].guards.empty() &&
            model_detail::abstract_method(functions_[targets.back()].node, src_)) {
          int placeholder = targets.back();
          targets.pop_back();
          for (size_t sc = 0; sc < classes_.size(); ++sc) {
            if (static_cast<int>(sc) == klass) continue;
            auto mro = class_mro(classes_, classes_by_name_, static_cast<int>(sc));
            if (std::find(mro.begin(), mro.end(), klass) == mro.end()) continue;
            for (int c : mro)
              if (auto m = classes_[c].methods.find(std::string(method)); m != classes_[c].methods.end()) {
                if (m->second != placeholder && std::find(targets.begin(), targets.end(), m->second) == targets.end())
                  targets.push_back(m->second);
                break;
              }
          }
        }
      }
      // A method the class inherits from a library base that runs other methods of the instance
      // (data/frameworks.txt `runs`: a vectorized environment's `step(actions)` runs
      // `step_async(actions)`, then `step_wait()`, and returns what that returns): a call of the
      // class's own (or inherited) methods of those names.
      if (klass >= 0 && targets.empty())
        for (int c : class_mro(classes_, classes_by_name_, klass)) {
          bool found = false;
          for (const auto& b : classes_[c].bases)
            for (const auto& ran : FrameworkTable::get().runs(b, method)) {
              add_class_method(klass, ran);
              found = true;
            }
          if (found) break;
        }
      // `self.metric(...)` of an attribute the class's constructor stores a function of this file
      // in (`self.metric = metric`, the function passed to it, or named): a call of that function.
      if (targets.empty() && klass >= 0 && is(obj, "identifier") && text(obj) == "self")
        for (const auto& v : values(fn))
          if (v.kind == Value::Kind::Expr && is(v.expr, "function_definition"))
            if (auto f = function_by_node_.find(v.expr.id); f != function_by_node_.end()) targets.push_back(f->second);
      // self.model(x) where self.model holds an instance of a class defined here
      int attr_class = instance_class(fn);
      if (attr_class >= 0) {
        add_class_method(attr_class, "forward");
        add_class_method(attr_class, "__call__");
      }
    }
    // `loss_map[loss](outputs, ...)` of a dict display of this file's functions or of the
    // class's own bound methods (`{'labels': self.loss_labels, 'boxes': self.loss_boxes}`, the
    // DETR criteria's dispatch): a call of each of them. Only when every value names one.
    if (is(fn, "subscript") && is(unparen(field(fn, "value")), "identifier")) {
      std::vector<int> found;
      bool all = true;
      int f = function_at(start(call));
      int own = f >= 0 ? functions_[f].klass : -1;
      for (const auto& v : values(unparen(field(fn, "value")))) {
        if (v.kind != Value::Kind::Expr || !is(v.expr, "dictionary") || named_count(v.expr) > 16) {
          all = false;
          break;
        }
        for (Node pair : named_children(v.expr)) {
          if (is(pair, "comment")) continue;
          Node e = is(pair, "pair") ? unparen(field(pair, "value")) : Node{};
          size_t before = targets.size();
          if (is(e, "attribute") && is(unparen(field(e, "object")), "identifier") &&
              text(unparen(field(e, "object"))) == "self" && own >= 0) {
            add_class_method(own, text(field(e, "attribute")));
          } else if (is(e, "identifier")) {
            for (const auto& ev : values(e))
              if (ev.kind == Value::Kind::Expr && is(ev.expr, "function_definition"))
                if (auto fi = function_by_node_.find(ev.expr.id); fi != function_by_node_.end()) targets.push_back(fi->second);
          }
          if (targets.size() == before) all = false;
          else found.insert(found.end(), targets.begin() + static_cast<long>(before), targets.end());
          targets.resize(before);
        }
      }
      if (all) targets.insert(targets.end(), found.begin(), found.end());
      // `l['function'](outputs, labels)` over a list of dict displays (dict_element_items): each
      // instance of a class of this file (its forward) or function of this file held there.
      if (!all || found.empty())
        for (Node item : dict_element_items(*this, fn)) {
          for (const auto& v : values(item))
            if (v.kind == Value::Kind::Expr && is(v.expr, "function_definition"))
              if (auto fi = function_by_node_.find(v.expr.id); fi != function_by_node_.end()) targets.push_back(fi->second);
          if (int klass = instance_class(item); klass >= 0) {
            add_class_method(klass, "forward");
            add_class_method(klass, "__call__");
          }
        }
    }
    // `self.ae_loss[idx](tags, joints)` of a container of instances of classes of this file
    // (`nn.ModuleList([AELoss(t) if with_ae else None for with_ae in cfg.WITH_AE_LOSS])`, a list
    // or tuple display, a comprehension; HigherHRNet's MultiLossFactory, set AO loss.py:97): the
    // forward of each class an element may be. Only when every value of the container is such
    // a container and every element a construction of a class here (or None). O(values x elements).
    // Also a container built empty (`self.flows = nn.ModuleList()`, `layers = []`) and filled by
    // appends (`self.flows.append(AR_Step(...))` in a method of the class, `layers.append(...)`
    // in the same scope: module_appends), and an element taken by a loop over the container
    // (`for i, flow in enumerate(self.flows): flow(mel, ...)`, also `reversed(self.flows)`:
    // Flowtron's forward and infer, set AX).
    auto container_classes = [&](Node container) {
      container = unparen(container);
      std::vector<int> classes;
      bool all = is(container, "identifier") || is(container, "attribute");
      auto element = [&](Node el) {
        el = unparen(el);
        std::vector<Node> arms{el};
        if (is(el, "conditional_expression") && named_count(el) == 3) arms = {named_child(el, 0), named_child(el, 2)};
        for (Node a : arms) {
          a = unparen(a);
          if (is(a, "none")) continue;
          int k = is(a, "call") ? instance_class(a) : -1;
          if (k < 0) {
            all = false;
            return;
          }
          classes.push_back(k);
        }
      };
      auto vs = all ? values(container) : std::vector<Value>{};
      all = all && !vs.empty() && vs.size() <= kMaxCandidates;
      bool empty_display = false;
      for (const auto& v : vs) {
        if (!all) break;
        Node e = v.kind == Value::Kind::Expr ? unparen(v.expr) : Node{};
        if (is(e, "call") && last_part(callee_name(e)) == "ModuleList") {
          e = unparen(argument(e, 0, "modules"));
          if (is_null(e)) {
            empty_display = true;
            continue;
          }
        }
        if ((is(e, "list") || is(e, "tuple")) && named_count(e) == 0) {
          empty_display = true;
        } else if (is(e, "list") || is(e, "tuple")) {
          if (named_count(e) > 16) all = false;
          for (Node el : named_children(e))
            if (all && !is(el, "comment")) element(el);
        } else if (is(e, "list_comprehension")) {
          element(field(e, "body"));
        } else {
          all = false;
        }
      }
      if (all && empty_display) {
        const std::vector<Node>* appended = module_appends(container, start(call));
        if (!appended || appended->empty()) all = false;
        for (size_t i = 0; all && appended && i < appended->size(); ++i) element((*appended)[i]);
      }
      if (!all || classes.empty()) classes.clear();
      return classes;
    };
    std::vector<int> element_classes;
    if (is(fn, "subscript") && targets.empty()) element_classes = container_classes(field(fn, "value"));
    if (is(fn, "identifier") && targets.empty()) {
      auto bs = lookup(text(fn), start(fn));
      bool loop = !bs.empty() && bs.size() <= kMaxCandidates;
      for (const Binding* b : bs) loop = loop && b->kind == Binding::Kind::LoopTarget;
      for (size_t i = 0; loop && i < bs.size(); ++i) {
        Node it = unparen(loop_target_iterable(*this, *bs[i]));
        if (is(it, "call") && callee_name(it) == "builtins.reversed") it = unparen(argument(it, 0, ""));
        auto ks = is_null(it) ? std::vector<int>{} : container_classes(it);
        if (ks.empty()) {
          element_classes.clear();
          break;
        }
        element_classes.insert(element_classes.end(), ks.begin(), ks.end());
      }
    }
    for (int k : element_classes) {
      add_class_method(k, "forward");
      add_class_method(k, "__call__");
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
}

std::span<const int> SemanticModel::self_stores(const std::string& key) const {
  auto it = self_assignments_by_key_.find(key);
  if (it == self_assignments_by_key_.end()) return {};
  return it->second;
}

std::span<const int> SemanticModel::self_stores(int klass, std::string_view attr) const {
  return self_stores(classes_[klass].name + "." + std::string(attr));
}

void SemanticModel::build_indexes() {
  for (size_t c = 0; c < classes_.size(); ++c) {
    class_by_node_.emplace(classes_[c].node.id, static_cast<int>(c));
    classes_by_name_[classes_[c].name].push_back(static_cast<int>(c));
  }
  for (size_t f = 0; f < functions_.size(); ++f) function_by_node_.emplace(functions_[f].node.id, static_cast<int>(f));
  for (size_t i = 0; i < self_assignments_.size(); ++i)
    self_assignments_by_key_[self_assignments_[i].first].push_back(static_cast<int>(i));
  for (Node s : subscript_assignments_) {
    Node obj = unparen(field(unparen(field(s, "left")), "value"));
    if (is(obj, "identifier")) subscript_stores_[{scope_at(start(s)), std::string(text(obj))}].push_back(s);
  }
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
    if (!loader_call_[ci] && constructs_loader_class(static_cast<int>(ci))) loader_call_[ci] = 1;
    Node fn = unparen(field(call, "function"));
    if (!is(fn, "attribute")) continue;
    auto m = text(field(fn, "attribute"));
    if (m != "append" && m != "extend") continue;
    Node obj = unparen(field(fn, "object"));
    if (is(obj, "identifier")) appends_[{scope_at(start(call)), std::string(text(obj))}].push_back(call);
    else if (is(obj, "attribute") && m == "append")
      if (int klass = class_of_self(obj); klass >= 0)
        self_appends_[classes_[klass].name + "." + std::string(text(field(obj, "attribute")))].push_back(call);
  }
  // A `for` loop over `range(1)` (`range(n)` of an n every value of which is 1, `range(a, a + 1)`
  // of constants) runs its body once: it is no loop for the analysis. CURL's `num_updates = 1;
  // for _ in range(num_updates): agent.update(...)` inside the loop over environment steps is
  // that loop's step, not a hot loop making it an epoch loop. Such a loop loses its index (the
  // walk opens no loop context for it, `loop_index` is -1), leaves every call site's loops (guard
  // depths renumbered as drop_cold_comprehensions does), and the loops nested in it hang from the
  // loop around it. Its entry in `loops_` stays (a Setup loop with no calls). O(loops + calls x
  // depth). Run once the indexes above are built (a parameter's value reads its call sites); the
  // loops of the calls are then indexed again.
  std::vector<char> single_pass(loops_.size(), 0);
  bool any_single = false;
  for (size_t l = 0; l < loops_.size(); ++l) {
    Node n = loops_[l].node;
    if (!is(n, "for_statement") || !is_null(field(n, "alternative"))) continue;
    Node it = unparen(field(n, "right"));
    if (!is(it, "call") || callee_name(it) != "builtins.range") continue;
    std::vector<Node> args;
    for (Node a : named_children(field(it, "arguments")))
      if (!is(a, "comment")) args.push_back(a);
    bool once = false;
    if (args.size() == 1 && !is(args[0], "keyword_argument")) {
      auto n1 = constant_int(args[0]);
      once = n1 && *n1 == 1;
    } else if (args.size() == 2 && !is(args[0], "keyword_argument") && !is(args[1], "keyword_argument")) {
      auto a = constant_int(args[0]), b = constant_int(args[1]);
      once = a && b && *b - *a == 1;
    }
    if (once) {
      single_pass[l] = 1;
      any_single = true;
    }
  }
  if (any_single) {
    for (size_t l = 0; l < loops_.size(); ++l) {
      if (single_pass[l]) loop_by_node_.erase(loops_[l].node.id);
      int p = loops_[l].parent_loop;
      while (p >= 0 && single_pass[p]) p = loops_[p].parent_loop;
      loops_[l].parent_loop = p;
    }
    for (auto& cs : calls_) {
      std::vector<int> kept;
      std::vector<uint32_t> renumber(cs.loops.size() + 1, 0);  // old depth -> new depth
      for (size_t i = 0; i < cs.loops.size(); ++i) {
        renumber[i] = static_cast<uint32_t>(kept.size());
        if (!single_pass[cs.loops[i]]) kept.push_back(cs.loops[i]);
      }
      renumber[cs.loops.size()] = static_cast<uint32_t>(kept.size());
      if (kept.size() == cs.loops.size()) continue;
      for (auto& d : cs.guard_loop_depth) d = renumber[std::min<size_t>(d, cs.loops.size())];
      cs.loops = std::move(kept);
    }
    called_in_loop_.clear();
    calls_in_loop_.assign(loops_.size(), {});
    for (size_t ci = 0; ci < calls_.size(); ++ci) {
      std::vector<int> seen_loops;
      for (int l : calls_[ci].loops)
        if (std::find(seen_loops.begin(), seen_loops.end(), l) == seen_loops.end()) {
          seen_loops.push_back(l);
          calls_in_loop_[l].push_back(static_cast<int>(ci));
        }
    }
  }
}

// A function handed to a helper that calls it runs where the helper runs: for every call, the
// functions of this file passed (by name, or as `self.method`) for a parameter that the callee
// calls, the callee being a function of this file (calls_param) or of another project module
// (its summary's ParamSummary::called).
// Is call ci a call of a name every binding of which is one parameter (`eval_score(...)`,
// `f(True)`)? Such a call has callees only through passed_functions.
static bool param_call(const SemanticModel& m, int ci) {
  Node fn = unparen(field(m.calls()[static_cast<size_t>(ci)].call, "function"));
  if (!is(fn, "identifier")) return false;
  auto bindings = m.lookup(m.text(fn), start(fn));
  return bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Param;
}

void SemanticModel::resolve_closure_calls() {
  closures_by_call_.assign(calls_.size(), {});
  runs_by_call_ = callees_by_call_;
  run_sites_ = callers_;
  // A call of a parameter bound to the functions its call sites hand (passed_functions, the
  // constructor) calls them for the types and for hotness (compute_hot_functions reads these
  // edges itself), but is no evidence of what the loop around it runs: a backtracking line
  // search calling `f(True)` per try is not a step loop (PyTorch-RL's trpo.py, set BD), as a
  // closure run by a helper counts only at the helper's call site.
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    if (runs_by_call_[ci].empty() || !param_call(*this, static_cast<int>(ci))) continue;
    for (int f : runs_by_call_[ci]) {
      auto& sites = run_sites_[f];
      sites.erase(std::remove(sites.begin(), sites.end(), static_cast<int>(ci)), sites.end());
    }
    runs_by_call_[ci].clear();
  }
  // A dispatch through a dict display (`loss_map[loss](...)`, resolve_calls) whose key takes
  // only string constants (`for loss in self.losses: self.get_loss(loss, ...)` with `losses=
  // ['labels', 'boxes']` handed to the constructor) runs only the functions of those keys:
  // YOLOS never asks for "masks", so `loss_masks` is not run per step. The call still maps its
  // arguments onto every candidate's parameters (callees/callers: the types of a helper they
  // share stay joined over all of them).
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    Node fn = unparen(field(calls_[ci].call, "function"));
    if (!is(fn, "subscript") || runs_by_call_[ci].size() < 2 || !is(unparen(field(fn, "value")), "identifier")) continue;
    std::set<std::string> asked;
    bool known = true;
    for (const auto& v : values(unparen(field(fn, "subscript")))) {
      if (v.kind != Value::Kind::Str) known = false;
      else asked.insert(v.s);
    }
    if (!known || asked.empty()) continue;
    // Each candidate's keys in the displays (by the name of the function or method a value names).
    std::map<int, bool> selected;
    for (const auto& dv : values(unparen(field(fn, "value")))) {
      if (dv.kind != Value::Kind::Expr || !is(dv.expr, "dictionary")) continue;
      for (Node pair : named_children(dv.expr)) {
        if (!is(pair, "pair")) continue;
        Node e = unparen(field(pair, "value"));
        std::string_view name = is(e, "attribute") ? text(field(e, "attribute")) : is(e, "identifier") ? text(e) : "";
        std::string key;
        bool literal = string_literal_value(unparen(field(pair, "key")), src_, key);
        for (int t : runs_by_call_[ci])
          if (!name.empty() && functions_[t].name == name) selected[t] = selected[t] || !literal || asked.count(key) > 0;
      }
    }
    std::vector<int> keep;
    for (int t : runs_by_call_[ci]) {
      auto it = selected.find(t);
      if (it == selected.end() || it->second) {
        keep.push_back(t);
        continue;
      }
      auto& sites = run_sites_[t];
      sites.erase(std::remove(sites.begin(), sites.end(), static_cast<int>(ci)), sites.end());
    }
    runs_by_call_[ci] = keep;
  }
  // The function an argument names, or -1.
  auto function_named = [&](Node a) -> int {
    a = unparen(a);
    if (is(a, "identifier")) {
      int found = -1;
      for (const auto& v : values(a)) {
        if (v.kind != Value::Kind::Expr || !is(v.expr, "function_definition")) return -1;
        int f = function_of(v.expr);
        if (f < 0 || (found >= 0 && found != f)) return -1;
        found = f;
      }
      return found;
    }
    if (is(a, "attribute")) {
      Node obj = unparen(field(a, "object"));
      if (!is(obj, "identifier") || text(obj) != "self") return -1;
      int f = function_at(start(a));
      int klass = f >= 0 ? functions_[f].klass : -1;
      if (klass < 0) return -1;
      auto it = classes_[klass].methods.find(std::string(text(field(a, "attribute"))));
      return it == classes_[klass].methods.end() ? -1 : it->second;
    }
    return -1;
  };
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    Node call = calls_[ci].call;
    if (!named_count(field(call, "arguments"))) continue;
    std::vector<int> run;
    auto consider = [&](bool method, int index, const std::string& name, bool keyword_only) {
      int position = keyword_only ? -1 : index - (method ? 1 : 0);
      if (position < 0 && !keyword_only) return;
      int f = function_named(argument(call, position, name));
      if (f >= 0) run.push_back(f);
    };
    for (int c : callees_by_call_[ci]) {
      const Function& fn = functions_[c];
      for (size_t i = 0; i < fn.params.size(); ++i)
        if (!fn.params[i].is_variadic && calls_param(c, static_cast<int>(i)))
          consider(bound_params(fn) == 1, static_cast<int>(i), fn.params[i].name, fn.params[i].keyword_only);
    }
    if (const FunctionFacts* ext = ext_callee(static_cast<int>(ci), fact::kParams))
      for (size_t i = 0; i < ext->params.size(); ++i) {
        const ParamSummary& p = ext->params[i];
        if (p.called && !p.star && !p.double_star) consider(ext->method, static_cast<int>(i), p.name, p.keyword_only);
      }
    std::sort(run.begin(), run.end());
    run.erase(std::unique(run.begin(), run.end()), run.end());
    for (int f : run) {
      if (std::find(runs_by_call_[ci].begin(), runs_by_call_[ci].end(), f) != runs_by_call_[ci].end()) continue;
      closures_by_call_[ci].push_back(f);
      runs_by_call_[ci].push_back(f);
      run_sites_[f].push_back(static_cast<int>(ci));
    }
  }
}

const std::vector<int>& SemanticModel::closures_run_by(int ci) const {
  if (ci < 0 || ci >= static_cast<int>(closures_by_call_.size())) return kNoCallers;
  return closures_by_call_[ci];
}

bool SemanticModel::calls_param(int f, int param_index) const {
  if (f < 0 || f >= static_cast<int>(functions_.size())) return false;
  const Function& fn = functions_[f];
  if (param_index < 0 || param_index >= static_cast<int>(fn.params.size())) return false;
  const std::string& name = fn.params[param_index].name;
  for (int ci : calls_by_caller_[f]) {
    Node callee = unparen(field(calls_[ci].call, "function"));
    if (!is(callee, "identifier") || text(callee) != name) continue;
    for (const Binding* b : lookup(name, start(callee)))
      if (b->kind == Binding::Kind::Param && b->function == f && b->param_index == param_index) return true;
  }
  return false;
}

// TRPO's `line_search(policy_net, get_loss, ...)` calling `f(True).item()` (PyTorch-RL, set BD):
// the parameter's function at every call site, as resolve_closure_calls names it (a plain name
// every value of which is one function definition of this file). A function another module
// calls, or one with a call site that hands anything else, gives none. O(call sites x values).
std::vector<int> SemanticModel::passed_functions(Node call) const {
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "identifier")) return {};
  auto bindings = lookup(text(fn), start(fn));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param) return {};
  const int g = bindings[0]->function, index = bindings[0]->param_index;
  if (g < 0 || index < 0 || static_cast<size_t>(index) >= functions_[g].params.size()) return {};
  const Param& param = functions_[g].params[index];
  if (param.is_variadic || callers(g).empty() || callers(g).size() > kMaxCandidates) return {};
  if (facts_) {
    const IncomingCalls* in = facts_->incoming(local_name(g), fact::kCalled);
    if (in && in->called) return {};
  }
  const int position = param.keyword_only ? -1 : index - bound_params(functions_[g]);
  if (position < 0 && !param.keyword_only) return {};
  std::vector<int> out;
  for (int ci : callers(g)) {
    Node a = unparen(argument(calls_[ci].call, position, param.name));
    if (!is(a, "identifier")) return {};
    int found = -1;
    auto vs = values(a);
    for (const auto& v : vs) {
      if (v.kind != Value::Kind::Expr || !is(v.expr, "function_definition")) return {};
      int f = function_of(v.expr);
      if (f < 0 || (found >= 0 && found != f)) return {};
      found = f;
    }
    if (found < 0) return {};
    if (std::find(out.begin(), out.end(), found) == out.end()) out.push_back(found);
  }
  return out;
}

// `main_loop = get_main_loop(config, model, ...)` then `main_loop(phase=...)`: a function here
// every return of which names a function defined inside it (a closure factory) returns that
// function, so calling the name bound to the factory's result runs it. Only a plain name called
// (no method, no factory of another module); at most 4 returns. O(returns).
void SemanticModel::closure_targets(Node factory_call, std::vector<int>& targets) const {
  Node cf = unparen(field(factory_call, "function"));
  if (!is(cf, "identifier")) return;
  for (const auto& fv : values(cf)) {
    if (fv.kind != Value::Kind::Expr || !is(fv.expr, "function_definition")) continue;
    auto fi = function_by_node_.find(fv.expr.id);
    if (fi == function_by_node_.end()) continue;
    const Function& factory = functions_[fi->second];
    if (factory.returns.empty() || factory.returns.size() > 4) continue;
    std::vector<int> found;
    bool all = true;
    for (Node r : factory.returns) {
      Node e = unparen(r);
      int named = -1;
      if (is(e, "identifier"))
        for (const auto& rv : values(e))
          if (rv.kind == Value::Kind::Expr && is(rv.expr, "function_definition") && contains(factory.node, rv.expr) &&
              !same(rv.expr, factory.node)) {
            auto ri = function_by_node_.find(rv.expr.id);
            if (ri != function_by_node_.end()) named = ri->second;
          }
      if (named < 0) {
        all = false;
        break;
      }
      found.push_back(named);
    }
    if (all) targets.insert(targets.end(), found.begin(), found.end());
  }
}

std::vector<Node> SemanticModel::called_references(Node fn) const {
  fn = unparen(fn);
  if (!is(fn, "identifier")) return {};
  auto bindings = lookup(text(fn), start(fn));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
  std::vector<Node> out;
  for (const Binding* b : bindings) {
    Node v = b->plain_value();
    if (!is(v, "attribute")) return {};
    out.push_back(v);
  }
  return out;
}

std::vector<int> SemanticModel::callees(Node call) const {
  auto it = call_index_.find(call.id);
  return it == call_index_.end() ? std::vector<int>{} : callees_by_call_[it->second];
}

const std::vector<int>& SemanticModel::callers(int f) const {
  if (f < 0 || f >= static_cast<int>(callers_.size())) return kNoCallers;
  return callers_[f];
}

std::vector<std::pair<int, int>> SemanticModel::handed_before(Node use, const std::vector<const Binding*>& reaching) const {
  std::vector<std::pair<int, int>> out;
  int fn = function_at(start(use));
  if (fn < 0 || static_cast<size_t>(fn) >= calls_by_caller_.size() || reaching.empty() ||
      reaching.size() > kMaxCandidates)
    return out;
  std::string_view name = text(use);
  for (int ci : calls_by_caller_[static_cast<size_t>(fn)]) {
    Node call = calls_[static_cast<size_t>(ci)].call;
    if (end(call) > start(use)) continue;
    bool hands = false;  // cheap test first: the name is one of the call's arguments
    for (Node a : named_children(field(call, "arguments"))) {
      Node v = unparen(is(a, "keyword_argument") ? field(a, "value") : a);
      hands = hands || (is(v, "identifier") && text(v) == name);
    }
    if (!hands) continue;
    bool before = true;
    for (const Binding* b : reaching)  // bound before the call, not by the call's own statement
      before = before && b->at <= start(call) && (is_null(b->value) || !contains(b->value, call));
    if (!before) continue;
    for (int f : callees(call)) {
      const auto& params = functions_[f].params;
      for (size_t pi = 0; pi < params.size(); ++pi) {
        if (params[pi].is_variadic) continue;
        Node a = unparen(types_->site_argument(f, static_cast<int>(pi), call));
        if (is(a, "identifier") && text(a) == name) out.push_back({f, static_cast<int>(pi)});
      }
    }
  }
  return out;
}

namespace {

// The bases of class k that are classes of this file (the last class of each name).
std::vector<int> local_bases(const std::vector<Class>& classes,
                             const std::unordered_map<std::string, std::vector<int>>& by_name, int k) {
  std::vector<int> out;
  for (const auto& b : classes[k].bases)
    if (auto named = by_name.find(std::string(last_part(b))); named != by_name.end()) out.push_back(named->second.back());
  return out;
}

// C3: [k] + merge(mro(b1), ..., mro(bn), [b1, ..., bn]); false when it fails (no head left that
// no other list holds in its tail, a cycle, too deep or too many classes).
// `budget` counts the classes visited over the whole recursion (each base's order is worked out
// again where two bases share it): past kMroBudget visits the attempt fails, so one query costs at
// most kMroBudget merges of lists of at most kMaxMroClasses classes, whatever the hierarchy.
constexpr int kMroBudget = 64;

bool c3_mro(const std::vector<Class>& classes, const std::unordered_map<std::string, std::vector<int>>& by_name,
            int k, int depth, int& budget, std::vector<int>& out) {
  if (depth > 8 || --budget < 0) return false;
  std::vector<int> bases = local_bases(classes, by_name, k);
  std::vector<std::vector<int>> lists;
  for (int b : bases) {
    if (b == k) return false;
    lists.emplace_back();
    if (!c3_mro(classes, by_name, b, depth + 1, budget, lists.back())) return false;
  }
  lists.push_back(bases);
  out.assign(1, k);
  auto in_tail = [&](int c) {
    for (const auto& l : lists)
      if (std::find(l.begin() + (l.empty() ? 0 : 1), l.end(), c) != l.end()) return true;
    return false;
  };
  for (;;) {
    int head = -1;
    bool left = false;
    for (const auto& l : lists) {
      if (l.empty()) continue;
      left = true;
      if (!in_tail(l.front())) {
        head = l.front();
        break;
      }
    }
    if (!left) return true;
    if (head < 0 || head == k || out.size() >= kMaxMroClasses) return false;
    out.push_back(head);
    for (auto& l : lists)
      if (!l.empty() && l.front() == head) l.erase(l.begin());
  }
}

}  // namespace

std::vector<int> model_detail::class_mro(const std::vector<Class>& classes,
                                         const std::unordered_map<std::string, std::vector<int>>& by_name,
                                         int klass) {
  std::vector<int> out;
  if (klass < 0 || klass >= static_cast<int>(classes.size())) return out;
  int budget = kMroBudget;
  if (c3_mro(classes, by_name, klass, 0, budget, out)) return out;
  // Depth-first, left to right, each class once.
  out.clear();
  std::vector<int> stack{klass};
  while (!stack.empty() && out.size() < kMaxMroClasses) {
    int c = stack.back();
    stack.pop_back();
    if (std::find(out.begin(), out.end(), c) != out.end()) continue;
    out.push_back(c);
    std::vector<int> bases = local_bases(classes, by_name, c);
    stack.insert(stack.end(), bases.rbegin(), bases.rend());
  }
  return out;
}

bool model_detail::abstract_method(Node def_node, std::string_view src) {
  Node body = field(def_node, "body");
  if (!is(body, "block")) return false;
  int raises = 0;
  bool first = true;
  for (Node st : named_children(body)) {
    if (is(st, "comment")) continue;
    if (first && is(st, "expression_statement") && named_count(st) == 1 && is(named_child(st, 0), "string")) {
      first = false;
      continue;  // the docstring
    }
    first = false;
    // What follows the raise never runs (`raise NotImplementedError` then `return None`:
    // Time-Series-Library's Exp_Basic._build_model, set AK).
    if (raises > 0) break;
    if (!is(st, "raise_statement")) return false;  // a statement of its own: a body
    Node e = named_count(st) > 0 ? unparen(named_child(st, 0)) : Node{};
    if (is(e, "call")) e = unparen(field(e, "function"));
    if (!is(e, "identifier") || text(e, src) != "NotImplementedError") return false;
    ++raises;
  }
  return raises == 1;
}

int model_detail::inherited_method(const std::vector<Class>& classes,
                                   const std::unordered_map<std::string, std::vector<int>>& by_name, int klass,
                                   std::string_view method) {
  for (int c : class_mro(classes, by_name, klass))
    if (auto it = classes[c].methods.find(std::string(method)); it != classes[c].methods.end()) return it->second;
  return -1;
}

bool SemanticModel::any_base(int klass, const std::function<bool(const std::string&)>& match) const {
  std::set<int> seen;
  std::function<bool(int)> rec = [&](int k) {
    if (k < 0 || !seen.insert(k).second) return false;
    for (const auto& b : classes_[k].bases) {
      if (match(b)) return true;
      auto named = classes_by_name_.find(b);
      if (named != classes_by_name_.end())
        for (int c : named->second)
          if (rec(c)) return true;
    }
    return false;
  };
  return rec(klass);
}

bool SemanticModel::is_subclass_of(int klass, std::initializer_list<std::string_view> bases) const {
  return any_base(klass, [&](const std::string& b) {
    return std::find(bases.begin(), bases.end(), std::string_view(b)) != bases.end();
  });
}

}  // namespace stoker::python

namespace stoker::python {

std::vector<Node> model_detail::dict_element_items(const SemanticModel& m, Node subscript) {
  std::string_view src = m.src();
  Node var = unparen(field(subscript, "value"));
  std::string key;
  if (!is(var, "identifier") || !string_literal_value(unparen(field(subscript, "subscript")), src, key)) return {};
  auto loop = m.lookup(text(var, src), start(var));
  if (loop.size() != 1 || loop[0]->kind != Binding::Kind::LoopTarget) return {};
  Node container = unparen(loop_target_iterable(m, *loop[0]));
  std::vector<Node> elements;
  // A display's elements; false for anything else (a splat, a comprehension, a call).
  auto display = [&](Node d) {
    d = unparen(d);
    if (!is(d, "list") && !is(d, "tuple")) return false;
    for (Node e : named_children(d)) {
      if (is(e, "comment")) continue;
      if (is(e, "list_splat")) return false;
      elements.push_back(e);
    }
    return true;
  };
  // How a mention of the container fills it: its attribute's parent is `use` (false: unknown).
  auto fills = [&](Node mention) {
    Node up = parent(mention);
    while (is(up, "parenthesized_expression")) up = parent(up);
    if ((is(up, "assignment") || is(up, "augmented_assignment")) && same(unparen(field(up, "left")), mention))
      return display(field(up, "right"));
    if (is(up, "pattern_list") || is(up, "tuple_pattern") || is(up, "list_pattern")) return false;
    if (is(up, "subscript") && same(unparen(field(up, "value")), mention)) {
      Node store = parent(up);
      return !((is(store, "assignment") || is(store, "augmented_assignment")) && same(unparen(field(store, "left")), up));
    }
    if (is(up, "attribute") && same(unparen(field(up, "object")), mention) && is(parent(up), "call") &&
        same(unparen(field(parent(up), "function")), up)) {
      std::string_view method = text(field(up, "attribute"), src);
      Node call = parent(up);
      if (method == "append") {
        Node a = m.argument(call, 0, "");
        if (is_null(a)) return false;
        elements.push_back(a);
      } else if (method == "insert") {
        Node a = m.argument(call, 1, "");
        if (is_null(a)) return false;
        elements.push_back(a);
      } else if (method == "extend") {
        return display(m.argument(call, 0, ""));
      }
    }
    return true;
  };
  if (is(container, "attribute")) {
    // `self.attr` in a method: every mention of it in the methods of the method's class.
    Node self = unparen(field(container, "object"));
    int f = m.function_at(start(container));
    int klass = f >= 0 ? m.functions()[f].klass : -1;
    if (!is(self, "identifier") || text(self, src) != "self" || klass < 0) return {};
    std::string_view attr = text(field(container, "attribute"), src);
    bool known = for_each_identifier(m.classes()[klass].node, false, [&](Node id) {
      Node a = parent(id);
      if (text(id, src) != "self" || !is(a, "attribute") || !same(unparen(field(a, "object")), id) ||
          text(field(a, "attribute"), src) != attr)
        return true;
      int g = m.function_at(start(id));
      if (g < 0 || m.functions()[g].klass != klass) return true;  // a nested class's own `self`
      return fills(a);
    });
    if (!known) return {};
  } else if (is(container, "identifier")) {
    // A list name of the loop's function: its displays, and what that function appends to it.
    auto bindings = m.lookup(text(container, src), start(container));
    if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return {};
    int scope = m.function_at(start(container));
    for (const Binding* b : bindings)
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || m.function_at(start(b->target)) != scope ||
          !display(b->value))
        return {};
    for (const auto& cs : m.calls()) {
      Node fn = unparen(field(cs.call, "function"));
      if (!is(fn, "attribute") || m.function_at(start(cs.call)) != scope) continue;
      Node obj = unparen(field(fn, "object"));
      if (is(obj, "identifier") && text(obj, src) == text(container, src) && !fills(obj)) return {};
    }
  } else {
    return {};
  }
  std::vector<Node> out;
  for (Node e : elements) {
    auto vs = m.values(e);
    if (vs.empty() || vs.size() > SemanticModel::kMaxCandidates) return {};
    for (const auto& v : vs) {
      if (v.kind != Value::Kind::Expr || !is(unparen(v.expr), "dictionary")) return {};
      for (Node pair : named_children(unparen(v.expr))) {
        if (is(pair, "comment")) continue;
        std::string k;
        if (!is(pair, "pair") || !string_literal_value(unparen(field(pair, "key")), src, k)) return {};
        if (k == key) out.push_back(unparen(field(pair, "value")));
      }
    }
  }
  return out;
}

}  // namespace stoker::python
