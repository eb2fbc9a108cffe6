#include "python/rules/common.h"

namespace stoker::python::rules {

int bool_argument_state(const Context& ctx, Node call, int position, std::string_view keyword) {
  auto kw = ctx.model().keyword_arguments(call);
  Node v = kw.find(keyword);
  if (is_null(v)) v = ctx.model().argument(call, position, "");
  if (is_null(v)) return kw.complete ? 1 : 0;
  auto c = ctx.model().constant(v);
  if (c && (c->kind == Value::Kind::Bool || c->kind == Value::Kind::Int || c->kind == Value::Kind::None) &&
      !(c->kind == Value::Kind::Bool ? c->b : c->i != 0))
    return 2;
  return 0;
}

Edit set_keyword(const Context& ctx, Node call, std::string_view keyword, std::string_view value) {
  // Set where the value is written: at the call, or in the `**kwargs` dict that supplies it
  // (adding a keyword next to a dict that has it would pass it twice).
  Node existing = ctx.model().keyword_arguments(call).find(keyword);
  if (!is_null(existing)) return Edit{range(existing), std::string(value)};
  return ctx.insert_keyword_argument(call, std::string(keyword) + "=" + std::string(value));
}

std::optional<Edit> persistent_workers_edit(const Context& ctx, Node call, Node workers) {
  Node existing = ctx.model().keyword_arguments(call).find("persistent_workers");
  if (!is_null(existing)) return set_keyword(ctx, call, "persistent_workers", "True");
  if (is_null(workers) || contains(call, workers)) return ctx.insert_keyword_argument(call, "persistent_workers=True");
  Node pair = parent(workers);
  if (is(pair, "pair") && is(parent(pair), "dictionary"))
    return Edit{{end(pair), end(pair)}, ", \"persistent_workers\": True"};
  // `loader_args = dict(batch_size=..., num_workers=...)`: the keyword goes into that call.
  if (is(pair, "keyword_argument") && is(parent(pair), "argument_list") &&
      ctx.model().callee_name(parent(parent(pair))) == "builtins.dict")
    return Edit{{end(pair), end(pair)}, ", persistent_workers=True"};
  return std::nullopt;
}

bool name_is_bound(const Context& ctx, std::string_view name, uint32_t offset) {
  return !ctx.model().lookup(name, offset).empty();
}

Edit add_import(const Context& ctx, std::string_view module) {
  Node root = ctx.model().root();
  uint32_t at = 0;
  for (auto stmt : named_children(root)) {
    if (is(stmt, "comment")) continue;
    if (is(stmt, "expression_statement") && named_count(stmt) == 1 && is(named_child(stmt, 0), "string")) {
      at = end(stmt);
      continue;
    }
    if (is(stmt, "future_import_statement")) {
      at = end(stmt);
      continue;
    }
    // Insert before this statement, at the start of its line.
    at = start(stmt);
    return Edit{{at, at}, "import " + std::string(module) + "\n"};
  }
  return Edit{{at, at}, (at ? "\n" : "") + std::string("import ") + std::string(module) + "\n"};
}

bool is_cpu_count(const SemanticModel& m, Node expr) {
  auto vals = m.values(expr);
  if (vals.empty()) return false;
  for (const auto& v : vals) {
    if (v.kind != Value::Kind::Expr || !is(v.expr, "call")) return false;
    const std::string& q = m.callee_name(v.expr);
    if (q != "os.cpu_count" && q != "multiprocessing.cpu_count") return false;
  }
  return true;
}

bool index_range_loader(const SemanticModel& m, Node call) {
  auto is_range = [&](Node e) {
    e = unparen(e);
    if (!is(e, "call")) return false;
    const std::string& q = m.callee_name(e);
    if (q == "builtins.list") {
      Node inner = unparen(m.argument(e, 0, ""));
      return is(inner, "call") && m.callee_name(inner) == "builtins.range";
    }
    return q == "builtins.range";
  };
  Node dataset = unparen(m.argument(call, 0, "dataset"));
  if (is_null(dataset)) return false;
  if (is(dataset, "identifier")) {
    // `perm_loader = DataLoader(idx, ...)` after `idx = range(n)`: every value a range.
    auto values = m.values(dataset);
    if (values.empty()) return false;
    for (const Value& v : values)
      if (v.kind != Value::Kind::Expr || !is_range(v.expr)) return false;
  } else if (!is_range(dataset)) {
    return false;
  }
  for (Node a : named_children(field(call, "arguments")))
    if (is(a, "list_splat") || is(a, "dictionary_splat")) return false;
  auto kw = m.keyword_arguments(call);
  return kw.complete && is_null(kw.find("collate_fn")) && is_null(m.argument(call, kCollatePos, ""));
}

}  // namespace stoker::python::rules
