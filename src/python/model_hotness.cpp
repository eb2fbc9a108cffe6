// Hotness: where code runs relative to the training step (hot contexts through loops and
// calls, across modules), and amortizing guards (`step % N`, once per epoch, flags). The truth
// of a guard's test: model_guard_truth.cpp; guards on a loop's own index: model_guards.cpp.
#include <cmath>

#include "python/descend.h"
#include "python/call_positions.h"
#include "python/loop_shape.h"
#include "python/model_internal.h"
#include "python/module_api.h"
#include "python/symbol_table.h"
#include "python/project_fields.h"
#include "python/types.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <unordered_set>

namespace stoker::python {

using namespace model_detail;

namespace {
// A class whose bases are all library classes whose calls into their subclasses are known:
// torch.nn.Module (its `__call__` runs `forward`; its API methods call one another: `eval`
// runs `train`, `to` runs `_apply`, `load_state_dict` runs `_load_from_state_dict`) and
// torch.utils.data.Dataset / IterableDataset (the loader calls dunders only). At least one such
// base, none other but `object`.
bool hooked_library_bases(const std::vector<std::string>& bases) {
  static const std::set<std::string, std::less<>> kHooked = {
      "torch.nn.Module", "torch.nn.modules.module.Module", "torch.utils.data.Dataset",
      "torch.utils.data.dataset.Dataset", "torch.utils.data.IterableDataset",
      "torch.utils.data.dataset.IterableDataset"};
  bool any = false;
  for (const std::string& b : bases) {
    if (b == "object" || b == "builtins.object") continue;
    if (!kHooked.count(b)) return false;
    any = true;
  }
  return any;
}

// A method name no hooked library base calls or defines: public (a private name may be a hook,
// `_apply`, `_load_from_state_dict`, `_get_name`) and not nn.Module's API (an override of
// `train` runs when `eval()` is called).
bool library_hook_free(std::string_view name) {
  return !name.empty() && name[0] != '_' && !module_api_method(name);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Hot contexts and amortization.

void SemanticModel::apply_guards(HotContext& ctx, const std::vector<std::pair<Node, bool>>& guards, size_t from,
                                 Node hot_region) const {
  // The bindings of a name in the scope it is read in (none: nullptr).
  auto bindings_of = [&](Node name) -> const std::vector<Binding>* {
    const auto& bindings = scopes_[scope_at(start(name))].bindings;
    auto it = bindings.find(std::string(text(name)));
    return it == bindings.end() ? nullptr : &it->second;
  };
  // The number of steps in an epoch: `len(loader)`, a name or attribute called so
  // (`steps_per_epoch`, `self.iters_per_epoch`, `epoch_size`), or a name bound only to such a
  // length, also divided or rounded (`len(train_loader.images) // batch_size`, `ceil(...)`).
  std::function<bool(Node, int)> epoch_length = [&](Node e, int depth) -> bool {
    e = unparen(e);
    if (depth > 3 || is_null(e)) return false;
    if (is(e, "call")) {
      std::string_view f = text(field(e, "function"));
      auto args = named_children(field(e, "arguments"));
      if (f == "len") return args.size() == 1;
      if ((f == "ceil" || f == "math.ceil" || f == "int" || f == "round") && args.size() == 1)
        return epoch_length(args[0], depth + 1);
      return false;
    }
    // Divided by a batch size (`len(images) // batch_size`), not by a count of their own
    // (`len(loader) // 10`: ten times per epoch).
    if (is(e, "binary_operator")) {
      std::string_view o = text(field(e, "operator"));
      return (o == "//" || o == "/") && !constant_int(field(e, "right")) && epoch_length(field(e, "left"), depth + 1);
    }
    std::string_view name = is(e, "attribute") ? text(field(e, "attribute")) : is(e, "identifier") ? text(e) : "";
    if (name.empty()) return false;
    if (name.find("per_epoch") != std::string_view::npos || name == "epoch_size" || name == "epoch_length" ||
        name == "epoch_len")
      return true;
    if (!is(e, "identifier")) return false;
    const auto* bindings = bindings_of(e);
    if (!bindings || bindings->empty()) return false;
    for (const Binding& b : *bindings)
      if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || !epoch_length(b.value, depth + 1)) return false;
    return true;
  };
  // A lazy initialization's test (`X is None`, `not hasattr(o, "attr")`): the name or attribute
  // it tests ("o.attr"), or "" for any other condition.
  auto lazy_target = [&](Node c) -> std::string {
    c = unparen(c);
    if (is(c, "comparison_operator") && named_count(c) == 2 && ts_node_child_count(c) == 3 &&
        text(ts_node_child(c, 1)) == "is" && is(unparen(named_child(c, 1)), "none")) {
      Node x = unparen(named_child(c, 0));
      if (is(x, "identifier") || is(x, "attribute")) return std::string(text(x));
      return {};
    }
    if (!is(c, "not_operator")) return {};
    Node call = unparen(field(c, "argument"));
    if (!is(call, "call")) return {};
    // `not exists(self.fields)` of a function here whose only return is `param is not None`
    // (lucidrains' `def exists(val): return val is not None`): `self.fields is None`.
    if (Node tested = none_test_argument(call, false); !is_null(tested)) {
      if (is(tested, "identifier") || is(tested, "attribute")) return std::string(text(tested));
      return {};
    }
    if (text(field(call, "function")) != "hasattr") return {};
    auto args = named_children(field(call, "arguments"));
    std::string attr;
    if (args.size() != 2 || !string_literal_value(unparen(args[1]), src_, attr)) return {};
    Node o = unparen(args[0]);
    if (!is(o, "identifier") && !is(o, "attribute")) return {};
    return std::string(text(o)) + "." + attr;
  };
  // Does the branch the condition `c` (or the `and`/`or`/`not` it is part of) guards assign
  // `target` (`all_gather_list._buffer = torch.cuda.ByteTensor(n)`)?
  auto branch_assigns = [&](Node c, const std::string& target) {
    Node owner = parent(c);
    while (is(owner, "parenthesized_expression") || is(owner, "boolean_operator") || is(owner, "not_operator"))
      owner = parent(owner);
    if (!is(owner, "if_statement") && !is(owner, "elif_clause")) return false;
    Node branch = field(owner, "consequence");
    if (is_null(branch)) return false;
    if (assigned_within(target, branch)) return true;
    std::vector<Node> stack{branch};
    for (size_t guard = 0; !stack.empty() && guard < 512; ++guard) {
      Node n = stack.back();
      stack.pop_back();
      if (is(n, "assignment") && text(unparen(field(n, "left"))) == target) return true;
      if (is(n, "function_definition") || is(n, "class_definition")) continue;
      for (Node ch : named_children(n)) stack.push_back(ch);
    }
    return false;
  };
  // `step % N`: the guarded code runs once every N steps (N unknown: -1; N = 1: every step).
  // N the length of an epoch (`step % steps_per_epoch == 0`): one step per epoch.
  auto amortize = [&](Node modulo) {
    auto n = constant_int(field(modulo, "right"));
    // A whole float (`--visualize_every_batch` typed int but defaulting to `1e8`, which argparse
    // leaves a float): `i % 1e8 == 0` of an int step holds once every 1e8 steps; several known
    // candidates (two scripts' defaults handed to one trainer, 1e8 and 5000): the shortest period
    // (set BK e3_diffusion train_test.py:76; session 40). At most kMaxCandidates values.
    if (!n) {
      auto vs = values(field(modulo, "right"));
      long long shortest = 0;
      bool all = !vs.empty() && vs.size() <= kMaxCandidates;
      for (const auto& v : vs) {
        long long p = 0;
        if (v.kind == Value::Kind::Int && v.i >= 1) p = v.i;
        else if (v.kind == Value::Kind::Float && v.f >= 1 && v.f < 1e18 && v.f == std::floor(v.f))
          p = static_cast<long long>(v.f);
        if (p == 0) {
          all = false;
          break;
        }
        shortest = shortest == 0 ? p : std::min(shortest, p);
      }
      if (all) n = shortest;
    }
    if (n && *n == 1) return;
    if (!n && epoch_length(field(modulo, "right"), 0)) {
      ctx.once_per_epoch = true;
      return;
    }
    ctx.every = n ? std::max(ctx.every, *n) : (ctx.every == 0 ? -1 : ctx.every);
  };
  std::function<void(Node, bool)> apply = [&](Node cond, bool positive) {
    cond = unparen(cond);
    auto k = kind(cond);
    // A condition of known truth: the guarded code always runs, or never (dead code).
    if (auto truth = guard_truth(cond)) {
      if (*truth != positive) ctx.once_per_epoch = true;  // never runs at all
      return;
    }
    if (k == "boolean_operator" && positive && text(field(cond, "operator")) == "and") {
      apply(field(cond, "left"), true);
      apply(field(cond, "right"), true);
      return;
    }
    if (k == "boolean_operator" && positive && text(field(cond, "operator")) == "or") {
      // `i % 100 == 99 or i == 0`: amortized when each side is amortized or runs once; the
      // period is the shortest side's.
      HotContext outer = ctx, sides[2];
      Node parts[2] = {field(cond, "left"), field(cond, "right")};
      // `not hasattr(f, "_buffer") or f._buffer.numel() < n` whose branch assigns `f._buffer`:
      // a cache built once (and grown when too small), not per step.
      for (int i = 0; i < 2; ++i) {
        std::string target = lazy_target(parts[i]);
        if (!target.empty() && text(parts[1 - i]).find(target) != std::string_view::npos &&
            branch_assigns(cond, target)) {
          ctx.once_per_epoch = true;
          return;
        }
      }
      for (int i = 0; i < 2; ++i) {
        ctx = HotContext{};
        apply(parts[i], true);
        sides[i] = ctx;
      }
      ctx = outer;
      auto rare = [](const HotContext& h) { return h.every != 0 || h.once_per_epoch; };
      if (!rare(sides[0]) || !rare(sides[1])) return;
      if (sides[0].once_per_epoch && sides[1].once_per_epoch) {
        ctx.once_per_epoch = true;
        return;
      }
      long long every = 0;
      for (const auto& h : sides) {
        if (h.once_per_epoch && h.every == 0) continue;
        if (h.every < 0 || every < 0) every = -1;
        else every = every == 0 ? h.every : std::min(every, h.every);
      }
      ctx.every = every > 0 ? std::max(ctx.every, every) : (ctx.every == 0 ? -1 : ctx.every);
      return;
    }
    // `step % N == 0`, `not i % N`, the else branch of `if i % N:`: once every N steps.
    if (Node modulo = period_modulo(cond, positive, src_); !is_null(modulo)) {
      amortize(modulo);
      return;
    }
    if (k == "not_operator") {
      Node arg = unparen(field(cond, "argument"));
      // `if not hasattr(f, "_buffer"): f._buffer = ...`: a lazy initialization, once.
      if (positive) {
        std::string target = lazy_target(cond);
        if (!target.empty() && target.find('.') != std::string::npos && branch_assigns(cond, target)) {
          ctx.once_per_epoch = true;
          return;
        }
      }
      apply(arg, !positive);
      return;
    }
    if (!positive) return;  // (the else branch of a condition that always holds: above)
    // `divisible_by(step, every)` of a function here whose only return is `(a % b) == 0` of its
    // parameters: amortized by the argument given for `b`, as `step % every == 0` is.
    if (k == "call") {
      // `if np.isnan(loss_meter.avg):` of a host value: a divergence handler (save the state,
      // dump the inputs), whose body a healthy run never enters; not per step (set AW ssast
      // traintest.py:170). `numpy`/`math` isnan/isinf of a value not on CUDA.
      if (const std::string& q = callee_name(cond);
          q == "numpy.isnan" || q == "numpy.isinf" || q == "math.isnan" || q == "math.isinf") {
        Node a = argument(cond, 0, "");
        if (!is_null(a) && !is(a, "keyword_argument") && !is(a, "list_splat") && !is_cuda(a)) {
          ctx.once_per_epoch = true;
          return;
        }
      }
      auto targets = callees(cond);
      if (targets.size() != 1) return;
      const Function& f = functions_[targets[0]];
      if (f.klass >= 0 || f.returns.size() != 1) return;
      Node r = unparen(f.returns[0]);
      if (!is(r, "comparison_operator") || named_count(r) != 2 || text(ts_node_child(r, 1)) != "==") return;
      Node mod = unparen(named_child(r, 0)), zero = unparen(named_child(r, 1));
      if (is(mod, "integer")) std::swap(mod, zero);
      if (!is(zero, "integer") || text(zero) != "0" || !is(mod, "binary_operator") ||
          text(field(mod, "operator")) != "%")
        return;
      Node divisor = unparen(field(mod, "right"));
      if (!is(divisor, "identifier")) return;
      for (size_t i = 0; i < f.params.size(); ++i) {
        const Param& p = f.params[i];
        if (p.name != text(divisor)) continue;
        if (p.is_variadic) return;
        Node arg = argument(cond, p.keyword_only ? -1 : static_cast<int>(i), p.name);
        if (is_null(arg)) return;
        auto n = constant_int(arg);
        if (n && *n == 1) return;
        ctx.every = n ? std::max(ctx.every, *n) : (ctx.every == 0 ? -1 : ctx.every);
        return;
      }
      return;
    }
    if (k == "comparison_operator") {
      auto parts = named_children(cond);
      std::string_view op = text(ts_node_child(cond, 1));
      // `if idx < hp.log.num_audio:`, `if i in rand`: the loop's own index on a bounded number of
      // steps of each pass (model_guards.cpp).
      if (bounded_index_guard(cond, hot_region)) {
        ctx.once_per_epoch = true;
        return;
      }
      // `if self.initted.item() == 0: ...; self.initted.fill_(1)`: a buffer latch, once.
      if (buffer_latch_set(cond)) {
        ctx.once_per_epoch = true;
        return;
      }
      if (parts.size() == 2 && op == "==") {
        Node l = unparen(parts[0]), r = unparen(parts[1]);
        // `self.step` that the hot region only increments (`self.step += 1`, no plain store of
        // it there): a step counter kept on the instance (Diffuser's Trainer.train, `if
        // self.step == 0 and self.sample_freq: self.render_reference(...)`, once per run).
        auto self_counter = [&](Node e) {
          e = unparen(e);
          return is(e, "attribute") && !is_null(hot_region) && step_counter(e, hot_region, hot_region);
        };
        // step == 0, batch_idx == 0, `(step + 1) == 1`: one step per epoch or run
        auto counter_like = [&](Node e) {
          e = unparen(e);
          if (is(e, "binary_operator") && (text(field(e, "operator")) == "+" || text(field(e, "operator")) == "-") &&
              is(unparen(field(e, "right")), "integer"))
            e = unparen(field(e, "left"));
          // `rank == 0`, `local_rank == 0`: the process rank, fixed for the run, is not a step
          // counter: the guarded code runs every step on that rank (set AM UniMatch).
          if (is(e, "identifier")) {
            std::string_view name = text(e);
            bool rank = name.size() >= 4 && name.substr(name.size() - 4) == "rank";
            return !rank || (!is_null(hot_region) && step_counter(e, hot_region, hot_region));
          }
          return self_counter(e);
        };
        if (counter_like(l) && is(r, "integer")) ctx.once_per_epoch = true;
        if (counter_like(r) && is(l, "integer")) ctx.once_per_epoch = true;
        // `step == max_steps - 1`, `i == len(loader) - 1`: the hot loop's counter against a
        // bound that does not change in the loop (names other than the counter, attributes,
        // integers, `len(...)`, `+`/`-`): the last (or one chosen) step.
        // A step counter: the loop's own target, or a name the hot region only increments
        // (`current_steps += 1`; `if current_steps == total_train_steps:` is the last step).
        Node loop_stmt = is_null(hot_region) ? Node{} : parent(hot_region);  // the body's loop
        std::string_view counter;
        if (!is_null(loop_stmt) && is(loop_stmt, "for_statement")) {
          Node target = unparen(field(loop_stmt, "left"));
          if (is(target, "pattern_list") || is(target, "tuple_pattern")) {
            auto parts_t = named_children(target);
            target = parts_t.empty() ? Node{} : unparen(parts_t.front());
          }
          if (is(target, "identifier")) counter = text(target);
        }
        auto stepped = [&](Node e) {
          if (self_counter(e)) return true;
          if (!is(e, "identifier") || is_null(hot_region)) return false;
          if (!counter.empty() && text(e) == counter) return true;
          return step_counter(e, hot_region, hot_region);
        };
        if (!is_null(hot_region)) {
          std::function<bool(Node, int)> fixed = [&](Node e, int depth) -> bool {
            e = unparen(e);
            if (depth > 8 || is_null(e)) return false;
            if (is(e, "integer")) return true;
            if (is(e, "identifier")) {
              if (stepped(e)) return false;
              // Assigned in the loop: it may change every step.
              if (const auto* bindings = bindings_of(e))
                for (const Binding& x : *bindings)
                  if (!is_null(x.target) && contains(hot_region, x.target)) return false;
              return true;
            }
            if (is(e, "attribute")) return !self_counter(e);
            // `len(self.dv_set) // 2`: the middle step (set AJ End-to-end-ASR-Pytorch validate).
            if (is(e, "binary_operator")) {
              std::string_view o = text(field(e, "operator"));
              return (o == "+" || o == "-" || o == "*" || o == "//") && fixed(field(e, "left"), depth + 1) &&
                     fixed(field(e, "right"), depth + 1);
            }
            if (is(e, "call") && text(field(e, "function")) == "len") return true;
            return false;
          };
          if (stepped(l) && fixed(r, 0)) ctx.once_per_epoch = true;
          if (stepped(r) && fixed(l, 0)) ctx.once_per_epoch = true;
        }
      }
      // `if len(all_preds) == 0: all_preds.append(p) else: ...`: an accumulator its own branch
      // fills is empty only until that branch first runs, unless the hot region empties it again
      // (rebinds it, clears, pops or deletes from it): the first iteration, once.
      if (parts.size() == 2 && (op == "==" || op == "<" || op == "<=" || op == ">" || op == ">=") &&
          !is_null(hot_region) && empty_until_filled(cond, hot_region)) {
        ctx.once_per_epoch = true;
        return;
      }
      // `if features is None: features = ...`: a lazy initialization, once.
      if (parts.size() == 2 && op == "is" && ts_node_child_count(cond) == 3 && is(unparen(parts[1]), "none")) {
        Node name = unparen(parts[0]);
        Node owner = parent(cond);
        while (is(owner, "parenthesized_expression")) owner = parent(owner);
        Node branch = field(owner, "consequence");
        if ((is(name, "identifier") || is(name, "attribute")) && !is_null(branch) &&
            assigned_within(text(name), branch))
          ctx.once_per_epoch = true;
      }
      return;
    }
    if (k == "identifier" || k == "attribute") {
      // A flag the guarded branch itself clears (`if self.need_sync: ...; self.need_sync = False`):
      // the branch runs once (until something sets the flag again).
      if (flag_cleared_in_branch(cond)) {
        ctx.once_per_epoch = true;
        return;
      }
      // A first-iteration flag: set False inside the hot region.
      if (k == "identifier" && !is_null(hot_region)) {
        // Every node under the guard asks: decided once per (condition, hot region).
        auto [memo, fresh] = first_iteration_flag_.try_emplace({cond.id, hot_region.id}, false);
        const auto* bindings = bindings_of(cond);
        if (fresh && bindings)
          for (const auto& b : *bindings)
            if (b.kind == Binding::Kind::Assign && contains(hot_region, b.target) && is(unparen(b.value), "false"))
              memo->second = true;
        if (memo->second) {
          ctx.once_per_epoch = true;
          return;
        }
        // `last_step = step == max_steps - 1` assigned once in the hot region, then
        // `if step % 250 == 0 or last_step:`: the comparison decides.
        // Also a flag computed so (`do_eval = args.do_eval and (global_step % eval_steps == 0)
        // and accelerator.sync_gradients`, then `if do_eval:`: finetune-hf-vits, set BJ): its
        // `and`/`or` decides as written in the guard. The one binding that reaches the guard
        // when the name has others elsewhere in the function (after the loop).
        const Binding* only = bindings && bindings->size() == 1 ? &bindings->front() : nullptr;
        if (!only && bindings && bindings->size() > 1 && bindings->size() <= kMaxCandidates) {
          auto reaching = lookup(text(cond), start(cond));
          if (reaching.size() == 1) only = reaching[0];
        }
        if (only) {
          const Binding& b = *only;
          Node v = unparen(b.value);
          if (b.is_plain_assign() && contains(hot_region, b.target) &&
              b.at < start(cond) && (is(v, "comparison_operator") || is(v, "boolean_operator"))) {
            apply(v, true);
            return;
          }
        }
      }
      // A configuration flag (`args.x`, `cfg.x`, `self.x`) whose value is unknown.
      if (k == "attribute") ctx.flag_guarded = true;
    }
  };
  for (size_t i = from; i < guards.size(); ++i) {
    if (branch_ends_run(guards[i].first, guards[i].second)) ctx.once_per_epoch = true;  // at most once
    apply(guards[i].first, guards[i].second);
  }
}

HotContext SemanticModel::frame_hot_context(int function, const std::vector<int>& loops,
                                            const std::vector<std::pair<Node, bool>>& guards,
                                            const std::vector<uint32_t>& guard_loop_depth, int lambda_depth) const {
  HotContext ctx;
  if (lambda_depth > 0) return ctx;
  if (in_unreached_method(function)) return ctx;  // never runs
  // Inside a `for` loop over a container that is empty on every path (element_values: no
  // element), its body never runs: `for cb in self.callbacks:` of a callback list that is None
  // on every known path or a dataclass field of callables whose default is empty
  // (`default_factory=list`) and that nothing fills (huggingsound's training_step_callbacks).
  for (int l : loops) {
    bool never = memo("zero-pass:" + std::to_string(l), [&] {
      Node n = loops_[l].node;
      if (!is(n, "for_statement") || !is_null(field(n, "alternative"))) return 0;
      return element_values(field(n, "right")).empty() ? 1 : 0;
    }) != 0;
    if (never) return ctx;
  }
  // The innermost hot loop decides: guards inside it amortize. A hot loop nested under a
  // step-counter guard (an evaluation loop run every N steps) still runs a step per iteration.
  // A hot loop whose body runs at most once (body_runs_once, loop_shape.h: SimMIM's throughput() times the
  // model on the loader's first batch, then returns; set AW main_finetune.py:288) is no step
  // loop for the code in it: the loop around it decides, and the hot loops nested in it their own.
  for (size_t i = loops.size(); i-- > 0;) {
    if (loops_[loops[i]].kind != LoopKind::Hot) continue;
    if (!loops_[loops[i]].comprehension &&
        memo("once-pass:" + std::to_string(loops[i]), [&] { return body_runs_once(loops_[loops[i]].body) ? 1 : 0; }))
      continue;
    ctx.hot = true;
    ctx.loop = loops[i];
    size_t from = 0;
    while (from < guards.size() && guard_loop_depth[from] <= i) ++from;
    apply_guards(ctx, guards, from, loops_[loops[i]].body);
    // An evaluation pass run every N steps from the step loop (`if do_eval:` holding its own
    // loop over another loader): what the guarded block does beside that loop (set up before
    // it, read the gathered results back after it) runs once per pass, not once per N steps of
    // its own (finetune-hf-vits' `full_generation.waveform.cpu()` after the validation loop, set
    // BJ run_vits_finetuning.py:1346). Only a guard that amortizes by itself holds the pass (the
    // rank test around hifi-gan's logging and validation blocks does not); O(guards x loops).
    for (size_t g = from; ctx.every != 0 && !ctx.once_per_epoch && g < guards.size(); ++g) {
      if (!guards[g].second) continue;
      Node owner = parent(guards[g].first);
      while (is(owner, "parenthesized_expression")) owner = parent(owner);
      if (!is(owner, "if_statement") && !is(owner, "elif_clause")) continue;
      Node branch = field(owner, "consequence");
      if (is_null(branch)) continue;
      // The guard holding the pass is itself the period (not `if rank == 0:` around it).
      HotContext own;
      apply_guards(own, {guards[g]}, 0, loops_[loops[i]].body);
      if (own.every == 0) continue;
      for (size_t l = 0; l < loops_.size(); ++l)
        if (loops_[l].kind == LoopKind::Hot && loops_[l].iterates_loader && !loops_[l].comprehension &&
            contains(branch, loops_[l].node) &&
            std::find(loops.begin(), loops.end(), static_cast<int>(l)) == loops.end()) {
          ctx.once_per_epoch = true;
          break;
        }
    }
    // A guard around the hot loop that never holds (`do_test = False` ... `if do_test:`): dead.
    for (size_t g = 0; g < from; ++g) {
      auto truth = guard_truth(guards[g].first);
      if (truth && *truth != guards[g].second) ctx.once_per_epoch = true;
    }
    return ctx;
  }
  if (function >= 0 && hot_function_.size() > static_cast<size_t>(function) && hot_function_[function].hot) {
    ctx = hot_function_[function];
    ctx.loop = -1;
    apply_guards(ctx, guards, 0, Node{});
    // A memoized function (`@functools.lru_cache`, `@cache`, `@cached_property`, a project's
    // `@lru_cache_unless_export(...)`), or one nested in it: its body runs once per distinct
    // argument, not per step.
    auto memoized = [&] {
      for (int f = function, guard = 0; f >= 0 && guard < 16; ++guard) {
        if (Node p = parent(functions_[f].node); is(p, "decorated_definition"))
          for (Node d : named_children(p)) {
            if (!is(d, "decorator") || named_count(d) == 0) continue;
            Node e = unparen(named_child(d, 0));
            if (is(e, "call")) e = unparen(field(e, "function"));
            std::string_view name = is(e, "attribute") ? text(field(e, "attribute")) : text(e);
            if (name == "cache" || name == "cached_property" || name.find("lru_cache") != std::string_view::npos)
              return true;
          }
        int ps = scopes_[functions_[f].scope].parent;
        if (ps < 0 || scopes_[ps].kind != Scope::Kind::Function) break;
        f = scopes_[ps].function;
      }
      return false;
    };
    if (memoized()) ctx.once_per_epoch = true;
    // Outside the function's own loop over a data loader (an evaluation pass called every N
    // steps): the statement runs once per pass over that loader, as after an epoch's loop. So
    // outside any hot loop of its own when the function itself runs only every N steps
    // (InsightFace's evaluate(), whose `while` loop runs a forward per slice of an array: the
    // remainder batch's `.cpu()` after it is once per evaluation; set AN).
    for (int l : loops_by_function_[function])
      if (loops_[l].kind == LoopKind::Hot && (loops_[l].iterates_loader || hot_function_[function].every != 0)) {
        ctx.once_per_epoch = true;
        break;
      }
    // The same where the pass is a call: a function of this module whose own hot loop iterates a
    // loader, or one of another module holding a hot loop (`_, stats = evaluate(model, loader)`
    // then a loop over the stats): what the function runs, it runs once per pass.
    if (!ctx.once_per_epoch) {
      // Loop kinds and callees are final here (hot_function_ is filled after classify_loops).
      std::string key = "pass:" + std::to_string(function);
      auto known = memo_.find(key);
      int pass = known != memo_.end() ? known->second : -1;
      if (pass < 0) {
        pass = 0;
        for (int ci : calls_by_caller_[function]) {
          auto targets = callees(calls_[ci].call);
          for (int g : targets)
            for (int l : loops_by_function_[g])
              if (g != function && loops_[l].kind == LoopKind::Hot && loops_[l].iterates_loader) pass = 1;
          // Not a function of another module handed the step's batch (`inference(model, ims, ...)`
          // with `ims = batch["im"]`, segmenter's sliding-window forward per image): its hot loop
          // runs over that batch's parts, within the step.
          if (!pass && targets.empty())
            if (const FunctionFacts* ef = ext_callee_of(calls_[ci].call, fact::kHotLoop); ef && ef->has_hot_loop) {
              bool batch_handed = false;
              for (Node a : named_children(field(calls_[ci].call, "arguments"))) {
                if (is(a, "keyword_argument")) a = field(a, "value");
                batch_handed = batch_handed || (!is(a, "list_splat") && !is(a, "dictionary_splat") && !is(a, "comment") &&
                                                is_batch_value(a));
              }
              if (!batch_handed) pass = 1;
            }
          if (pass) break;
        }
        memo_[key] = pass;
      }
      if (pass) ctx.once_per_epoch = true;
    }
    // A guard on a parameter that every per-step call leaves False (`class_agnostic=False`
    // by default, passed True only by a caller outside the training loop): not per step.
    for (const auto& [cond, positive] : guards) {
      if (!hot_functions_ready_) break;  // the call sites' contexts are final only then
      auto t = hot_param_truth(function, cond);
      if (t && *t != positive) {
        ctx.once_per_epoch = true;
        break;
      }
    }
  }
  return ctx;
}

HotContext SemanticModel::hot_context(const WalkFrame& frame, uint32_t) const {
  return frame_hot_context(frame.function, frame.loops, frame.guards, frame.guard_loop_depth, frame.lambda_depth);
}

bool SemanticModel::in_uncalled_function(int f) const {
  if (!facts_ || f < 0) return false;
  // The outermost enclosing function, or method of a module-level class (a nested function
  // runs only when that one does).
  for (int guard = 0; guard < 64; ++guard) {
    int ps = scopes_[functions_[f].scope].parent;
    if (ps < 0) return false;
    if (scopes_[ps].kind == Scope::Kind::Module) break;
    if (scopes_[ps].kind == Scope::Kind::Class)
      return scopes_[ps].parent == 0 && (unreferenced_class(scopes_[ps].klass) || uncalled_method(f, 0));
    f = scopes_[ps].function;
    if (f < 0) return false;
  }
  if (functions_[f].klass >= 0 || !callers(f).empty()) return false;
  // Any other mention of the name as a word not after a dot (`f`, `target=f`, `"f"`) counts;
  // a docstring, a comment or `__all__` (an export: another module's call of it is known
  // through incoming()) does not, nor does one inside the function itself, which runs only once
  // something else ran it (stargan-v2's `tqdm(s_list, 'video_latent', ...)` in `video_latent`).
  if (mentioned_here(functions_[f].name, start(functions_[f].node), end(functions_[f].node), false)) return false;
  const IncomingCalls* in = facts_->incoming(local_name(f), fact::kCalled);
  if (in && in->called) return false;
  // A call by a module the prefilter left out, whose calls no summary gives (RTVC's launcher
  // encoder_train.py, no torch in it, calling `train(**vars(args))` of encoder/train.py).
  if (facts_->left_out_call(functions_[f].name)) return false;
  // A function of a script no other module names (not imported: an entry point, whose
  // functions are its user's API, `find_matches` of an inference script) is a root, unlike
  // an unused helper of a library module.
  std::string canonical = facts_->canonical(local_name(f), true);
  size_t last = canonical.rfind('.');
  if (last == std::string::npos || last == 0) return true;
  std::string_view module = std::string_view(canonical).substr(0, last);
  std::string_view stem = module.substr(module.rfind('.') == std::string_view::npos ? 0 : module.rfind('.') + 1);
  return facts_->word_mentioned(stem);
}

bool SemanticModel::unrun_function(int f) const {
  if (!facts_ || f < 0) return false;
  // The outermost enclosing function; a method is left out (a library class's methods may be
  // called from outside the project).
  for (int guard = 0; guard < 64; ++guard) {
    int ps = scopes_[functions_[f].scope].parent;
    if (ps < 0) return false;
    if (scopes_[ps].kind == Scope::Kind::Module) break;
    if (scopes_[ps].kind == Scope::Kind::Class) return false;
    f = scopes_[ps].function;
    if (f < 0) return false;
  }
  const Function& fn = functions_[f];
  if (fn.klass >= 0 || fn.name.empty() || is(parent(fn.node), "decorated_definition") || !callers(f).empty())
    return false;
  std::string key = "unrun:" + std::to_string(f);
  return memo(key, [&]() -> int {
    // The script's entry: a module-level `if __name__ == "__main__":`.
    bool main_block = false;
    for (Node st : named_children(root_)) {
      if (!is(st, "if_statement")) continue;
      std::string_view cond = text(field(st, "condition"));
      if (cond.find("__name__") != std::string_view::npos &&
          (cond.find("\"__main__\"") != std::string_view::npos || cond.find("'__main__'") != std::string_view::npos))
        main_block = true;
    }
    if (!main_block) return 0;
    if (mentioned_here(fn.name, start(fn.node), end(fn.node), false)) return 0;
    const IncomingCalls* in = facts_->incoming(local_name(f), fact::kCalled);
    if (in && in->called) return 0;
    if (facts_->left_out_call(fn.name)) return 0;
    // Named by another module (imported, or its module read by name): may be called there.
    std::string canonical = facts_->canonical(local_name(f), true);
    size_t last = canonical.rfind('.');
    if (last != std::string::npos && last != 0) {
      std::string_view module = std::string_view(canonical).substr(0, last);
      std::string_view stem = module.substr(module.rfind('.') == std::string_view::npos ? 0 : module.rfind('.') + 1);
      if (facts_->word_mentioned(stem)) return 0;
    }
    if (facts_->word_mentioned(fn.name)) return 0;
    return 1;
  }) != 0;
}

bool SemanticModel::in_unreached_method(int f) const {
  if (!facts_ || f < 0) return false;
  std::string key = "unreached:" + std::to_string(f);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second != 0;
  // The climb through callers recurses once per caller in a chain; past kMaxUnreachedDepth the
  // function is taken as reached (nothing proven dead), so a generated chain of thousands of
  // functions cannot exhaust the stack. Not memoized there: a shallower query decides it.
  static constexpr int kMaxUnreachedDepth = 32;
  thread_local int depth = 0;
  if (depth >= kMaxUnreachedDepth) return false;
  struct Depth {
    int& d;
    explicit Depth(int& d) : d(d) { ++d; }
    ~Depth() { --d; }
  } in_climb(depth);
  // While the answer is computed it is "reached": a call cycle (f calls g, g calls f) proves
  // nothing dead.
  memo_[key] = 0;
  // A module-level function that no decorator registers, whose every mention in this file (not
  // after a dot, outside comments, docstrings, `__all__` and longer strings) is its definition or a call of it in
  // a branch that never runs (`if args.test: acc = test()[1]` with a store_true flag), or in a
  // function that never runs itself (TRADES' `_pgd_blackbox`, called only by
  // `eval_adv_test_blackbox`, called only in the else branch of `if args.white_box_attack:`
  // whose argparse default is True; rec27b), and that no other module calls: it never runs, nor
  // does what it defines. O(mentions x depth) per function, memoized.
  auto only_called_in_dead_branches = [&](int g) {
    const Function& fn = functions_[g];
    if (fn.klass >= 0 || fn.name.empty() || is(parent(fn.node), "decorated_definition")) return false;
    const auto& sites = callers(g);
    if (sites.empty()) return false;
    std::unordered_set<uint32_t> dead_calls;
    for (int ci : sites) {
      Node callee = unparen(field(calls_[ci].call, "function"));
      if (!is(callee, "identifier")) return false;
      // dead_call, but for a call of g from itself (whether g runs is the question).
      bool dead = guards_dead(branch_guards(calls_[ci].call));
      if (!dead && calls_[ci].caller >= 0 && calls_[ci].caller != g) dead = in_unreached_method(calls_[ci].caller);
      if (!dead) return false;
      dead_calls.insert(start(callee));
    }
    const uint32_t name_at = start(field(fn.node, "name"));
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    const std::string& name = fn.name;
    for (size_t at = src_.find(name); at != std::string_view::npos; at = src_.find(name, at + 1)) {
      if (at == name_at || dead_calls.count(static_cast<uint32_t>(at))) continue;
      if (at > 0 && (word(src_[at - 1]) || src_[at - 1] == '.')) continue;
      if (at + name.size() < src_.size() && word(src_[at + name.size()])) continue;
      if (inert_text_at(static_cast<uint32_t>(at))) continue;
      // Inside a longer string (`"--test"`, a flag named like the function): no reference; a
      // string that is exactly the name may be looked up (`getattr(module, "test")`).
      Node d = descendant_at(root_, static_cast<uint32_t>(at));
      if (is(d, "string_content") && text(d) != name) continue;
      return false;
    }
    const IncomingCalls* in = facts_->incoming(local_name(g), fact::kCalled);
    return !in || !in->called;
  };
  bool out = false;
  for (int g = f, guard = 0; guard < 64 && g >= 0; ++guard) {
    int ps = scopes_[functions_[g].scope].parent;
    if (ps >= 0 && scopes_[ps].kind == Scope::Kind::Module) {
      out = only_called_in_dead_branches(g);
      break;
    }
    if (ps < 0) break;
    if (scopes_[ps].kind == Scope::Kind::Class) {
      // Only a class without bases: one deriving from a library class (a LightningModule, an
      // nn.Module) may be built from a configuration or a command line without its name in code.
      const int k = scopes_[ps].klass;
      bool plain = k >= 0;
      for (const std::string& b : plain ? classes_[k].bases : std::vector<std::string>{})
        plain = plain && (b == "object" || b == "builtins.object");
      // Or a method every call of which, here and in other modules, is dead (dead_called_method).
      out = scopes_[ps].parent == 0 && ((plain && unreferenced_class(k)) || dead_called_method(g));
      // A method of a class whose only bases are library classes with known hooks (an
      // nn.Module, a Dataset), no hook itself, whose name no other code of the project writes
      // (uncalled_method: other modules' words counted too, so a script the prefilter left out
      // still keeps it): never run (SimGRACE's `get_embeddings_v`).
      if (!out && scopes_[ps].parent == 0 && k >= 0 && hooked_library_bases(classes_[k].bases)) out = uncalled_method(g, 0);
      break;
    }
    g = scopes_[ps].function;
  }
  memo_[key] = out ? 1 : 0;
  return out;
}

bool SemanticModel::mentioned_here(std::string_view name, uint32_t except_from, uint32_t except_to,
                                   bool after_dot) const {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = src_.find(name); at != std::string_view::npos; at = src_.find(name, at + 1)) {
    if (at >= except_from && at < except_to) continue;
    if (at > 0 && (word(src_[at - 1]) || (!after_dot && src_[at - 1] == '.'))) continue;
    if (at + name.size() < src_.size() && word(src_[at + name.size()])) continue;
    if (inert_text_at(static_cast<uint32_t>(at))) continue;
    return true;
  }
  return false;
}

// A comment, a docstring (a string that is a statement of its own) or a string of `__all__`
// (`__all__ = [...]`, `__all__ += (...)`, `__all__.extend([...])`, `__all__.append(...)`).
bool SemanticModel::inert_text_at(uint32_t at) const {
  Node d = descendant_at(root_, at);
  if (is(d, "comment")) return true;
  Node s = is(d, "string_content") ? parent(d) : d;
  if (!is(s, "string")) return false;
  Node p = parent(s);
  if (is(p, "concatenated_string")) {
    s = p;
    p = parent(p);
  }
  if (is(p, "expression_statement") && named_count(p) == 1) return true;
  if (is(p, "list") || is(p, "tuple")) p = parent(p);
  if (is(p, "assignment") || is(p, "augmented_assignment")) return text(field(p, "left")) == "__all__";
  if (is(p, "argument_list")) {
    Node fn = field(parent(p), "function");
    return is(fn, "attribute") && text(field(fn, "object")) == "__all__";
  }
  return false;
}

// A module-level class whose name no code of the project writes (this file: mentioned_here();
// other modules: any word of their text, comments included) is never built, subclassed or
// looked up, so none of its methods runs, whatever its bases: an unused `nn.Module`, an
// `autograd.Function` nothing applies. Left alone when something may find the class without
// its name: a decorator (a registry), a metaclass or other class keyword, a base of the project
// or of this file (`__init_subclass__`, `__subclasses__()`), a base not resolved to a library
// name, a test class (`Test*`, `TestCase`: collected by the runner), or a module reading its own
// namespace (`globals()`, `vars()`, `getmembers`, `__dict__`).
bool SemanticModel::unreferenced_class(int k) const {
  if (!facts_ || k < 0) return false;
  if (auto it = unreferenced_memo_.find(k); it != unreferenced_memo_.end()) return it->second;
  auto answer = [&](bool v) {
    unreferenced_memo_[k] = v;
    return v;
  };
  const Class& c = classes_[k];
  if (c.scope < 0 || scopes_[c.scope].parent != 0 || c.name.empty() || c.name.rfind("Test", 0) == 0)
    return answer(false);
  if (is(parent(c.node), "decorated_definition")) return answer(false);
  for (Node b : named_children(field(c.node, "superclasses")))
    if (is(b, "keyword_argument") || is(b, "list_splat") || is(b, "dictionary_splat")) return answer(false);
  for (const std::string& b : c.bases) {
    if (b == "object" || b == "builtins.object") continue;
    size_t dot = b.find('.');
    if (dot == std::string::npos || b.find("TestCase") != std::string::npos) return answer(false);
    std::string_view first = std::string_view(b).substr(0, dot);
    if (facts_->project_name(b)) return answer(false);
    if (classes_by_name_.count(std::string(first))) return answer(false);
  }
  if (reads_own_namespace_ < 0) {
    reads_own_namespace_ = 0;
    for (std::string_view reflect : {"globals()", "vars(", "getmembers", "__dict__", "__subclasses__", "locals()"})
      if (src_.find(reflect) != std::string_view::npos) reads_own_namespace_ = 1;
  }
  if (reads_own_namespace_) return answer(false);
  // A mention inside the class itself (`super(Cls, self).__init__()`, `Cls.helper(x)` in a
  // method) runs only once something else has found the class: it does not count.
  if (mentioned_here(c.name, start(c.node), ts_node_end_byte(c.node), true)) return answer(false);
  return answer(!facts_->word_mentioned(c.name));
}

// A method of a module-level class that nothing runs: the class has no base (a library base
// may call its overrides: `forward`, `run`, hooks), the method is no dunder (Python calls those)
// and has no decorator but staticmethod/classmethod (one may register it); every mention of its
// name in this file, after a dot or not, is its own definition or a call resolved to it from a
// function or method that is itself never run (at most kMaxUncalledDepth such callers deep) or
// in a branch a guard known never to hold silences (model_detail::branch_guards); no
// other module's text names it after a dot or as a string, and no call of another module
// resolves to it. A cycle of callers counts as never run. At most kMaxUncalledWork methods are
// looked at per question (more: called); answers are memoized per function when final (a "no",
// or the outermost question's "yes": the inner ones may rest on a cycle still open).
bool SemanticModel::uncalled_method(int f, int depth) const {
  if (auto it = uncalled_memo_.find(f); it != uncalled_memo_.end()) return it->second;
  if (depth == 0) uncalled_work_ = 0;
  if (depth > kMaxUncalledDepth || ++uncalled_work_ > kMaxUncalledWork) return false;
  if (std::find(uncalled_active_.begin(), uncalled_active_.end(), f) != uncalled_active_.end()) return true;
  uncalled_active_.push_back(f);
  auto answer = [&](bool v) {
    uncalled_active_.pop_back();
    if (!v || depth == 0) uncalled_memo_[f] = v;
    return v;
  };
  const Function& fn = functions_[f];
  if (fn.klass < 0 || fn.name.rfind("__", 0) == 0 || local_name(f).empty()) return answer(false);
  const bool hooked = hooked_library_bases(classes_[fn.klass].bases);
  if (!hooked)
    for (const std::string& b : classes_[fn.klass].bases)
      if (b != "object" && b != "builtins.object") return answer(false);
  if (hooked && !library_hook_free(fn.name)) return answer(false);
  if (fn.other_decorators) return answer(false);
  Node def = fn.node;
  // The positions of the calls resolved to f, with their call indices.
  std::unordered_map<uint32_t, int> resolved;
  for (int ci : callers(f)) {
    Node callee = unparen(field(calls_[ci].call, "function"));
    if (is(callee, "attribute")) callee = field(callee, "attribute");
    resolved.emplace(start(callee), ci);
  }
  const std::string& name = fn.name;
  Node id = field(def, "name");
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = src_.find(name); at != std::string_view::npos; at = src_.find(name, at + 1)) {
    if (at == start(id)) continue;
    if (at > 0 && word(src_[at - 1])) continue;
    if (at + name.size() < src_.size() && word(src_[at + name.size()])) continue;
    // A comment or a docstring calls nothing: rad's `#    self.update_cpc(obs_anchor, ...)`, the
    // only call of CURL's contrastive update left in RadSacAgent.update (set BH), as the other
    // modules' comments are no mention (attribute_names, session 33).
    if (inert_text_at(static_cast<uint32_t>(at))) continue;
    auto r = resolved.find(static_cast<uint32_t>(at));
    if (r == resolved.end()) return answer(false);
    // A call in a branch a guard known never to hold (`else: self.batched_loss(...)` of `if
    // batch_size == 0:` where every call passes 0) runs nothing (session 35, set BB GRACE).
    const CallSite& site = calls_[r->second];
    if (guards_dead(branch_guards(site.call))) continue;
    if (site.caller < 0) return answer(false);
    if (site.caller != f && !in_uncalled_caller(site.caller, depth + 1)) return answer(false);
  }
  if (facts_->attribute_mentioned(name)) return answer(false);
  // A library base's subclass may be driven by code that names the method otherwise: any word
  // of another module's text (comments too) keeps it.
  if (hooked && facts_->word_mentioned(name)) return answer(false);
  const IncomingCalls* in = facts_->incoming(local_name(f), fact::kCalled);
  return answer(!in || !in->called);
}

// A caller found by uncalled_method(): a method of a module-level class never run, or a
// function inside one.
bool SemanticModel::in_uncalled_caller(int f, int depth) const {
  for (int guard = 0; guard < 64 && f >= 0; ++guard) {
    int ps = scopes_[functions_[f].scope].parent;
    if (ps < 0 || scopes_[ps].kind == Scope::Kind::Module) return false;
    if (scopes_[ps].kind == Scope::Kind::Class)
      return scopes_[ps].parent == 0 && (unreferenced_class(scopes_[ps].klass) || uncalled_method(f, depth));
    f = scopes_[ps].function;
  }
  return false;
}

void SemanticModel::compute_hot_functions() {
  hot_function_.assign(functions_.size(), HotContext{});
  std::vector<int> work;
  for (int f = 0; f < static_cast<int>(functions_.size()); ++f)
    if (is_step_hook(f) && !in_unreached_method(f)) {
      hot_function_[f].hot = true;
      work.push_back(f);
    }
  // Called per step from another module.
  for (int f = 0; facts_ && f < static_cast<int>(functions_.size()); ++f) {
    if (hot_function_[f].hot || in_unreached_method(f)) continue;
    const IncomingCalls* in = facts_->incoming(local_name(f), fact::kHot);
    if (!in || !in->hot) continue;
    HotContext& h = hot_function_[f];
    h.hot = true;
    h.every = in->every;
    h.once_per_epoch = in->once_per_epoch;
    h.flag_guarded = in->flag_guarded;
    h.via_module = in->via;
    work.push_back(f);
  }
  // A method overriding one that a base class of another module calls on `self` once per step
  // (`Trainer.train_iteration` runs `self.train_step()` in its loop: `SequenceTrainer.train_step`).
  for (int f = 0; facts_ && f < static_cast<int>(functions_.size()); ++f) {
    if (hot_function_[f].hot || functions_[f].klass < 0 || in_unreached_method(f)) continue;
    for (const auto& b : classes_[functions_[f].klass].bases) {
      if (classes_by_name_.count(std::string(last_part(b)))) continue;
      const FunctionFacts* base = facts_->callee(b, fact::kClass | fact::kHotSelfCalls);
      if (!base || !base->is_class ||
          !std::binary_search(base->hot_self_calls.begin(), base->hot_self_calls.end(), functions_[f].name))
        continue;
      HotContext& h = hot_function_[f];
      h.hot = true;
      h.via_module = b;
      work.push_back(f);
      break;
    }
  }
  // Seed with call sites in hot loops, then propagate through hot functions.
  // What the call runs: its callees and the closures it hands to a helper that calls them.
  auto visit_site = [&](int ci) {
    const CallSite& cs = calls_[ci];
    HotContext site = frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth);
    if (!site.hot) return;
    // A call in an out-of-memory handler runs on a failure, not per step.
    if (in_oom_handler(cs.call, src_)) site.once_per_epoch = true;
    // What the call runs, and the functions a call of a parameter calls (passed_functions:
    // kept out of runs_by_call_, resolve_closure_calls).
    std::vector<int> runs = runs_by_call_[ci];
    if (runs.empty() && !callees_by_call_[ci].empty()) {
      Node fn = unparen(field(cs.call, "function"));
      auto bindings = is(fn, "identifier") ? lookup(text(fn), start(fn)) : std::vector<const Binding*>{};
      if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Param) runs = callees_by_call_[ci];
    }
    for (int c : runs) {
      if (in_unreached_method(c)) continue;
      HotContext& h = hot_function_[c];
      bool was_hot = h.hot;
      if (!h.hot) {
        h = site;
        h.via_call = cs.call;
        h.via_module.clear();
        h.loop = -1;
      } else {
        // Reached unamortized from anywhere: the function runs every step.
        if (site.every == 0) h.every = 0;
        if (!site.once_per_epoch) h.once_per_epoch = false;
        if (!site.flag_guarded) h.flag_guarded = false;
        if (!h.via_call && !is_step_hook(c)) h.via_call = cs.call;
      }
      if (!was_hot) work.push_back(c);
    }
  };
  for (size_t ci = 0; ci < calls_.size(); ++ci) visit_site(static_cast<int>(ci));
  for (size_t guard = 0; !work.empty() && guard < 10000; ++guard) {
    int f = work.back();
    work.pop_back();
    for (int ci : calls_by_caller_[f]) visit_site(ci);
  }
  hot_functions_ready_ = true;
}

bool SemanticModel::empty_until_filled(Node cond, Node hot_region) const {
  auto parts = named_children(cond);
  Node l = unparen(parts[0]), r = unparen(parts[1]);
  std::string_view op = text(ts_node_child(cond, 1));
  // `len(acc) < K` (`K > len(acc)`, `<=`): the branch runs while the accumulator is short; one
  // that grows it on every run (an unconditional `acc.append(...)` in the branch itself) runs at
  // most K (+1) times.
  bool bounded = op == "<" || op == "<=" || op == ">" || op == ">=";
  if (bounded) {
    if (is(l, "call") == is(r, "call")) return false;
    if (!is(l, "call")) {
      std::swap(l, r);
      if (op != ">" && op != ">=") return false;
    } else if (op != "<" && op != "<=") {
      return false;
    }
    auto k = constant_int(r);
    if (!k || *k < 0 || *k > 1000 || !is(l, "call") || text(field(l, "function")) != "len") return false;
  } else {
    if (is(l, "integer")) std::swap(l, r);
    if (op != "==" || !is(r, "integer") || text(r) != "0" || !is(l, "call") || text(field(l, "function")) != "len")
      return false;
  }
  auto args = named_children(field(l, "arguments"));
  if (args.size() != 1) return false;
  Node acc = unparen(args[0]);
  if (!is(acc, "identifier") && !is(acc, "attribute")) return false;
  Node owner = parent(cond);
  while (is(owner, "parenthesized_expression")) owner = parent(owner);
  if (!is(owner, "if_statement") && !is(owner, "elif_clause")) return false;
  Node branch = field(owner, "consequence");
  if (is_null(branch)) return false;
  std::string_view name = text(acc);
  // Calls of a method on the accumulator within a region: `acc.append(...)`.
  auto calls_on = [&](Node region, std::initializer_list<std::string_view> methods) {
    bool found = false;
    std::function<void(Node)> visit = [&](Node n) {
      if (found) return;
      if (is(n, "call")) {
        Node fn = unparen(field(n, "function"));
        if (is(fn, "attribute") && text(unparen(field(fn, "object"))) == name)
          for (std::string_view m : methods) found = found || text(field(fn, "attribute")) == m;
      }
      if (is(n, "delete_statement") && text(n).find(name) != std::string_view::npos) found = true;
      for (Node c : named_children(n)) visit(c);
    };
    visit(region);
    return found;
  };
  if (bounded) {
    // An append that is a statement of the branch's own block (not under a further condition).
    bool grows = false;
    for (Node st : named_children(branch)) {
      if (!is(st, "expression_statement")) continue;
      Node call = unparen(named_child(st, 0));
      if (!is(call, "call")) continue;
      Node fn = unparen(field(call, "function"));
      grows |= is(fn, "attribute") && text(unparen(field(fn, "object"))) == name &&
               (text(field(fn, "attribute")) == "append" || text(field(fn, "attribute")) == "insert");
    }
    if (!grows) return false;
  } else if (!calls_on(branch, {"append", "extend", "insert"})) {
    return false;
  }
  return !assigned_within(name, hot_region) && !calls_on(hot_region, {"clear", "pop", "remove"});
}

}  // namespace stoker::python
