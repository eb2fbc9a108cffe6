// The per-epoch parameter pass of summarize() (split from semantic_project.cpp at 1,958 lines in
// session 23): which parameters of this module's functions a hot loop iterates (here, or through
// the calls that hand them on, to a function here or in another module: ParamSummary::iterated_hot),
// per epoch (iterated_per_epoch), and the keys of their items it iterates (hot_keys); and the calls
// whose result a hot loop iterates (OutgoingCall::result_feeds_training) or an attribute of the
// instance it builds (attrs_fed).
#include <algorithm>
#include <functional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "python/call_positions.h"
#include "python/model_internal.h"
#include "python/project_fields.h"
#include "python/semantic_model.h"
#include "python/types.h"

namespace stoker::python {

namespace {

constexpr int kMaxTraceDepth = 8;
constexpr int kParamPropagationPasses = 4;

}  // namespace

SemanticModel::ParamIteration SemanticModel::param_iteration() const {
  ParamIteration out;
  auto& hot_param = out.hot_param;
  auto& epoch_param = out.epoch_param;
  auto& hot_keys = out.hot_keys;
  auto& iterated_calls = out.iterated_calls;
  auto& iterated_elements = out.iterated_elements;
  auto& attrs_iterated = out.attrs_iterated;
  // The parameters and calls a hot loop's iterable comes from (through names and wrappers).
  hot_param.resize(functions_.size());
  for (size_t f = 0; f < functions_.size(); ++f) hot_param[f].assign(functions_[f].params.size(), 0);
  // Nodes traced from the current root: each once (a union of parameters), so a trace is linear
  // in the nodes it reaches however the bindings and attributes fan out.
  std::unordered_set<const void*> traced;
  // Parameters reached through what a class stores on itself (`self.loader = loader`): an object
  // keeps a loader to iterate it on every call of its method (an evaluator's `evaluate()`).
  std::vector<std::pair<int, int>>* stored = nullptr;
  // Items of parameters reached under a literal key (`data['tr_loader']`, a dict handed there):
  // (function, parameter, key, reached through what the class stores on itself).
  struct KeyedParam {
    int f, p;
    std::string key;
    bool stored;
  };
  std::vector<KeyedParam> keyed;
  // Receivers (virtual dispatch): each class's method resolution order, computed when first asked.
  std::vector<std::vector<int>> mros(classes_.size());
  std::vector<char> mro_done(classes_.size(), 0);
  auto mro_of = [&](int k) -> const std::vector<int>& {
    if (!mro_done[k]) {
      mros[k] = model_detail::class_mro(classes_, classes_by_name_, k);
      mro_done[k] = 1;
    }
    return mros[k];
  };
  // Parameters a trace reached through what an object of one class only keeps: an attribute a
  // base's initializer stores that a subclass's method iterates (`self.train_loader` stored by
  // Trainer.__init__, iterated by FinetuneTrainer), or what a subclass's override runs on an
  // attribute the base stores (`self.iteration(epoch, self.train_dataloader)` in Trainer.train,
  // the placeholder overridden by FinetuneTrainer.iteration): (function, parameter, that class).
  // Iterated for instances of that class (and its subclasses) only: a sibling subclass handing
  // the same argument to the base's initializer through `super().__init__(...)` does not iterate
  // it (`via`). `observer`: the class of the override a call being traced dispatches to, or -1.
  struct Tagged {
    int f, p, klass;
  };
  std::vector<Tagged> tagged;  // per trace, at most kMaxTagged (the rest is dropped: not iterated)
  constexpr size_t kMaxTagged = 64;
  int observer = -1;
  // Per parameter: reached by a trace not so restricted (`plain`), or only for instances of the
  // classes in `via` (at most kMaxVia).
  constexpr size_t kMaxVia = 8;
  std::vector<std::vector<char>> plain(functions_.size());
  std::vector<std::vector<std::vector<int>>> via(functions_.size());
  for (size_t f = 0; f < functions_.size(); ++f) {
    plain[f].assign(functions_[f].params.size(), 0);
    via[f].resize(functions_[f].params.size());
  }
  // Records a trace's parameters: plain unless tagged; true when something is new.
  auto record_plain = [&](const std::vector<std::pair<int, int>>& params) {
    bool changed = false;
    for (auto [f, pi] : params) {
      bool restricted = false;
      for (const auto& t : tagged) restricted = restricted || (t.f == f && t.p == pi);
      if (!restricted && !plain[f][pi]) plain[f][pi] = changed = true;
    }
    for (const auto& t : tagged) {
      auto& v = via[t.f][t.p];
      if (v.size() < kMaxVia && std::find(v.begin(), v.end(), t.klass) == v.end()) {
        v.push_back(t.klass);
        changed = true;
      }
    }
    tagged.clear();
    return changed;
  };
  // Another assignment of the name between binding `b` and the use `e` that runs whenever the
  // function gets there (no loop, `try` or nested definition around it, only branches whose
  // conditions resolve taken: `if args.train_data != args.test_data: test_loader, _, _ =
  // other.get_data()` with the flags' defaults differing, set AN GenzIVQA genziqa_test.py:679)
  // rebinds it on every path: `b`'s value never reaches `e`. O(bindings x depth).
  auto rebound_before = [&](const Binding* b, Node e, const std::vector<const Binding*>& all) {
    for (const Binding* o : all) {
      if (o == b || o->kind != Binding::Kind::Assign || function_at(start(o->target)) != function_at(start(b->target)))
        continue;
      if (!(start(b->target) < start(o->target) && end(o->value) <= start(e))) continue;
      bool runs = true;
      for (Node p = parent(o->target); !is_null(p) && runs; p = parent(p)) {
        auto k = kind(p);
        if (k == "function_definition" || k == "module") break;
        runs = !(k == "for_statement" || k == "while_statement" || k == "try_statement" || k == "lambda" ||
                 k == "class_definition" || k == "list_comprehension" || k == "generator_expression" ||
                 k == "set_comprehension" || k == "dictionary_comprehension" || k == "conditional_expression" ||
                 k == "boolean_operator");
      }
      for (const auto& [cond, positive] : model_detail::branch_guards(o->target)) {
        if (!runs) break;
        auto truth = guard_truth(cond);
        runs = truth && *truth == positive;
      }
      if (runs) return true;
    }
    return false;
  };
  std::function<void(Node, int, std::vector<std::pair<int, int>>&)> trace = [&](Node e, int depth,
                                                                             std::vector<std::pair<int, int>>& params) {
    e = unparen(e);
    if (is_null(e) || depth > kMaxTraceDepth || !traced.insert(e.id).second) return;
    Step step(*this);
    if (!step) return;
    if (is(e, "conditional_expression") && named_count(e) == 3) {
      // `self.tr_loader if not cross_valid else self.cv_loader`: either.
      trace(named_child(e, 0), depth + 1, params);
      trace(named_child(e, 2), depth + 1, params);
    } else if (std::string key; is(e, "subscript") && is(unparen(field(e, "value")), "identifier") &&
                                string_literal_value(unparen(field(e, "subscript")), src_, key)) {
      Node c = unparen(field(e, "value"));
      auto bindings = lookup(text(c), start(c));
      if (bindings.size() > kMaxCandidates) return;
      for (const Binding* b : bindings)
        if (b->kind == Binding::Kind::Param && b->function >= 0 && keyed.size() < 64)
          keyed.push_back({b->function, b->param_index, key, false});
    } else if (std::string skey; is(e, "subscript") && is(unparen(field(e, "value")), "attribute") &&
                                 class_of_self(unparen(field(e, "value"))) >= 0 &&
                                 string_literal_value(unparen(field(e, "subscript")), src_, skey)) {
      // `self.dataloaders['train']` with `self.dataloaders = dataloaders` in the initializer (set
      // BA ChangeFormer's CDTrainer): the stored parameter's item under that key, kept by the
      // object for every call (as a stored loader is).
      Node c = unparen(field(e, "value"));
      int klass = class_of_self(c);
      if (auto stores = self_stores(klass, text(field(c, "attribute"))); stores.size() <= kMaxCandidates)
        for (int ai : stores) {
          Node v = unparen(self_assignments_[ai].second);
          if (!is(v, "identifier")) continue;
          for (const Binding* b : lookup(text(v), start(v)))
            if (b->kind == Binding::Kind::Param && b->function >= 0 && keyed.size() < 64)
              keyed.push_back({b->function, b->param_index, skey, true});
        }
    } else if (is(e, "call")) {
      iterated_calls.insert(e.id);
      for (auto a : named_children(field(e, "arguments")))
        if (!is(a, "keyword_argument") && !is(a, "comment")) trace(a, depth + 1, params);
      // A function of this module returning what it built or got (`data_loader = init_pipe(True)`
      // with `data_loader, _ = init_data(...); return data_loader` in init_pipe): its returns.
      if (auto at = call_index_.find(e.id); at != call_index_.end()) {
        std::vector<std::pair<int, int>> inner;  // its own parameters: not iterated by it
        for (int c : callees_by_call_[at->second])
          for (Node r : functions_[c].returns) trace(r, depth + 1, inner);
      }
    } else if (is(e, "identifier")) {
      auto bindings = lookup(text(e), start(e));
      if (bindings.size() > kMaxCandidates) return;
      for (const Binding* b : bindings) {
        if (b->kind == Binding::Kind::Param) params.push_back({b->function, b->param_index});
        else if (b->is_plain_assign()) trace(b->value, depth + 1, params);
        else if (b->kind == Binding::Kind::Assign && is(unparen(b->value), "call")) {
          // `data_loader, sampler = init_data(...)` of another module's function whose returned
          // tuple holds a loader at that element and at no other (by its types): the call's
          // result feeds training (a second loader there would be taken for fed as well).
          Node v = unparen(b->value);
          Node pattern = is(b->target, "identifier") ? parent(b->target) : b->target;
          if (!(is(pattern, "pattern_list") || is(pattern, "tuple_pattern")) || !is(parent(pattern), "assignment"))
            continue;
          // The element itself, whatever the others are (`train_loader, valid_loader, test_loader
          // = self.dataset.get_data_loaders()`, the test loader iterated once by `_test`: set AQ
          // MolCLR finetune.py): bit i of the call's OutgoingCall::result_fed.
          if (b->unpack_index >= 0 && b->unpack_index < 8 &&
              same(named_child(pattern, static_cast<uint32_t>(b->unpack_index)), b->target) &&
              !rebound_before(b, e, bindings))
            iterated_elements[v.id] |= 1u << b->unpack_index;
          auto at = call_index_.find(v.id);
          // A function of this module returning a tuple display (`return device, test_loader,
          // model` in build(), whose `test_loader` is an element of another module's factory:
          // set AZ FCBFormer predict.py): that element of each of its returns is iterated.
          if (at != call_index_.end() && b->unpack_index >= 0)
            for (int c : callees_by_call_[at->second])
              for (Node r : functions_[c].returns) {
                r = unparen(r);
                if (!is(r, "expression_list") && !is(r, "tuple")) continue;
                std::vector<Node> elems;
                bool starred = false;
                for (Node x : named_children(r)) {
                  if (is(x, "comment")) continue;
                  starred = starred || is(x, "list_splat");
                  elems.push_back(x);
                }
                if (starred || static_cast<size_t>(b->unpack_index) >= elems.size()) continue;
                std::vector<std::pair<int, int>> inner;  // its own parameters: not iterated by it
                trace(elems[static_cast<size_t>(b->unpack_index)], depth + 1, inner);
              }
          const FunctionFacts* ext = at != call_index_.end() ? ext_callee(at->second, fact::kReturnType) : nullptr;
          if (!ext) continue;
          const int loader_kind = static_cast<int>(AbstractType::Kind::Loader);
          bool sole = b->unpack_index < static_cast<int>(ext->ret_elems.size()) &&
                      ext->ret_elems[b->unpack_index].first == loader_kind;
          for (size_t i = 0; sole && i < ext->ret_elems.size(); ++i)
            sole = static_cast<int>(i) == b->unpack_index || ext->ret_elems[i].first != loader_kind;
          if (sole) iterated_calls.insert(v.id);
        }
      }
    } else if (int klass = is(e, "attribute") ? class_of_self(e) : -1; klass >= 0) {
      // `self.loader`: what the class stores there (`self.loader = loader` in __init__).
      std::string attr(text(field(e, "attribute")));
      auto stores = self_stores(klass, attr);
      size_t before = params.size(), keyed_before = keyed.size();
      for (int ai : stores) trace(self_assignments_[ai].second, depth + 1, params);
      if (stored) stored->insert(stored->end(), params.begin() + static_cast<std::ptrdiff_t>(before), params.end());
      for (size_t k = keyed_before; k < keyed.size(); ++k) keyed[k].stored = true;
      // Read by a subclass's override (observer): the instance is one of that subclass.
      if (observer >= 0 && observer != klass)
        for (size_t i = before; i < params.size() && tagged.size() < kMaxTagged; ++i)
          tagged.push_back({params[i].first, params[i].second, observer});
      // Stored by a base's initializer only (`self.train_loader = train_loader` in Trainer.__init__,
      // read by a method of the subclass): the first class after this one in its method resolution
      // order that stores the attribute. Its parameters are iterated for instances of this class
      // (or of the observer), not for every instance of the base: tagged, not iterated plainly.
      if (stores.empty()) {
        const auto& mro = mro_of(klass);
        for (size_t bi = 1; bi < mro.size(); ++bi) {
          auto base = self_stores(mro[bi], attr);
          if (base.empty()) continue;
          std::vector<std::pair<int, int>> inherited;
          for (int ai : base) trace(self_assignments_[ai].second, depth + 1, inherited);
          for (auto [f, pi] : inherited)
            if (tagged.size() < kMaxTagged) tagged.push_back({f, pi, observer >= 0 ? observer : klass});
          break;
        }
      }
    } else if (Node obj = is(e, "attribute") ? unparen(field(e, "object")) : Node{}; is(obj, "identifier")) {
      // `dataset.train` after `dataset = Cifar(...)`: an attribute of the instance a call built.
      auto bindings = lookup(text(obj), start(obj));
      if (bindings.size() > kMaxCandidates) return;
      for (const Binding* b : bindings) {
        // `loader.train_loader` of a parameter (`self.train_loader = loader.train_loader` in
        // MGN's Trainer.__init__, iterated by train()): the parameter's attribute is iterated,
        // recorded among its keys as ".train_loader" (ParamSummary::hot_keys).
        if (b->kind == Binding::Kind::Param && b->function >= 0 && keyed.size() < 64 && text(obj) != "self")
          keyed.push_back({b->function, b->param_index, "." + std::string(text(field(e, "attribute"))), false});
        if (b->is_plain_assign() && is(unparen(b->value), "call")) {
          auto& names = attrs_iterated[unparen(b->value).id];
          std::string a(text(field(e, "attribute")));
          if (std::find(names.begin(), names.end(), a) == names.end() && names.size() < kMaxFedAttrs)
            names.push_back(std::move(a));
        }
      }
    }
  };
  // Iterated per epoch: by a hot loop nested in another loop of its function, or through a call
  // made in a loop (or to a parameter the callee iterates per epoch).
  epoch_param.resize(functions_.size());
  for (size_t f = 0; f < functions_.size(); ++f) epoch_param[f].assign(functions_[f].params.size(), 0);
  // Per parameter, the keys of its items iterated hot, sorted (ParamSummary::hot_keys).
  hot_keys.resize(functions_.size());
  for (size_t f = 0; f < functions_.size(); ++f) hot_keys[f].resize(functions_[f].params.size());
  // The keyed items a trace reached: true when one is new (or newly per epoch).
  auto add_keyed = [&](bool epoch) {
    bool changed = false;
    for (const auto& k : keyed) {
      auto& keys = hot_keys[k.f][k.p];
      if (auto at = std::lower_bound(keys.begin(), keys.end(), k.key);
          keys.size() < kMaxLoaderKeys && (at == keys.end() || *at != k.key)) {
        keys.insert(at, k.key);
        changed = true;
      }
      if ((epoch || k.stored) && !epoch_param[k.f][k.p]) epoch_param[k.f][k.p] = changed = true;
    }
    keyed.clear();
    return changed;
  };
  // One trace of what `e` holds, from a fresh start: the parameters it reaches into `params`, those
  // reached through what an instance stores on itself into `kept`.
  auto trace_from = [&](Node e, std::vector<std::pair<int, int>>& params, std::vector<std::pair<int, int>>& kept) {
    traced.clear();
    keyed.clear();
    tagged.clear();
    stored = &kept;
    trace(e, 0, params);
    stored = nullptr;
  };
  for (size_t li = 0; li < loops_.size(); ++li) {
    const Loop& l = loops_[li];
    if (l.kind != LoopKind::Hot || !is(l.node, "for_statement")) continue;
    // A loop that keeps its batches in host memory and runs no step (dataset statistics,
    // positions selecting host rows) feeds no training, as loader_feeds_training judges the same
    // loop over a loader of this module: what it iterates is not fed there (session 31).
    if (loop_keeps_batches_on_host(static_cast<int>(li))) continue;
    std::vector<std::pair<int, int>> params, kept;
    trace_from(field(l.node, "right"), params, kept);
    for (auto [f, p] : params) {
      hot_param[f][p] = 1;
      if (l.parent_loop >= 0) epoch_param[f][p] = 1;
    }
    record_plain(params);
    // What the instance keeps and a loop of its method iterates, per epoch when that loop runs
    // in another loop or its method is called in one (here or, by the incoming facts, in another
    // module): an evaluator's `eval_models()` called once after training iterates its loader once
    // (set BA ChangeFormer's CDEvaluator, whose test loader's workers start once).
    if (l.parent_loop >= 0 || function_called_in_loop(l.function))
      for (auto [f, p] : kept) epoch_param[f][p] = 1;
    add_keyed(l.parent_loop >= 0);
  }
  // `x, y = next(data_iter)` in a hot loop with `data_iter = iter(data_loader)` (a loop over
  // iterations that draws its batches, re-made on StopIteration: autovc's Solver.train with
  // `data_loader = self.vcc_loader` from its constructor's parameter; rec27b): what `iter` is
  // given is iterated hot, as by a `for` over it. Not per epoch: the draws are the steps.
  for (const auto& cs : calls_) {
    Node it = advanced_iterator(cs.call);
    if (is_null(it) || !frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth).hot)
      continue;
    std::vector<Node> iters;
    if (is(unparen(it), "call")) iters.push_back(unparen(it));
    else
      for (const auto& v : values(it))
        if (v.kind == Value::Kind::Expr && is(unparen(v.expr), "call")) iters.push_back(unparen(v.expr));
    bool drawn_iter = false;
    for (Node ic : iters) drawn_iter = drawn_iter || callee_name(ic) == "builtins.iter";
    // `batch, cond = next(self.data)` / `next(data_loader)` with no `iter(...)` among the values:
    // a generator object drawn per step (a loader generator's: `data = load_data(...)` handed to
    // TrainLoop, or to classifier_train's forward_backward_log, set BF guided-diffusion; session
    // 38). What the name holds (a parameter, a `self` store, a call's result) is iterated hot, as
    // `iter`'s argument is; not per epoch.
    if (Node u = unparen(it); !drawn_iter && (is(u, "identifier") || is(u, "attribute"))) {
      std::vector<std::pair<int, int>> params, kept;
      trace_from(u, params, kept);
      for (auto [f, p] : params) hot_param[f][p] = 1;
      record_plain(params);
      add_keyed(false);
    }
    for (Node ic : iters) {
      if (callee_name(ic) != "builtins.iter") continue;
      Node source = argument(ic, 0, "");
      if (is_null(source) || is(source, "keyword_argument")) continue;
      std::vector<std::pair<int, int>> params, kept;
      trace_from(source, params, kept);
      for (auto [f, p] : params) hot_param[f][p] = 1;
      // A loader the instance keeps (`data_loader = self.celeba_loader`) whose iterator a loop makes
      // again when it runs out (`data_iter = iter(data_loader)` in the `except` of stargan's
      // Solver.train, set I): a new iterator per pass over the data starts the workers anew, per
      // epoch.
      auto at = call_index_.find(ic.id);
      if (at != call_index_.end() && !calls_[at->second].loops.empty())
        for (auto [f, p] : kept) epoch_param[f][p] = 1;
      record_plain(params);
      add_keyed(false);
    }
  }
  // Through calls: a parameter handed to a function (here or in another module) that iterates it.
  auto argument_for = [&](Node call, bool method, int i, const std::string& name, bool kwonly) {
    int position = kwonly ? -1 : i - (method ? 1 : 0);
    return position < 0 && !kwonly ? Node{} : argument(call, position, name);
  };
  // `super().__init__(...)` / `super(C, self).__init__(...)` in the initializer of class C: the
  // first `__init__` after C (or after the class named) in C's method resolution order, of a class
  // here, or -1. Its arguments bind as a construction's do (init_sites); a parameter it iterates
  // is iterated for an instance of C when plainly so or through C's own classes (`via`).
  auto super_init = [&](size_t ci) -> int {
    Node callee = unparen(field(calls_[ci].call, "function"));
    int caller = calls_[ci].caller;
    if (!is(callee, "attribute") || text(field(callee, "attribute")) != "__init__" ||
        !is_super_call(field(callee, "object")) || caller < 0 || functions_[caller].klass < 0 ||
        functions_[caller].name != "__init__" || !lookup("super", start(callee)).empty())
      return -1;
    int own = functions_[caller].klass, after = own;
    auto sargs = named_children(field(unparen(field(callee, "object")), "arguments"));
    if (!sargs.empty() && is(unparen(sargs[0]), "identifier")) {
      auto named = classes_by_name_.find(std::string(text(unparen(sargs[0]))));
      after = named != classes_by_name_.end() ? named->second.back() : -1;
    }
    const auto& mro = mro_of(own);
    auto at = std::find(mro.begin(), mro.end(), after);
    for (auto it = at == mro.end() ? mro.end() : at + 1; it != mro.end(); ++it)
      if (auto m = classes_[*it].methods.find("__init__"); m != classes_[*it].methods.end()) return m->second;
    return -1;
  };
  for (int pass = 0; pass < kParamPropagationPasses; ++pass) {
    bool changed = false;
    for (size_t ci = 0; ci < calls_.size(); ++ci) {
      // (argument, iterated per epoch there, the class of the subclass override it runs or -1)
      std::vector<std::tuple<Node, bool, int>> args;
      // (argument, keys of its items iterated there, per epoch): a parameter handed on as a whole
      std::vector<std::tuple<Node, const std::vector<std::string>*, bool>> keyed_args;
      bool in_loop = !calls_[ci].loops.empty();
      // `self.m(...)` run by an override in a subclass of the caller's class (a placeholder's,
      // resolve_calls): what the argument reads from the instance is iterated for that subclass.
      int caller_class = calls_[ci].caller >= 0 ? functions_[calls_[ci].caller].klass : -1;
      Node callee_node = unparen(field(calls_[ci].call, "function"));
      bool self_call = is(callee_node, "attribute") && is(unparen(field(callee_node, "object")), "identifier") &&
                       text(unparen(field(callee_node, "object"))) == "self";
      for (int c : callees_by_call_[ci]) {
        const Function& fn = functions_[c];
        int override_class = -1;
        if (self_call && caller_class >= 0 && fn.klass >= 0 && fn.klass != caller_class) {
          const auto& mro = mro_of(fn.klass);
          if (std::find(mro.begin(), mro.end(), caller_class) != mro.end()) override_class = fn.klass;
        }
        for (size_t i = 0; i < fn.params.size(); ++i) {
          if (fn.params[i].is_variadic) continue;
          Node a = argument_for(calls_[ci].call, bound_params(fn) == 1, static_cast<int>(i), fn.params[i].name,
                                fn.params[i].keyword_only);
          if (hot_param[c][i]) args.push_back({a, in_loop || epoch_param[c][i], override_class});
          if (!hot_keys[c][i].empty()) keyed_args.push_back({a, &hot_keys[c][i], in_loop || epoch_param[c][i]});
        }
      }
      if (int c = callees_by_call_[ci].empty() ? super_init(ci) : -1; c >= 0) {
        const Function& fn = functions_[c];
        const auto& own_mro = mro_of(functions_[calls_[ci].caller].klass);
        for (size_t i = 0; i < fn.params.size(); ++i) {
          if (fn.params[i].is_variadic) continue;
          bool through_own = false;
          for (int k : via[c][i]) through_own = through_own || std::find(own_mro.begin(), own_mro.end(), k) != own_mro.end();
          if (!plain[c][i] && !through_own) continue;
          Node a = argument_for(calls_[ci].call, true, static_cast<int>(i), fn.params[i].name, fn.params[i].keyword_only);
          args.push_back({a, in_loop || epoch_param[c][i] || through_own, -1});
        }
      }
      if (const FunctionFacts* ext = ext_callee(static_cast<int>(ci), fact::kParams)) {
        for (size_t i = 0; i < ext->params.size(); ++i) {
          const ParamSummary& p = ext->params[i];
          if (p.star || p.double_star) continue;
          Node a = argument_for(calls_[ci].call, ext->method, static_cast<int>(i), p.name, p.keyword_only);
          if (p.iterated_hot) args.push_back({a, in_loop || p.iterated_per_epoch, -1});
          if (!p.hot_keys.empty()) keyed_args.push_back({a, &p.hot_keys, in_loop || p.iterated_per_epoch});
        }
      }
      for (auto [a, epoch, override_class] : args) {
        if (is_null(a)) continue;
        std::vector<std::pair<int, int>> params, kept;
        observer = override_class;
        // What a class stores on itself and hands on (`validate(self.val_loader, ...)` in the
        // method a loop calls per epoch, set AI mdistiller): per epoch, as the instance's own
        // loop over the attribute is (the object keeps the loader for every call).
        trace_from(a, params, kept);
        observer = -1;
        for (auto [f, p] : params) {
          if (!hot_param[f][p]) hot_param[f][p] = changed = true;
          if (epoch && !epoch_param[f][p]) epoch_param[f][p] = changed = true;
        }
        changed |= record_plain(params);
        for (auto [f, p] : kept)
          if (!epoch_param[f][p]) epoch_param[f][p] = changed = true;
        changed |= add_keyed(epoch);  // `loop(data['train'])` with `data` a parameter here
      }
      // A parameter here handed on whole to one whose items are iterated under keys.
      for (auto [a, keys, epoch] : keyed_args) {
        a = unparen(a);
        if (!is(a, "identifier")) continue;
        auto bindings = lookup(text(a), start(a));
        if (bindings.size() > kMaxCandidates) continue;
        for (const Binding* b : bindings) {
          if (b->kind == Binding::Kind::Param && b->function >= 0)
            for (const auto& k : *keys) keyed.push_back({b->function, b->param_index, k, false});
          // The instance a call built here, handed to a parameter whose attributes are iterated
          // (`loader = data.Data(args)`, `Trainer(args, model, loss, loader, ckpt)`): those
          // attributes of the instance feed training (attrs_fed, as `for b in loader.train`).
          // The dict of loaders another module's function returns (`dataloaders =
          // utils.get_loaders(args)`, then `CDTrainer(args=args, dataloaders=dataloaders)`: set BA
          // ChangeFormer), every loader key of which is iterated there: the call's result feeds
          // training (OutgoingCall::result_feeds_training), per epoch when those items are.
          if (b->is_plain_assign() && is(unparen(b->value), "call")) {
            auto fed = ext_returned_loader_keys(b->value);
            if (!fed.empty() && std::includes(keys->begin(), keys->end(), fed.begin(), fed.end())) {
              changed |= iterated_calls.insert(unparen(b->value).id).second;
              if (epoch) changed |= out.epoch_calls.insert(unparen(b->value).id).second;
            }
          }
          if (b->is_plain_assign() && is(unparen(b->value), "call"))
            for (const auto& k : *keys) {
              if (k.empty() || k[0] != '.') continue;
              auto& names = attrs_iterated[unparen(b->value).id];
              std::string attr = k.substr(1);
              if (std::find(names.begin(), names.end(), attr) == names.end() && names.size() < kMaxFedAttrs) {
                names.push_back(std::move(attr));
                changed = true;
              }
            }
        }
        changed |= add_keyed(epoch);
      }
    }
    if (!changed) break;
  }
  return out;
}

// `e` is used as a Python str: an operand of a `+` chain one operand of which is a str literal
// (`save_path + "/" + case + "_pred.nii.gz"`), the right operand of `%` after a str literal (alone
// or in a tuple display: `"case %s" % (i, case)`), an f-string interpolation, or the receiver of a
// method only str has (`case.strip()`; `split` with a str separator). Adding a tensor to a str
// raises, so the value is no tensor. O(depth of the expression).
bool SemanticModel::is_string_use(Node e) const {
  Node p = parent(e);
  if (is(p, "interpolation")) return true;
  if (is(p, "attribute") && same(field(p, "object"), e) && is(parent(p), "call") &&
      same(field(parent(p), "function"), p)) {
    static const std::unordered_set<std::string_view> str_only = {
        "strip", "lstrip", "rstrip", "lower", "upper", "startswith", "endswith", "replace", "rsplit", "splitlines",
        "encode", "format", "zfill", "casefold", "isdigit", "isalpha"};
    std::string_view meth = text(field(p, "attribute"));
    if (str_only.count(meth)) return true;
    Node a = argument(parent(p), 0, "");
    return meth == "split" && !is_null(a) && is_str_expr(a);
  }
  if (is(p, "tuple") && is(parent(p), "binary_operator") && same(unparen(field(parent(p), "right")), p)) {
    e = p;
    p = parent(p);
    if (text(field(p, "operator")) != "%") return false;
  }
  if (!is(p, "binary_operator")) return false;
  auto op = text(field(p, "operator"));
  if (op == "%") return same(unparen(field(p, "right")), e) && is_str_expr(field(p, "left"));
  if (op != "+") return false;
  // The whole `+` chain around `e`: one str literal in it makes every operand a str.
  while (is(parent(p), "binary_operator") && text(field(parent(p), "operator")) == "+") p = parent(p);
  std::vector<Node> stack{p};
  for (int guard = 0; guard < 64 && !stack.empty(); ++guard) {
    Node n = unparen(stack.back());
    stack.pop_back();
    if (is(n, "string") || is(n, "concatenated_string")) return true;
    if (is(n, "binary_operator") && text(field(n, "operator")) == "+") {
      stack.push_back(field(n, "left"));
      stack.push_back(field(n, "right"));
    }
  }
  return false;
}

// Every read of parameter `pi`'s binding in function f (in nested definitions and lambdas too:
// a closure reading it may move it) is the innermost receiver of a chain of tensor methods that keep
// the data (`squeeze`, `cpu`, `detach`, views, dtype casts) ending in `.numpy()`, and there is at
// least one such read: `image, label = image.squeeze(0).cpu().detach().numpy(), ...` (SSL4MIS's
// val_2D.test_single_volume, rec28b). A rebinding of the name is no read. Also a parameter every
// read of which uses it as a str (is_string_use: Swin-Unet's `case`, a part of the paths the
// predictions are saved to): no tensor, nothing of it reaches the GPU. O(function body).
bool SemanticModel::param_enters_numpy(int f, int pi) const {
  if (f < 0 || f >= static_cast<int>(functions_.size())) return false;
  const Function& fn = functions_[f];
  if (pi < 0 || pi >= static_cast<int>(fn.params.size()) || fn.params[pi].is_variadic) return false;
  const std::string& name = fn.params[pi].name;
  static const std::unordered_set<std::string_view> keeps = {
      "squeeze", "unsqueeze", "cpu", "detach", "clone", "contiguous", "float", "double", "long", "int",
      "view", "reshape", "permute", "transpose", "flatten"};
  int reads = 0;
  bool all_ok = for_each_identifier(field(fn.node, "body"), false, [&](Node u) {
    if (text(u) != name) return true;
    Node p = parent(u);
    // The target of a plain or tuple assignment rebinds the name.
    Node target = u;
    while (is(parent(target), "pattern_list") || is(parent(target), "tuple_pattern")) target = parent(target);
    if (is(parent(target), "assignment") && same(field(parent(target), "left"), target)) return true;
    // An attribute name (`x.image`) or keyword name (`f(image=...)`) is no read of the name.
    if (is(p, "attribute") && same(field(p, "attribute"), u)) return true;
    if (is(p, "keyword_argument") && same(field(p, "name"), u)) return true;
    bool param = false;
    for (const Binding* b : lookup(name, start(u)))
      param |= b->kind == Binding::Kind::Param && b->function == f && b->param_index == pi;
    if (!param) return true;
    if (is_string_use(u)) {
      ++reads;
      return true;
    }
    // Up the method chain: `u.m1(...).m2(...)...numpy()`.
    Node e = u;
    bool numpy = false;
    for (int guard = 0; guard < 16; ++guard) {
      Node a = parent(e);
      if (!is(a, "attribute") || !same(field(a, "object"), e)) break;
      Node call = parent(a);
      if (!is(call, "call") || !same(field(call, "function"), a)) break;
      std::string_view m = text(field(a, "attribute"));
      if (m == "numpy") {
        numpy = true;
        break;
      }
      if (!keeps.count(m)) break;
      e = call;
    }
    if (!numpy) return false;
    ++reads;
    return true;
  });
  return all_ok && reads > 0;
}

// Does the parameter that `arg` (an argument of `call_node`, positional or keyword) binds enter
// NumPy first (param_enters_numpy), in every function of this file the call may run, or by the
// callee's facts when it is another module's function? False for a call that spreads arguments.
bool SemanticModel::argument_enters_numpy(Node call_node, Node arg) const {
  Node args = field(call_node, "arguments");
  int position = -1, i = 0;
  std::string keyword;
  for (Node a : named_children(args)) {
    if (is(a, "comment")) continue;
    if (is(a, "list_splat") || is(a, "dictionary_splat")) return false;
    if (is(a, "keyword_argument")) {
      if (same(field(a, "value"), arg)) keyword = std::string(text(field(a, "name")));
      continue;
    }
    if (same(a, arg)) position = i;
    ++i;
  }
  if (position < 0 && keyword.empty()) return false;
  auto local = callees(call_node);
  if (!local.empty()) {
    for (int f : local) {
      const Function& fn = functions_[f];
      int pi = -1;
      if (position >= 0) pi = position + bound_params(fn);
      else
        for (size_t j = 0; j < fn.params.size(); ++j)
          if (fn.params[j].name == keyword && !fn.params[j].is_variadic) pi = static_cast<int>(j);
      if (!param_enters_numpy(f, pi)) return false;
    }
    return true;
  }
  const FunctionFacts* ext = ext_callee_of(call_node, fact::kParams);
  if (!ext || ext->is_class) return false;
  int pi = -1;
  if (position >= 0) pi = position + (ext->method ? 1 : 0);
  else
    for (size_t j = 0; j < ext->params.size(); ++j)
      if (ext->params[j].name == keyword && !ext->params[j].star && !ext->params[j].double_star) pi = static_cast<int>(j);
  return pi >= 0 && pi < static_cast<int>(ext->params.size()) && ext->params[pi].enters_numpy;
}

std::vector<ParamSummary> SemanticModel::param_summaries(int f, const ParamIteration& iteration) const {
  std::vector<ParamSummary> ps;
  // param_enters_numpy walks the body once per parameter: only where the body writes `.numpy(`.
  const bool numpy_text = text(functions_[f].node).find(".numpy(") != std::string_view::npos;
  for (size_t i = 0; i < functions_[f].params.size(); ++i) {
    const Param& p = functions_[f].params[i];
    ParamSummary s;
    s.name = p.name;
    s.keyword_only = p.keyword_only;
    if (p.is_variadic) (p.double_star ? s.double_star : s.star) = true;
    s.iterated_hot = iteration.hot_param[f][i] != 0;
    s.iterated_per_epoch = iteration.epoch_param[f][i] != 0;
    if (!p.is_variadic) s.hot_keys = iteration.hot_keys[f][i];
    s.called = !p.is_variadic && calls_param(f, static_cast<int>(i));
    s.enters_numpy = numpy_text && !p.is_variadic && param_enters_numpy(f, static_cast<int>(i));
    ps.push_back(std::move(s));
  }
  return ps;
}

}  // namespace stoker::python
