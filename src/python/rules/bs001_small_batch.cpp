// BS001: a batch too small to keep the GPU busy.
#include "python/rules/common.h"

#include <algorithm>

namespace stoker::python::rules {

void bs001_small_batch(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !m.is_loader_call(call)) return;
  auto kw = m.keyword_arguments(call);
  Node bs = kw.find("batch_size");
  bool keyword = !is_null(bs);
  if (is_null(bs)) bs = m.argument(call, kBatchSizePos, "");
  Node batch_sampler = kw.find("batch_sampler");
  if (is_null(batch_sampler)) batch_sampler = m.argument(call, kBatchSamplerPos, "");
  if (!is_null(batch_sampler)) {
    // The batches are the batch sampler's: its construction's `batch_size` argument (every
    // candidate the same call), torch's BatchSampler also by position. Silent otherwise.
    auto vs = m.values(batch_sampler);
    if (vs.size() != 1 || vs[0].kind != Value::Kind::Expr || !is(unparen(vs[0].expr), "call")) return;
    // Also a helper of another module returning one, and a wrapper class iterating one.
    bs = m.batch_sampler_size(vs[0].expr);
    if (is_null(bs)) return;
    keyword = false;  // reported at the loader: the size is not one of its arguments
  }
  long long size = 1;  // DataLoader's default
  long long smallest = 0;  // several candidates: the smallest (size is the largest)
  if (is_null(bs)) {
    if (!kw.complete) return;
  } else if (auto n = m.constant_int(bs)) {
    auto v = m.constant(bs);
    if (!v || v->kind == Value::Kind::None) return;
    size = *n;
  } else {
    // Several candidates (`opts.val_batch_size = 1` under a condition, argparse default 4), every
    // one a positive int: below the threshold on every path when the largest is; reported with
    // the range. Any other candidate (None, unknown) leaves it silent.
    auto vs = m.values(bs);
    bool all_ints = vs.size() >= 2 && vs.size() <= 8;
    for (const auto& x : vs) {
      if (!all_ints || x.kind != Value::Kind::Int || x.i < 1) {
        all_ints = false;
        break;
      }
      smallest = smallest == 0 ? x.i : std::min(smallest, x.i);
      size = std::max(size, x.i);
    }
    if (smallest == size) smallest = 0;
    if (!all_ints) {
      // `batch_size=batch_size` of a loader factory's parameter: a call site whose loader feeds
      // training passing a small size decides (robot-surgery's `make_loader(...,
      // batch_size=args.batch_size)`, default 1, beside the valid loader's unknown size).
      auto uses = m.site_use_values(bs, false);
      if (!uses) return;
      size = 0;
      smallest = 0;
      for (const auto& x : *uses)
        if (x.kind == Value::Kind::Int && x.i >= 1 && (size == 0 || x.i < size)) size = x.i;
      if (size == 0) return;
    }
  }
  if (size >= ctx.settings().min_batch_size || size <= 0) return;
  // A collate_fn returning `examples[0]`: each dataset item is a whole batch (a bucketed dataset);
  // the loader's batch size counts items, not samples.
  if (m.collate_returns_one_item(m.argument(call, kCollatePos, "collate_fn"))) return;
  if (!m.loader_feeds_training(call)) return;
  // Report at the argument when it is a keyword written at the call; otherwise at the call.
  Node at = field(call, "function");
  if (keyword) {
    for (auto a : named_children(field(call, "arguments")))
      if (is(a, "keyword_argument") && ctx.text(field(a, "name")) == "batch_size") at = a;
  }
  Diagnostic& d = ctx.report("BS001", at,
                             "Batch size " + (smallest ? std::to_string(smallest) + " to " : std::string()) +
                                 std::to_string(size) + " is below " +
                                 std::to_string(ctx.settings().min_batch_size) +
                                 ": per-step overhead dominates and the GPU idles between small kernels");
  d.facts.push_back({"batch_size", std::to_string(size)});
  d.fix = Fix{"Raise the batch size (scaling the learning rate) or accumulate gradients", Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
