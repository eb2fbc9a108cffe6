// DL001: a DataLoader without worker processes.
#include "python/frameworks.h"
#include "python/loader_wrappers.h"
#include "python/rules/common.h"

namespace stoker::python::rules {
namespace {

// A framework configuration that sets up the loaders a trainer builds (framework table rows
// `loader-config`/`trainer`: Hugging Face `TrainingArguments` with `dataloader_num_workers`,
// default 0), constructed in a program that also constructs such a trainer.
void framework_loader_config(Context& ctx, Node call) {
  const auto& m = ctx.model();
  const auto& table = FrameworkTable::get();
  const std::string& q = m.callee_name(call);
  const FrameworkTable::LoaderOption* workers_row = nullptr;
  for (const auto& o : table.loader_config(q))
    if (o.option == "num_workers") workers_row = &o;
  if (!workers_row) return;
  bool trainer = m.memo("framework-trainer", [&] {
    for (const auto& cs : m.calls())
      if (!table.trainer_config_keyword(m.callee_name(cs.call)).empty()) return 1;
    return 0;
  });
  if (!trainer) return;
  // `TrainingArguments(..., no_cuda=True)` / `use_cpu=True`: the trainer runs on the CPU.
  auto kw = m.keyword_arguments(call);
  for (const char* cpu : {"no_cuda", "use_cpu"}) {
    auto v = m.constant(kw.find(cpu));
    if (v && v->kind == Value::Kind::Bool && v->b) return;
  }
  Node workers = kw.find(workers_row->key);
  if (is_null(workers)) {
    if (!kw.complete || workers_row->default_value != "0") return;
  } else {
    auto n = m.constant_int(workers);
    if (!n || *n != 0) return;
  }
  std::string name = q.substr(q.rfind('.') + 1);
  Diagnostic& d = ctx.report("DL001", field(call, "function"),
                             "`" + name + "` " + (is_null(workers) ? "without `" : "with `") + workers_row->key +
                                 (is_null(workers) ? "` (default 0)" : "=0`") +
                                 ": the trainer loads every batch on the main thread while the GPU waits");
  d.facts.push_back({"num_workers", "0"});
  const std::string& expr = ctx.settings().default_workers;
  Fix fix;
  fix.title = "Load batches in worker processes: `" + workers_row->key + "=" + expr + "`";
  fix.applicability = dataset_does_cuda_work(ctx) || (!is_null(workers) && !is_literal_argument(workers))
                          ? Applicability::Unsafe
                          : Applicability::Safe;
  fix.edits.push_back(set_keyword(ctx, call, workers_row->key, expr));
  if (expr.find("os.") != std::string::npos && !name_is_bound(ctx, "os", start(call)))
    fix.edits.insert(fix.edits.begin(), add_import(ctx, "os"));
  d.fix = fix;
}

// A loader wrapper's call site (loader_wrappers.h: `get_dataloader(ds, batch_size=...)` of `def
// get_dataloader(ds, **kwargs): return DataLoader(ds, ..., **kwargs)`): the site decides the
// options, so the loader is judged and reported there, by the construction's own keywords and the
// site's (the construction itself sees an open `**kwargs` and stays silent). Its loops are those
// iterating the site's result (loader_origins counts the site as an origin). Sets AH
// PaLM-rlhf-pytorch ppo.py create_dataloader, AG musiclm trainer.py get_dataloader (rec30).
// A `num_workers=expr` fix's title and applicability: unsafe when the dataset's `__getitem__`
// touches CUDA (DL005).
Fix workers_fix(Context& ctx, const std::string& expr) {
  Fix fix;
  fix.title = "Load batches in worker processes: `num_workers=" + expr + "`";
  fix.applicability = dataset_does_cuda_work(ctx) ? Applicability::Unsafe : Applicability::Safe;
  return fix;
}

// The rest of a `num_workers` fix at `at` (a loader call or a wrapper's call site): with `persist`,
// `persistent_workers=True` (merged into the `num_workers` insertion when both go to the same
// point), and the `os` import the workers expression needs.
void finish_workers_fix(Context& ctx, Node at, Node workers, bool persist, const std::string& expr, Fix& fix) {
  if (persist) {
    if (auto e = persistent_workers_edit(ctx, at, workers)) {
      if (e->range.start == fix.edits.back().range.start && e->range.end == fix.edits.back().range.end &&
          e->range.start == e->range.end) {
        fix.edits.back().replacement += e->replacement;  // both inserted at the same point
      } else {
        fix.edits.push_back(*e);
      }
      fix.title += " and `persistent_workers=True`";
    }
  }
  if (expr.find("os.") != std::string::npos && !name_is_bound(ctx, "os", start(at)))
    fix.edits.insert(fix.edits.begin(), add_import(ctx, "os"));
}

// The loader a wrapper's call site gets is drawn from briefly, or only by loops that keep its
// batches on the host and feed no training (`loops`: the site's loops_iterating): its workers cost
// no GPU time.
bool loader_idle_at_site(const SemanticModel& m, Node site, const std::vector<int>& loops) {
  if (m.loader_drawn_briefly(site)) return true;
  if (!loops.empty() && !m.loader_feeds_training(site)) {
    bool host = true;
    for (int l : loops) host = host && m.loop_keeps_batches_on_host(l);
    if (host) return true;
  }
  return false;
}

void wrapper_site(Context& ctx, Node site, Node construction) {
  const auto& m = ctx.model();
  int f = m.function_at(start(construction));
  if (f < 0) return;
  for (const Param& p : m.functions()[f].params)
    if (!p.is_variadic && p.name == "num_workers") return;  // a named option the wrapper keeps
  auto loops = m.loops_iterating(site);
  if (loader_idle_at_site(m, site, loops)) return;
  auto kw = wrapper_site_options(m, site, construction);
  Node workers = kw.find("num_workers");
  if (is_null(workers)) workers = m.argument(construction, kNumWorkersPos, "");
  if (is_null(workers)) {
    if (!kw.complete) return;
  } else if (!contains(site, workers)) {
    return;  // written in the wrapper: the construction is judged there
  } else if (auto n = m.constant_int(workers); !n || *n != 0) {
    auto uses = m.site_use_values(workers, false);  // as for a construction's parameter
    bool zero = false;
    if (uses)
      for (const Value& v : *uses) zero |= v.kind == Value::Kind::Int && v.i == 0;
    if (!zero) return;
  }
  std::string name(m.text(field(site, "function")));
  Diagnostic& d = ctx.report("DL001", field(site, "function"),
                             "`" + name + "` builds a `DataLoader` " +
                                 (is_null(workers) ? "without `num_workers`" : "with `num_workers=0`") +
                                 ": it loads every batch on the main thread while the GPU waits");
  d.facts.push_back({"num_workers", "0"});
  const std::string& expr = ctx.settings().default_workers;
  Fix fix = workers_fix(ctx, expr);
  if (!is_null(workers) && !is_literal_argument(workers)) fix.applicability = Applicability::Unsafe;
  fix.edits.push_back(set_keyword(ctx, site, "num_workers", expr));
  bool per_epoch = false;
  for (int l : loops) per_epoch |= m.loop_runs_per_epoch(l);
  finish_workers_fix(ctx, site, workers, per_epoch && is_null(kw.find("persistent_workers")) && kw.complete, expr,
                     fix);
  d.fix = fix;
}

// A call of a loader wrapper of another module taking the workers as a named parameter
// (loader_wrappers.h, wrapper_site_workers): `build_dataloader(..., num_workers=0)` loads on the
// main thread; judged here as a construction would be (StyleTTS2 train_first.py, set AM).
void external_wrapper_site(Context& ctx, Node site, Node workers) {
  const auto& m = ctx.model();
  auto n = m.constant_int(workers);
  if (!n || *n != 0) return;
  auto loops = m.loops_iterating(site);
  if (loader_idle_at_site(m, site, loops)) return;
  std::string name(m.text(field(site, "function")));
  Diagnostic& d = ctx.report("DL001", field(site, "function"),
                             "`" + name + "` builds a `DataLoader` with `num_workers=0`: it loads every batch on the "
                             "main thread while the GPU waits");
  d.facts.push_back({"num_workers", "0"});
  const std::string& expr = ctx.settings().default_workers;
  Fix fix = workers_fix(ctx, expr);
  if (!is_literal_argument(workers)) fix.applicability = Applicability::Unsafe;
  fix.edits.push_back(Edit{range(workers), expr});
  // (no `persistent_workers=True` here: the wrapper takes no such parameter)
  finish_workers_fix(ctx, site, workers, false, expr, fix);
  d.fix = fix;
}

}  // namespace

void dl001_synchronous_data_loader(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  if (!m.is_loader_call(call)) {
    if (Node built = wrapped_loader_construction(m, call); !is_null(built)) {
      wrapper_site(ctx, call, built);
      return;
    }
    if (Node workers = wrapper_site_workers(m, call); !is_null(workers)) {
      external_wrapper_site(ctx, call, workers);
      return;
    }
    framework_loader_config(ctx, call);
    return;
  }
  // Its known uses draw one batch or a few, once (a test of the first batch, a Lightning
  // `fast_dev_run`): no step waits on its loading.
  if (m.loader_drawn_briefly(call)) return;
  // A wrapper's construction whose call sites in other modules decide the workers: judged there.
  if (workers_decided_at_sites(m, call)) return;
  // A loader of positions collates Python ints: nothing for workers to take off the main thread.
  if (index_range_loader(m, call)) return;
  // Every loop over it keeps its batches in host memory (positions selecting rows of host data,
  // dataset statistics) and runs no step: no GPU waits on its loading.
  auto loops = m.loops_iterating(call);
  if (!loops.empty() && !m.loader_feeds_training(call)) {
    bool host = true;
    for (int l : loops) host = host && m.loop_keeps_batches_on_host(l);
    if (host) return;
  }
  auto kw = m.keyword_arguments(call);
  Node workers = kw.find("num_workers");
  if (is_null(workers)) workers = m.argument(call, kNumWorkersPos, "");
  if (is_null(workers)) {
    if (!kw.complete) return;  // **kwargs we could not read may set it
  } else if (auto n = m.constant_int(workers); !n || *n != 0) {
    // `num_workers=num_workers` of a parameter other modules pass: a call site whose loader
    // feeds training passing 0 (or leaving a default of 0) decides (msn's `init_data(...,
    // num_workers=0)` in logistic_eval.py beside other sites' 8).
    auto uses = m.site_use_values(workers, false);
    bool zero = false;
    if (uses)
      for (const Value& v : *uses) zero |= v.kind == Value::Kind::Int && v.i == 0;
    if (!zero) return;
  }
  Diagnostic& d = ctx.report("DL001", field(call, "function"),
                             is_null(workers) ? "`DataLoader` without `num_workers` loads every batch on the main "
                                                "thread while the GPU waits"
                                              : "`DataLoader` with `num_workers=0` loads every batch on the main "
                                                "thread while the GPU waits");
  d.facts.push_back({"num_workers", "0"});
  const std::string& expr = ctx.settings().default_workers;
  Fix fix = workers_fix(ctx, expr);
  bool positional = !is_null(workers) && is_null(kw.find("num_workers"));
  // Replacing a configured value (a flag, a constant, a parameter, a kwargs entry) at the call
  // would override the configuration: the user reviews that.
  if (!is_null(workers) && (!is_literal_argument(workers) || !contains(call, workers)))
    fix.applicability = Applicability::Unsafe;
  if (positional) {
    fix.edits.push_back(Edit{range(workers), expr});
  } else {
    fix.edits.push_back(set_keyword(ctx, call, "num_workers", expr));
  }
  // Workers iterated once per epoch should persist across epochs (DL003).
  bool per_epoch = false;
  for (int l : loops) per_epoch |= m.loop_runs_per_epoch(l);
  if (loops.empty() && m.loader_feeds_training(call)) per_epoch = true;  // a trainer iterates it per epoch
  finish_workers_fix(ctx, call, workers, per_epoch && bool_argument_state(ctx, call, -1, "persistent_workers") != 0, expr,
                     fix);
  d.fix = fix;
}

}  // namespace stoker::python::rules
