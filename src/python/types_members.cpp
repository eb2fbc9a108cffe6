// Instances' attributes as types: what the stores of `self.attr` in a class's methods give
// (member_type, self_stores: which stores other methods see) and what a framework's `prepare`
// hands back (prepared_source, prepared, a prepared store's mark kPreparedStore). Split from
// types.cpp by concern (issue 10's layout: no source file over 2,000 lines).
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "python/frameworks.h"
#include "python/model_internal.h"  // model_detail::property_getter
#include "python/project_fields.h"
#include "python/semantic_model.h"
#include "python/types.h"
#include "python/types_detail.h"

namespace stoker::python {

using Kind = AbstractType::Kind;
using namespace type_detail;

namespace {

// A value stored on `self` of an owner on device `owner`: moving a module moves its parameters,
// buffers and submodules, not a plain tensor it holds, so a CPU tensor stored on `self` stays
// there (`self.mask = torch.ones(n, n)`) while a module or a tensor not known to be on the CPU
// joins the owner's device.
AbstractType moved_with_owner(AbstractType vt, TypeDevice owner) {
  if (vt.kind == Kind::Module || (vt.kind == Kind::Tensor && vt.device != TypeDevice::Cpu))
    vt.device = join(vt.device, owner);
  return vt;
}

}  // namespace

Node TypeInference::prepared_source(Node call, Node target) const {
  call = unparen(call);
  if (!is(call, "call")) return Node{};
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return Node{};
  std::string_view meth = text(field(fn, "attribute"), m_.src());
  const auto& table = FrameworkTable::get();
  if (!table.is_prepare_method(meth)) return Node{};
  AbstractType recv = value(field(fn, "object"), Path{});
  if (recv.kind != Kind::Object) return Node{};
  if (table.prepares_first(recv.framework, meth)) return is_null(target) ? m_.argument(call, 0, "") : Node{};
  if (!table.prepares(recv.framework, meth)) return Node{};
  std::vector<Node> positional;
  for (Node a : named_children(field(call, "arguments"))) {
    if (is(a, "keyword_argument")) continue;
    if (is(a, "list_splat")) return Node{};
    positional.push_back(a);
  }
  if (is_null(target)) return positional.size() == 1 ? positional[0] : Node{};
  Path p = target_path(target);
  if (!p.valid() || p.size() != 1 || p.at(0) >= static_cast<int>(positional.size())) return Node{};
  return positional[p.at(0)];
}

bool TypeInference::python_value_batches(Node v) const {
  v = unparen(v);
  if (is(v, "identifier")) {
    auto named = visible(m_, v);
    if (named.size() != 1 || !named[0]->is_plain_assign()) return false;
    v = unparen(named[0]->value);
  }
  if (!is(v, "call") || !m_.is_loader_call(v)) return false;
  Node collate = m_.keyword_arguments(v).find("collate_fn");
  if (is_null(collate)) collate = m_.argument(v, 6, "");
  return !is_null(collate) && m_.collate_python_values(collate);
}

std::optional<AbstractType> TypeInference::prepared_type(AbstractType t, Node v) const {
  switch (t.kind) {
    case Kind::Module:
    case Kind::Tensor:
    case Kind::Loader:
      // A loader whose collate_fn builds Python values only (`collate_fn=dataset.collate_fn`
      // returning `[dat[i].tolist() for i in dat]`): the framework moves the tensors of a batch,
      // and there are none; its batches stay what they were.
      if (python_value_batches(v)) return t;
      t.device = TypeDevice::Cuda;
      return t;
    case Kind::Optimizer: return t;
    default: break;
  }
  if (m_.is_module(v)) return AbstractType::of(Kind::Module, TypeDevice::Cuda);
  if (m_.is_loader_expr(v) || library_loader(v)) return AbstractType::of(Kind::Loader, TypeDevice::Cuda);
  return std::nullopt;
}

AbstractType TypeInference::prepared(Node argument) const {
  return prepared_type(value(argument, Path{}), argument).value_or(AbstractType::unknown());
}

AbstractType TypeInference::store_type(Node v, Path p) const {
  const bool marked = p.code & kPreparedStore;
  p.code &= ~kPreparedStore;
  AbstractType t = value(v, p);
  return marked ? prepared_type(t, v).value_or(t) : t;
}

// A call of a library's loader factory, or a name or attribute bound only to such calls
// (`self.dl = get_dataloader(ds, ...)` of audiolm_pytorch: a function whose name ends in
// "loader" that neither this file nor another project module defines). Read only for what a
// framework prepares: it prepares modules, optimizers, schedulers and loaders, so the factory's
// result is a loader.
bool TypeInference::library_loader(Node expr) const {
  expr = unparen(expr);
  std::vector<Value> values;
  if (is(expr, "call")) {
    Value v;
    v.kind = Value::Kind::Expr;
    v.expr = expr;
    values.push_back(v);
  } else if (is(expr, "identifier") || is(expr, "attribute")) {
    values = m_.values(expr);
  }
  if (values.empty() || values.size() > SemanticModel::kMaxCandidates) return false;
  for (const auto& v : values) {
    Node c = v.kind == Value::Kind::Expr ? unparen(v.expr) : Node{};
    Node fn = is(c, "call") ? unparen(field(c, "function")) : Node{};
    if (!is(fn, "identifier") && !is(fn, "attribute")) return false;
    std::string name(is(fn, "attribute") ? text(field(fn, "attribute"), m_.src()) : text(fn, m_.src()));
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    if (name.size() <= 6 || name.compare(name.size() - 6, 6, "loader") != 0 || !m_.callees(c).empty() ||
        m_.ext_callee_of(c, fact::kReturnType) != nullptr || m_.qualified_name(fn).rfind("builtins.", 0) == 0)
      return false;
  }
  return true;
}

AbstractType TypeInference::member_type(int klass, std::string_view attr, TypeDevice owner) const {
  if (klass <= -2) {
    return ext_class(klass) ? ext_member(ext_classes_[static_cast<size_t>(-2 - klass)], attr, owner) : AbstractType::unknown();
  }
  // Every `self.attr = v` in the class (any method) and its bases defined here, then the
  // attribute as a base class of another project module says it.
  std::set<int> seen;
  AbstractType t = AbstractType::bottom();
  bool any = false, placeholder = false;
  for (int c = klass; c >= 0 && seen.insert(c).second;) {
    if (registered_tensor(c, attr)) {
      t = join(t, AbstractType::of(Kind::Tensor, owner));
      any = true;
    }
    if (base_class(c) < 0)
      if (std::string base; ext_base(c, &base)) {
        bool present = false;
        AbstractType et = ext_member(base, attr, owner, &present);
        if (et.kind != Kind::Unknown || present) {
          t = join(t, et);
          any = true;
        }
      }
    // A property the class defines (`def device(self): return self.model.device`): what its
    // getter returns.
    if (int g = model_detail::property_getter(m_, c, attr);
        g >= 0 && m_.self_stores(c, attr).empty()) {
      for (Node r : m_.functions()[g].returns) t = join(t, value(r, Path{}));
      if (m_.functions()[g].returns.empty()) t = AbstractType::unknown();
      any = true;
      if (t.kind == Kind::Unknown) return t;
    }
    for (const auto& [v, p] : self_stores(m_.classes()[c].name + "." + std::string(attr))) {
      // A number literal stored whole (`self.val = 0` in a meter's `reset`) is a placeholder
      // until the other stores: joined last, below, where it cannot hide a tensor on CUDA.
      if (Node lit = unparen(v); p.size() == 0) {
        if (is(lit, "unary_operator") && named_count(lit) == 1) lit = unparen(named_child(lit, 0));
        if (is(lit, "integer") || is(lit, "float")) {
          placeholder = true;
          any = true;
          continue;
        }
      }
      t = join(t, moved_with_owner(store_type(v, p), owner));
      any = true;
      if (t.kind == Kind::Unknown) return t;
    }
    // `self.acc_loss += self.criterion(outputs, target)` in any method (pytorch-seq2seq's loss
    // classes; rec27a): the attribute then holds the sum, a tensor where the added value is one.
    // A host number added changes nothing the other stores do not say: `self.step += 1` on a
    // registered buffer leaves a tensor, `self.n += 1` on a counter a number (DALLE2-pytorch's
    // `trainer.step.item()`, set F). Anything else added joins as the sum. A tensor the other
    // stores (or a base of another module) put on the GPU (or may) stays there: an in-place operation
    // keeps its receiver's device whatever the other operand is (torch's ShardedGradScaler's
    // `self._scale *= self._backoff_factor` on GradScaler's CUDA `_scale`).
    const bool on_gpu = any && t.kind == Kind::Tensor && (t.device == TypeDevice::Cuda || t.device == TypeDevice::Any);
    if (auto aug = m_.self_augmented_.find(m_.classes()[c].name + "." + std::string(attr)); !on_gpu && aug != m_.self_augmented_.end())
      for (Node v : aug->second) {
        AbstractType added = value(v, Path{});
        if (added.kind == Kind::HostScalar) continue;
        t = join(t, arith(AbstractType::of(Kind::HostScalar), added));
        any = true;
        if (t.kind == Kind::Unknown) return t;
      }
    c = base_class(c);
  }
  // The placeholder number beside stores of a tensor that may be on CUDA (AverageMeter's
  // `self.val = 0`, `self.sum = 0` in `reset`, then `self.val = val`, `self.sum += val * n` of
  // the CUDA accuracies its `update` is handed, set AI mdistiller): read after an update, the
  // attribute holds the tensor. Otherwise it joins as the number it is.
  if (placeholder && !(tensor_like(t) && (t.device == TypeDevice::Cuda || t.device == TypeDevice::Any)))
    t = join(t, AbstractType::of(Kind::HostScalar));
  if (any) return t;
  if (AbstractType s = subclass_member_type(klass, attr, owner); s.kind != Kind::Unknown) return s;
  // A field of a dataclass or NamedTuple of this file (`losses.loss` of `Loss(loss=token_nll,
  // ...)`): what the constructions pass for it (by keyword or by the field's position), or its
  // default. Unknown when the class is not one, or a construction unpacks its arguments.
  auto fields = record_fields(m_, klass);
  int position = -1;
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].first == attr) position = static_cast<int>(i);
  if (position < 0) return AbstractType::unknown();
  const auto& calls = constructor_calls(klass);
  if (calls.empty() || calls.size() > SemanticModel::kMaxCandidates) return AbstractType::unknown();
  for (Node call : calls) {
    for (Node a : named_children(field(call, "arguments")))
      if (is(a, "list_splat") || is(a, "dictionary_splat")) return AbstractType::unknown();
    Node v = m_.argument(call, position, attr);
    if (is_null(v)) v = fields[static_cast<size_t>(position)].second;
    if (is_null(v)) return AbstractType::unknown();
    t = join(t, value(v, Path{}));
    if (t.kind == Kind::Unknown) return t;
  }
  return t;
}

AbstractType TypeInference::subclass_member_type(int klass, std::string_view attr, TypeDevice owner) const {
  if (klass < 0) return AbstractType::unknown();
  const auto& classes = m_.classes();
  if (!subclasses_built_) {
    // Once per file: O(classes x MRO).
    subclasses_built_ = true;
    subclasses_.assign(classes.size(), {});
    for (size_t sc = 0; sc < classes.size(); ++sc)
      for (int c : model_detail::class_mro(classes, m_.classes_by_name_, static_cast<int>(sc)))
        if (c != static_cast<int>(sc)) subclasses_[static_cast<size_t>(c)].push_back(static_cast<int>(sc));
  }
  AbstractType t = AbstractType::bottom();
  bool any = false;
  for (int sc : subclasses_[static_cast<size_t>(klass)])
    for (const auto& [v, p] : self_stores(classes[sc].name + "." + std::string(attr))) {
      t = join(t, moved_with_owner(store_type(v, p), owner));
      any = true;
      if (t.kind == Kind::Unknown) return t;
    }
  if (m_.facts_ && m_.scopes_[classes[klass].scope].parent == 0)
    for (const auto& [k, d] : m_.facts_->subclass_attr_types(classes[klass].name, attr)) {
      if (k < 0) return AbstractType::unknown();
      AbstractType vt = from_fact(k, d);
      if (vt.kind == Kind::Module || vt.kind == Kind::Tensor) vt.device = join(vt.device, owner);
      t = join(t, vt);
      any = true;
      if (t.kind == Kind::Unknown) return t;
    }
  return any ? t : AbstractType::unknown();
}

namespace {

// The statement a store is part of (its value or its target inside an assignment).
Node store_statement(Node n) {
  for (int guard = 0; guard < 32 && !is_null(n); ++guard) {
    Node p = parent(n);
    if (is_null(p) || is(p, "block") || is(p, "module")) return n;
    n = p;
  }
  return Node{};
}

// Statement `late` runs after `early` on every path that leaves the function `early` is in: it
// comes later, and the block holding it encloses `early` in the same function.
bool overwrites(Node late, Node early) {
  if (is_null(late) || is_null(early) || start(late) < end(early)) return false;
  Node block = parent(late);
  if (!is(block, "block")) return false;
  for (Node n = parent(early); !is_null(n); n = parent(n)) {
    if (same(n, block)) return true;
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) return false;
  }
  return false;
}

}  // namespace

// ClusterGCN's `create_model` (set AY): `self.model = StackedGCN(...)` then `self.model =
// self.model.to(self.device)`. The read is the attribute as the block left it: without this, the
// class's join of its stores holds the move itself (a cycle, answered Bottom, moved to a tensor)
// and the module is lost. O(stores of the attribute + parents).
Node TypeInference::earlier_self_store(Node attr) const {
  Node obj = unparen(field(attr, "object"));
  if (!is(obj, "identifier") || text(obj, m_.src()) != "self") return Node{};
  int klass = m_.class_of_self(attr);
  if (klass < 0) return Node{};
  Node stmt = store_statement(attr);
  if (!is(stmt, "expression_statement") || !is(parent(stmt), "block") || named_count(stmt) != 1) return Node{};
  Node block = parent(stmt);
  Node assign = named_child(stmt, 0);
  // A statement the parser could not read whole (an ERROR node, a missing side) is not followed.
  if (!is(assign, "assignment") || is_null(field(assign, "right")) || !contains(field(assign, "right"), attr))
    return Node{};
  Node left = unparen(field(assign, "left"));
  if (!is(left, "attribute") || text(left, m_.src()) != text(attr, m_.src())) return Node{};
  std::string key = m_.classes()[klass].name + "." + std::string(text(field(attr, "attribute"), m_.src()));
  auto stores = m_.self_stores(key);
  if (stores.empty()) return Node{};
  Node best{}, best_stmt{};
  for (int ai : stores) {
    Node v = m_.self_assignments_[ai].second;
    Node s = is_null(v) ? Node{} : store_statement(v);
    if (is_null(s) || start(s) >= start(stmt)) continue;
    if (same(parent(s), block) && (is_null(best_stmt) || start(s) > start(best_stmt))) best = v, best_stmt = s;
  }
  if (is_null(best)) return Node{};
  // Another store of the attribute between the two (nested in a statement of the block between
  // them, or unpacked there, or augmented): the block does not leave the earlier value.
  auto between = [&](Node n) { return !is_null(n) && start(n) >= end(best_stmt) && start(n) < start(stmt); };
  for (int ai : stores)
    if (between(m_.self_assignments_[ai].second)) return Node{};
  if (auto it = m_.self_unpacked_by_key_.find(key); it != m_.self_unpacked_by_key_.end())
    for (const auto& [call, target] : it->second)
      if (between(target)) return Node{};
  if (auto it = m_.self_augmented_.find(key); it != m_.self_augmented_.end())
    for (Node v : it->second)
      if (between(v)) return Node{};
  // The earlier store's own statement: a plain `self.x = v` (not an unpacking, not chained).
  Node ea = named_count(best_stmt) == 1 ? named_child(best_stmt, 0) : Node{};
  if (!is(ea, "assignment") || !same(unparen(field(ea, "right")), unparen(best)) ||
      text(unparen(field(ea, "left")), m_.src()) != text(attr, m_.src()))
    return Node{};
  return best;
}

std::vector<std::pair<Node, TypeInference::Path>> TypeInference::self_stores(const std::string& key) const {
  std::vector<std::pair<Node, Path>> all;
  std::vector<Node> statements, targets;  // per store: its statement, the attribute unpacked (or null)
  for (int ai : m_.self_stores(key)) {
    all.push_back({m_.self_assignments_[ai].second, Path{}});
    statements.push_back(store_statement(m_.self_assignments_[ai].second));
    targets.push_back(Node{});
  }
  if (auto it = m_.self_unpacked_by_key_.find(key); it != m_.self_unpacked_by_key_.end())
    for (const auto& [call, target] : it->second) {
      Path p = target_path(target);
      if (!p.valid() || p.size() != 1) continue;  // a nested pattern: not followed
      // Only what a framework's `prepare` hands back: the element of another call's tuple (a
      // project helper's `device, gpus = ...`) can type a device from a guess at its conditions.
      // A loader a helper returns in its tuple (`self.tr_set, self.dv_set, ... =
      // load_dataset(...)` of another module, set AJ End-to-end-ASR-Pytorch) is a loader too:
      // the element is taken when its type is one (no device is read from it).
      // So is an instance of a project class a helper returns in its tuple (`self.loss_stats,
      // self.loss = self._get_losses(opt)`, the subclass's MotLoss: set AL FairMOT), whose
      // methods the reads then call.
      if (is_null(prepared_source(call, target))) {
        AbstractType e = value(call, p);
        if (e.kind != Kind::Loader && !((e.kind == Kind::Module || e.kind == Kind::Object) && e.klass != -1)) continue;
      }
      all.push_back({call, p});
      statements.push_back(store_statement(target));
      targets.push_back(target);
    }
  if (all.size() < 2) return all;
  // A store whose value reads the attribute (`self.x = f(self.x)`) carries the earlier stores on
  // and overwrites none, unless it hands the attribute back prepared by a framework
  // (`self.dl = accelerator.prepare(self.dl)`, or its element of an unpacked `prepare`): the
  // stores it overwrites then stand for it, marked prepared (kPreparedStore: their values on the
  // device, their classes kept), and it is left out (its own value would read itself).
  const std::string read = "self." + key.substr(key.find('.') + 1);
  std::vector<char> reads(all.size(), 0), self_prepare(all.size(), 0);
  for (size_t j = 0; j < all.size(); ++j) {
    std::string_view t = text(all[j].first, m_.src());
    for (size_t at = t.find(read); at != std::string_view::npos && !reads[j]; at = t.find(read, at + 1)) {
      size_t after = at + read.size();
      reads[j] = after >= t.size() || !(std::isalnum(static_cast<unsigned char>(t[after])) || t[after] == '_');
    }
    if (reads[j]) {
      Node source = prepared_source(all[j].first, targets[j]);
      self_prepare[j] = !is_null(source) && text(unparen(source), m_.src()) == read;
    }
  }
  auto overwritten = [&](size_t i, size_t j) {
    return j != i && !same(statements[j], statements[i]) && overwrites(statements[j], statements[i]);
  };
  std::vector<std::pair<Node, Path>> out;
  std::vector<char> stands_for(all.size(), 0);
  for (size_t i = 0; i < all.size(); ++i) {
    bool dead = false, prepared = false;
    for (size_t j = 0; j < all.size() && !dead; ++j) {
      if (!overwritten(i, j)) continue;
      if (!reads[j]) dead = true;
      else if (self_prepare[j]) {
        stands_for[j] = 1;
        prepared = true;
      }
    }
    if (dead) continue;
    Path p = all[i].second;
    if (prepared) p.code |= kPreparedStore;
    out.push_back({all[i].first, p});
  }
  // A self-preparing store some earlier store now stands for is left out.
  std::vector<std::pair<Node, Path>> kept;
  for (const auto& sp : out) {
    bool drop = false;
    for (size_t j = 0; j < all.size() && !drop; ++j)
      drop = stands_for[j] && same(sp.first, all[j].first) && sp.second.code == all[j].second.code;
    if (!drop) kept.push_back(sp);
  }
  return kept;
}


}  // namespace stoker::python
