// Loops: which loops iterate which loader, which steps the optimizer (through the call graph),
// the Setup / Epoch / Hot classification, per-epoch loops and loaders that feed training.
#include "python/loop_shape.h"
#include "python/model_internal.h"

#include <functional>
#include <set>

#include <algorithm>

#include "python/frameworks.h"
#include "python/types.h"

namespace stoker::python {

using namespace model_detail;

namespace {

// `trainer.fit(...)` (validate, test, predict) where every value of `trainer` is a construction
// of a framework trainer with its development-run keyword (data/frameworks.txt `dev-run`) True
// or a positive int: it draws a few batches of each loader once, it trains on none.
bool dev_run_fit(const SemanticModel& m, Node call) {
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return false;
  auto vs = m.values(field(fn, "object"));
  if (vs.empty()) return false;
  const auto& table = FrameworkTable::get();
  for (const Value& v : vs) {
    if (v.kind != Value::Kind::Expr || !is(unparen(v.expr), "call")) return false;
    Node ctor = unparen(v.expr);
    std::string_view key = table.dev_run_keyword(m.callee_name(ctor));
    if (key.empty()) return false;
    auto kw = m.keyword_arguments(ctor);
    Node dev = kw.find(key);
    if (is_null(dev)) return false;
    auto c = m.constant(dev);
    if (!c) return false;
    bool on = (c->kind == Value::Kind::Bool && c->b) || (c->kind == Value::Kind::Int && c->i > 0);
    if (!on) return false;
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Loops.

std::vector<int> SemanticModel::loops_iterating(Node loader_call) const {
  if (!loops_by_loader_built_) {
    loops_by_loader_built_ = true;
    for (size_t i = 0; i < loops_.size(); ++i) {
      Node n = loops_[i].node;
      if (!is(n, "for_statement")) continue;
      for (Node o : loader_origins(field(n, "right"))) loops_by_loader_[o.id].push_back(static_cast<int>(i));
    }
    // `it = iter(loader)` consumed with next(it) in a while loop.
    for (size_t i = 0; i < loops_.size(); ++i) {
      if (!is(loops_[i].node, "while_statement")) continue;
      std::vector<Node> seen;
      for (int ci : calls_in_loop_[i]) {
        const CallSite& cs = calls_[ci];
        Node it = advanced_iterator(cs.call);
        if (is_null(it)) continue;
        for (Node o : loader_origins(it)) {
          bool dup = false;
          for (Node x : seen) dup = dup || same(x, o);
          if (dup) continue;
          seen.push_back(o);
          loops_by_loader_[o.id].push_back(static_cast<int>(i));
        }
      }
    }
  }
  if (is_null(loader_call)) return {};
  auto it = loops_by_loader_.find(loader_call.id);
  return it == loops_by_loader_.end() ? std::vector<int>{} : it->second;
}

bool SemanticModel::is_step_call(Node call, bool allow_forward) const {
  Node fn = unparen(field(call, "function"));
  if (is(fn, "attribute")) {
    auto m = text(field(fn, "attribute"));
    if (m == "backward") return true;
    if (m == "step" && is_optimizer_value(field(fn, "object"))) return true;
  }
  // A module by construction, or by its abstract type (prepared by a framework, DDP-wrapped).
  if (!allow_forward) return false;
  if (is_module_value(fn) || types_->type_of(fn).kind == AbstractType::Kind::Module) return true;
  // `model.forward(x)` (`self.net.forward(images)`) runs the module as calling it does; so do
  // `encode`/`decode` of a library module (diffusers' `vae.decode(latents)`, set AJ REPA
  // generate.py's loop over sample batches), whose network they run. A project class's own
  // methods are read from their bodies instead.
  if (is(fn, "attribute")) {
    auto meth = text(field(fn, "attribute"));
    Node obj = unparen(field(fn, "object"));
    if (meth == "forward" && (is_module_value(obj) || types_->type_of(obj).kind == AbstractType::Kind::Module))
      return true;
  }
  // A value moved to a device and then called is a module, whatever it was loaded from: a tensor
  // is not callable (`net = pickle.load(f)["ema"].to(device)`, `net(x, sigma)`). Every value of
  // the callee must be such a move of a receiver of unknown type (a project object with its own
  // `.to()` has a type, and is not taken for a module; what `pickle.load` gives is typed a host
  // value, but nothing of that type has a `.to()`).
  auto moved_module = [&](Node callee) {
    auto vs = values(callee);
    if (vs.empty() || vs.size() > kMaxCandidates) return false;
    for (const auto& v : vs) {
      if (v.kind != Value::Kind::Expr || !is(v.expr, "call")) return false;
      Node f = unparen(field(v.expr, "function"));
      if (!is(f, "attribute")) return false;
      auto a = text(field(f, "attribute"));
      if (a != "to" && a != "cuda") return false;
      AbstractType::Kind rk = types_->type_of(field(f, "object")).kind;
      if (rk != AbstractType::Kind::Unknown && rk != AbstractType::Kind::Module &&
          rk != AbstractType::Kind::HostScalar && rk != AbstractType::Kind::Host)
        return false;
    }
    return true;
  };
  // `model.generate(**gen_kwargs)` of a library model (a Hugging Face causal LM, by its type or
  // moved to a device as `model = model.to('cuda')`): generation runs the network once per new
  // token, a pass of inference steps (LoftQ test_gsm8k.py's loop over pre-tokenized batches).
  // A project class's own `generate` is read from its body.
  if (is(fn, "attribute")) {
    auto meth = text(field(fn, "attribute"));
    Node obj = unparen(field(fn, "object"));
    if (meth == "encode" || meth == "decode" || meth == "generate") {
      AbstractType t = types_->type_of(obj);
      if (t.kind == AbstractType::Kind::Module && t.klass == -1) return true;
      if (meth == "generate" && t.kind == AbstractType::Kind::Unknown && callees(call).empty() && moved_module(obj))
        return true;
    }
    // Any other method of such a module on CUDA given CUDA tensors (`waveglow.infer(mel)`).
    if (types_->runs_module_method(call)) return true;
  }
  return moved_module(fn);
}

namespace {
// `next(iter(loader))`: the first batch of a fresh iterator.
bool first_batch_draw(const SemanticModel& m, Node v) {
  v = unparen(v);
  if (!is(v, "call") || m.callee_name(v) != "builtins.next") return false;
  Node it = unparen(m.argument(v, 0, ""));
  return is(it, "call") && m.callee_name(it) == "builtins.iter" && is_null(m.argument(v, 1, ""));
}

// A name every binding of which (in its function) takes the first batch of a fresh iterator,
// directly (`(data, labels) = next(iter(data_loader))`) or as a move of such a name (`data, labels
// = data.to(dev), labels.to(dev)`; `x = x.cuda()`). At most three moves deep.
bool peeked_batch(const SemanticModel& m, Node name, int depth) {
  name = unparen(name);
  if (depth > 3 || !is(name, "identifier")) return false;
  auto bindings = m.lookup(m.text(name), start(name));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign || is_null(b->value)) return false;
    Node v = unparen(b->value);
    if (first_batch_draw(m, v)) continue;
    if (b->unpack_index >= 0) {  // `a, b = x.to(d), y.to(d)`: the element at the target's place
      if (!is(v, "expression_list") && !is(v, "tuple")) return false;
      auto elems = named_children(v);
      if (static_cast<size_t>(b->unpack_index) >= elems.size()) return false;
      v = unparen(elems[static_cast<size_t>(b->unpack_index)]);
    }
    Node fn = is(v, "call") ? unparen(field(v, "function")) : Node{};
    if (!is(fn, "attribute")) return false;
    auto meth = m.text(field(fn, "attribute"));
    if ((meth != "to" && meth != "cuda") || !peeked_batch(m, field(fn, "object"), depth + 1)) return false;
  }
  return true;
}
}  // namespace

// A forward on the first batch of a fresh iterator (`model(data)` after `data = next(iter(
// loader))` and a move: continual-learning's `show_reconstruction`, a look at one batch for a
// plot) is no step: the loop calling the function per dataset runs no pass over batches (set
// AO evaluate.py:193/200, main.py's loop over contexts). Only a forward, not `backward()` or an
// optimizer step: a loop training on `next(iter(loader))` per iteration trains per step.
bool SemanticModel::is_step_call_at(int ci, bool allow_forward) const {
  signed char& memo = step_call_[allow_forward ? 1 : 0][ci];
  if (memo < 0) {
    // A project function of another module that steps (one member of a class union that does).
    bool ext = false;
    for (const FunctionFacts* f : ext_callees(ci, fact::kSteps)) ext |= f->steps || (allow_forward && f->steps_forward);
    memo = (is_step_call(calls_[ci].call, allow_forward) || ext) ? 1 : 0;
    if (memo == 1 && allow_forward && !is_step_call_at(ci, false)) {
      Node first = argument(calls_[ci].call, 0, "");
      if (!is_null(first) && !is(first, "keyword_argument") && peeked_batch(*this, first, 0)) memo = 0;
    }
  }
  return memo == 1;
}

bool SemanticModel::loop_contains_hot_loop(int li, bool statements_only) const {
  if (statements_only ? nested_hot_statement_[li] : nested_hot_[li]) return true;
  for (int ci : calls_in_loop_[li]) {
    for (int c : runs_by_call_[ci])
      if (function_has_hot_loop_[c]) return true;
    for (const FunctionFacts* ext : ext_callees(ci, fact::kHotLoop))
      if (ext->has_hot_loop) return true;
  }
  return false;
}

// Call-graph reachability for the current loop kinds, each by one worklist over the reverse
// call edges: O(loops + functions + calls).
void SemanticModel::compute_reachability() {
  const size_t nf = functions_.size();
  nested_hot_.assign(loops_.size(), 0);
  nested_hot_statement_.assign(loops_.size(), 0);
  for (size_t j = 0; j < loops_.size(); ++j) {
    if (loops_[j].kind != LoopKind::Hot) continue;
    for (int p = loops_[j].parent_loop; p >= 0 && !nested_hot_[p]; p = loops_[p].parent_loop) nested_hot_[p] = 1;
    if (loops_[j].comprehension) continue;
    for (int p = loops_[j].parent_loop; p >= 0 && !nested_hot_statement_[p]; p = loops_[p].parent_loop)
      nested_hot_statement_[p] = 1;
  }
  // Backwards from the functions in `work` (marked in `reach`) to every caller through the call
  // sites `through` accepts.
  auto spread = [&](std::vector<char>& reach, std::vector<int>& work, auto&& through) {
    while (!work.empty()) {
      int f = work.back();
      work.pop_back();
      for (int ci : run_sites_[f]) {
        int caller = calls_[ci].caller;
        if (caller < 0 || reach[caller] || !through(ci, f)) continue;
        reach[caller] = 1;
        work.push_back(caller);
      }
    }
  };
  // From every function marked in `reach`.
  auto propagate = [&](std::vector<char>& reach, auto&& through) {
    std::vector<int> work;
    for (size_t f = 0; f < nf; ++f)
      if (reach[f]) work.push_back(static_cast<int>(f));
    spread(reach, work, through);
  };
  // A loop in a module's `forward` over its layers (`for layer in self.layers: x = layer(x)`,
  // hot by its module calls) is part of one forward: calling the module is one step, so a loop
  // that calls it per iteration (inference over a file list) is not an epoch loop around it.
  // So is such a loop in a function nested in the `forward` (CLIP's ModifiedResNet: `def stem(x):
  // for conv, bn in [...]: x = self.relu(bn(conv(x)))`, called once by the forward).
  // So is one in a method of the class that the `forward` runs through `self.m(...)` (timm's
  // `forward_features`, an `encode` the forward calls: magvit2's VideoTokenizer), found from each
  // class's `forward` over the calls to methods of the same class, or of a class it inherits
  // from here (a subclass's `forward` running the base's `self._forward_gru(x, hxs, masks)`, its
  // loop over the sequence's segments part of the forward: pytorch-a2c-ppo-acktr-gail's NNBase,
  // whose loop, once rec27a resolved the inherited call, made every caller of the policy's
  // `evaluate_actions` a pass over a training loop; rec28): O(functions x MRO + calls).
  std::vector<char> in_forward(nf, 0);
  {
    std::vector<int> work;
    for (size_t f = 0; f < nf; ++f)
      if (functions_[f].klass >= 0 && functions_[f].name == "forward") {
        in_forward[f] = 1;
        work.push_back(static_cast<int>(f));
      }
    while (!work.empty()) {
      int f = work.back();
      work.pop_back();
      const std::vector<int> mro = class_mro(classes_, classes_by_name_, functions_[f].klass);
      for (int ci : calls_by_caller_[f])
        for (int c : runs_by_call_[ci])
          if (c >= 0 && !in_forward[c] && functions_[c].klass >= 0 &&
              std::find(mro.begin(), mro.end(), functions_[c].klass) != mro.end()) {
            in_forward[c] = 1;
            work.push_back(c);
          }
    }
  }
  auto layer_loop = [&](int l) {
    if (loops_[l].iterates_loader) return false;
    for (int lf = loops_[l].function, depth = 0; lf >= 0 && depth < 8; ++depth) {
      if (functions_[lf].klass >= 0) return in_forward[lf] != 0;
      int ps = scopes_[functions_[lf].scope].parent;
      lf = ps >= 0 && scopes_[ps].kind == Scope::Kind::Function ? scopes_[ps].function : -1;
    }
    return false;
  };
  // A chunk loop splits one input of its function into pieces (memory-bounded inference: nerf_pl's
  // `for i in range(0, B, chunk): render_rays(models, ..., rays[i:i + chunk], ...)` in
  // `batched_inference(models, embeddings, rays, ...)`, and render_rays' own `inference` over
  // `xyz_[i:i + chunk]`): a `for` over `range(start, stop, step)` (a step given) whose body slices
  // a parameter of the function from the loop's variable (`p[i:...]`), and which runs no training
  // step (no `backward()` or optimizer `step()` there, directly or through the functions it calls:
  // a minibatch loop over a dataset handed in trains per piece). Its forwards are pieces of one
  // step: like a layer loop it stays hot for its own findings but does not make the function hold
  // a hot loop, and its forwards are the function's (it steps), so a loop calling the function once
  // per image (nerf_pl eval.py's per-image loop) is the hot loop, not an epoch loop (rec27b).
  // The syntactic part is memoized per loop; O(loop body) once, O(calls in the loop) per pass.
  auto chunk_loop = [&](int l) {
    const Loop& lp = loops_[l];
    if (lp.comprehension || lp.iterates_loader || lp.function < 0 || !is(lp.node, "for_statement")) return false;
    std::string key = "chunk:" + std::to_string(l);
    auto memo = memo_.find(key);
    if (memo == memo_.end()) {
      bool shaped = false;
      Node over = unparen(field(lp.node, "right"));
      Node var = unparen(field(lp.node, "left"));
      // A decoding loop grows one input of its function a piece per pass (nanoGPT's generate: `for
      // _ in range(max_new_tokens): logits, _ = self(idx_cond); ...; idx = torch.cat((idx,
      // idx_next), dim=1)`): a `for` over `range(...)` whose body rebinds a parameter of the
      // function from itself (`p = f(..., p, ...)`, an identifier target). Its forwards are the
      // passes of one generation, as a chunk loop's are pieces of one inference: a loop calling
      // the function once per sample (sample.py's `for k in range(num_samples)`) is the hot loop.
      if (is(over, "call") && text(unparen(field(over, "function"))) == "range" &&
          (is(var, "identifier") || is(var, "pattern_list") || is(var, "tuple_pattern"))) {
        std::vector<Node> stack{lp.body};
        while (!stack.empty() && !shaped) {
          Node n = stack.back();
          stack.pop_back();
          if (is(n, "function_definition") || is(n, "lambda") || is(n, "class_definition")) continue;
          if (is(n, "assignment")) {
            Node left = unparen(field(n, "left"));
            Node right = field(n, "right");
            if (is(left, "identifier") && !is_null(right) && is(right, "call")) {
              auto bindings = lookup(text(left), start(left));
              bool param = false;
              for (const Binding* b : bindings)
                param = param || (b->kind == Binding::Kind::Param && b->function == lp.function);
              if (param) {
                std::vector<Node> inner{right};
                while (!inner.empty() && !shaped) {
                  Node r = inner.back();
                  inner.pop_back();
                  if (is(r, "lambda")) continue;
                  if (is(r, "identifier") && text(r) == text(left)) shaped = true;
                  for (Node c : named_children(r)) inner.push_back(c);
                }
              }
            }
          }
          for (Node c : named_children(n)) stack.push_back(c);
        }
      }
      if (!shaped && is(over, "call") && text(unparen(field(over, "function"))) == "range" && is(var, "identifier")) {
        int positional = 0;
        for (Node a : named_children(field(over, "arguments"))) {
          if (is(a, "comment")) continue;
          positional += is(a, "keyword_argument") || is(a, "list_splat") || is(a, "dictionary_splat") ? 8 : 1;
        }
        std::vector<Node> stack{lp.body};
        while (positional == 3 && !stack.empty() && !shaped) {
          Node n = stack.back();
          stack.pop_back();
          if (is(n, "function_definition") || is(n, "lambda") || is(n, "class_definition")) continue;
          if (is(n, "subscript") && named_count(n) == 2) {
            Node value = unparen(field(n, "value"));
            Node index = unparen(field(n, "subscript"));
            if (is(value, "identifier") && is(index, "slice") && named_count(index) > 0 &&
                text(index).substr(0, 1) != ":" && is(unparen(named_child(index, 0)), "identifier") &&
                text(unparen(named_child(index, 0))) == text(var)) {
              auto bindings = lookup(text(value), start(value));
              shaped = !bindings.empty();
              for (const Binding* b : bindings)
                shaped = shaped && b->kind == Binding::Kind::Param && b->function == lp.function;
            }
          }
          for (Node c : named_children(n)) stack.push_back(c);
        }
      }
      memo = memo_.emplace(key, shaped ? 1 : 0).first;
    }
    if (memo->second == 0) return false;
    const bool steps_known = function_steps_[0].size() == nf;
    for (int ci : calls_in_loop_[l]) {
      if (calls_[ci].lambda_depth > 0) continue;
      if (is_step_call_at(ci, false)) return false;
      for (int c : runs_by_call_[ci])
        if (steps_known && function_steps_[0][c]) return false;
    }
    return true;
  };
  std::vector<char> chunk(loops_.size(), 0);
  for (size_t l = 0; l < loops_.size(); ++l)
    chunk[l] = loops_[l].kind == LoopKind::Hot && chunk_loop(static_cast<int>(l));
  function_has_hot_loop_.assign(nf, 0);
  for (size_t f = 0; f < nf; ++f)
    for (int l : loops_by_function_[f])
      if (loops_[l].kind == LoopKind::Hot && !layer_loop(l) && !chunk[l]) function_has_hot_loop_[f] = 1;
  for (size_t ci = 0; ci < calls_.size(); ++ci)
    if (calls_[ci].caller >= 0)
      for (const FunctionFacts* ext : ext_callees(static_cast<int>(ci), fact::kHotLoop))
        if (ext->has_hot_loop) function_has_hot_loop_[calls_[ci].caller] = 1;
  propagate(function_has_hot_loop_, [](int, int) { return true; });
  // A function steps when a call outside its hot loops (and outside lambdas) steps or reaches a
  // function that does.
  auto outside_hot = [&](int ci) {
    const CallSite& cs = calls_[ci];
    if (cs.lambda_depth > 0) return false;
    for (int l : cs.loops)
      if (loops_[l].kind == LoopKind::Hot && !chunk[l]) return false;
    return true;
  };
  // (caller, callee) pairs where the caller runs the callee inside one of its hot loops: the
  // same step function called again after the loop (`main_loop(phase=TEST)` after the epochs of
  // `main_loop(phase=TRAIN)`) is a final evaluation pass of that training, so it does not make
  // the caller step (it still runs a forward: steps_forward). Otherwise a loop repeating the
  // whole training (`for imp in impls: train(config)`) would be hot by it. O(calls log calls).
  std::set<std::pair<int, int>> run_in_hot;
  for (size_t ci = 0; ci < calls_.size(); ++ci)
    if (calls_[ci].caller >= 0 && !outside_hot(static_cast<int>(ci)))
      for (int c : runs_by_call_[ci]) run_in_hot.insert({calls_[ci].caller, c});
  // The set is the least one holding every function with a stepping call outside its hot loops
  // (a seed) and closed under `through` towards the callers. A function already in it (reached
  // from a seed found earlier) is not asked its own calls: the answer would not change the set,
  // and each question is a type inference of the callee (the costly part of this pass on real
  // code). The forward kind's set contains the other one (a step call is one with forwards
  // allowed, and `through` accepts more), so it starts from it.
  //
  // Who reads the sets: loop_performs_step, for the functions run by the calls in loops, and a
  // project module's summary (`summarize`, FunctionFacts::steps), for every function. Without
  // project facts no summary is made (checker.cpp asks one only in project mode, where `facts_`
  // is set), so only the functions those loops' calls reach through the call graph are asked
  // their seeds: the least set restricted to them is exact (a function's membership depends
  // only on the functions it reaches), and a function outside them is never read. In a file of
  // model definitions, most functions are reached from no loop. O(functions + calls).
  std::vector<char> asked(nf, 1);
  if (!facts_) {
    asked.assign(nf, 0);
    std::vector<int> work;
    for (const auto& in_loop : calls_in_loop_)
      for (int ci : in_loop)
        for (int c : runs_by_call_[ci])
          if (!asked[c]) {
            asked[c] = 1;
            work.push_back(c);
          }
    while (!work.empty()) {
      int f = work.back();
      work.pop_back();
      for (int ci : calls_by_caller_[f])
        for (int c : runs_by_call_[ci])
          if (!asked[c]) {
            asked[c] = 1;
            work.push_back(c);
          }
    }
  }
  for (int allow = 0; allow < 2; ++allow) {
    auto& steps = function_steps_[allow];
    auto through = [&](int ci, int callee) {
      return outside_hot(ci) &&
             (allow == 1 || !function_has_hot_loop_[calls_[ci].caller] || !run_in_hot.count({calls_[ci].caller, callee}));
    };
    if (allow == 1) {
      steps = function_steps_[0];
      propagate(steps, through);
    } else {
      steps.assign(nf, 0);
    }
    std::vector<int> work;
    for (size_t f = 0; f < nf; ++f) {
      if (steps[f] || !asked[f]) continue;
      for (int ci : calls_by_caller_[f])
        if (outside_hot(ci) && is_step_call_at(ci, allow == 1)) {
          steps[f] = 1;
          break;
        }
      if (!steps[f]) continue;
      work.push_back(static_cast<int>(f));
      spread(steps, work, through);
    }
  }
}

bool SemanticModel::loop_performs_step(int li, bool allow_forward) const {
  for (int ci : calls_in_loop_[li]) {
    const CallSite& cs = calls_[ci];
    auto pos = std::find(cs.loops.begin(), cs.loops.end(), li);
    if (pos == cs.loops.end() || cs.lambda_depth > 0) continue;
    bool nested_hot = false;
    for (auto it = pos + 1; it != cs.loops.end(); ++it) nested_hot |= loops_[*it].kind == LoopKind::Hot;
    if (nested_hot) continue;
    if (is_step_call_at(ci, allow_forward)) return true;
    for (int c : runs_by_call_[ci])
      if (function_steps_[allow_forward ? 1 : 0][c]) return true;
  }
  return false;
}

void SemanticModel::classify_loops() {
  for (auto& l : loops_)
    l.iterates_loader = is(l.node, "for_statement") && (is_loader_expr(field(l.node, "right")) ||
                                                        types_->is_loader_iteration(field(l.node, "right")));
  // A repetition loop (DGI's `for _ in range(50): log = LogReg(...); <train it>; log(test_embs)`):
  // each pass builds a module, trains it in a nested hot loop and runs its forward directly in
  // the pass. That forward is a step of the pass (rules.md: a loop each of whose iterations
  // performs a step outside its nested hot loops), unlike an epoch loop's forward on a model
  // built before the loop. The forward's callee is a plain name every binding of which is a
  // module construction in the loop's body under no condition. O(calls in the loop x bindings).
  auto forwards_model_built_here = [&](int li) {
    Node body = loops_[li].body;
    for (int ci : calls_in_loop_[li]) {
      const CallSite& cs = calls_[ci];
      if (cs.loops.empty() || cs.loops.back() != li || cs.lambda_depth > 0) continue;
      Node fn = unparen(field(cs.call, "function"));
      if (!is(fn, "identifier") || !is_step_call_at(ci, true) || is_step_call_at(ci, false)) continue;
      auto bindings = lookup(text(fn), start(fn));
      bool built = !bindings.empty();
      for (const Binding* b : bindings) {
        if (!built) break;
        Node v = is_null(b->value) ? Node{} : unparen(b->value);
        built = b->is_plain_assign() && contains(body, b->target) &&
                is(v, "call") && is_module_value(v);
        if (!built) break;
        built = unconditional_in(b->target, body);
      }
      if (built) return true;
    }
    return false;
  };
  // loop_contains_hot_loop(li, true), leaving out the calls that a step-period guard inside the
  // loop runs once every N iterations (`if time % update_timesteps == 0: self.learn(memories)`):
  // an RL rollout loop whose forwards run every iteration and that trains every N of them is a
  // loop of steps, not an epoch loop around learn()'s (set AH PaLM-rlhf-pytorch ppo.py's train;
  // rules.md: a loop each of whose iterations performs a step outside its nested hot loops; rec30).
  // `a % n == 0` (also inside `and`), `not a % n` when it holds; `a % n` when it does not
  // (model_detail::period_modulo, as the hot contexts' amortization reads it). Whatever n: a
  // period that one call site makes 1 (PaLM-rlhf-pytorch's examples.py, `update_timesteps = 1`)
  // is still a rollout loop's period where the function is written.
  std::function<bool(Node, bool)> period_guard = [&](Node cond, bool positive) -> bool {
    cond = unparen(cond);
    if (positive && is(cond, "boolean_operator") && text(field(cond, "operator")) == "and")
      return period_guard(field(cond, "left"), true) || period_guard(field(cond, "right"), true);
    if (is(cond, "not_operator")) return period_guard(field(cond, "argument"), !positive);
    return !is_null(period_modulo(cond, positive, src_));
  };
  auto loop_contains_hot_loop_unamortized = [&](int li) {
    if (nested_hot_statement_[li]) return true;
    for (int ci : calls_in_loop_[li]) {
      bool hot_callee = false;
      for (int c : runs_by_call_[ci]) hot_callee = hot_callee || function_has_hot_loop_[c];
      if (!hot_callee)
        for (const FunctionFacts* ext : ext_callees(ci, fact::kHotLoop)) hot_callee = hot_callee || ext->has_hot_loop;
      if (!hot_callee) continue;
      const CallSite& cs = calls_[ci];
      auto pos = std::find(cs.loops.begin(), cs.loops.end(), li);
      bool amortized = false;
      if (pos != cs.loops.end()) {
        auto depth = static_cast<uint32_t>(pos - cs.loops.begin()) + 1;  // guards inside li's body
        for (size_t g = 0; g < cs.guards.size() && !amortized; ++g)
          amortized = cs.guard_loop_depth[g] >= depth && period_guard(cs.guards[g].first, cs.guards[g].second);
      }
      if (!amortized) return true;
    }
    return false;
  };
  // A loop nested in another under a guard inside that one known never to hold (`if
  // batch_test_flag:` with the parameter's default False and no caller passing it, NGCF's
  // batch_test.test) never runs: neither hot nor around the loop holding it (rules.md,
  // Clarifications: a guard resolving to False silences what it guards), so the loop around it
  // keeps its own forwards per step. A guard around the outer loop too (`if args.do_train:` of a
  // store_true flag) leaves both as they were. O(loops x guards).
  std::vector<char> dead(loops_.size(), 0);
  for (size_t i = 0; i < loops_.size(); ++i) {
    int outer = loops_[i].parent_loop;
    if (outer < 0) continue;
    for (const auto& [cond, need] : model_detail::branch_guards(loops_[i].node))
      if (contains(loops_[outer].body, cond))
        if (auto truth = guard_truth(cond); truth && *truth != need) dead[i] = 1;
  }
  // Around a hot loop that trains or serves data (it iterates a loader, or runs `backward()` or
  // an optimizer step outside its own nested hot loops), in the loop's body or in a function it
  // calls (another module's function: FunctionFacts::trains_loop), a loop is an
  // epoch loop unless it steps the optimizer itself. Around hot loops that only run forwards (a
  // planner's CEM iterations, a latent rollout: TD-MPC's `plan`, called per environment step)
  // a forward outside them is a step of its own (rules.md: a loop each of whose iterations
  // performs a step outside its nested hot loops): the environment loop is hot. Per pass:
  // O(loops x depth + calls + functions).
  std::vector<char> nested_training, function_trains;
  auto mark_training = [&]() { function_trains = training_loop_functions(&nested_training); };
  auto around_training = [&](int li) {
    if (nested_training[li]) return true;
    for (int ci : calls_in_loop_[li]) {
      for (int c : runs_by_call_[ci])
        if (c >= 0 && function_trains[c]) return true;
      if (training_elsewhere(ci)) return true;
    }
    return false;
  };
  for (int pass = 0; pass < 4; ++pass) {
    compute_reachability();
    mark_training();
    bool changed = false;
    for (int i = static_cast<int>(loops_.size()); i-- > 0;) {
      if (dead[i]) {
        if (loops_[i].kind != LoopKind::Setup) {
          loops_[i].kind = LoopKind::Setup;
          changed = true;
        }
        continue;
      }
      // A loop around training loops (an epoch loop) is hot only if it also steps the
      // optimizer itself; a forward there (sampling, a per-epoch evaluation) runs once per epoch.
      // A hot comprehension in it (`sum(criterion(o, y) for o in outs)`) leaves its own forwards
      // per step: its steps in the comprehension are the comprehension's (loop_performs_step).
      bool around_hot = loop_contains_hot_loop_unamortized(i);
      bool around_train = around_hot && around_training(i);
      LoopKind k = (loops_[i].iterates_loader || loop_performs_step(i, !around_train) ||
                    (around_hot && !loops_[i].comprehension && forwards_model_built_here(i)))
                       ? LoopKind::Hot
                       : LoopKind::Setup;
      if (k != loops_[i].kind) {
        loops_[i].kind = k;
        changed = true;
      }
    }
    if (!changed) break;
  }
  compute_reachability();
  for (int i = 0; i < static_cast<int>(loops_.size()); ++i)
    if (loops_[i].kind != LoopKind::Hot && loop_contains_hot_loop(i)) loops_[i].kind = LoopKind::Epoch;
  drop_cold_comprehensions();
}

// A comprehension that is not a hot loop is no loop for anything else (a function called in
// `[f(x) for x in xs]` is not "called in a loop", guards and hot contexts skip it): it leaves
// every call site's loops, with the guards' loop depths renumbered, and the walk enters only hot
// ones from here on. O(calls x depth).
void SemanticModel::drop_cold_comprehensions() {
  auto cold = [&](int l) { return loops_[l].comprehension && loops_[l].kind != LoopKind::Hot; };
  bool any = false;
  for (size_t l = 0; l < loops_.size() && !any; ++l) any = cold(static_cast<int>(l));
  cold_comprehensions_dropped_ = true;
  if (!any) return;
  for (auto& cs : calls_) {
    std::vector<int> kept;
    std::vector<uint32_t> renumber(cs.loops.size() + 1, 0);  // old depth -> new depth
    for (size_t i = 0; i < cs.loops.size(); ++i) {
      renumber[i] = static_cast<uint32_t>(kept.size());
      if (!cold(cs.loops[i])) kept.push_back(cs.loops[i]);
    }
    renumber[cs.loops.size()] = static_cast<uint32_t>(kept.size());
    if (kept.size() == cs.loops.size()) continue;
    for (auto& d : cs.guard_loop_depth) d = renumber[std::min<size_t>(d, cs.loops.size())];
    cs.loops = std::move(kept);
  }
  for (size_t l = 0; l < loops_.size(); ++l)
    if (cold(static_cast<int>(l))) calls_in_loop_[l].clear();
  called_in_loop_.clear();
  compute_reachability();
}

bool SemanticModel::loop_runs_per_epoch(int li) const {
  if (li < 0) return false;
  if (loops_[li].parent_loop >= 0) return true;
  return function_called_in_loop(loops_[li].function);
}

namespace {
// The loop's every pass builds the loader anew: the construction is in the loop with no condition
// between them (a loader rebuilt once under `if epoch == unfreeze_epoch and not rebuilt:` is
// iterated again on the later passes). A branch between them that also holds `iteration`, the
// loop that iterates the loader, builds a loader for each of its own passes over it (MAML's
// `if step % 500 == 0:` building `db_test` and looping over it right there, set AO
// miniimagenet_train.py:79). O(depth of the construction).
bool rebuilt_each_pass(Node loop, Node loader_call, Node iteration = Node{}) {
  if (!contains(loop, loader_call)) return false;
  Node from = loader_call;
  for (Node p = parent(loader_call); !is_null(p) && !same(p, loop); from = p, p = parent(p)) {
    auto k = kind(p);
    if ((k == "if_statement" || k == "elif_clause" || k == "else_clause") && !is_null(iteration) &&
        contains(from, iteration))
      continue;
    if (k == "if_statement" || k == "elif_clause" || k == "else_clause" || k == "conditional_expression" ||
        k == "boolean_operator" || k == "except_clause" || k == "while_statement" || k == "for_statement" ||
        k == "function_definition" || k == "lambda")
      return false;
  }
  return true;
}
}  // namespace

bool SemanticModel::call_repeats_for(int ci, Node loader_call) const {
  // A call in a branch that never runs repeats nothing (test.py's ten checkpoints under `else:`
  // of `if not args.best:`, a store_true flag: set AA Efficient-Segmentation-Networks).
  if (calls_[ci].loops.empty()) return false;
  if (guards_dead(model_detail::branch_guards(calls_[ci].call))) return false;
  for (int p : calls_[ci].loops)
    if (!rebuilt_each_pass(loops_[p].node, loader_call)) return true;
  return false;
}

// O(ancestor loops + calls of the constructing function x their arguments' origins).
bool SemanticModel::loop_runs_per_epoch_for(int li, Node loader_call) const {
  if (li < 0) return false;
  int built_in = function_at(start(loader_call));
  const Loop& l = loops_[li];
  // An enclosing loop of the iteration in its own function that does not rebuild the loader,
  // inside the innermost one that does (every pass of that one iterates a new loader, so the
  // loops around it never iterate the same loader twice).
  // A loop that picks the loader the iteration runs over (`for test_dataset in
  // test_dataset_list:` around `for ... in test_dataset:`, KnowledgeGraphEmbedding's test_step)
  // passes over each loader once: not a repetition of the iteration (the loops around it may be).
  auto picks_iterated = [&](int p) {
    Node target = unparen(field(loops_[p].node, "left"));
    Node it = is(l.node, "for_statement") ? unparen(field(l.node, "right")) : Node{};
    return is(loops_[p].node, "for_statement") && !loops_[p].comprehension && is(target, "identifier") &&
           is(it, "identifier") && text(it) == text(target);
  };
  bool own_epoch = false, rebuilt = false;
  for (int p = l.parent_loop; p >= 0 && !own_epoch; p = loops_[p].parent_loop) {
    if (rebuilt_each_pass(loops_[p].node, loader_call, l.node)) {
      rebuilt = true;
      break;
    }
    if (p == l.parent_loop && picks_iterated(p)) continue;
    own_epoch = true;
  }
  if (own_epoch) return true;
  if (rebuilt) return false;  // its enclosing loops all rebuild the loader
  // Built by the function that iterates it, on every call (no condition between the construction
  // and the function's body, or a branch that also holds the iteration: not a loader cached on
  // first use): each call's loader is new, so persistent workers would not outlive it (a loader
  // rebuilt per epoch is DL004's case).
  if (l.function >= 0 && l.function == built_in &&
      rebuilt_each_pass(functions_[built_in].node, loader_call, l.parent_loop >= 0 ? loops_[l.parent_loop].node : l.node))
    return false;
  if (l.function < 0 || l.function == built_in || built_in < 0) return function_called_in_loop(l.function);
  // Iterated by another function of this module: through the calls of the constructing function
  // that hand it the loader. Without such a call (a loader kept on an object), as before.
  // Does function `from` call `to`, directly or through at most three others? O(their calls).
  auto reaches = [&](int from, int to) {
    std::vector<int> frontier{from}, seen{from};
    for (int depth = 0; depth < 4 && !frontier.empty(); ++depth) {
      std::vector<int> next;
      for (int f : frontier)
        for (int c : calls_by_caller_[f])
          for (int g : runs_by_call_[c]) {
            if (g == to) return true;
            if (std::find(seen.begin(), seen.end(), g) != seen.end()) continue;
            seen.push_back(g);
            next.push_back(g);
          }
      frontier = std::move(next);
    }
    return false;
  };
  bool handed = false;
  for (int ci : calls_by_caller_[built_in]) {
    // A builtin (`ipe = len(loader)`) hands nothing to the function whose loop iterates it.
    if (runs_by_call_[ci].empty() && callee_name(calls_[ci].call).rfind("builtins.", 0) == 0) continue;
    bool passes = false;
    for (auto a : named_children(field(calls_[ci].call, "arguments"))) {
      Node v = is(a, "keyword_argument") ? field(a, "value") : a;
      for (Node o : loader_origins(v)) passes = passes || same(o, loader_call);
      if (passes) break;
    }
    if (!passes) continue;
    handed = true;
    if (call_repeats_for(ci, loader_call)) return true;
    // Handed on through another function before the iteration: that function's own calls decide.
    // Only a function that reaches the iterating one through its calls (a few levels): a sibling
    // handed the same loader (val.py's `evaluate_msf(model, dataloader)` next to
    // `evaluate(model, dataloader)`, the latter also called per epoch by another module with its
    // own loader) does not hand it on.
    if (function_called_in_loop(l.function))  // (independent of the callee: asked before the walks)
      for (int c : runs_by_call_[ci])
        if (c != l.function && reaches(c, l.function)) return true;
  }
  if (!handed) return function_called_in_loop(l.function);
  // Built on every call of its function and handed on by calls that do not repeat: each call's
  // loader is iterated once and dies with the call (`generated = DataLoader(...)` then
  // `compute_features(model, generated)`), as for a loader its own function iterates.
  if (rebuilt_each_pass(functions_[built_in].node, loader_call)) return false;
  return function_called_in_loop(built_in);
}

bool SemanticModel::function_called_in_loop(int fn) const {
  if (fn < 0) return false;
  if (called_in_loop_.empty()) {
    // Forwards from functions called in a loop to everything they call: O(functions + calls).
    called_in_loop_.assign(functions_.size(), 0);
    std::vector<int> work;
    for (size_t ci = 0; ci < calls_.size(); ++ci)
      if (!calls_[ci].loops.empty())
        for (int c : runs_by_call_[ci])
          if (!called_in_loop_[c]) {
            called_in_loop_[c] = 1;
            work.push_back(c);
          }
    for (size_t g = 0; g < functions_.size(); ++g)  // called from a loop in another module
      if (!called_in_loop_[g] && facts_) {
        const IncomingCalls* in = facts_->incoming(local_name(static_cast<int>(g)), fact::kInLoop);
        if (in && in->in_loop) {
          called_in_loop_[g] = 1;
          work.push_back(static_cast<int>(g));
        }
      }
    while (!work.empty()) {
      int f = work.back();
      work.pop_back();
      for (int ci : calls_by_caller_[f])
        for (int c : runs_by_call_[ci])
          if (!called_in_loop_[c]) {
            called_in_loop_[c] = 1;
            work.push_back(c);
          }
    }
  }
  return called_in_loop_[fn] != 0;
}

bool SemanticModel::loader_feeds_training(Node loader_call) const {
  if (is_null(loader_call)) return loader_feeds_training_uncached(loader_call);
  auto it = feeds_training_cache_.find(loader_call.id);
  if (it != feeds_training_cache_.end()) return it->second;
  bool out = loader_feeds_training_uncached(loader_call);
  feeds_training_cache_.emplace(loader_call.id, out);
  return out;
}

bool SemanticModel::loader_feeds_training_uncached(Node loader_call) const {
  // The loop of a pass-through generator (`def cycle(dl): while True: for d in dl: yield d`) runs
  // only as far as the generator object is drawn: it iterates the loader for the callers that draw
  // from what a call of it returns. Such a loop feeds nothing when every call of the generator
  // handed this loader binds its result to a name or a `self` attribute that is only ever read
  // by `next(...)` outside hot code, or never read (set AG musiclm's `valid_dl_iter =
  // cycle(valid_dl)`, never drawn; rec30). Any other use of the result, or a call whose loader
  // cannot be told, keeps the loop feeding. O(generator's calls x the module's identifiers).
  auto pass_through_loop_undrawn = [&](int l) {
    Node loop = loops_[l].node;
    if (!is(loop, "for_statement") || !is_null(field(loop, "alternative")) || loops_[l].comprehension) return false;
    int g = function_at(start(loop));
    if (g < 0) return false;
    Node target = unparen(field(loop, "left")), iterable = unparen(field(loop, "right"));
    // The loop of a loader generator (yielded_loaders: `for b in loader: yield b` over a loader it
    // builds or keeps, not a parameter): every call of the generator hands out this loader.
    bool own_loader = false;
    for (const auto& [site, x] : yielded_loaders(g)) own_loader = own_loader || same(site, loop);
    if (!is(target, "identifier") || (!own_loader && !is(iterable, "identifier"))) return false;
    // The body is exactly `yield <target>`.
    auto body = named_children(loops_[l].body);
    if (body.size() != 1 || !is(body[0], "expression_statement") || named_count(body[0]) != 1) return false;
    Node y = named_child(body[0], 0);
    if (!is(y, "yield") || named_count(y) != 1 || text(unparen(named_child(y, 0))) != text(target)) return false;
    // The function's body is the loop, or `while True:` around it alone (a docstring aside).
    Node fbody = field(functions_[g].node, "body");
    auto only = [&](Node block, Node stmt) {
      int n = 0;
      for (Node k : named_children(block)) {
        if (is(k, "comment")) continue;
        if (is(k, "expression_statement") && named_count(k) == 1 && is(named_child(k, 0), "string")) continue;
        if (!same(k, stmt)) return false;
        ++n;
      }
      return n == 1;
    };
    Node outer = parent(loop);  // the block holding the loop
    if (!same(outer, fbody)) {
      Node w = parent(outer);
      if (!is(w, "while_statement") || !is(unparen(field(w, "condition")), "true") || !is_null(field(w, "alternative")) ||
          !only(outer, loop) || !same(parent(w), fbody))
        return false;
      loop = w;
    }
    // A loader generator may first build its loader: the loop (or its `while True:`) is one of
    // the function's statements. A pass-through generator is the loop alone.
    if (own_loader ? !same(parent(loop), fbody) : !only(fbody, loop)) return false;
    int pi = -1;
    for (size_t i = 0; !own_loader && i < functions_[g].params.size(); ++i)
      if (functions_[g].params[i].name == text(iterable) && !functions_[g].params[i].is_variadic) pi = static_cast<int>(i);
    if (pi < 0 && !own_loader) return false;
    bool any = false;
    for (int ci : callers(g)) {
      Node call = calls_[ci].call;
      if (!own_loader) {
        Node arg = argument(call, pi, functions_[g].params[pi].name);
        if (is_null(arg)) return false;
        bool hands = false;
        for (Node o : loader_origins(arg)) hands = hands || same(o, loader_call);
        if (!hands) continue;
      }
      any = true;
      // Where the generator object goes: a name or a `self` attribute, read only by next().
      Node p = parent(call);
      while (is(p, "parenthesized_expression")) p = parent(p);
      if (!is(p, "assignment") || !same(unparen(field(p, "right")), call)) return false;
      Node left = field(p, "left");
      Node region{};
      std::string_view name;
      bool attr = false;
      if (is(left, "identifier")) {
        name = text(left);
        int cf = calls_[ci].caller;
        region = cf >= 0 ? functions_[cf].node : root();
        if (cf < 0) return false;  // a module-level name other modules may import
      } else if (is(left, "attribute") && is(unparen(field(left, "object")), "identifier") &&
                 text(unparen(field(left, "object"))) == "self") {
        name = text(field(left, "attribute"));
        region = root();
        attr = true;
      } else {
        return false;
      }
      bool undrawn = for_each_identifier(region, false, [&](Node u) {
        if (text(u) != name) return true;
        Node use = u;
        if (attr) {
          Node pa = parent(u);
          if (!is(pa, "attribute") || !same(field(pa, "attribute"), u)) return true;  // another name
          use = pa;
        } else {
          Node pa = parent(u);
          if (is(pa, "attribute") && same(field(pa, "attribute"), u)) return true;  // `x.name`
          if (is(pa, "keyword_argument") && same(field(pa, "name"), u)) return true;
        }
        if (same(use, left)) return true;
        Node list = parent(use);
        if (!is(list, "argument_list") || named_count(list) != 1 || callee_name(parent(list)) != "builtins.next")
          return false;  // handed on, iterated, rebound: may be drawn anywhere
        auto idx = call_index_.find(parent(list).id);
        if (idx == call_index_.end()) return false;
        const CallSite& cs = calls_[idx->second];
        return !frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth).hot;
      });
      if (!undrawn) return false;
    }
    return any;
  };
  for (int l : loops_iterating(loader_call))
    // A loop whose body ends in an unconditional `break`/`return` draws one batch: it stays a
    // hot loop (its body is a step, the function an evaluation pass), but the loader does not
    // feed training there. Nor does a loop in a generator nothing draws (generator_never_drawn).
    if (loops_[l].kind == LoopKind::Hot && !loop_keeps_batches_on_host(l) && !in_undrawn_generator(loops_[l].node) &&
        (loops_[l].comprehension || !body_runs_once(loops_[l].body)) &&
        !pass_through_loop_undrawn(l))
      return true;
  // Returned from a Lightning *_dataloader hook, or passed to Trainer.fit/validate/test/predict.
  int f = function_at(start(loader_call));
  auto returns_it = [&](int fn) {
    for (Node r : functions_[fn].returns) {
      r = unparen(r);
      if (same(r, loader_call)) return true;
      for (const auto& v : values(r))
        if (v.kind == Value::Kind::Expr && same(v.expr, loader_call)) return true;
    }
    return false;
  };
  if (f >= 0 && functions_[f].name.size() > 11 &&
      functions_[f].name.substr(functions_[f].name.size() - 11) == "_dataloader" && returns_it(f))
    return true;
  build_fit_arguments();
  if (fit_arguments_.count(loader_call.id)) return true;
  return external_feeds_training(loader_call);
}

void SemanticModel::build_fit_arguments() const {
  if (fit_arguments_built_) return;
  fit_arguments_built_ = true;
  for (const auto& cs : calls_) {
    Node fn = unparen(field(cs.call, "function"));
    // `batch = next(it)` in a hot loop with `it = iter(loader)`: the loader feeds each step.
    Node it = advanced_iterator(cs.call);
    if (!is_null(it) &&
        frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth).hot) {
      std::vector<Value> its;
      if (is(unparen(it), "call")) {
        Value direct;
        direct.kind = Value::Kind::Expr;
        direct.expr = unparen(it);
        its.push_back(direct);
      } else {
        its = values(it);
      }
      for (const auto& v : its) {
        if (v.kind != Value::Kind::Expr || !is(unparen(v.expr), "call")) continue;
        if (callee_name(unparen(v.expr)) != "builtins.iter") {
          // `batch, cond = next(data)` with `data = load_data(...)`, a loader generator's call
          // (loader_generator_call; here, through a parameter's call sites, or a `self` store):
          // the generator object is drawn once per step, its loaders feed each step (set BF
          // guided-diffusion classifier_train.py; session 38).
          if (Node gc = unparen(v.expr); loader_generator_call(gc)) {
            memo_["drawn_per_step:" + std::to_string(reinterpret_cast<uintptr_t>(gc.id))] = 1;
            for (Node o : loader_origins(gc)) fit_arguments_.insert(o.id);
          }
          continue;
        }
        Node l = argument(unparen(v.expr), 0, "");
        fit_arguments_.insert(unparen(l).id);
        for (const auto& lv : values(l))
          if (lv.kind == Value::Kind::Expr) fit_arguments_.insert(lv.expr.id);
        // `iter(RepeatingLoader(DataLoader(...)))`: the loaders a project wrapper it iterates
        // was handed (loader_origins: through the wrapper's arguments).
        for (Node o : loader_origins(l)) fit_arguments_.insert(o.id);
      }
      continue;
    }
    if (!is(fn, "attribute")) continue;
    auto m = text(field(fn, "attribute"));
    if (m != "fit" && m != "validate" && m != "test" && m != "predict") continue;
    if (dev_run_fit(*this, cs.call)) continue;  // a development run: a few batches, once
    for (auto a : named_children(field(cs.call, "arguments"))) {
      Node v = is(a, "keyword_argument") ? field(a, "value") : a;
      for (const auto& val : values(v))
        if (val.kind == Value::Kind::Expr) fit_arguments_.insert(val.expr.id);
      fit_arguments_.insert(unparen(v).id);
    }
  }
}

bool SemanticModel::drawn_per_step(Node call) const {
  build_fit_arguments();
  if (is_null(call)) return false;
  auto found = memo_.find("drawn_per_step:" + std::to_string(reinterpret_cast<uintptr_t>(unparen(call).id)));
  return found != memo_.end() && found->second == 1;
}

namespace {
// A loader bound to a name (`test_dataloader = DataLoader(...)`) that no loop iterates and whose
// every other mention in the file asks its length or draws one batch (`len(test_dataloader)`,
// `next(iter(test_dataloader))` at module level outside loops, at least one draw: a notebook's
// look at the first batch). A name handed anywhere else (a call's argument, a return, an
// attribute) may feed a loop: false.
// O(file) per such loader.
bool only_sized_or_peeked(const SemanticModel& m, Node loader_call) {
  Node assign = parent(loader_call);
  if (!is(assign, "assignment") || !same(unparen(field(assign, "right")), loader_call)) return false;
  Node target = field(assign, "left");
  if (!is(target, "identifier") || !m.loops_iterating(loader_call).empty()) return false;
  std::string_view name = m.text(target);
  auto call_of = [&](Node arg, std::string_view callee) {
    Node list = parent(arg);
    return is(list, "argument_list") && named_count(list) == 1 && m.callee_name(parent(list)) == callee;
  };
  bool peeked = false;
  bool all_ok = for_each_identifier(m.root(), false, [&](Node n) {
    if (m.text(n) != name || same(n, target)) return true;
    if (call_of(n, "builtins.len")) return true;
    if (!call_of(n, "builtins.iter") || !call_of(parent(parent(n)), "builtins.next")) return false;
    for (Node p = parent(n); !is_null(p); p = parent(p))  // drawn once: in no loop, comprehension or lambda
      if (is(p, "for_statement") || is(p, "while_statement") || is(p, "function_definition") || is(p, "lambda") ||
          is(p, "list_comprehension") || is(p, "generator_expression") || is(p, "set_comprehension") ||
          is(p, "dictionary_comprehension"))
        return false;
    peeked = true;
    return true;
  });
  return all_ok && peeked;
}
}  // namespace

bool SemanticModel::loader_drawn_briefly(Node loader_call) const {
  if (is_null(loader_call) || loader_feeds_training(loader_call)) return false;
  // Every loop known to iterate it ends its first pass (runs_once), and some such loop or a
  // development-run trainer draws from it: its known uses read a batch or a few, once.
  // A loop in a generator nothing draws never runs (generator_never_drawn): it draws nothing.
  bool drawn = false;
  for (int l : loops_iterating(loader_call)) {
    if (in_undrawn_generator(loops_[l].node)) continue;
    if (loops_[l].comprehension || !body_runs_once(loops_[l].body)) return false;
    drawn = true;
  }
  if (drawn) return true;
  if (only_sized_or_peeked(*this, loader_call)) return true;
  // Whether the file makes any development-run fit at all, once per model (the per-loader scan
  // below runs only where it does: O(calls) once, O(loaders x calls) only in such files).
  auto is_fit = [&](Node call) {
    Node fn = unparen(field(call, "function"));
    if (!is(fn, "attribute")) return false;
    auto m = text(field(fn, "attribute"));
    return m == "fit" || m == "validate" || m == "test" || m == "predict";
  };
  if (!memo("dev-run-fit", [&] {
        for (const auto& cs : calls_)
          if (is_fit(cs.call) && dev_run_fit(*this, cs.call)) return 1;
        return 0;
      }))
    return false;
  for (const auto& cs : calls_) {
    if (!is_fit(cs.call) || !dev_run_fit(*this, cs.call)) continue;
    for (auto a : named_children(field(cs.call, "arguments"))) {
      Node v = is(a, "keyword_argument") ? field(a, "value") : a;
      if (same(unparen(v), loader_call)) return true;
      for (const auto& val : values(v))
        if (val.kind == Value::Kind::Expr && same(val.expr, loader_call)) return true;
    }
  }
  return false;
}

}  // namespace stoker::python

namespace stoker::python {

using namespace model_detail;

namespace {

// Tensor methods that compute on the tensor where it is (no device change, no sync of a CUDA
// stream since the batch is in host memory) and give a tensor or a size.
bool host_tensor_method(std::string_view m) {
  static constexpr std::string_view kMethods[] = {
      "mean",  "std",   "var",   "sum",     "min",      "max",     "abs",      "pow",   "sqrt",
      "float", "double", "long", "int",     "view",     "reshape", "flatten",  "permute", "transpose",
      "squeeze", "unsqueeze", "contiguous", "clone", "detach", "size", "dim", "numel", "square",
      "prod",  "norm",  "amax",  "amin",    "numpy",    "tolist"};
  for (auto k : kMethods)
    if (k == m) return true;
  return false;
}

}  // namespace

std::vector<std::string_view> SemanticModel::loop_batch_names(Node n) const {
  std::vector<std::string_view> names;
  if (!is(n, "for_statement")) return names;
  Node left = unparen(field(n, "left"));
  Node right = unparen(field(n, "right"));
  std::vector<Node> pattern{left};
  if (is(right, "call") && callee_name(right) == "builtins.enumerate" &&
      (is(left, "pattern_list") || is(left, "tuple_pattern")) && named_count(left) == 2)
    pattern = {named_child(left, 1)};
  for (size_t i = 0; i < pattern.size() && names.size() < 16; ++i) {
    Node t = unparen(pattern[i]);
    if (is(t, "identifier")) names.push_back(text(t));
    else
      for (Node c : named_children(t)) pattern.push_back(c);
  }
  return names;
}

bool SemanticModel::loop_keeps_batches_on_host(int loop) const {
  if (loop < 0 || static_cast<size_t>(loop) >= loops_.size()) return false;
  Node n = loops_[loop].node;
  if (!is(n, "for_statement")) return false;
  for (int ci : calls_in_loop_[loop])
    if (is_step_call_at(ci, true)) return false;
  auto names = loop_batch_names(n);
  if (names.empty()) return false;
  // A host target: a name or subscript whose base is not a CUDA value.
  auto host_target = [&](Node t) {
    t = unparen(t);
    while (is(t, "subscript")) t = unparen(field(t, "value"));
    return !is_null(t) && !is_cuda(t);
  };
  bool kept = false, indexes_host = false;
  bool all_ok = for_each_identifier(field(n, "body"), true, [&](Node u) {
    bool batch = false;
    for (auto name : names) batch = batch || text(u) == name;
    if (!batch) return true;
    // Walk up from the use through computations that stay where the tensor is: subscripts of it,
    // its host methods, arithmetic. `e` is the expression computed so far.
    Node e = u;
    bool ok = false;
    for (int depth = 0; depth < 16; ++depth) {
      Node p = parent(e);
      if (is(p, "subscript") && same(field(p, "value"), e)) {
        e = p;
        continue;
      }
      // A batch of positions selecting rows of host data (`edge_index[0, ind]`, `A[ind]`): kept
      // on the host unless something in the loop moves data to the GPU.
      if (is(p, "subscript") && !same(field(p, "value"), e) && !is_cuda(field(p, "value"))) {
        indexes_host = true;
        ok = true;
        break;
      }
      if (is(p, "parenthesized_expression") || is(p, "binary_operator") || is(p, "unary_operator")) {
        e = p;
        continue;
      }
      if (is(p, "attribute") && same(field(p, "object"), e)) {
        auto attr = text(field(p, "attribute"));
        if (attr == "shape" || attr == "dtype" || attr == "ndim") {
          ok = true;
          break;
        }
        Node call = parent(p);
        if (!is(call, "call") || !same(field(call, "function"), p) || !host_tensor_method(attr)) break;
        if (attr == "numpy" || attr == "tolist") {
          kept = true;
          ok = true;
          break;
        }
        e = call;
        continue;
      }
      if (is(p, "argument_list")) {
        Node call = parent(p);
        std::string q = callee_name(call);
        if (q == "builtins.len") {
          ok = true;
          break;
        }
        if (q.rfind("numpy.", 0) == 0) {
          kept = true;
          ok = true;
          break;
        }
        Node fn = unparen(field(call, "function"));
        if (is(fn, "attribute") && text(field(fn, "attribute")) == "copy_" && !is_cuda(field(fn, "object"))) {
          kept = true;
          ok = true;
        }
        break;
      }
      // `buf[i] = x`, `total += x.sum()`, `mean[c] += x[:, c].mean()` into host tensors.
      if ((is(p, "assignment") && same(unparen(field(p, "right")), unparen(e)) && is(field(p, "left"), "subscript")) ||
          (is(p, "augmented_assignment") && same(unparen(field(p, "right")), unparen(e)))) {
        if (host_target(field(p, "left"))) {
          kept = true;
          ok = true;
        }
        break;
      }
      break;
    }
    return ok;
  });
  if (!all_ok) return false;
  if (kept) return true;
  if (!indexes_host) return false;
  for (int ci : calls_in_loop_[loop])
    if (is_move_to_cuda(calls_[ci].call)) return false;
  return true;
}

bool SemanticModel::training_elsewhere(int call_index) const {
  for (const FunctionFacts* ext : ext_callees(call_index, fact::kHotLoop))
    if (ext->trains_loop) return true;
  return false;
}

std::vector<char> SemanticModel::training_loop_functions(std::vector<char>* nested) const {
  std::vector<char> out(functions_.size(), 0);
  if (nested) nested->assign(loops_.size(), 0);
  std::vector<int> work;
  auto seed = [&](int f) {
    if (f >= 0 && static_cast<size_t>(f) < out.size() && !out[f]) {
      out[f] = 1;
      work.push_back(f);
    }
  };
  for (size_t j = 0; j < loops_.size(); ++j) {
    int li = static_cast<int>(j);
    if (loops_[j].kind != LoopKind::Hot || !(loops_[j].iterates_loader || loop_performs_step(li, false))) continue;
    if (nested)
      for (int p = loops_[j].parent_loop; p >= 0 && !(*nested)[p]; p = loops_[p].parent_loop) (*nested)[p] = 1;
    seed(loops_[j].function);
  }
  for (size_t ci = 0; ci < calls_.size(); ++ci)
    if (calls_[ci].caller >= 0 && training_elsewhere(static_cast<int>(ci))) seed(calls_[ci].caller);
  while (!work.empty()) {
    int f = work.back();
    work.pop_back();
    for (int ci : callers(f)) seed(calls_[ci].caller);
  }
  return out;
}

}  // namespace stoker::python
