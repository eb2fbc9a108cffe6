// Hotness: where code runs relative to the training step (hot contexts through loops and
// calls, across modules), and amortizing guards (`step % N`, once per epoch, flags).
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
// A decision memoized per node: -1 unknown, 0, 1, and 2 while in progress (a cycle answers
// unknown). `compute` clears its flag when the step budget is spent: that answer is not kept.
template <class Compute>
std::optional<bool> memoized_truth(std::unordered_map<const void*, signed char>& cache, const void* key,
                                   Compute compute) {
  auto [it, fresh] = cache.try_emplace(key, 2);
  if (!fresh) return it->second == 0 || it->second == 1 ? std::optional<bool>(it->second == 1) : std::nullopt;
  bool budget = true;
  std::optional<bool> t = compute(budget);
  if (!budget) {
    cache.erase(key);
    return std::nullopt;
  }
  cache[key] = t ? static_cast<signed char>(*t) : -1;  // looked up again: `compute` may rehash
  return t;
}
// `is_sagemaker_mp_enabled()`, `is_torch_tpu_available()` of transformers or accelerate (a copied
// Hugging Face Trainer's branches): the setup analyzed is CUDA GPUs (rules.md), without SageMaker
// model parallelism or an XLA/TPU/Neuron device, so the probe answers False (set I MiniCPM-V
// finetune/trainer.py:109/123). Only these library probes: a project's own `is_*` is its code.
std::optional<bool> accelerator_probe(const SemanticModel& m, Node call) {
  if (!m.uses_cuda() || named_count(field(call, "arguments")) != 0) return std::nullopt;
  const std::string& q = m.qualified_name(unparen(field(call, "function")));
  if (!starts_with(q, "transformers.") && !starts_with(q, "accelerate.")) return std::nullopt;
  static const std::set<std::string, std::less<>> probes = {
      "is_sagemaker_mp_enabled", "is_sagemaker_dp_enabled", "is_torch_tpu_available", "is_torch_xla_available",
      "is_torch_neuroncore_available", "is_tpu_available"};
  if (probes.count(last_part(q))) return false;
  return std::nullopt;
}

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

// Truthiness of a known constant: bool, None, numbers, strings (Python's rules).
static std::optional<bool> truthy(const std::optional<Value>& c) {
  if (!c) return std::nullopt;
  switch (c->kind) {
    case Value::Kind::Bool: return c->b;
    case Value::Kind::None: return false;
    case Value::Kind::Int: return c->i != 0;
    case Value::Kind::Float: return c->f != 0;
    case Value::Kind::Str: return !c->s.empty();
    default: return std::nullopt;
  }
}

std::optional<bool> SemanticModel::guard_truth(Node cond) const {
  cond = unparen(cond);
  if (is_null(cond)) return std::nullopt;
  // Every node under a guard asks: decided once per condition.
  return memoized_truth(guard_truth_cache_, cond.id, [&](bool& budget) -> std::optional<bool> {
    Step step(*this);
    if (!step) {
      budget = false;
      return std::nullopt;
    }
    return guard_truth_uncached(cond);
  });
}

std::optional<bool> SemanticModel::guard_truth_uncached(Node cond) const {
  auto k = kind(cond);
  if (k == "true" || k == "false" || k == "none" || k == "integer") return truthy(constant(cond));
  if (k == "not_operator") {
    auto t = guard_truth(field(cond, "argument"));
    return t ? std::optional<bool>(!*t) : std::nullopt;
  }
  if (k == "boolean_operator") {
    std::string_view op = text(field(cond, "operator"));
    auto l = guard_truth(field(cond, "left")), r = guard_truth(field(cond, "right"));
    if (op == "and") {
      if ((l && !*l) || (r && !*r)) return false;
      if (l && r) return true;
    } else if (op == "or") {
      if ((l && *l) || (r && *r)) return true;
      if (l && r) return false;
    }
    return std::nullopt;
  }
  if (k == "identifier") return truthy(stable_constant(cond));
  if (k == "attribute") {
    Node obj = unparen(field(cond, "object"));
    bool on_self = is(obj, "identifier") && text(obj) == "self";  // __init__ decides (attribute_values)
    if (!on_self && attribute_reassigned(text(field(cond, "attribute")), cond)) return std::nullopt;
    auto c = constant(cond);
    // The mode of a function that does nothing with the defaults (`--train_file`, default None):
    // not known off.
    if (c && c->kind == Value::Kind::None && !on_self && value_option_mode(cond)) return std::nullopt;
    return truthy(c);
  }
  if (k == "comparison_operator") {
    if (auto t = truthy(constant(cond))) return t;
    return device_type_test(cond);
  }
  if (k == "subscript") return truthy(constant(cond));  // `config["flag"]` of vars(parse_args())
  if (k == "call") {
    if (auto t = accelerator_probe(*this, cond)) return t;
    // `exists(x)` / `is_none(x)` of a helper returning `x is not None` (`x is None`): the test of
    // its argument (session 39, self-rewarding-lm-pytorch's `if not exists(eos_id): continue`).
    if (Node x = none_test_argument(cond, false); !is_null(x))
      if (auto none = none_truth(x)) return !*none;
    if (Node x = none_test_argument(cond, true); !is_null(x))
      if (auto none = none_truth(x)) return *none;
    return isinstance_truth(cond);
  }
  return std::nullopt;
}

std::optional<bool> SemanticModel::isinstance_truth(Node call) const {
  if (!types_ || callee_name(call) != "builtins.isinstance") return std::nullopt;
  std::vector<Node> args;
  for (Node a : named_children(field(call, "arguments"))) {
    if (is(a, "comment")) continue;
    if (is(a, "keyword_argument") || is(a, "list_splat") || is(a, "dictionary_splat")) return std::nullopt;
    args.push_back(unparen(a));
  }
  if (args.size() != 2) return std::nullopt;
  // The classes tested: builtin containers and scalars only (a tensor or a module is none of them).
  static const std::set<std::string, std::less<>> kBuiltins = {
      "builtins.dict", "builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset",
      "builtins.str",  "builtins.bytes", "builtins.int",  "builtins.float", "builtins.bool"};
  std::vector<Node> classes;
  if (is(args[1], "tuple")) {
    for (Node c : named_children(args[1]))
      if (!is(c, "comment")) classes.push_back(unparen(c));
  } else {
    classes.push_back(args[1]);
  }
  if (classes.empty() || classes.size() > 8) return std::nullopt;
  for (Node c : classes)
    if (!is(c, "identifier") || !kBuiltins.count(qualified_name(c))) return std::nullopt;
  // A module or an optimizer only: a batch's elements are typed tensors where the collate may
  // hand lists (`batch["text"]` of a prepared loader), so a tensor type proves nothing here.
  AbstractType t = types_->type_of(args[0]);
  switch (t.kind) {
    case AbstractType::Kind::Module:
    case AbstractType::Kind::Optimizer: return false;  // (None, its optional, is none of them either)
    default: return std::nullopt;
  }
}

bool SemanticModel::after_taken_exit(Node at) const {
  if (!types_) return false;
  // The jump a block's last statement makes: "continue"/"break" (the loop's pass); empty otherwise.
  auto jump_of = [&](Node block) -> std::string_view {
    if (!is(block, "block") || !named_count(block)) return {};
    Node last = named_child(block, named_count(block) - 1);
    for (uint32_t i = named_count(block); i > 0 && is(last, "comment"); --i) last = named_child(block, i - 1);
    if (is(last, "continue_statement")) return "continue";
    if (is(last, "break_statement")) return "break";
    // A `return` or `raise` of a function is left out: `if not args.plus: ...; return` splits a
    // script's modes (set BD ST-PlusPlus main.py), whose later mode the user selects.
    return {};
  };
  constexpr size_t kMaxStatements = 4096;  // preceding statements looked at, over all levels
  size_t looked = 0;
  Node below = at;
  for (Node n = parent(at); !is_null(n) && looked < kMaxStatements; below = n, n = parent(n)) {
    auto k = kind(n);
    if (k == "function_definition" || k == "class_definition" || k == "lambda" || k == "module") break;
    if (k != "block") continue;
    // The statements of this block before the one holding `at`.
    for (Node st : named_children(n)) {
      if (same(st, below) || start(st) >= start(below)) break;
      if (++looked > kMaxStatements) return false;
      if (!is(st, "if_statement")) continue;
      std::string_view jump = jump_of(field(st, "consequence"));
      if (jump.empty()) continue;
      // A `continue`/`break` ends the pass of the innermost loop around the `if`, which holds
      // `at` after it (at any depth: a loop nested below starts after the jump was taken): `at`
      // runs only when `cond` is False.
      auto truth = guard_truth(field(st, "condition"));
      if (truth && *truth) return true;
    }
  }
  return false;
}


// `device.type == "mps"`, `device.type != "cuda"`, `"cpu" in device.type`, `device.type in ("cpu",
// "mps")` of a device whose kind is not resolved, in a program that uses CUDA: the GPU path is the
// one analyzed (rules.md), so the device's type is "cuda" there and code for another device type
// does not run. The object must be a device or of unknown type (not a known host value, tensor or
// object), and the other side name device types (strings device_string_kind knows). O(1).
std::optional<bool> SemanticModel::device_type_test(Node cond) const {
  if (!uses_cuda_ || !types_ || named_count(cond) != 2) return std::nullopt;
  Node a = unparen(named_child(cond, 0)), b = unparen(named_child(cond, 1));
  std::string op;
  for (uint32_t i = end(a); i < start(b) && i < src_.size(); ++i)
    if (src_[i] != ' ' && src_[i] != '\t' && src_[i] != '\n' && src_[i] != '\r' && src_[i] != '(' && src_[i] != ')') {
      if (!op.empty() && op.back() != ' ' && (src_[i - 1] == ' ' || src_[i - 1] == '\t')) op += ' ';
      op += src_[i];
    }
  auto device_type_of = [&](Node x) {
    if (!is(x, "attribute") || text(field(x, "attribute")) != "type") return false;
    Node obj = unparen(field(x, "object"));
    DeviceKind d = device_kind(obj);
    if (d != DeviceKind::Unknown && d != DeviceKind::Cuda) return false;
    AbstractType::Kind t = types_->type_of(obj).kind;
    return t == AbstractType::Kind::Device || t == AbstractType::Kind::Unknown;
  };
  // The device type names a literal (or a tuple/list of literals) holds; false when any is not one.
  auto names = [&](Node x, std::vector<std::string>& out) {
    std::vector<Node> items;
    if (is(x, "tuple") || is(x, "list") || is(x, "set"))
      for (Node c : named_children(x)) items.push_back(c);
    else
      items.push_back(x);
    for (Node c : items) {
      std::string s;
      if (!string_literal_value(c, src_, s) || device_string_kind(s) == DeviceKind::Unknown ||
          s.find(':') != std::string::npos)
        return false;
      out.push_back(s);
    }
    return !out.empty();
  };
  std::vector<std::string> lits;
  if ((op == "==" || op == "!=") && (device_type_of(a) || device_type_of(b))) {
    if (!names(device_type_of(a) ? b : a, lits) || lits.size() != 1 || is(device_type_of(a) ? b : a, "tuple") ||
        is(device_type_of(a) ? b : a, "list") || is(device_type_of(a) ? b : a, "set"))
      return std::nullopt;
    return (lits[0] == "cuda") == (op == "==");
  }
  if ((op == "in" || op == "not in") && device_type_of(b)) {  // "mps" in device.type: a substring
    if (!names(a, lits) || lits.size() != 1) return std::nullopt;
    bool in = std::string_view("cuda").find(lits[0]) != std::string_view::npos;
    return in == (op == "in");
  }
  if ((op == "in" || op == "not in") && device_type_of(a)) {
    if (!is(b, "tuple") && !is(b, "list") && !is(b, "set")) return std::nullopt;
    if (!names(b, lits)) return std::nullopt;
    bool in = std::find(lits.begin(), lits.end(), "cuda") != lits.end();
    return in == (op == "in");
  }
  return std::nullopt;
}

// The constant a name holds wherever it is read: every binding of the name in the scope that
// binds it gives the same constant (a flag assigned once, a parameter whose default and call
// sites agree), and no function rebinds it through `global`/`nonlocal`.
std::optional<Value> SemanticModel::stable_constant(Node name) const {
  auto c = constant(name);
  if (!c) return std::nullopt;
  // Every binding of the name in its scope gives that one constant.
  auto all = stable_candidates(name);
  if (!all || all->size() != 1) return std::nullopt;
  const Value& v = all->front();
  if (v.kind != c->kind || (v.kind == Value::Kind::Bool && v.b != c->b) || (v.kind == Value::Kind::Int && v.i != c->i) ||
      (v.kind == Value::Kind::Float && v.f != c->f) || (v.kind == Value::Kind::Str && v.s != c->s))
    return std::nullopt;
  return c;
}

// As stable_constant, several constants allowed: the union of what every binding of the name in
// its scope gives (a superset of what reaches any one use), all of them known constants.
std::optional<std::vector<Value>> SemanticModel::stable_candidates(Node name) const {
  std::string key(text(name));
  auto reaching = lookup(key, start(name));
  if (reaching.empty()) return std::nullopt;
  std::vector<Value> out;
  bool from_function = false;
  auto known = [](const Value& v) { return v.kind != Value::Kind::Unknown && v.kind != Value::Kind::Expr; };
  for (int s = scope_at(start(name)); s >= 0; s = scopes_[s].parent) {
    const Scope& sc = scopes_[s];
    if (sc.kind == Scope::Kind::Class && from_function) continue;
    auto it = sc.bindings.find(key);
    if (it != sc.bindings.end() && !it->second.empty()) {
      if (it->second.size() > kMaxCandidates) return std::nullopt;
      for (const Binding& b : it->second) {
        if (b.kind != Binding::Kind::Assign && b.kind != Binding::Kind::Param) return std::nullopt;
        std::vector<Value> vs = binding_values(b);
        narrow_at_use(name, b, reaching, vs);
        if (vs.empty()) return std::nullopt;
        for (const Value& v : vs) {
          if (!known(v)) return std::nullopt;
          bool dup = false;
          for (const Value& o : out)
            dup = dup || (o.kind == v.kind && o.i == v.i && o.f == v.f && o.s == v.s && o.b == v.b);
          if (!dup) out.push_back(v);
        }
        if (out.size() > kMaxCandidates) return std::nullopt;
      }
      break;
    }
    if (sc.kind == Scope::Kind::Function) from_function = true;
  }
  if (out.empty() || declared_global(key)) return std::nullopt;
  return out;
}

std::vector<std::pair<Node, bool>> model_detail::branch_guards(Node n) {
  std::vector<std::pair<Node, bool>> out;
  // The conditions of the if/elif chain `owner`, up to (not including) the clause `upto`.
  auto chain_false = [&](Node owner, Node upto) {
    out.push_back({field(owner, "condition"), false});
    for (Node c : named_children(owner)) {
      if (same(c, upto)) break;
      if (is(c, "elif_clause")) out.push_back({field(c, "condition"), false});
    }
  };
  for (int depth = 0; !is_null(n) && depth < 4096; ++depth) {
    Node p = parent(n);
    if (is_null(p)) break;
    auto k = kind(p);
    if (k == "function_definition" || k == "class_definition" || k == "lambda" || k == "module") break;
    if (is(n, "block")) {
      if (k == "if_statement" && same(field(p, "consequence"), n)) {
        out.push_back({field(p, "condition"), true});
      } else if (k == "elif_clause" && same(field(p, "consequence"), n) && is(parent(p), "if_statement")) {
        out.push_back({field(p, "condition"), true});
        chain_false(parent(p), p);
      } else if (k == "else_clause" && is(parent(p), "if_statement")) {
        chain_false(parent(p), p);
      } else if (k == "while_statement" && same(field(p, "body"), n)) {
        out.push_back({field(p, "condition"), true});
      }
    }
    n = p;
  }
  for (auto& g : out) g.first = unparen(g.first);
  std::erase_if(out, [](const auto& g) { return is_null(g.first); });
  return out;
}

namespace {
// A condition naming the out-of-memory case: a string or name with "out of memory" or
// "OutOfMemoryError" in it (case-insensitive); `negated`: it tests for the other case (`not in`,
// `not isinstance(...)`).
bool names_oom(Node cond, std::string_view src, bool& negated) {
  std::string t(text(cond, src));
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.find("out of memory") == std::string::npos && t.find("outofmemoryerror") == std::string::npos) return false;
  negated = t.find("not ") != std::string::npos;
  return true;
}
}  // namespace

bool model_detail::flag_test(Node cond, std::string_view src) {
  cond = unparen(cond);
  for (int depth = 0; is(cond, "not_operator") && depth < 64; ++depth) cond = unparen(field(cond, "argument"));
  if (is(cond, "identifier") || is(cond, "attribute")) return true;
  if (is(cond, "comparison_operator") && named_count(cond) == 2 && ts_node_child_count(cond) == 3) {
    Node x = unparen(named_child(cond, 0)), n = unparen(named_child(cond, 1));
    std::string_view op = text(ts_node_child(cond, 1), src), lit = is(n, "integer") ? text(n, src) : std::string_view{};
    return (is(x, "identifier") || is(x, "attribute")) &&
           (((op == ">" || op == "!=") && lit == "0") || (op == ">=" && lit == "1"));
  }
  if (is(cond, "boolean_operator")) {
    static thread_local int nested = 0;
    if (nested > 32) return false;
    ++nested;
    bool out = flag_test(field(cond, "left"), src) && flag_test(field(cond, "right"), src);
    --nested;
    return out;
  }
  return false;
}

Node model_detail::period_modulo(Node cond, bool positive, std::string_view src) {
  auto modulo = [&](Node e) {
    e = unparen(e);
    return is(e, "binary_operator") && text(field(e, "operator"), src) == "%" ? e : Node{};
  };
  cond = unparen(cond);
  for (int depth = 0; is(cond, "not_operator") && depth < 64; ++depth) {
    cond = unparen(field(cond, "argument"));
    positive = !positive;
  }
  if (!positive) return modulo(cond);
  if (!is(cond, "comparison_operator") || named_count(cond) != 2 || text(ts_node_child(cond, 1), src) != "==")
    return Node{};
  Node m = modulo(named_child(cond, 1));
  return is_null(m) ? modulo(named_child(cond, 0)) : m;
}

bool model_detail::in_oom_handler(Node at, std::string_view src) {
  bool oom_branch = false;
  Node below = at;
  for (Node n = parent(at); !is_null(n); below = n, n = parent(n)) {
    auto k = kind(n);
    if (k == "function_definition" || k == "class_definition" || k == "lambda" || k == "module") return false;
    if ((k == "if_statement" || k == "elif_clause") && same(field(n, "consequence"), below)) {
      bool negated = false;
      if (names_oom(field(n, "condition"), src, negated) && !negated) oom_branch = true;
      continue;
    }
    if (k != "except_clause" || !is(below, "block")) continue;
    Node caught = unparen(field(n, "value"));
    if (is(caught, "as_pattern")) caught = unparen(named_child(caught, 0));
    std::vector<Node> types;
    if (is(caught, "tuple")) {
      for (Node c : named_children(caught)) types.push_back(unparen(c));
    } else if (!is_null(caught)) {
      types.push_back(caught);
    }
    for (Node t : types) {
      std::string_view name = text(t, src);
      if (last_part(name) == "OutOfMemoryError") return true;
    }
    if (oom_branch) return true;
    // `if "out of memory" not in str(e): raise` before the statement: what follows is the OOM case.
    for (Node st : named_children(below)) {
      if (start(st) >= start(at)) break;
      if (!is(st, "if_statement")) continue;
      bool negated = false;
      Node body = field(st, "consequence");
      if (!names_oom(field(st, "condition"), src, negated) || !negated || !is(body, "block") || !named_count(body))
        continue;
      if (is(named_child(body, named_count(body) - 1), "raise_statement")) return true;
    }
  }
  return false;
}

// The conditions of the branches enclosing a binding's statement, up to its scope
// (model_detail::branch_guards of its target; parameters and imports: none).
const std::vector<std::pair<Node, bool>>& SemanticModel::binding_guards(const Binding& b) const {
  auto [it, fresh] = binding_guards_.try_emplace(&b);
  if (!fresh) return it->second;
  // The binding's target (a def/class: its definition); parameters and imports: none.
  Node n = !is_null(b.target) ? b.target : b.value;
  if (b.kind == Binding::Kind::Param || b.kind == Binding::Kind::Import) n = Node{};
  it->second = branch_guards(n);
  return it->second;
}

bool SemanticModel::step_counter(Node counter, Node increments, Node stores) const {
  counter = unparen(counter);
  if (is_null(increments) || is_null(stores)) return false;
  auto incremented_by_int = [&](Node aug) {  // the augmented assignment
    return text(field(aug, "operator")) == "+=" && is(unparen(field(aug, "right")), "integer");
  };
  bool incremented = false;
  if (is(counter, "attribute")) {
    int klass = class_of_self(counter);
    if (klass < 0) return false;
    std::string key = classes_[klass].name + "." + std::string(text(field(counter, "attribute")));
    auto aug = self_augmented_.find(key);
    if (aug == self_augmented_.end()) return false;
    for (Node v : aug->second) {  // the right sides
      if (!contains(increments, v)) continue;
      if (!incremented_by_int(parent(v))) return false;
      incremented = true;
    }
    if (!incremented) return false;
    for (int ai : self_stores(key))
      if (contains(stores, self_assignments_[ai].second)) return false;
    return true;
  }
  if (!is(counter, "identifier")) return false;
  const auto& bindings = scopes_[scope_at(start(counter))].bindings;
  auto it = bindings.find(std::string(text(counter)));
  if (it == bindings.end()) return false;
  for (const Binding& b : it->second) {
    if (is_null(b.target)) continue;
    if (b.kind != Binding::Kind::AugAssign) {
      if (contains(stores, b.target)) return false;
    } else if (contains(increments, b.target)) {
      if (!incremented_by_int(b.value)) return false;
      incremented = true;
    }
  }
  return incremented;
}

bool SemanticModel::binding_dead(const Binding& b) const {
  // Not while the model is being built: guards read values (parameters from call sites,
  // comparisons) that are only complete once the call graph is.
  if (!types_ || b.kind == Binding::Kind::Param || b.kind == Binding::Kind::Import) return false;
  for (const auto& [cond, need] : binding_guards(b)) {
    auto truth = guard_truth(cond);
    if (truth && *truth != need) return true;
  }
  return false;
}

// One pass over the file (on first use): the names of global/nonlocal statements, and the
// attribute names assigned on objects other than `self` (assignment, augmented assignment and
// for-loop targets, tuple targets included).
namespace {
// What collect_rebinds reads of a node type, per symbol of the grammar (built once from the type
// names, so the same answers as comparing kind()): one table read per node of the file.
enum class Rebind : unsigned char { Other, Declaration, Store };
Rebind rebind_class(Node n) {
  static const SymbolTable<Rebind> table(
      [](std::string_view k) {
        if (k == "global_statement" || k == "nonlocal_statement") return Rebind::Declaration;
        if (k == "assignment" || k == "augmented_assignment" || k == "for_statement" || k == "for_in_clause")
          return Rebind::Store;
        return Rebind::Other;
      },
      Rebind::Other);
  return table(n);
}
}  // namespace

static void collect_rebinds(Node root, std::string_view src, std::unordered_set<std::string>& globals,
                            std::unordered_set<std::string>& attributes) {
  std::vector<Node> stack{root};
  std::vector<Node> targets;
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    // The node's type read once, as a table entry (this walk visits every named node of the file).
    Rebind k = rebind_class(n);
    if (k == Rebind::Declaration) {
      for (Node c : named_children(n))
        if (is(c, "identifier")) globals.insert(std::string(text(c, src)));
      continue;
    }
    Node left{};
    if (k == Rebind::Store) left = field(n, "left");
    if (!is_null(left)) {
      targets.assign(1, left);
      while (!targets.empty()) {
        Node t = unparen(targets.back());
        targets.pop_back();
        if (is(t, "attribute")) {
          Node obj = unparen(field(t, "object"));
          if (!(is(obj, "identifier") && text(obj, src) == "self"))
            attributes.insert(std::string(text(field(t, "attribute"), src)));
        } else if (is(t, "pattern_list") || is(t, "tuple_pattern") || is(t, "list_pattern") ||
                   is(t, "list_splat_pattern")) {
          for (Node c : named_children(t)) targets.push_back(c);
        }
      }
    }
    for_each_named_child(n, [&](Node c) {
      stack.push_back(c);
      return true;
    });
  }
}

bool SemanticModel::declared_global(std::string_view name) const {
  if (!global_names_built_) {
    global_names_built_ = true;
    collect_rebinds(root_, src_, global_names_, assigned_attributes_);
  }
  return global_names_.count(std::string(name)) > 0;
}

// An attribute name stored on an object other than `self` somewhere in the file, by a store that
// may run and may hit the read's object. A store does not count when it is
// - on torch's module state (`cudnn.benchmark = True`, `torch.backends.cudnn.deterministic =
//   True`: the object's qualified name is `torch` or under it): a module is no namespace or
//   configuration object, so `args.benchmark` keeps its default (set AL yolact eval.py, whose
//   `cudnn.benchmark = True` left `elif args.benchmark:` unresolved);
// - in a branch that never runs by a flag left off (`if args.output_web_json:
//   args.output_coco_json = True` with a store_true flag: a guard of the store that is a
//   model_detail::flag_test resolves to False; a comparison of a choice keeps the store).
// Before the types are built every store counts (guards are read once the model is built).
// Memoized per name; while a name's answer is computed it reads as reassigned (stores guarded by
// each other's flags prove nothing). O(stores of the name) once per name.
bool SemanticModel::attribute_reassigned(std::string_view attribute, Node read) const {
  declared_global("");  // builds both sets
  std::string name(attribute);
  if (!assigned_attributes_.count(name)) return false;
  if (!types_) return true;
  // The stores of the name the scope pass recorded (assignment and augmented targets: `obj.x =`;
  // not `setattr`, whose object's parent is no attribute). A name collect_rebinds saw stored
  // but recorded there by no such target (a `for obj.x in ...` target) counts as reassigned.
  // `skip`: a store that does not count.
  auto live_store = [&](auto&& skip) {
    std::vector<Node> stores;
    if (auto found = attribute_stores_.find(name); found != attribute_stores_.end())
      for (const auto& [obj, value] : found->second)
        if (is(parent(obj), "attribute") && same(field(parent(obj), "object"), obj)) stores.push_back(parent(obj));
    bool out = stores.empty();
    for (Node t : stores) {
      const std::string& q = qualified_name(field(t, "object"));
      if (q == "torch" || starts_with(q, "torch.")) continue;
      if (skip(field(t, "object"))) continue;
      bool dead = false;
      for (const auto& g : branch_guards(t)) dead = dead || (flag_test(g.first, src_) && guards_dead({g}));
      if (dead) continue;
      out = true;
      break;
    }
    return out;
  };
  std::string key = "reassigned:" + name;
  bool out;
  if (auto it = memo_.find(key); it != memo_.end()) {
    out = it->second != 0;
  } else {
    memo_[key] = 1;
    out = live_store([](Node) { return false; });
    memo_[key] = out ? 1 : 0;
  }
  // Reassigned somewhere, but not for this read when every live store runs only after the `if`
  // whose test holds it (`if args.resume is not None: args = pickle.load(f); args.resume =
  // resume`: the test reads the default). O(stores of the name) per such read.
  if (out && !is_null(read))
    out = live_store([&](Node obj) { return model_detail::stored_after_own_test(*this, read, obj); });
  return out;
}

// The `if` statement whose condition is `cond`, alone or and-ed (parentheses skipped); null if none.
static Node guarding_if(Node cond, std::string_view src) {
  Node owner = parent(cond);
  while (is(owner, "parenthesized_expression") ||
         (is(owner, "boolean_operator") && python::text(field(owner, "operator"), src) == "and"))
    owner = parent(owner);
  return is(owner, "if_statement") ? owner : Node{};
}

// A latch: `if self.flag:` (alone or and-ed) whose branch clears the flag with a top-level
// `self.flag = False`, and no method of any class of the file but `__init__` stores anything
// else in an attribute of that name: the branch runs at most once.
bool SemanticModel::latch_cleared(Node cond) const {
  int klass = class_of_self(cond);
  if (klass < 0) return false;
  Node owner = guarding_if(cond, src_);
  if (ts_node_is_null(owner)) return false;
  std::string_view flag = text(cond);
  bool cleared = false;
  for (Node stmt : named_children(field(owner, "consequence"))) {
    Node a = is(stmt, "expression_statement") && named_count(stmt) == 1 ? named_child(stmt, 0) : Node{};
    if (is(a, "assignment") && text(unparen(field(a, "left"))) == flag && is(unparen(field(a, "right")), "false"))
      cleared = true;
  }
  if (!cleared) return false;
  std::string suffix = "." + std::string(text(field(cond, "attribute")));
  for (const auto& [key, value] : self_assignments_) {
    if (key.size() < suffix.size() || key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    if (is(unparen(value), "false")) continue;
    int f = function_at(start(value));
    if (f < 0 || !functions_[f].initializer()) return false;
  }
  return true;
}

bool SemanticModel::buffer_latch_set(Node cond) const {
  // `self.x.item() == c`, `int(self.x) == c`, `self.x == c` (c a number) in a method, as the
  // condition of an `if` (alone or and-ed).
  if (!is(cond, "comparison_operator") || named_count(cond) != 2 || ts_node_child_count(cond) != 3 ||
      text(ts_node_child(cond, 1)) != "==")
    return false;
  // A literal only (syntax: no value inference from inside the hotness questions).
  auto number = [&](Node e) -> std::optional<double> {
    e = unparen(e);
    if (is(e, "true")) return 1.0;
    if (is(e, "false")) return 0.0;
    if (!is(e, "integer") && !is(e, "float")) return std::nullopt;
    std::string t(text(e));
    t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0') return std::nullopt;
    return v;
  };
  Node read = unparen(named_child(cond, 0));
  auto tested = number(named_child(cond, 1));
  if (!tested) {
    read = unparen(named_child(cond, 1));
    tested = number(named_child(cond, 0));
  }
  if (!tested) return false;
  if (is(read, "call")) {
    Node fn = unparen(field(read, "function"));
    Node args = field(read, "arguments");
    if (is(fn, "attribute") && text(field(fn, "attribute")) == "item" && named_count(args) == 0)
      read = unparen(field(fn, "object"));
    else if (is(fn, "identifier") && (text(fn) == "int" || text(fn) == "float" || text(fn) == "bool") &&
             named_count(args) == 1)
      read = unparen(named_child(args, 0));
    else
      return false;
  }
  if (!is(read, "attribute") || text(unparen(field(read, "object"))) != "self") return false;
  int klass = class_of_self(read);
  if (klass < 0) return false;
  Node owner = guarding_if(cond, src_);
  if (ts_node_is_null(owner)) return false;
  Node branch = field(owner, "consequence");
  const std::string buffer(text(read));
  // The branch's own statement `self.x.fill_(k)` (k another number than c) sets it.
  Node set{};
  for (Node stmt : named_children(branch)) {
    Node c = is(stmt, "expression_statement") && named_count(stmt) == 1 ? unparen(named_child(stmt, 0)) : Node{};
    if (!is(c, "call")) continue;
    Node fn = unparen(field(c, "function"));
    if (!is(fn, "attribute") || text(field(fn, "attribute")) != "fill_" || text(unparen(field(fn, "object"))) != buffer)
      continue;
    auto k = number(argument(c, 0, "value"));
    if (k && *k != *tested) set = c;
  }
  if (is_null(set)) return false;
  // Nothing else writes it outside the initializers (a method that re-arms it, `self.x.zero_()`,
  // makes the branch run again): no other in-place call on it, no store, no augmented store.
  // O(calls of the class's methods).
  const std::string key = classes_[klass].name + "." + std::string(text(field(read, "attribute")));
  for (int ai : self_stores(key)) {
    int f = function_at(start(self_assignments_[static_cast<size_t>(ai)].second));
    if (f < 0 || !functions_[f].initializer()) return false;
  }
  if (self_augmented_.count(key)) return false;
  for (const auto& cs : calls_) {
    if (cs.caller < 0 || functions_[cs.caller].klass != klass || functions_[cs.caller].initializer() || same(cs.call, set))
      continue;
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "attribute")) continue;
    Node obj = unparen(field(fn, "object"));
    if (is(obj, "attribute") && text(field(obj, "attribute")) == "data") obj = unparen(field(obj, "object"));
    std::string_view meth = text(field(fn, "attribute"));
    if (text(obj) == buffer && !meth.empty() && meth.back() == '_') return false;
  }
  return true;
}

bool SemanticModel::flag_cleared_in_branch(Node cond) const {
  // `self.flag` (alone or and-ed): a latch only if nothing but `__init__` sets the attribute to
  // anything else (a method that re-arms it makes the branch run again).
  if (is(cond, "attribute")) return latch_cleared(cond);
  Node owner = parent(cond);
  if (!is(owner, "if_statement") && !is(owner, "elif_clause")) return false;
  Node branch = field(owner, "consequence");
  if (is_null(branch)) return false;
  std::string_view name = text(cond);
  const auto& bindings = scopes_[scope_at(start(cond))].bindings;
  auto it = bindings.find(std::string(name));
  if (it == bindings.end()) return false;
  for (const Binding& b : it->second)
    if (b.is_plain_assign() && !is_null(b.target) && contains(branch, b.target) &&
        is(unparen(b.value), "false"))
      return true;
  return false;
}

// `exists(x)` of a function of this file (not a method) whose only statement is `return p is
// not None` (`return p is None` when `is_none`) of its first parameter: the argument given for p;
// null otherwise. O(1) past the callee lookup.
Node SemanticModel::none_test_argument(Node call, bool is_none) const {
  auto targets = callees(call);
  if (targets.size() != 1) return {};
  const Function& f = functions_[targets[0]];
  if (f.klass >= 0 || f.other_decorators || f.returns.size() != 1 || f.params.empty() || f.params[0].is_variadic)
    return {};
  Node body = field(f.node, "body");
  if (named_count(body) != 1) return {};  // the return alone (no docstring, no other statement)
  Node r = unparen(f.returns[0]);
  if (!is(r, "comparison_operator") || named_count(r) != 2 || ts_node_child_count(r) != 3) return {};
  std::string_view op = text(ts_node_child(r, 1));
  if (op != (is_none ? "is" : "is not") || !is(unparen(named_child(r, 1)), "none")) return {};
  Node p = unparen(named_child(r, 0));
  if (!is(p, "identifier") || text(p) != f.params[0].name) return {};
  Node arg = argument(call, 0, f.params[0].name);
  return is_null(arg) ? Node{} : unparen(arg);
}

// Does the branch an if-condition guards (the consequence, or the else body for a negative
// guard) end the run: its last statement a `raise`, `sys.exit()`, `exit()`, `quit()`, `os._exit()`?
bool SemanticModel::branch_ends_run(Node condition, bool positive) const {
  Node owner = parent(condition);
  Node block{};
  if (positive) {
    block = field(owner, "consequence");
  } else if (is(owner, "if_statement")) {
    for (Node c : named_children(owner))
      if (is(c, "else_clause")) block = field(c, "body");
  }
  if (!is(block, "block") || !named_count(block)) return false;
  Node last = named_child(block, named_count(block) - 1);
  if (is(last, "raise_statement")) return true;
  if (!is(last, "expression_statement") || !named_count(last)) return false;
  Node call = unparen(named_child(last, 0));
  if (!is(call, "call")) return false;
  const std::string& q = callee_name(call);
  return q == "sys.exit" || q == "builtins.exit" || q == "builtins.quit" || q == "os._exit" || q == "os.abort";
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

std::optional<bool> SemanticModel::hot_param_truth(int function, Node cond) const {
  cond = unparen(cond);
  if (is(cond, "not_operator")) {
    auto t = hot_param_truth(function, field(cond, "argument"));
    return t ? std::optional<bool>(!*t) : std::nullopt;
  }
  if (!is(cond, "identifier")) return std::nullopt;
  return memoized_truth(hot_param_truth_cache_, cond.id, [&](bool& budget) -> std::optional<bool> {
    Step step(*this);
    if (!step) {
      budget = false;
      return std::nullopt;
    }
    return hot_param_truth_uncached(function, cond);
  });
}

std::optional<bool> SemanticModel::hot_param_truth_uncached(int function, Node name) const {
  auto bindings = lookup(text(name), start(name));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->function != function)
    return std::nullopt;
  int pi = bindings[0]->param_index;
  const Function& fn = functions_[function];
  const Param& p = fn.params[pi];
  if (p.is_variadic || pi < bound_params(fn)) return std::nullopt;
  std::vector<Value> vs;
  bool any = false, default_used = false;
  if (const ArgFacts* ext = ext_param(function, pi, fact::kHotValues)) {  // hot call sites elsewhere
    if (ext->hot_passed)
      for (const Value& v : to_values(ext->hot_values)) vs.push_back(v);
    default_used |= ext->hot_defaulted;
    any |= ext->hot_passed || ext->hot_defaulted;
  }
  int position = pi - bound_params(fn);
  for (int ci : callers(function)) {
    const CallSite& cs = calls_[ci];
    HotContext h = frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth);
    if (!h.hot || h.once_per_epoch) continue;
    any = true;
    Node a = argument(cs.call, p.keyword_only ? -1 : position, p.name);
    if (!is_null(a)) {
      for (const Value& v : values(a)) vs.push_back(v);
      continue;
    }
    if (has_splat_argument(cs.call)) return std::nullopt;
    default_used = true;
  }
  if (!any) return std::nullopt;
  if (default_used) {
    if (is_null(p.default_value)) return std::nullopt;
    for (const Value& v : values(p.default_value)) vs.push_back(v);
  }
  std::optional<bool> out;
  for (const Value& v : vs) {
    auto b = truthy(v);
    if (!b || (out && *out != *b)) return std::nullopt;
    out = b;
  }
  return out;
}

bool SemanticModel::guards_dead(const std::vector<std::pair<Node, bool>>& guards) const {
  for (const auto& [cond, positive] : guards) {
    auto truth = guard_truth(cond);
    if (truth && *truth != positive) return true;
  }
  return false;
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
