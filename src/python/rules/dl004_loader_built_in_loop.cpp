// DL004: a DataLoader constructed inside an epoch or training loop.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "python/call_positions.h"
#include "python/loop_shape.h"
#include "python/module_api.h"
#include "python/rules/common.h"
#include "python/types.h"

namespace stoker::python::rules {
namespace {

// Does any identifier in `expr` name something assigned inside `region`, or `expr` read an
// attribute of `self` that `region` assigns? With `names` false, only the attributes of `self`.
bool depends_on_region(const Context& ctx, Node expr, Node region, bool names = true) {
  std::vector<Node> stack{expr};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (is(n, "identifier")) {
      if (names && ctx.model().assigned_within(ctx.text(n), region)) return true;
      continue;
    }
    if (is(n, "attribute")) {
      Node obj = field(n, "object");
      if (ctx.text(obj) == "self" && ctx.model().assigned_within("self." + std::string(ctx.text(field(n, "attribute"))), region))
        return true;
    }
    for (auto c : named_children(n)) stack.push_back(c);
  }
  return false;
}

// The identifiers an expression reads as values (not attribute names, not keyword names).
template <class F>
bool each_read_name(Node expr, F&& visit) {
  std::vector<Node> stack{expr};
  for (size_t work = 0; !stack.empty(); ++work) {
    if (work > 512) return false;
    Node n = stack.back();
    stack.pop_back();
    if (is(n, "identifier")) {
      if (!visit(n)) return false;
      continue;
    }
    if (is(n, "attribute")) {
      stack.push_back(field(n, "object"));
      continue;
    }
    if (is(n, "keyword_argument")) {
      stack.push_back(field(n, "value"));
      continue;
    }
    for (auto c : named_children(n)) stack.push_back(c);
  }
  return true;
}

// The parameters of function `f` that the loader construction's arguments read, directly or
// through the function's own assignments (`eval_sampler = SequentialSampler(eval_data)`); false
// when a name cannot be followed (too many bindings, too deep).
bool loader_params(const SemanticModel& m, int f, Node args, std::set<int>& out) {
  std::vector<std::pair<Node, int>> pending{{args, 0}};
  std::set<uint32_t> seen;
  while (!pending.empty()) {
    auto [expr, depth] = pending.back();
    pending.pop_back();
    if (depth > 6 || seen.size() > 64) return false;
    bool ok = each_read_name(expr, [&](Node id) {
      auto bindings = m.lookup(m.text(id), start(id));
      if (bindings.size() > SemanticModel::kMaxCandidates) return false;
      for (const Binding* b : bindings) {
        if (b->kind == Binding::Kind::Param) {
          if (b->function == f) out.insert(b->param_index);
          continue;
        }
        if (b->kind == Binding::Kind::Import || b->kind == Binding::Kind::Def || b->kind == Binding::Kind::Class) continue;
        if (m.function_at(b->at) != f) continue;  // a module-level or enclosing name: not the call's
        if (is_null(b->value)) return false;
        if (seen.insert(start(b->value)).second) pending.push_back({b->value, depth + 1});
      }
      return true;
    });
    if (!ok) return false;
  }
  return true;
}

// A torch.utils.data class whose instance built from the same arguments is the same data: the
// samplers (their order is drawn when iterated) and `TensorDataset` (a view of its tensors).
bool same_data_wrapper(const std::string& q) {
  static const std::set<std::string, std::less<>> names = {"RandomSampler", "SequentialSampler", "BatchSampler",
                                                            "DistributedSampler", "TensorDataset"};
  for (std::string_view prefix : {"torch.utils.data.sampler.", "torch.utils.data.distributed.",
                                  "torch.utils.data.dataset.", "torch.utils.data."})
    if (q.size() > prefix.size() && q.compare(0, prefix.size(), prefix) == 0)
      return names.count(std::string_view(q).substr(prefix.size())) > 0;
  return false;
}

// A construction of a class this file defines (`SeqDataset(features, labels)`): project code.
bool class_of_file(const SemanticModel& m, Node call) {
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "identifier")) return false;
  auto bindings = m.lookup(m.text(fn), start(fn));
  if (bindings.empty()) return false;
  for (const Binding* b : bindings)
    if (b->kind != Binding::Kind::Class) return false;
  return true;
}

// Does the value of `expr` change from one pass of the loop `region` to the next? A name bound
// in the loop changes unless each of its bindings there is a plain assignment of a value that
// does not change: names bound outside the loop (or such values, recursively), literals,
// subscripts and attributes of those (`dev_cache["dev"]`), and calls of the project's functions
// or classes given such arguments (`load_dev_data(args, args.dev_filename)` loads the same data
// each epoch). A library call (`torch.randperm(n)`) gives a new value each time, as does
// anything that reads the loop's own target (a fold's indices, the epoch number).
// `budget`: bindings left to read (past it, the value is taken to change).
bool changes_per_pass(const SemanticModel& m, Node expr, Node region, int& budget, int depth = 0) {
  if (depth > 6 || budget <= 0) return true;
  bool changes = false;
  bool complete = each_read_name(expr, [&](Node id) {
    if (!m.assigned_within(m.text(id), region)) return true;
    auto bindings = m.lookup(m.text(id), start(id));
    if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) {
      changes = true;
      return false;
    }
    for (const Binding* b : bindings) {
      if (is_null(b->target) || !contains(region, b->target)) continue;
      if (--budget <= 0 || b->kind != Binding::Kind::Assign || is_null(b->value) ||
          changes_per_pass(m, b->value, region, budget, depth + 1)) {
        changes = true;
        return false;
      }
      // Calls in the assigned value: the project's own loaders of data, not library calls; a
      // sampler or `TensorDataset` of torch.utils.data built from such values is the same object
      // again (a sampler draws its order when iterated: `RandomSampler(dataset)` per epoch).
      std::vector<Node> stack{b->value};
      while (!stack.empty() && !changes) {
        Node n = stack.back();
        stack.pop_back();
        if (is(n, "call") && !m.project_call(n) && !class_of_file(m, n) && !same_data_wrapper(m.callee_name(n)))
          changes = true;
        if (is(n, "lambda")) changes = true;
        for (auto c : named_children(n)) stack.push_back(c);
      }
      if (changes) return false;
    }
    return true;
  });
  return changes || !complete;
}

// A call of function `f` in `loop` passes, to the parameters the loader construction `args`
// reads, values that change from pass to pass (a fold's split): the loader must be rebuilt.
// Without parameter bindings (`*args`, a name not followed), any argument bound in the loop.
bool call_feeds_new_data(const Context& ctx, int f, Node loader_args, const CallSite& cs, Node loop) {
  const auto& m = ctx.model();
  std::set<int> params;
  if (!loader_params(m, f, loader_args, params)) return depends_on_region(ctx, field(cs.call, "arguments"), loop);
  int budget = 128;  // bindings read for all the arguments together
  for (int pi : params) {
    if (m.functions()[f].params[pi].is_variadic) return depends_on_region(ctx, field(cs.call, "arguments"), loop);
    if (pi < bound_params(m.functions()[f])) continue;  // the instance itself
    Node a = m.types().site_argument(f, pi, cs.call);
    if (is_null(a)) return depends_on_region(ctx, field(cs.call, "arguments"), loop);
    if (changes_per_pass(m, a, loop, budget)) return true;
  }
  return false;
}

// A pass of `loop` builds the model that `call` is handed: an argument is a name bound in the
// loop's body, under no condition there, to a module construction or load (`model =
// AutoModelForYesno.from_pretrained(checkpoint)` then `evaluate(args, model, tokenizer)`:
// biobert-pytorch run_yesno.py's loop over checkpoints), not to a module of before moved or put
// in a mode (`model = model.train()`, `.to(device)`). Each pass is then a run of its own (a
// checkpoint, a target, a fold), not an epoch of one training: a loader the call builds once
// per run is not rebuilt per epoch (set AQ MolCLR's target loop). O(arguments x bindings x depth).
bool hands_model_built_per_pass(const SemanticModel& m, Node call, Node loop) {
  Node body = field(loop, "body");
  int scope = m.scope_at(start(call));
  if (scope < 0) return false;
  const auto& scope_bindings = m.scopes()[static_cast<size_t>(scope)].bindings;
  for (Node a : named_children(field(call, "arguments"))) {
    if (is(a, "keyword_argument")) a = field(a, "value");
    a = unparen(a);
    if (!is(a, "identifier")) continue;
    // The name's bindings in the call's scope (not lookup's: a binding under a guard read as
    // never holding is as live as the call beside it in the same loop).
    auto found = scope_bindings.find(m.text(a));
    if (found == scope_bindings.end() || found->second.size() > SemanticModel::kMaxCandidates) continue;
    for (const Binding& bound : found->second) {
      const Binding* b = &bound;
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || is_null(b->value) || !contains(body, b->target))
        continue;
      Node v = unparen(b->value);
      if (!is(v, "call")) continue;
      Node fn = unparen(field(v, "function"));
      if (is(fn, "attribute")) {
        std::string_view method = m.text(field(fn, "attribute"));
        if (module_move_or_cast(method) || method == "cpu" || method == "train" || method == "eval") continue;
      }
      if (unconditional_in(b->target, body) && m.is_module(v)) return true;
    }
  }
  return false;
}

// Every loop iterating the loader built by `loader_call` sits in a loop of its own inside
// `region` that does not rebuild it (`for stage in stages: loader = DataLoader(...); for epoch in
// range(n): for batch in loader:`, a curriculum's `while` over sequence lengths): each loader
// serves several passes of that inner loop, so `region` is a stage loop around the epoch loop,
// not the epoch loop. O(loops iterating the loader x their depth).
bool iterated_by_inner_loop(const SemanticModel& m, Node loader_call, Node region) {
  auto iterating = m.loops_iterating(loader_call);
  if (iterating.empty()) return false;
  for (int il : iterating) {
    bool between = false, inside = false;
    for (int p = m.loops()[il].parent_loop; p >= 0; p = m.loops()[p].parent_loop) {
      Node pn = m.loops()[p].node;
      if (same(pn, region)) {
        inside = true;
        break;
      }
      if (!contains(pn, loader_call) && !m.loops()[p].comprehension) between = true;
    }
    if (!inside || !between) return false;
  }
  return true;
}

// A loader of positions without workers (`DataLoader(range(n), batch_size)`, ogb's link
// predictors): building it again starts no worker process, and its dataset and sampler are a
// range and an index generator, so a rebuild per pass costs microseconds. A `**kwargs` not read
// may set num_workers (reported); a positional `*rest` is taken not to reach its position (6th),
// as DL001 takes it (`DataLoader(*args, **kwargs)` wrappers: missing num_workers is DL001's), so
// the same call is not read as worker-less by one rule and as having workers by the other.
// O(arguments).
bool workerless_range_loader(const SemanticModel& m, Node call) {
  Node dataset = m.argument(call, 0, "dataset");
  if (!is(dataset, "call") || m.callee_name(dataset) != "builtins.range") return false;
  auto kw = m.keyword_arguments(call);
  Node workers = kw.find("num_workers");
  if (is_null(workers)) workers = m.argument(call, kNumWorkersPos, "");
  if (is_null(workers)) return kw.complete;
  auto n = m.constant_int(workers);
  return n && *n == 0;
}


// Is the innermost hot loop of `loops` guarded, by one of `guards` inside it, so that the guarded
// code runs on one step of the whole run: `X == K` (K an integer literal, also inside `and`) with
// X a step counter kept on the instance that the loop only increments (`self.step += 1`, stored
// nowhere in the loop's function: it persists across calls, Diffuser's Trainer.train `if
// self.step == 0 and self.sample_freq:`), or the loop's own counter (its target, or a name it only
// increments) of a loop that runs once (not nested in a loop, its function not called from one).
// A periodic guard (`iteration % epoch_size == 0`: once per epoch) or a counter of a loop run per
// epoch rebuilds the loader every epoch, DL004's own case (set V Pytorch_Retinaface): the counter
// is SemanticModel::step_counter of the loop's body (stores: its function for `self.step`, the loop
// for a name). O(guards x the counters' stores).
bool once_per_run(const SemanticModel& m, const std::vector<int>& loops, const std::vector<std::pair<Node, bool>>& guards) {
  int hot = -1;
  for (auto it = loops.rbegin(); it != loops.rend() && hot < 0; ++it)
    if (m.loops()[*it].kind == LoopKind::Hot) hot = *it;
  if (hot < 0) return false;
  const Loop& loop = m.loops()[hot];
  if (!is(loop.node, "for_statement") && !is(loop.node, "while_statement")) return false;
  std::string_view target;
  if (is(loop.node, "for_statement") && is(unparen(field(loop.node, "left")), "identifier"))
    target = m.text(unparen(field(loop.node, "left")));
  auto counter_test = [&](Node c) {
    c = unparen(c);
    if (!is(c, "comparison_operator") || named_count(c) != 2 || m.text(ts_node_child(c, 1)) != "==") return false;
    Node l = unparen(named_child(c, 0)), r = unparen(named_child(c, 1));
    if (is(l, "integer")) std::swap(l, r);
    if (!is(r, "integer")) return false;
    if (is(l, "attribute") && m.text(unparen(field(l, "object"))) == "self") {
      int f = loop.function;
      return f >= 0 && m.step_counter(l, loop.body, m.functions()[f].node);
    }
    if (!is(l, "identifier") || m.loop_runs_per_epoch(hot)) return false;
    return m.text(l) == target || m.step_counter(l, loop.body, loop.node);
  };
  for (const auto& [cond, positive] : guards) {
    if (!positive || !contains(loop.body, cond)) continue;
    std::vector<Node> parts{cond};
    while (!parts.empty()) {
      Node c = unparen(parts.back());
      parts.pop_back();
      if (is(c, "boolean_operator") && m.text(field(c, "operator")) == "and") {
        parts.push_back(field(c, "left"));
        parts.push_back(field(c, "right"));
        continue;
      }
      if (counter_test(c)) return true;
    }
  }
  return false;
}
}  // namespace

void dl004_loader_built_in_loop(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !m.is_loader_call(call)) return;
  if (workerless_range_loader(m, call)) return;
  Node args = field(call, "arguments");
  const auto& frame = ctx.frame();
  auto report = [&](std::optional<Node> via) {
    Diagnostic& d = ctx.report("DL004", field(call, "function"),
                               "`DataLoader` is constructed on every iteration of a training or epoch loop "
                               "(starting its workers each time); build it once before the loop");
    if (via) d.related.push_back({ctx.file().path, range(*via), "called once per iteration here"});
    d.fix = Fix{"Hoist the `DataLoader` construction out of the loop", Applicability::DisplayOnly, {}};
  };
  for (auto it = frame.loops.rbegin(); it != frame.loops.rend(); ++it) {
    const Loop& loop = m.loops()[*it];
    if (loop.kind == LoopKind::Setup) continue;
    if (HotContext h = ctx.hot(); h.hot && h.once_per_epoch && once_per_run(m, frame.loops, frame.guards))
      return;  // built on one step of the run
    // Built from per-iteration data (k-fold...): names the loop binds to new values (its target,
    // a library call's result), or attributes it stores; not a dataset the project builds again
    // from the same values each pass (S3Rec's `PretrainDataset(args, user_seq, long_sequence)`
    // and `RandomSampler` of it in the epoch loop), when the construction runs on every pass (no
    // condition inside the loop: `if epoch >= freeze_epoch and not unfrozen:` rebuilding with a
    // new batch size once, a latch set right after, set E deeplabv3-plus-pytorch).
    if (depends_on_region(ctx, args, loop.node)) {
      bool guarded = false;
      for (const auto& g : frame.guards) guarded = guarded || contains(loop.node, g.first);
      int budget = 128;
      if (guarded || depends_on_region(ctx, args, loop.node, false) || changes_per_pass(m, args, loop.node, budget)) return;
    }
    if (iterated_by_inner_loop(m, call, loop.node)) return;  // a stage loop around the epoch loop
    report(std::nullopt);
    return;
  }
  if (!frame.loops.empty() || frame.function < 0) return;
  // Built in a function that a loop calls once per iteration, directly or through functions
  // whose call sites are outside any loop (`validate()` calling `make_val_loader()`).
  std::vector<int> pending{frame.function};
  std::set<int> seen{frame.function};
  for (int depth = 0; depth < 6 && !pending.empty(); ++depth) {
    std::vector<int> next;
    for (int f : pending) {
      for (int ci : m.callers(f)) {
        const CallSite& cs = m.calls()[ci];
        bool in_loop = false;
        // A call under a guard that holds on one step per epoch or run (`if self.step == 0:
        // self.render_reference(n)`, Diffuser's Trainer): the loader is built once, not per pass.
        WalkFrame site{cs.caller, -1, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth};
        if (!cs.loops.empty()) {
          HotContext h = m.hot_context(site, start(cs.call));
          if (h.hot && h.once_per_epoch && once_per_run(m, cs.loops, cs.guards)) continue;
        }
        for (auto it = cs.loops.rbegin(); it != cs.loops.rend(); ++it) {
          const Loop& loop = m.loops()[*it];
          in_loop = true;
          if (loop.kind == LoopKind::Setup) continue;
          // The loader-building function itself: only the arguments its construction reads, and
          // only values that change per pass (a dataset reloaded the same way each epoch does not).
          if (depth == 0 ? call_feeds_new_data(ctx, f, args, cs, loop.node)
                         : depends_on_region(ctx, field(cs.call, "arguments"), loop.node))
            continue;
          if (hands_model_built_per_pass(m, cs.call, loop.node)) continue;  // a loop over runs
          report(cs.call);
          return;
        }
        if (!in_loop && cs.caller >= 0 && seen.insert(cs.caller).second) next.push_back(cs.caller);
      }
    }
    pending = std::move(next);
  }
  // Called once per pass of a loop in another module, with arguments the same on every pass,
  // directly or through functions called so (nuwave's `for i in range(5): t =
  // model.test_dataloader()` in for_test.py, whose method calls `create_vctk_dataloader`): the
  // functions reached above through call sites outside loops, the loader's own first.
  // A construction under a condition on the function's parameters (`if cv == 0:` choosing the
  // training loader, `else:` the test one) is left alone: the rebuilding call's arguments are not
  // known here, and another caller may be the one taking that branch.
  for (const auto& guard : frame.guards) {
    bool reads_param = false;
    each_read_name(guard.first, [&](Node id) {
      for (const Binding* b : m.lookup(m.text(id), start(id)))
        reads_param |= b->kind == Binding::Kind::Param && b->function == frame.function;
      return !reads_param;
    });
    if (reads_param) return;
  }
  std::vector<int> reached(seen.begin(), seen.end());
  std::stable_partition(reached.begin(), reached.end(), [&](int f) { return f == frame.function; });
  for (int f : reached)
    if (auto via = m.rebuilt_by_other_modules(f)) {
      Diagnostic& d = ctx.report("DL004", field(call, "function"),
                                 "`DataLoader` is constructed on every iteration of a training or epoch loop "
                                 "(starting its workers each time; called once per iteration from " +
                                     *via + "); build it once before the loop");
      d.fix = Fix{"Hoist the `DataLoader` construction out of the loop", Applicability::DisplayOnly, {}};
      return;
    }
}

}  // namespace stoker::python::rules
