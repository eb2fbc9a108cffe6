#include "python/facts.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <optional>
#include <string>

#include "core/rules.h"
#include "python/loader_params.h"

namespace stoker::python {
namespace {

constexpr int kMaxDepth = 8;

std::string number(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) return std::to_string(static_cast<long long>(x));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

bool has_fact(const Diagnostic& d, std::string_view key) {
  for (const auto& [k, v] : d.facts)
    if (k == key) return true;
  return false;
}
void add_fact(Diagnostic& d, std::string key, std::string value) {
  if (!has_fact(d, key)) d.facts.emplace_back(std::move(key), std::move(value));
}

// A tensor whose shape and element size the code says.
struct TensorInfo {
  std::vector<long long> shape;
  double elem_bytes = 4;
  double numel(size_t from = 0) const {
    double n = 1;
    for (size_t i = from; i < shape.size(); ++i) n *= static_cast<double>(shape[i]);
    return n;
  }
};

std::optional<double> dtype_bytes(const SemanticModel& m, Node dtype) {
  std::string q = m.qualified_name(dtype);
  std::string_view name = q.empty() ? m.text(dtype) : std::string_view(q);
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
  static const std::pair<std::string_view, double> table[] = {
      {"float32", 4}, {"float", 4},  {"float16", 2}, {"half", 2},  {"bfloat16", 2}, {"float64", 8},
      {"double", 8},  {"int64", 8},  {"long", 8},    {"int32", 4}, {"int", 4},      {"int16", 2},
      {"short", 2},   {"int8", 1},   {"uint8", 1},   {"bool", 1},  {"complex64", 8}};
  for (const auto& [n, b] : table)
    if (name == n) return b;
  return std::nullopt;
}

std::vector<Node> positional(Node call) {
  std::vector<Node> out;
  for (auto a : named_children(field(call, "arguments"))) {
    if (is(a, "keyword_argument") || is(a, "comment")) continue;
    if (is(a, "list_splat") || is(a, "dictionary_splat")) return {};  // positions unknown
    out.push_back(a);
  }
  return out;
}

// Sizes written as `f(2, 3)`, `f((2, 3))` or `f(size=(2, 3))`.
std::optional<std::vector<long long>> sizes(const SemanticModel& m, const std::vector<Node>& args) {
  std::vector<Node> items = args;
  if (items.size() == 1) {
    Node a = unparen(items[0]);
    if (is(a, "tuple") || is(a, "list")) items = named_children(a);
  }
  if (items.empty()) return std::nullopt;
  std::vector<long long> out;
  for (Node i : items) {
    if (is(i, "comment")) continue;
    auto v = m.constant_int(i);
    if (!v || *v < 0) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::optional<TensorInfo> tensor_info(const SemanticModel& m, Node expr, int depth);

std::optional<TensorInfo> tensor_info_of_call(const SemanticModel& m, Node call, int depth) {
  std::string q = m.callee_name(call);
  auto kw = m.keyword_arguments(call);
  auto with_dtype = [&](TensorInfo t) -> std::optional<TensorInfo> {
    Node dt = kw.find("dtype");
    if (!is_null(dt)) {
      auto b = dtype_bytes(m, dt);
      if (!b) return std::nullopt;
      t.elem_bytes = *b;
    } else if (!kw.complete) {
      return std::nullopt;
    }
    return t;
  };
  static constexpr std::string_view kCreators[] = {"torch.randn", "torch.rand", "torch.zeros", "torch.ones",
                                                   "torch.empty"};
  for (auto c : kCreators) {
    if (q != c) continue;
    Node size = kw.find("size");
    auto s = is_null(size) ? sizes(m, positional(call)) : sizes(m, {size});
    if (!s) return std::nullopt;
    return with_dtype(TensorInfo{*s, 4});
  }
  if (q == "torch.full") {
    auto args = positional(call);
    Node size = kw.find("size");
    auto s = !is_null(size) ? sizes(m, {size}) : args.empty() ? std::nullopt : sizes(m, {args[0]});
    if (!s) return std::nullopt;
    return with_dtype(TensorInfo{*s, 4});
  }
  if (q == "torch.randint") {  // randint(high, size) or randint(low, high, size): int64
    auto args = positional(call);
    Node size = kw.find("size");
    if (is_null(size) && !args.empty()) size = args.back();
    if (is_null(size)) return std::nullopt;
    Node s0 = unparen(size);
    if (!is(s0, "tuple") && !is(s0, "list")) return std::nullopt;
    auto s = sizes(m, {size});
    if (!s) return std::nullopt;
    return with_dtype(TensorInfo{*s, 8});
  }
  if (q == "torch.arange") {
    auto args = positional(call);
    if (args.size() != 1) return std::nullopt;
    auto n = m.constant_int(args[0]);
    if (!n || *n < 0) return std::nullopt;
    return with_dtype(TensorInfo{{*n}, 8});
  }
  // Methods that keep the shape: dtype conversions and moves.
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return std::nullopt;
  std::string_view meth = m.text(field(fn, "attribute"));
  Node recv = field(fn, "object");
  static const std::pair<std::string_view, double> casts[] = {{"float", 4}, {"half", 2}, {"bfloat16", 2},
                                                              {"double", 8}, {"long", 8}, {"int", 4},
                                                              {"bool", 1},  {"byte", 1}};
  for (const auto& [name, bytes] : casts) {
    if (meth != name) continue;
    auto t = tensor_info(m, recv, depth + 1);
    if (t) t->elem_bytes = bytes;
    return t;
  }
  if (meth == "cuda" || meth == "pin_memory" || meth == "contiguous" || meth == "clone" || meth == "cpu")
    return tensor_info(m, recv, depth + 1);
  if (meth == "to") {
    auto t = tensor_info(m, recv, depth + 1);
    if (!t) return t;
    Node dt = kw.find("dtype");
    if (is_null(dt)) {
      for (Node a : positional(call))
        if (auto b = dtype_bytes(m, a)) dt = a;
    }
    if (!is_null(dt)) {
      auto b = dtype_bytes(m, dt);
      if (!b) return std::nullopt;
      t->elem_bytes = *b;
    }
    return t;
  }
  return std::nullopt;
}

std::optional<TensorInfo> tensor_info(const SemanticModel& m, Node expr, int depth) {
  expr = unparen(expr);
  if (is_null(expr) || depth > kMaxDepth) return std::nullopt;
  if (is(expr, "call")) return tensor_info_of_call(m, expr, depth);
  if (!is(expr, "identifier") && !is(expr, "attribute")) return std::nullopt;
  auto vs = m.values(expr);
  std::optional<TensorInfo> out;
  for (const auto& v : vs) {
    if (v.kind != Value::Kind::Expr || !is(v.expr, "call")) return std::nullopt;
    auto t = tensor_info_of_call(m, v.expr, depth + 1);
    if (!t) return std::nullopt;
    if (out && (out->shape != t->shape || out->elem_bytes != t->elem_bytes)) return std::nullopt;
    out = t;
  }
  return out;
}

// What a loader's dataset says: its length and the bytes of each element of one sample.
struct DatasetInfo {
  std::optional<long long> length;
  std::vector<std::optional<double>> element_bytes;  // per element of a sample tuple
  bool elements_known = false;                        // every element's size is known
};

std::optional<Node> single_call_value(const SemanticModel& m, Node expr) {
  expr = unparen(expr);
  if (is(expr, "call")) return expr;
  auto vs = m.values(expr);
  if (vs.size() != 1 || vs[0].kind != Value::Kind::Expr || !is(vs[0].expr, "call")) return std::nullopt;
  return vs[0].expr;
}

DatasetInfo dataset_info(const SemanticModel& m, Node loader) {
  DatasetInfo info;
  auto ds = single_call_value(m, m.argument(loader, 0, "dataset"));
  if (!ds) return info;
  std::string q = m.callee_name(*ds);
  if (q == "torch.utils.data.TensorDataset" || q == "torch.utils.data.dataset.TensorDataset") {
    auto args = positional(*ds);
    if (args.empty() || !m.keyword_arguments(*ds).complete) return info;
    info.elements_known = true;
    for (Node a : args) {
      auto t = tensor_info(m, a, 0);
      if (!t || t->shape.empty()) {
        info.element_bytes.push_back(std::nullopt);
        info.elements_known = false;
        continue;
      }
      if (!info.length) info.length = t->shape[0];
      info.element_bytes.push_back(t->numel(1) * t->elem_bytes);
    }
    return info;
  }
  // A Dataset class of the file whose __len__ returns a constant.
  auto vs = m.values(field(*ds, "function"));
  if (vs.size() != 1 || vs[0].kind != Value::Kind::Expr || !is(vs[0].expr, "class_definition")) return info;
  for (const auto& c : m.classes()) {
    if (!same(c.node, vs[0].expr)) continue;
    auto it = c.methods.find("__len__");
    if (it == c.methods.end()) break;
    const Function& f = m.functions()[it->second];
    std::optional<long long> len;
    for (Node r : f.returns) {
      auto v = m.constant_int(r);
      if (!v || (len && *len != *v)) return info;
      len = v;
    }
    info.length = len;
    break;
  }
  return info;
}

struct LoaderInfo {
  std::optional<long long> batch_size, num_workers, steps_per_epoch, length;
  DatasetInfo dataset;
};

LoaderInfo loader_info(const SemanticModel& m, Node loader) {
  LoaderInfo li;
  auto kw = m.keyword_arguments(loader);
  bool sampler = !is_null(kw.find("batch_sampler")) || !is_null(m.argument(loader, kBatchSamplerPos, ""));
  Node bs = m.argument(loader, kBatchSizePos, "batch_size");
  if (!sampler) {
    if (is_null(bs)) {
      if (kw.complete) li.batch_size = 1;  // DataLoader's default
    } else if (auto v = m.constant(bs); v && v->kind == Value::Kind::None) {
      li.batch_size = 1;  // batch_size=None: each sample is the batch
    } else if (auto n = m.constant_int(bs); n && *n >= 1) {
      li.batch_size = *n;
    }
  }
  Node nw = m.argument(loader, kNumWorkersPos, "num_workers");
  if (is_null(nw)) {
    if (kw.complete) li.num_workers = 0;
  } else if (auto n = m.constant_int(nw); n && *n >= 0) {
    li.num_workers = *n;
  }
  li.dataset = dataset_info(m, loader);
  if (li.dataset.length && li.batch_size && *li.dataset.length > 0) {
    bool drop_last = false;
    Node dl = m.argument(loader, kDropLastPos, "drop_last");
    if (!is_null(dl)) {
      auto v = m.constant(dl);
      if (!v || v->kind != Value::Kind::Bool) return li;  // unknown: steps unknown
      drop_last = v->b;
    }
    long long n = *li.dataset.length, b = *li.batch_size;
    li.steps_per_epoch = drop_last ? n / b : (n + b - 1) / b;
    if (*li.steps_per_epoch <= 0) li.steps_per_epoch.reset();
  }
  return li;
}

// The element path of `name` inside a for-loop target (`step, (x, y)` -> y: {1, 1}).
bool target_path(const SemanticModel& m, Node pattern, std::string_view name, std::vector<int>& path) {
  pattern = unparen(pattern);
  if (is(pattern, "identifier")) return m.text(pattern) == name;
  if (is(pattern, "pattern_list") || is(pattern, "tuple_pattern") || is(pattern, "list_pattern") ||
      is(pattern, "tuple") || is(pattern, "expression_list") || is(pattern, "list")) {
    int i = 0;
    for (Node c : named_children(pattern)) {
      if (is(c, "comment")) continue;
      if (is(c, "list_splat_pattern") || is(c, "list_splat")) return false;
      path.push_back(i);
      if (target_path(m, c, name, path)) return true;
      path.pop_back();
      ++i;
    }
  }
  return false;
}

// The part of a loader's batch an expression holds: the loader construction (from the loop it
// iterates) and the element path into one sample (empty: the whole batch).
struct BatchElement {
  int loop = -1;
  std::vector<int> path;
};

std::optional<BatchElement> batch_element(const SemanticModel& m, Node expr, int depth) {
  expr = unparen(expr);
  if (!is(expr, "identifier") || depth > kMaxDepth) return std::nullopt;
  std::string_view name = m.text(expr);
  std::optional<BatchElement> found;
  for (const Binding* b : m.lookup(name, start(expr))) {
    std::optional<BatchElement> e;
    if (b->kind == Binding::Kind::LoopTarget) {
      Node loop = parent(b->value);
      int li = m.loop_index(loop);
      if (li < 0) return std::nullopt;
      BatchElement be{li, {}};
      if (!target_path(m, field(loop, "left"), name, be.path)) return std::nullopt;
      Node it = unparen(b->value);
      if (is(it, "call") && m.callee_name(it) == "builtins.enumerate") {
        if (be.path.empty() || be.path[0] != 1) return std::nullopt;
        be.path.erase(be.path.begin());
      }
      e = be;
    } else if (b->kind == Binding::Kind::Assign && b->unpack_index >= 0 && is(unparen(b->value), "identifier")) {
      e = batch_element(m, b->value, depth + 1);
      if (e) e->path.push_back(b->unpack_index);
    } else if (b->kind == Binding::Kind::Assign) {
      // `x = x.to(device)` rebinds the copy; the copy's own receiver was resolved before.
      continue;
    } else {
      return std::nullopt;
    }
    if (!e) return std::nullopt;
    if (found && (found->loop != e->loop || found->path != e->path)) return std::nullopt;
    found = e;
  }
  return found;
}

Node enclosing_call(Node root, TextRange r) {
  Node n = ts_node_descendant_for_byte_range(root, r.start, std::max(r.start, r.end));
  for (int i = 0; i < 6 && !is_null(n); ++i, n = parent(n))
    if (is(n, "call")) return n;
  return Node{};
}

}  // namespace

void attach_facts(const SourceFile& file, const SemanticModel& m, std::vector<Diagnostic>& diags) {
  if (diags.empty()) return;
  const auto& loops = m.loops();
  // The loader each loop iterates (the first one, when a loop zips several).
  std::vector<Node> loader_of_loop(loops.size(), Node{});
  std::vector<Node> loader_calls;
  for (const auto& cs : m.calls()) {
    if (!m.is_loader_call(cs.call)) continue;
    loader_calls.push_back(cs.call);
    for (int l : m.loops_iterating(cs.call))
      if (is_null(loader_of_loop[l])) loader_of_loop[l] = cs.call;
  }
  auto loader_for_loop = [&](int l) {
    for (int x = l; x >= 0; x = loops[x].parent_loop)
      if (!is_null(loader_of_loop[x])) return loader_of_loop[x];
    return Node{};
  };
  auto hot_loop_at = [&](uint32_t offset) {
    int best = -1;
    for (size_t i = 0; i < loops.size(); ++i) {
      if (loops[i].kind != LoopKind::Hot) continue;
      Node n = loops[i].node;
      if (offset < start(n) || offset >= end(n)) continue;
      if (best < 0 || start(n) >= start(loops[best].node)) best = static_cast<int>(i);
    }
    return best;
  };
  std::map<const void*, LoaderInfo> infos;
  auto info_of = [&](Node loader) -> const LoaderInfo& {
    auto it = infos.find(loader.id);
    if (it == infos.end()) it = infos.emplace(loader.id, loader_info(m, loader)).first;
    return it->second;
  };
  const RuleRegistry& rules = RuleRegistry::builtin();
  for (auto& d : diags) {
    if (d.file != file.path) continue;
    // The loader the finding is on, when it sits in a loader construction.
    Node loader{};
    Node call = enclosing_call(m.root(), d.range);
    for (Node n = call; !is_null(n); n = parent(n)) {
      if (is(n, "call") && m.is_loader_call(n)) {
        loader = n;
        break;
      }
      if (!is(n, "call") && !is(n, "argument_list") && !is(n, "keyword_argument") && !is(n, "attribute")) break;
    }
    int loop = hot_loop_at(d.range.start);
    for (size_t i = 0; loop < 0 && i < d.related.size(); ++i)
      if (d.related[i].file == d.file) loop = hot_loop_at(d.related[i].range.start);
    if (!is_null(loader) && loop < 0) {
      for (int l : m.loops_iterating(loader))
        if (loops[l].kind == LoopKind::Hot) {
          loop = l;
          break;
        }
    }
    if (is_null(loader) && loop >= 0) loader = loader_for_loop(loop);
    if (loop >= 0) add_fact(d, "loop", std::to_string(start(loops[loop].node)));
    if (is_null(loader)) continue;
    add_fact(d, "loader", std::to_string(start(loader)));
    const LoaderInfo& li = info_of(loader);
    if (li.batch_size) add_fact(d, "batch_size", std::to_string(*li.batch_size));
    if (li.num_workers) add_fact(d, "num_workers", std::to_string(*li.num_workers));
    if (li.steps_per_epoch) add_fact(d, "steps_per_epoch", std::to_string(*li.steps_per_epoch));
    if (li.dataset.length) add_fact(d, "dataset_len", std::to_string(*li.dataset.length));
    // Copy sizes, for the models that move bytes.
    const RuleInfo* info = rules.find(d.code);
    std::string_view model = info ? std::string_view(info->impact_model) : std::string_view{};
    if (model != "blocking-copy" && model != "pageable-copy") continue;
    double whole = 0;
    if (li.dataset.elements_known)
      for (const auto& b : li.dataset.element_bytes) whole += *b;
    if (!is_null(call) && !m.is_loader_call(call)) {
      Node fn = unparen(field(call, "function"));
      Node recv = is(fn, "attribute") ? field(fn, "object") : Node{};
      if (!is_null(recv)) {
        if (auto t = tensor_info(m, recv, 0)) {
          add_fact(d, "copy_bytes", number(t->numel() * t->elem_bytes));
          continue;
        }
        if (auto e = batch_element(m, recv, 0); e && li.batch_size && same(loader_for_loop(e->loop), loader)) {
          if (e->path.empty() && li.dataset.elements_known) {
            add_fact(d, "copy_bytes", number(whole * static_cast<double>(*li.batch_size)));
          } else if (e->path.size() == 1 && e->path[0] < static_cast<int>(li.dataset.element_bytes.size()) &&
                     li.dataset.element_bytes[e->path[0]]) {
            add_fact(d, "copy_bytes", number(*li.dataset.element_bytes[e->path[0]] * static_cast<double>(*li.batch_size)));
          }
          continue;
        }
      }
    }
    if (!is_null(loader) && li.dataset.elements_known && whole > 0) add_fact(d, "sample_bytes", number(whole));
  }
}

}  // namespace stoker::python
