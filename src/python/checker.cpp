#include "python/checker.h"

#include <algorithm>
#include <optional>
#include <set>

#include "python/facts.h"
#include "python/parser.h"
#include "python/rules/rules.h"
#include "python/semantic_model.h"
#include "python/symbol_table.h"

namespace stoker::python {

void clear_tree_memos();  // this thread's memos of tree nodes (model_scopes.cpp)

namespace {
void run_checks(const SourceFile& file, const SemanticModel& model, const Settings& settings,
                std::vector<Diagnostic>& out);

// The module's `if __name__ == "__main__":` blocks (module level): byte ranges of their bodies.
std::vector<TextRange> main_blocks(const ParsedModule& module, std::string_view src) {
  std::vector<TextRange> out;
  for (Node s : named_children(module.root())) {
    if (!is(s, "if_statement")) continue;
    Node c = unparen(field(s, "condition"));
    if (!is(c, "comparison_operator") || named_count(c) != 2) continue;
    std::string_view op = text(ts_node_child(c, 1), src);
    if (op != "==") continue;
    Node a = unparen(named_child(c, 0)), b = unparen(named_child(c, 1));
    if (is(b, "identifier")) std::swap(a, b);
    if (!is(a, "identifier") || text(a, src) != "__name__" || !is(b, "string")) continue;
    std::string_view lit = text(b, src);
    if (lit != "\"__main__\"" && lit != "'__main__'") continue;
    Node body = field(s, "consequence");
    if (!is_null(body)) out.push_back({ts_node_start_byte(body), ts_node_end_byte(body)});
  }
  return out;
}

// The facts of the project as a module's main block sees them: what the modules it calls give,
// nothing that other modules hand this one (their calls of its functions, their devices). The
// block runs only when the module is the program, and then no other module calls in. Nor does
// the project's word that the module uses CUDA count (`cuda()` joins what importers hand it, a
// loader their CUDA loops iterate, with what its callees return): the block's program uses CUDA
// by its own evidence and the devices and classes of the modules it calls (set V Conv-TasNet
// data.py's CPU self-test of its loader).
class WithoutIncoming : public ExternalFacts {
 public:
  explicit WithoutIncoming(const ExternalFacts& base) : base_(base) {}
  const IncomingCalls* incoming(std::string_view, unsigned) const override { return nullptr; }
  const ArgFacts* incoming_param(std::string_view, int, unsigned) const override { return nullptr; }
  const FunctionFacts* callee(std::string_view name, unsigned fields) const override { return base_.callee(name, fields); }
  bool cuda() const override { return false; }
  std::string canonical(std::string_view name, bool local) const override { return base_.canonical(name, local); }
  std::string registered(std::string_view name) const override { return base_.registered(name); }
  std::string star_import(std::string_view name) const override { return base_.star_import(name); }
  bool attribute_mentioned(std::string_view name) const override { return base_.attribute_mentioned(name); }
  bool word_mentioned(std::string_view name) const override { return base_.word_mentioned(name); }
  bool left_out_call(std::string_view) const override { return false; }
  bool attribute_reachable(std::string_view name) const override { return base_.attribute_reachable(name); }
  bool project_name(std::string_view name) const override { return base_.project_name(name); }
  bool subclass_stores(std::string_view local_class, std::string_view attr) const override {
    return base_.subclass_stores(local_class, attr);
  }
  std::vector<std::pair<int, int>> subclass_attr_types(std::string_view local_class, std::string_view attr) const override {
    return base_.subclass_attr_types(local_class, attr);
  }
  bool has_incoming() const override { return false; }
  const FunctionFacts::Attr* class_attr(std::string_view name, std::string_view attr) const override {
    return base_.class_attr(name, attr);
  }

 private:
  const ExternalFacts& base_;
};

bool inside(const TextRange& r, const std::vector<TextRange>& blocks) {
  for (const TextRange& b : blocks)
    if (r.start >= b.start && r.end <= b.end) return true;
  return false;
}

// The functions of this module that its main blocks call, directly or through this module's
// functions (sorted). O(calls) per round, at most one round per function.
std::vector<int> reached_from_blocks(const SemanticModel& model, const std::vector<TextRange>& blocks) {
  const auto& calls = model.calls();
  std::vector<char> seen(model.functions().size(), 0);
  std::vector<int> work;
  auto reach = [&](Node call) {
    for (int g : model.callees(call))
      if (g >= 0 && static_cast<size_t>(g) < seen.size() && !seen[g]) {
        seen[g] = 1;
        work.push_back(g);
      }
  };
  for (const CallSite& cs : calls)
    if (cs.caller < 0 && inside(TextRange{ts_node_start_byte(cs.call), ts_node_end_byte(cs.call)}, blocks)) reach(cs.call);
  // Each reached function's calls read once (the model's per-caller index).
  while (!work.empty()) {
    int f = work.back();
    work.pop_back();
    for (int ci : model.calls_by_caller(f)) reach(calls[ci].call);
  }
  std::vector<int> out;
  for (size_t f = 0; f < seen.size(); ++f)
    if (seen[f]) out.push_back(static_cast<int>(f));
  return out;
}
}  // namespace

namespace {
// The checks of a built model and what follows them: the module's second analysis as the
// program (main blocks), the facts attached to the findings, the work spent.
void finish_checks(const SourceFile& file, const ParsedFile& parsed, const SemanticModel& model, const Settings& settings,
                   const ExternalFacts* facts, AnalysisResult& result) {
  const ParsedModule& module = parsed.module;
  run_checks(file, model, settings, result.diagnostics);
  // The module analyzed as the program (WithoutIncoming): only when other modules call into it
  // and it has a main block. Built once, for the two uses below.
  auto blocks = facts && facts->has_incoming() ? main_blocks(module, file.text) : std::vector<TextRange>{};
  std::optional<std::vector<Diagnostic>> alone_found;
  auto alone = [&]() -> const std::vector<Diagnostic>* {
    if (!alone_found) {
      alone_found.emplace();
      try {
        WithoutIncoming without(*facts);
        SemanticModel own(file.text, module.root(), settings, &without);
        run_checks(file, own, settings, *alone_found);
      } catch (const BudgetExceeded&) {
        alone_found->clear();
        return nullptr;  // out of budget: the findings stand as the first analysis made them
      }
    }
    return &*alone_found;
  };
  // Findings in the module's main block, when other modules call into the module: kept only
  // where the module analyzed without what those calls hand it reports them too (a library
  // module's CPU self-test is not the CUDA program that imports the module).
  bool in_block = false;
  for (const Diagnostic& d : result.diagnostics) in_block |= inside(d.range, blocks);
  if (in_block)
    if (const auto* again = alone()) {
      std::set<std::pair<std::string, uint32_t>> kept;
      for (const Diagnostic& d : *again)
        if (inside(d.range, blocks)) kept.insert({d.code, d.range.start});
      std::erase_if(result.diagnostics, [&](const Diagnostic& d) {
        return inside(d.range, blocks) && !kept.count({d.code, d.range.start});
      });
    }
  // A loader's options as the program run through this module's main block sets them: a
  // function the block calls (here, directly or through this module's functions) builds a
  // loader from the namespace the block parses (`main(args)` of ConViT's and MDETR's main.py,
  // `num_workers=args.num_workers` with the default 10), while a launcher of another module
  // hands the same function a namespace it rewrites (`setattr(args, k, v)` over a grid) and the
  // join over both callers leaves the value unknown. The module run as the program settles it:
  // its DL003 and BS001 findings at loader calls in the functions the block reaches are added.
  if (!blocks.empty()) {
    bool loaders = false;
    for (const CallSite& cs : model.calls()) loaders = loaders || model.is_loader_call(cs.call);
    if (loaders)
      if (const auto* again = alone()) {
        std::vector<int> reached = reached_from_blocks(model, blocks);
        std::set<std::pair<std::string, uint32_t>> have;
        for (const Diagnostic& d : result.diagnostics) have.insert({d.code, d.range.start});
        for (const Diagnostic& d : *again) {
          if (d.code != "DL003" && d.code != "BS001") continue;
          if (have.count({d.code, d.range.start}) || inside(d.range, blocks)) continue;
          int f = model.function_at(d.range.start);
          if (f < 0 || !std::binary_search(reached.begin(), reached.end(), f)) continue;
          result.diagnostics.push_back(d);
        }
      }
  }
  attach_facts(file, model, result.diagnostics);
}

// The safety net: the file's findings so far are dropped (a cut analysis must not report),
// and the file is named as an error so the run's exit code says so.
void out_of_budget(const SourceFile& file, const Settings& settings, const BudgetExceeded& e, AnalysisResult& result) {
  result.diagnostics.clear();
  result.work = settings.analysis_budget;
  result.errors.push_back({file.path,
                           std::string(e.what()) + " (" + std::to_string(settings.analysis_budget) +
                               " work units; raise `analysis-budget` to analyze this file)",
                           std::nullopt});
}
}  // namespace

AnalysisResult check(const SourceFile& file, const Settings& settings, const ProjectHooks& project) {
  AnalysisResult result;
  // Children and parents of every node, recorded once for the model and the checks. Project
  // mode hands back the parse of an earlier round when the text is the same.
  std::shared_ptr<const ParsedFile> parsed;
  if (project.parsed && *project.parsed && (*project.parsed)->text == file.text) parsed = *project.parsed;
  else parsed = std::make_shared<const ParsedFile>(file.text);
  if (project.parsed) *project.parsed = parsed;
  const ParsedModule& module = parsed->module;
  auto errors = module.error_ranges();
  if (!errors.empty()) {
    auto p = file.lines.position(file.text, errors.front().start);
    result.notices.push_back({file.path,
                              "syntax error at " + std::to_string(p.row) + ":" + std::to_string(p.column) +
                                  " (" + std::to_string(errors.size()) + " in file); analyzed what parsed",
                              errors.front()});
  }
  ScopedChildIndex use_children(&parsed->children);
  // A summary is made only with the project's facts: the step sets it reads are computed in full
  // only then (compute_reachability asks every function only in project mode).
  const bool summarize = project.summary && project.facts && project.is_project_name;
  try {
    if (summarize && project.deferred) {
      // The checks left for later (analyze_project runs them only for a module's last analysis):
      // the model and the summary now; the model, its parse and the facts wait in the closure.
      auto model = std::make_shared<const SemanticModel>(file.text, module.root(), settings, project.facts);
      *project.summary = model->summarize(project.is_project_name, &parsed->unused_imports);
      *project.deferred = [&file, &settings, parsed, model, facts = project.facts, summary = project.summary,
                           result]() mutable {
        ScopedChildIndex use(&parsed->children);
        // Other models were built since (on this thread or another): their trees may be gone.
        clear_tree_memos();
        try {
          finish_checks(file, *parsed, *model, settings, facts, result);
          // The module-level names the checks read too, as a summary made after them lists them
          // (analyze_project reads them to find the modules the prefilter left out).
          const std::set<std::string>& reads = model->module_reads();
          summary->module_reads.assign(reads.begin(), reads.end());
          result.work = model->work();
        } catch (const BudgetExceeded& e) {
          out_of_budget(file, settings, e, result);
        }
        return std::move(result);
      };
      return result;
    }
    SemanticModel model(file.text, module.root(), settings, project.facts);
    finish_checks(file, *parsed, model, settings, project.facts, result);
    if (summarize) *project.summary = model.summarize(project.is_project_name, &parsed->unused_imports);
    result.work = model.work();
  } catch (const BudgetExceeded& e) {
    out_of_budget(file, settings, e, result);
  }
  return result;
}

namespace {
// The node types the checks declare, per symbol of the grammar (built once from the type names,
// so the same answers as comparing kind()): the walk's dispatch reads one table entry per node.
enum class Dispatch : unsigned char { None, Call, Module, Assignment, Readback, Condition, Subscript };
Dispatch dispatch_of(Node n) {
  static const SymbolTable<Dispatch> table(
      [](std::string_view k) {
        if (k == "call") return Dispatch::Call;
        if (k == "module") return Dispatch::Module;
        if (k == "assignment") return Dispatch::Assignment;
        if (k == "interpolation" || k == "binary_operator") return Dispatch::Readback;
        if (k == "if_statement" || k == "elif_clause" || k == "while_statement" || k == "assert_statement" ||
            k == "conditional_expression")
          return Dispatch::Condition;
        if (k == "subscript") return Dispatch::Subscript;
        return Dispatch::None;
      },
      Dispatch::None);
  return table(n);
}

void run_checks(const SourceFile& file, const SemanticModel& model, const Settings& settings,
                std::vector<Diagnostic>& out) {
  Context ctx(file, model, settings, out);
  // One walk; each node kind goes to the checks that declare it.
  model.walk([&](Node n, const WalkFrame& frame) {
    ctx.set_frame(&frame);
    Dispatch d = dispatch_of(n);
    if (d == Dispatch::None) return;
    if (d == Dispatch::Call) {
      rules::dl001_synchronous_data_loader(ctx, n);
      rules::dl002_unpinned_host_batches(ctx, n);
      rules::dl003_workers_respawned_each_epoch(ctx, n);
      rules::dl004_loader_built_in_loop(ctx, n);
      rules::dl005_cuda_work_in_dataset(ctx, n);
      rules::dl006_pinning_on_main_thread(ctx, n);
      rules::tx001_blocking_host_to_device_copy(ctx, n);
      rules::tx002_host_tensor_then_copy(ctx, n);
      rules::tx003_loop_invariant_transfer(ctx, n);
      rules::tx004_unsynchronized_async_readback(ctx, n);
      rules::sy001_host_readback_in_hot_loop(ctx, n);
      rules::sy003_data_dependent_shape_op(ctx, n);
      rules::sy004_explicit_sync_in_hot_loop(ctx, n);
      rules::bs001_small_batch(ctx, n);
      rules::dd001_accumulation_without_no_sync(ctx, n);
      rules::dd002_find_unused_parameters(ctx, n);
      rules::dd003_gloo_with_cuda(ctx, n);
      rules::dd004_collective_readback_in_hot_loop(ctx, n);
      rules::dd005_nccl_transport_disabled(ctx, n);
      rules::dd006_sampler_epoch_not_set(ctx, n);
      rules::gu004_data_parallel(ctx, n);
      rules::gu005_grad_enabled_evaluation(ctx, n);
      rules::gu006_debug_api_in_training(ctx, n);
      rules::gu008_conv_bias_before_batchnorm(ctx, n);
      rules::gu009_single_tensor_optimizer(ctx, n);
      rules::gu011_zero_grad_keeps_tensors(ctx, n);
      rules::gu012_debug_env_in_training(ctx, n);
    } else if (d == Dispatch::Module) {
      rules::gu001_no_mixed_precision(ctx, n);
      rules::gu002_cudnn_autotuner_off(ctx, n);
      rules::gu003_tf32_off(ctx, n);
      rules::gu010_channels_last_off(ctx, n);
      rules::gu013_tensor_core_unfriendly_dims(ctx, n);
    } else if (d == Dispatch::Assignment) {
      rules::gu012_debug_env_in_training(ctx, n);
    } else if (d == Dispatch::Readback) {
      rules::sy001_host_readback_in_hot_loop(ctx, n);
    } else if (d == Dispatch::Condition) {
      rules::sy002_tensor_value_control_flow(ctx, n);
    } else if (d == Dispatch::Subscript) {
      rules::sy003_data_dependent_shape_op(ctx, n);
      rules::dd005_nccl_transport_disabled(ctx, n);
    }
  });
}
}  // namespace

}  // namespace stoker::python
