#include "python/types.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "python/call_positions.h"
#include "python/display_elements.h"
#include "python/frameworks.h"
#include "python/model_internal.h"  // model_detail::property_getter
#include "python/module_api.h"
#include "python/project_fields.h"
#include "python/semantic_model.h"
#include "python/types_detail.h"

namespace stoker::python {

using Kind = AbstractType::Kind;
using namespace type_detail;

namespace {

bool is_pattern(std::string_view k) {
  return k == "pattern_list" || k == "tuple_pattern" || k == "list_pattern" || k == "expression_list" ||
         k == "tuple" || k == "list";
}

// The element of a tuple display that an unpacking assignment gives the binding's name
// (`indices, anch = [], []`), or null (no display, starred parts, nested targets).
Node unpacked_display_element(const Binding& b) {
  Node v = unparen(b.value);
  Node pattern = parent(b.target);
  if (b.unpack_index < 0 || (!is(v, "tuple") && !is(v, "expression_list") && !is(v, "list")) ||
      (!is(pattern, "pattern_list") && !is(pattern, "tuple_pattern") && !is(pattern, "list_pattern")) ||
      !is(parent(pattern), "assignment"))
    return Node{};
  for (Node c : named_children(pattern))
    if (is(c, "list_splat_pattern") || is(c, "list_splat")) return Node{};
  for (Node c : named_children(v))
    if (is(c, "list_splat")) return Node{};
  if (b.unpack_index >= static_cast<int>(named_count(v))) return Node{};
  return unparen(named_child(v, static_cast<uint32_t>(b.unpack_index)));
}

// The comprehension whose `for` clause binds the loop target, or null.
Node comprehension_of(const Binding& b) {
  if (b.kind != Binding::Kind::LoopTarget) return Node{};
  for (Node n = b.target; !is_null(n); n = parent(n)) {
    if (is(n, "for_in_clause")) return parent(n);
    if (is(n, "for_statement") || is(n, "block") || is(n, "module")) break;
  }
  return Node{};
}

}  // namespace

namespace type_detail {

// Comprehension variables are local to their comprehension (Python 3): a use inside one that
// binds the name sees that binding (the innermost; the model's lookup, by offsets, may miss it
// since the body comes before the `for` clause); a use outside sees none of them.
std::vector<const Binding*> visible(const SemanticModel& m, Node use) {
  std::string name(text(use, m.src()));
  const Binding* inner = nullptr;
  Node inner_comp{};
  // The outermost comprehension around the use (up to its statement): a binding of one that holds
  // the use has its target inside it. Checked by offsets first, so that a scope with thousands of
  // comprehension variables of one name costs two comparisons per binding.
  Node outer{};
  for (Node n = parent(use); !is_null(n) && !is(n, "block") && !is(n, "module"); n = parent(n))
    if (is_comprehension_kind(kind(n))) outer = n;
  const auto& scope = m.scopes()[m.scope_at(start(use))].bindings;
  if (auto it = scope.find(name); !is_null(outer) && it != scope.end())
    for (const Binding& b : it->second) {
      if (b.kind != Binding::Kind::LoopTarget || is_null(b.target) || start(b.target) < start(outer) ||
          start(b.target) >= end(outer))
        continue;
      Node comp = comprehension_of(b);
      if (is_null(comp) || !contains(comp, use)) continue;
      if (!inner || contains(inner_comp, comp)) {
        inner = &b;
        inner_comp = comp;
      }
    }
  if (inner) return {inner};
  std::vector<const Binding*> out;
  for (const Binding* b : m.lookup(name, start(use)))
    if (is_null(comprehension_of(*b))) out.push_back(b);
  return out;
}

}  // namespace type_detail

// The lattice and paths: types_lattice.cpp.

// ---------------------------------------------------------------------------------------
// Paths.

TypeInference::Path TypeInference::target_path(Node target) const {
  // Walk up from the identifier through the enclosing patterns, recording positions.
  int indices[8];
  int n = 0;
  Node t = target;
  for (int guard = 0; guard < 64; ++guard) {
    Node p = parent(t);
    if (is_null(p)) break;
    auto k = kind(p);
    if (k == "parenthesized_expression") {
      t = p;
      continue;
    }
    if (k == "list_splat_pattern" || k == "list_splat") {
      Path bad;
      bad.code = 0xF;
      return bad;
    }
    if (!is_pattern(k)) break;
    // A tuple on the right of an assignment is not a pattern: stop at the statement.
    int i = 0, found = -1;
    for (Node c : named_children(p)) {
      if (same(c, t)) found = i;
      ++i;
    }
    if (found < 0 || n == 8) {
      Path bad;
      bad.code = 0xF;
      return bad;
    }
    indices[n++] = found;
    t = p;
  }
  Path out;
  for (int i = n; i-- > 0;) out = out.append(Path::single(indices[i]));
  return out;
}

// ---------------------------------------------------------------------------------------
// Memoized entries.

AbstractType TypeInference::value(Node expr, Path path) const {
  expr = unparen(expr);
  if (is_null(expr) || !path.valid()) return AbstractType::unknown();
  Key key{expr.id, path.code};
  auto found = memo_.find(key);
  if (found != memo_.end()) return found->second.done ? found->second.type : AbstractType::bottom();
  SemanticModel::Step step(m_);
  if (!step) return AbstractType::unknown();  // too deep: unknown, not remembered
  memo_[key];                                 // in progress
  AbstractType t = value_uncached(expr, path);
  Entry& e = memo_[key];
  e.done = true;
  e.type = t;
  return t;
}

AbstractType TypeInference::iter(Node iterable, Path path) const {
  iterable = unparen(iterable);
  if (is_null(iterable) || !path.valid()) return AbstractType::unknown();
  Key key{iterable.id, path.code | (1ULL << 63)};
  auto found = memo_.find(key);
  if (found != memo_.end()) return found->second.done ? found->second.type : AbstractType::bottom();
  SemanticModel::Step step(m_);
  if (!step) return AbstractType::unknown();
  memo_[key];
  AbstractType t = iter_uncached(iterable, path);
  Entry& e = memo_[key];
  e.done = true;
  e.type = t;
  return t;
}

// ---------------------------------------------------------------------------------------
// Values.

// A binding's type at a use an `isinstance` test narrows (SemanticModel::isinstance_narrowing):
// a NumPy array or host scalar in the body of a host test; not a tensor past a conversion (a
// tensor type then contributes nothing, the binding's other types stay).
AbstractType TypeInference::narrowed(Node use, const Binding& b, AbstractType t) const {
  switch (m_.isinstance_narrowing(use, b)) {
    case SemanticModel::Narrowing::Host:
      return t.kind == Kind::HostScalar ? t : AbstractType::of(Kind::Host);
    case SemanticModel::Narrowing::NotTensor:
      return t.kind == Kind::Tensor ? AbstractType::bottom() : t;
    default: return t;
  }
}

AbstractType TypeInference::value_uncached(Node expr, Path path) const {
  auto k = kind(expr);
  if (path.size() == 0) return base_type(expr);
  if (k == "tuple" || k == "list" || k == "expression_list") {
    int i = path.at(0), n = 0;
    for (Node c : named_children(expr)) {
      if (is(c, "list_splat")) return AbstractType::unknown();
      if (n++ == i) return value(c, path.rest());
    }
    return AbstractType::unknown();
  }
  if (k == "identifier") {
    auto bindings = visible(m_, expr);
    if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return AbstractType::unknown();
    AbstractType t = AbstractType::bottom();
    for (const Binding* b : bindings) t = join(t, narrowed(expr, *b, binding_part(*b, path)));
    return t;
  }
  if (k == "conditional_expression") {
    auto parts = named_children(expr);
    if (parts.size() == 3) return join(value(parts[0], path), value(parts[2], path));
  }
  if (k == "call") {
    Node fn = unparen(field(expr, "function"));
    if (is(fn, "attribute")) {
      // `model, opt, loader = accelerator.prepare(model, opt, loader)`
      AbstractType recv = value(field(fn, "object"), Path{});
      std::string_view meth = text(field(fn, "attribute"), m_.src());
      if (recv.kind == Kind::Object && FrameworkTable::get().prepares(recv.framework, meth)) {
        int i = path.at(0), n = 0;
        for (Node a : named_children(field(expr, "arguments"))) {
          if (is(a, "keyword_argument")) continue;
          if (is(a, "list_splat")) return AbstractType::unknown();
          if (n++ == i) return element(prepared(a), path.size() - 1);
        }
        return AbstractType::unknown();
      }
    }
    // `waveform, sr = torchaudio.load(path)` (row `host-function` with a tuple result): a CPU
    // tensor and a host value, by position.
    if (const auto* host = FrameworkTable::get().host_function(m_.qualified_name(fn)); host && host->tuple) {
      size_t i = static_cast<size_t>(path.at(0));
      if (i >= host->parts.size()) return AbstractType::unknown();
      return element(host->parts[i] == FrameworkTable::HostPart::Tensor ? AbstractType::of(Kind::Tensor, TypeDevice::Cpu)
                                                                         : AbstractType::of(Kind::Host),
                     path.size() - 1);
    }
    // `train_iter, val_iter = BucketIterator.splits((train, val), ...)`: iterators of host batches.
    if (FrameworkTable::get().host_batch_tuple(m_.qualified_name(fn)))
      return element(host_batch_iterator(expr), path.size() - 1);
    // `model, optimizer = amp.initialize(model, optimizer, opt_level="O2")`: each element is the
    // positional argument at its position, as it was (a model keeps its class, so its methods
    // resolve). With one positional argument the call is that argument (call_type).
    if (FrameworkTable::get().passes_args(m_.qualified_name(fn))) {
      int i = path.at(0), n = 0, positional = 0;
      Node picked{};
      for (Node a : named_children(field(expr, "arguments"))) {
        if (is(a, "comment") || is(a, "keyword_argument")) continue;
        if (is(a, "list_splat") || is(a, "dictionary_splat")) return AbstractType::unknown();
        if (n++ == i) picked = a;
        ++positional;
      }
      if (positional < 2) return element(value(expr, Path{}), path.size());
      return is_null(picked) ? AbstractType::unknown() : value(picked, path.rest());
    }
    // `engine, optimizer, _, scheduler = deepspeed.initialize(model=model, ...)`: the engine is a
    // module on the GPU; the other elements are left to the taint.
    if (FrameworkTable::get().engine_tuple(m_.qualified_name(fn)))
      return path.at(0) == 0 ? element(AbstractType::of(Kind::Module, TypeDevice::Any), path.size() - 1)
                             : AbstractType::unknown();
    auto targets = m_.callees(expr);
    if (!targets.empty() && class_of_callee(fn) < 0 && value(fn, Path{}).kind != Kind::Module) {
      AbstractType t = AbstractType::bottom();
      bool any = false;
      for (int f : targets)
        for (Node r : m_.functions()[f].returns) {
          t = join(t, value(r, path));
          any = true;
        }
      // Instances of several project classes whose join lost the class (`model, criterion =
      // build_a(args)` or `build_b(args)` in an if/elif, returned: DAB-DETR's build_model_main):
      // the union of the returns' classes, as a function of another module's facts give it.
      if (any && t.klass == -1 && t.framework < 0 && (t.kind == Kind::Module || t.kind == Kind::Object)) {
        std::string classes;
        for (int f : targets)
          for (Node r : m_.functions()[f].returns) {
            if (classes.empty() && f != targets.front()) break;
            if (value(r, path).kind == Kind::None) continue;  // an optional instance
            std::string c = class_names(r, path);
            classes = c.empty() ? std::string{} : classes.empty() ? c : union_join(classes, c);
            if (classes.empty()) break;
          }
        if (int klass = classes.find('|') != std::string::npos ? class_by_canonical(classes) : -1; klass != -1) {
          AbstractType c = instance_type(klass, t.device);
          if (c.kind == t.kind) return c;
        }
      }
      if (any) return t;
    }
    // A function of another project module (or one of several: a registry lookup called): the
    // element its facts give for a returned tuple.
    if (targets.empty()) {
      std::vector<const FunctionFacts*> fs;
      if (const FunctionFacts* ef = ext_function(expr, fact::kReturnType)) fs.push_back(ef);
      else fs = ext_union_functions(expr, fact::kReturnType);
      size_t i = static_cast<size_t>(path.at(0));
      AbstractType e = AbstractType::bottom();
      std::string classes;
      bool all_classes = true;
      bool elementwise = !fs.empty();  // every callee returns tuple displays with an element i
      for (const FunctionFacts* ef : fs) {
        elementwise = elementwise && i < ef->ret_elems.size();
        if (i >= ef->ret_elems.size() || ef->ret_elems[i].first < 0) {
          e = AbstractType::unknown();
          break;
        }
        e = join(e, from_fact(ef->ret_elems[i].first, ef->ret_elems[i].second));
        const std::string c = i < ef->ret_elem_classes.size() ? ef->ret_elem_classes[i] : std::string{};
        classes = !all_classes || c.empty() ? std::string{} : classes.empty() ? c : union_join(classes, c);
        all_classes = !classes.empty();
      }
      if (!fs.empty() && e.kind != Kind::Unknown && e.kind != Kind::Bottom) {
        // An instance of a project class (or of one of a few): `model, criterion = build(args)`.
        if (path.size() == 1 && all_classes && (e.kind == Kind::Module || e.kind == Kind::Object))
          if (int klass = class_by_canonical(classes); klass != -1) {
            AbstractType c = instance_type(klass, e.device);
            if (c.kind == e.kind) return c;
          }
        return element(e, path.size() - 1);
      }
      // An element its types leave open (`Munch(real=l.item())` next to a CUDA loss): not the
      // whole tuple's type; the CUDA taint (FunctionFacts::ret_elem_cuda) decides.
      if (elementwise) return AbstractType::unknown();
    }
  }
  return element(value(expr, Path{}), path.size());
}

AbstractType TypeInference::base_type(Node expr) const {
  auto k = kind(expr);
  if (k == "integer" || k == "float" || k == "true" || k == "false" || k == "string" || k == "concatenated_string" ||
      k == "not_operator")
    return AbstractType::of(Kind::HostScalar);
  if (k == "none") return AbstractType::of(Kind::None);
  if (k == "tuple" || k == "list" || k == "expression_list" || k == "set") {
    TypeDevice d = TypeDevice::Cpu;
    bool tensors = true, any = false;
    for (Node c : named_children(expr)) {
      if (is(c, "comment")) continue;
      bool splat = is(c, "list_splat");
      if (splat) c = named_child(c, 0);
      AbstractType t = value(c, Path{});
      TypeDevice cd = t.is_host() ? TypeDevice::Cpu
                      : (t.kind == Kind::Tensor || t.kind == Kind::Module || t.kind == Kind::HostContainer)
                          ? t.device
                          : TypeDevice::Unresolved;
      d = join(d, cd);
      tensors = tensors && (splat ? t.kind == Kind::HostContainer && t.tensors : tensor_like(t));
      any = true;
    }
    AbstractType r = AbstractType::of(Kind::HostContainer, d);
    r.tensors = tensors && any;
    return r;
  }
  if (k == "dictionary") {
    TypeDevice d = TypeDevice::Cpu;
    for (Node c : named_children(expr)) {
      Node v = is(c, "pair") ? field(c, "value") : c;
      if (is(c, "dictionary_splat")) v = named_child(c, 0);
      AbstractType t = value(v, Path{});
      TypeDevice cd = t.is_host() ? TypeDevice::Cpu
                      : (t.kind == Kind::Tensor || t.kind == Kind::Module || t.kind == Kind::HostContainer)
                          ? t.device
                          : TypeDevice::Unresolved;
      d = join(d, cd);
    }
    return AbstractType::of(Kind::HostContainer, d);
  }
  if (k == "list_comprehension" || k == "set_comprehension" || k == "generator_expression" ||
      k == "dictionary_comprehension") {
    Node body = field(expr, "body");
    if (is(body, "pair")) body = field(body, "value");
    AbstractType t = value(body, Path{});
    TypeDevice d = t.is_host() ? TypeDevice::Cpu
                   : (t.kind == Kind::Tensor || t.kind == Kind::Module || t.kind == Kind::HostContainer)
                       ? t.device
                       : TypeDevice::Unresolved;
    AbstractType r = AbstractType::of(Kind::HostContainer, d);
    r.tensors = k != "dictionary_comprehension" && tensor_like(t);
    return r;
  }
  if (k == "boolean_operator") return join(value(field(expr, "left"), Path{}), value(field(expr, "right"), Path{}));
  if (k == "unary_operator") return value(field(expr, "argument"), Path{});
  if (k == "binary_operator") {
    std::string_view op = text(field(expr, "operator"), m_.src());
    if (op == "%" && m_.is_str_expr(field(expr, "left"))) return AbstractType::of(Kind::HostScalar);
    AbstractType l = value(field(expr, "left"), Path{}), r = value(field(expr, "right"), Path{});
    // `[x] * n`: the list repeated, elements as they were.
    if (op == "*" && l.kind == Kind::HostContainer && r.kind == Kind::HostScalar) return l;
    if (op == "*" && r.kind == Kind::HostContainer && l.kind == Kind::HostScalar) return r;
    return arith(l, r);
  }
  if (k == "comparison_operator") {
    std::string_view op = text(ts_node_child(expr, 1), m_.src());
    if (op.substr(0, 2) == "is" || op == "in" || op.substr(0, 3) == "not" || m_.compares_with_string(expr))
      return AbstractType::of(Kind::HostScalar);
    AbstractType t = AbstractType::of(Kind::HostScalar);
    for (Node c : named_children(expr)) t = arith(t, value(c, Path{}));
    return t;
  }
  if (k == "conditional_expression") {
    auto parts = named_children(expr);
    if (parts.size() != 3) return AbstractType::unknown();
    auto c = m_.constant(parts[1]);
    if (c && c->kind == Value::Kind::Bool) return value(c->b ? parts[0] : parts[2], Path{});
    return join(value(parts[0], Path{}), value(parts[2], Path{}));
  }
  if (k == "identifier") {
    if (text(expr, m_.src()) == "self") {
      AbstractType s = self_type(expr);
      if (s.kind != Kind::Unknown) return s;
    }
    auto bindings = visible(m_, expr);
    if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return AbstractType::unknown();
    AbstractType t = AbstractType::bottom();
    for (const Binding* b : bindings) {
      AbstractType bt = binding_part(*b, Path{});
      TypeDevice moved = moved_device(b);
      if (moved != TypeDevice::Unresolved && (bt.kind == Kind::Unknown || bt.kind == Kind::Bottom) &&
          in_place_batch(*b)) {
        // A loader's batch moved in place (`data.to(device)` of a PyG Batch or a BatchEncoding,
        // whose `to` moves their tensors and hands back the same object): its fields are tensors
        // on that device, not a module's members.
        bt = AbstractType::of(Kind::Tensor, moved);
      } else if (moved != TypeDevice::Unresolved && (bt.kind == Kind::Module || bt.kind == Kind::Unknown ||
                                                     bt.kind == Kind::Bottom)) {
        // Moved in place: only modules move in place, so the name holds a module.
        if (bt.kind != Kind::Module) bt = AbstractType::of(Kind::Module);
        bt.device = bt.device == TypeDevice::Unresolved || bt.device == TypeDevice::Cpu ? moved
                                                                                         : join(bt.device, moved);
      }
      t = join(t, narrowed(expr, *b, bt));
    }
    // A host batch whose items are replaced by device tensors under dict keys (`for key in batch:
    // batch[key] = batch[key].to(device)`, `batch["x"] = x.cuda()`): a container of those tensors
    // (another module's function handed it reads CUDA items), not the host batch it was.
    if ((t.kind == Kind::Tensor || t.kind == Kind::HostContainer) && t.device == TypeDevice::Cpu) {
      TypeDevice stored = keyed_device_stores(expr);
      if (stored == TypeDevice::Cuda || stored == TypeDevice::Any)
        return AbstractType::of(Kind::HostContainer, join(TypeDevice::Cpu, stored));
    }
    return t;
  }
  if (k == "attribute") return attribute_type(expr);
  if (k == "subscript") {
    AbstractType keyed_type = keyed_value(expr);
    if (keyed_type.kind != Kind::Unknown && keyed_type.kind != Kind::Bottom) return keyed_type;
    {
      // `dataloaders[split]` of a dict of loaders (a comprehension, stores `d[k] = DataLoader(...)`,
      // also handed to a parameter here: SemanticModel::subscripted_elements): a loader when every
      // element is one.
      auto elems = m_.subscripted_elements(expr);
      if (!elems.empty() && elems.size() <= SemanticModel::kMaxCandidates) {
        AbstractType et = AbstractType::bottom();
        for (Node e : elems) {
          et = join(et, value(e, Path{}));
          if (et.kind != Kind::Loader) break;
        }
        if (et.kind == Kind::Loader) return et;
      }
      // `dataloaders['train']` of a dict of loaders another module's function returns, whole or
      // as a tuple element (FunctionFacts::ret_loader_dicts, egnn's retrieve_dataloaders).
      if (elems.empty() && !m_.ext_loader_dict_item(expr).empty()) return AbstractType::of(Kind::Loader);
    }
    {
      std::string key;
      Node of = unparen(field(expr, "value"));
      if (is(of, "identifier") && string_literal_value(unparen(field(expr, "subscript")), m_.src(), key) &&
          collated_host_list(of, key))
        return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
    }
    Node obj = unparen(field(expr, "value"));
    // `data["info"]["num_objects"]` after `for k, v in data.items(): if type(v) != dict: data[k]
    // = v.cuda()`: an item read as a mapping (itself subscripted by a string, or its `.items()`,
    // `.keys()`, `.values()` called) is no tensor (a tensor takes no string index), so it is none
    // of the tensors stored under the container's keys: it is the element the container held
    // before them. A container of the host (a loader's batch) then gives a host mapping (XMem's
    // trainer; rec27a). Any other container: the reading below.
    if (is(obj, "identifier") && mapping_read(m_, expr)) {
      auto bindings = visible(m_, obj);
      // Every item store into the name in its scope puts a tensor there (a store of a dict, or
      // of a value of unknown type, may be what the read sees: the reading below).
      bool tensors_stored = true;
      for (Node sv : item_stores({m_.scope_at(start(obj)), std::string(text(obj, m_.src()))}))
        tensors_stored = tensors_stored && value(sv, Path{}).kind == Kind::Tensor;
      if (tensors_stored && !bindings.empty() && bindings.size() <= SemanticModel::kMaxCandidates) {
        AbstractType held = AbstractType::bottom();
        for (const Binding* b : bindings) held = join(held, narrowed(obj, *b, binding_part(*b, Path{})));
        if ((held.kind == Kind::Tensor || held.kind == Kind::HostContainer) && held.device == TypeDevice::Cpu) {
          AbstractType out = AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
          out.tensors = held.kind == Kind::Tensor || held.tensors;
          return out;
        }
      }
    }
    // `self.iters[i]` of a list the class builds by appending: an element (iter_uncached).
    if (is(obj, "attribute") && is(unparen(field(obj, "object")), "identifier") &&
        text(unparen(field(obj, "object")), m_.src()) == "self" && named_count(expr) == 2 &&
        !is(unparen(field(expr, "subscript")), "slice")) {
      AbstractType s = self_type(unparen(field(obj, "object")));
      if (s.klass >= 0 && m_.self_appends_.count(m_.classes()[s.klass].name + "." +
                                                 std::string(text(field(obj, "attribute"), m_.src())))) {
        AbstractType e = iter(obj, Path{});
        if (e.kind != Kind::Unknown && e.kind != Kind::Bottom) return e;
      }
    }
    // `models[1]` of a list or tuple display a name holds, unmutated (`models = [nerf_coarse,
    // nerf_fine]`: display_detail::unmutated_displays), or of a parameter: the element at that
    // index, read along the path as unpacking reads it (each call site's display here, another
    // module's `ArgFacts::elem_types`), not the join of every element (a container of CUDA
    // modules read as a CUDA tensor, whose call is no forward). For a parameter only a module or a
    // loader is taken (what the join loses); otherwise the reading below.
    if (is(obj, "identifier") && named_count(expr) == 2) {
      Node index = unparen(field(expr, "subscript"));
      std::string digits(is(index, "integer") ? text(index, m_.src()) : std::string_view{});
      bool small = !digits.empty() && digits.size() <= 1 && digits[0] >= '0' && digits[0] <= '9';
      if (small && static_cast<size_t>(digits[0] - '0') < display_detail::kMaxDisplayElements) {
        int i = digits[0] - '0';
        bool displays = !display_detail::unmutated_displays(m_, obj).empty();
        bool params = false;
        if (!displays) {
          auto bs = visible(m_, obj);
          params = !bs.empty() && bs.size() <= SemanticModel::kMaxCandidates;
          for (const Binding* b : bs) params = params && b->kind == Binding::Kind::Param;
        }
        if (displays || params) {
          AbstractType e = value(obj, Path::single(i));
          if (displays ? e.kind != Kind::Unknown && e.kind != Kind::Bottom
                       : e.kind == Kind::Module || e.kind == Kind::Loader)
            return e;
        }
      }
    }
    AbstractType v = value(field(expr, "value"), Path{});
    // `meta[key] = val.cuda()` in the scope: the items read back may be those CUDA tensors,
    // whatever the container was (a batch dict from the loader).
    if (is(obj, "identifier") && v.kind != Kind::Tensor) {
      TypeDevice stored = TypeDevice::Unresolved;
      // Through plain aliases (`reduced = losses` in some branch): the stores of the dict the
      // alias names, a few hops.
      std::vector<Node> names{obj};
      for (size_t i = 0; i < names.size() && i < 4; ++i) {
        for (Node sv : item_stores({m_.scope_at(start(names[i])), std::string(text(names[i], m_.src()))})) {
          if (contains(sv, expr)) continue;  // `d[k] = d[k].to(device)` reads the item before the store
          AbstractType st = value(sv, Path{});
          if (st.kind == Kind::Tensor && (st.device == TypeDevice::Cuda || st.device == TypeDevice::Any))
            stored = join(stored, st.device);
        }
        for (const Binding* b : visible(m_, names[i]))
          if (b->is_plain_assign() && is(unparen(b->value), "identifier") &&
              names.size() < 4)
            names.push_back(unparen(b->value));
      }
      if (stored != TypeDevice::Unresolved) return AbstractType::of(Kind::Tensor, stored);
    }
    switch (v.kind) {
      case Kind::Tensor:
      case Kind::Module: return v;
      case Kind::HostScalar:
      case Kind::Host: return v;
      case Kind::HostContainer:
        // `test_users[start:end]` of a list: a list of the same elements (NGCF's user batch).
        if (named_count(expr) == 2 && is(unparen(field(expr, "subscript")), "slice")) return v;
        return element(v, 1);
      case Kind::ModuleMember: return v;  // `model.model[-1]`: a submodule
      case Kind::Unknown: {
        // `anchors[a]` of a value not resolved here, indexed by one CUDA tensor (an index tensor
        // or a mask): a tensor gathered on that device (a CPU tensor or a list would fail).
        // Indexed by a comprehension's own variable (`[vocab.itos[tok] for tok in ids]`), it is a
        // table looked up once per element (a vocabulary's strings): a gather takes the index
        // tensor whole.
        Node index = unparen(field(expr, "subscript"));
        if (is(index, "identifier")) {
          auto bs = visible(m_, index);
          if (bs.size() == 1 && !is_null(comprehension_of(*bs[0]))) return AbstractType::unknown();
        }
        if (named_count(expr) == 2 && !is(index, "slice") && !is(index, "tuple")) {
          AbstractType it = value(index, Path{});
          if (it.kind == Kind::Tensor && (it.device == TypeDevice::Cuda || it.device == TypeDevice::Any)) return it;
        }
        return AbstractType::unknown();
      }
      default: return AbstractType::unknown();
    }
  }
  if (k == "call") return call_type(expr);
  return AbstractType::unknown();
}

AbstractType TypeInference::arith(const AbstractType& a, const AbstractType& b) const {
  auto scalar = [](const AbstractType& t) {
    return t.kind == Kind::HostScalar || t.kind == Kind::None || t.kind == Kind::Host;
  };
  if (a.kind == Kind::Bottom) return b;
  if (b.kind == Kind::Bottom) return a;
  if (scalar(a) && scalar(b)) return AbstractType::of(Kind::HostScalar);
  if (a.kind == Kind::Tensor && scalar(b)) return a;
  if (b.kind == Kind::Tensor && scalar(a)) return b;
  // A numpy array of host values with a number (`np.array(corrects) / querysz`, MAML's accuracies:
  // set AO miniimagenet_train.py:76): a host value computed (an array; `Host`, not a container
  // whose elements a store could still make CUDA tensors).
  auto host_array = [](const AbstractType& t) {
    return t.kind == Kind::HostContainer && t.device == TypeDevice::Cpu && !t.tensors;
  };
  if ((host_array(a) && scalar(b)) || (host_array(b) && scalar(a))) return AbstractType::of(Kind::Host);
  // A CUDA tensor combined with anything gives a CUDA tensor (or fails).
  auto on_cuda = [](const AbstractType& t) {
    return t.kind == Kind::Tensor && (t.device == TypeDevice::Cuda || t.device == TypeDevice::Any);
  };
  if (on_cuda(a) && b.kind == Kind::Unknown) return a;
  if (on_cuda(b) && a.kind == Kind::Unknown) return b;
  if (a.kind == Kind::Tensor && b.kind == Kind::Tensor) return AbstractType::of(Kind::Tensor, join(a.device, b.device));
  if (a.kind == Kind::HostContainer && b.kind == Kind::HostContainer)  // list + list
    return AbstractType::of(Kind::HostContainer, join(a.device, b.device));
  return AbstractType::unknown();
}

AbstractType TypeInference::binding_part(const Binding& b, Path path) const {
  switch (b.kind) {
    case Binding::Kind::Assign:
    case Binding::Kind::With: {
      Path own = b.unpack_index >= 0 ? target_path(b.target) : Path{};
      AbstractType t = value(b.value, own.append(path));
      // `values = []` then `values.append(x)`: a list that is appended CUDA tensors holds them.
      // Only when every append is a tensor or a host scalar (the container's type keeps no
      // element kinds: appended modules or tuples are left as the literal says). A list made
      // by repetition (`out = [None] * n`) or a comprehension (`[None for _ in x]`) is filled by
      // item stores (`out[i] = v`): those count
      // as appends, and one of an unknown kind leaves its elements unknown.
      // The literal the name receives: the whole value, or the element of a display unpacked
      // into names (`indices, anch = [], []`: each a list literal of its own).
      Node lit = b.unpack_index < 0 ? unparen(b.value) : unpacked_display_element(b);
      bool repeated = is(lit, "binary_operator") && text(field(lit, "operator"), m_.src()) == "*" &&
                      (is(unparen(field(lit, "left")), "list") || is(unparen(field(lit, "right")), "list"));
      if (b.kind == Binding::Kind::Assign && !is_null(lit) && path.size() == 0 && is(b.target, "identifier") &&
          (is(lit, "list") || is(lit, "list_comprehension") || is(lit, "dictionary") || repeated ||
           empty_mapping_call(m_, lit)) &&
          t.kind == Kind::HostContainer &&
          t.device == TypeDevice::Cpu) {
        std::pair<int, std::string> key{m_.scope_at(start(b.target)), std::string(text(b.target, m_.src()))};
        std::vector<AbstractType> added;
        // `indices.append((b, a, gj, gi))`: a tuple display of tensors counts as a tensor on the
        // join of their devices (its elements, read back by index or unpacking, are those tensors).
        auto appended = [&](Node arg) {
          Node a = unparen(arg);
          if ((is(a, "tuple") || is(a, "list")) && named_count(a) > 0) {
            bool tensors = true, first = true;
            TypeDevice d = TypeDevice::Cpu;
            for (Node c : named_children(a)) {
              AbstractType e = is(c, "list_splat") ? AbstractType::unknown() : value(c, Path{});
              if (e.kind != Kind::Tensor) {
                tensors = false;
                break;
              }
              d = first ? e.device : join(d, e.device);
              first = false;
            }
            if (tensors) return AbstractType::of(Kind::Tensor, d);
          }
          return value(arg, Path{});
        };
        auto found = m_.appends_.find(key);
        bool module_appended = false;
        if (found != m_.appends_.end())
          for (Node call : found->second) {
            Node fn = unparen(field(call, "function"));
            bool extend = text(field(fn, "attribute"), m_.src()) == "extend";
            Node arg = m_.argument(call, 0, "");
            module_appended = module_appended || (!is_null(arg) && m_.is_module_value(arg));
            added.push_back(is_null(arg) ? AbstractType::unknown()
                            : extend     ? element_of(arg)
                                         : appended(arg));
          }
        bool stored = false;
        for (Node v : item_stores(key)) {
          added.push_back(value(v, Path{}));
          stored = true;
        }
        // `losses[f"ce_{t}"] += loss / b` into a mapping (a `defaultdict(int)` whose missing keys
        // start at 0): the item becomes the sum, a tensor on the added value's device when that
        // is one. Only into an empty mapping (a list's items are stored by `=` above).
        // A host number added (`counts[k] += 1`, `meters[k] += 1` on CUDA tensors) leaves the item
        // what the other stores say, as `self.step += 1` leaves an attribute (types_members.cpp).
        if (is(lit, "dictionary") || empty_mapping_call(m_, lit))
          for (Node v : augmented_item_stores(key)) {
            stored = true;
            AbstractType a = value(v, Path{});
            if (a.kind == Kind::HostScalar) continue;
            added.push_back(arith(AbstractType::of(Kind::HostScalar), a));
          }
        TypeDevice d = t.device;
        bool typed = true, tensors = false;
        // Elements that may be tensors whose device the types do not tell (a tensor of an
        // unresolved device, a value of unknown type that is no module): with no element of
        // another kind (a module, a tuple, an object), the CUDA taint decides (`res.append(
        // correct_k.mul_(100.0 / n))` of a parameter only the callers' taint knows).
        bool open = false, closed = false;
        for (const AbstractType& e : added) {
          if (e.kind == Kind::Tensor && (e.device == TypeDevice::Cuda || e.device == TypeDevice::Any)) {
            tensors = true;
            d = join(d, e.device);
          } else if (e.kind == Kind::Tensor && e.device == TypeDevice::Cpu) {
            // a CPU tensor: a host element
          } else if (e.kind != Kind::HostScalar && e.kind != Kind::None && e.kind != Kind::Host) {
            typed = false;
            if ((e.kind == Kind::Tensor && e.device == TypeDevice::Unresolved) || e.kind == Kind::Unknown ||
                e.kind == Kind::Bottom)
              open = true;
            else
              closed = true;
          }
        }
        if (typed && tensors) t.device = d;
        // An empty list appended only CPU tensors, each read back (`x.cpu()`) or returned by a
        // function of this file (`landmarks.append(get_preds(h[i].cpu()))`), holds CPU tensors:
        // `torch.cat(landmarks)` is one (stargan-v2's FAN.get_landmark). Host factories appended
        // (`torch.ones(n) * i` next to CUDA index tensors, yolov7's loss) are left as they were.
        bool cpu_tensors = typed && !tensors && !added.empty() && is(lit, "list") && named_count(lit) == 0 &&
                           found != m_.appends_.end() && !stored;
        for (const AbstractType& e : added) cpu_tensors = cpu_tensors && e.kind == Kind::Tensor && e.device == TypeDevice::Cpu;
        // A CPU tensor drawn by `next()` (`image, text = next(it)` with `it` an iterator of a
        // DataLoader of host batches), or a batch of a loop over such a loader: host data the
        // program reads, as a read-back is (set H deep-text-recognition-benchmark's `torch.cat` of the balanced
        // batch's parts). Every binding of the name so.
        auto host_batch = [&](Node a) {
          a = unparen(a);
          if (!is(a, "identifier")) return false;
          auto bs = visible(m_, a);
          if (bs.empty() || bs.size() > SemanticModel::kMaxCandidates) return false;
          for (const Binding* ab : bs) {
            if (ab->kind == Binding::Kind::LoopTarget) {
              if (!is_host_loader_iteration(ab->value)) return false;
              continue;
            }
            Node v = ab->kind == Binding::Kind::Assign ? unparen(ab->value) : Node{};
            if (!is(v, "call") || m_.callee_name(v) != "builtins.next") return false;
            AbstractType drawn = binding_part(*ab, Path{});
            if (drawn.kind != Kind::Tensor || drawn.device != TypeDevice::Cpu) return false;
          }
          return true;
        };
        auto read_back = [&](Node a) {  // `x.cpu()`, `f(...)` of this file (or a name bound only to them)
          if (host_batch(a)) return true;
          std::vector<Node> exprs{unparen(a)};
          if (is(exprs[0], "identifier")) {
            auto vs = m_.values(exprs[0]);
            exprs.clear();
            for (const auto& v : vs) exprs.push_back(v.kind == Value::Kind::Expr ? unparen(v.expr) : Node{});
          }
          for (Node e : exprs) {
            Node ef = is(e, "call") ? unparen(field(e, "function")) : Node{};
            bool cpu = is(ef, "attribute") && text(field(ef, "attribute"), m_.src()) == "cpu";
            if (!cpu && (!is(e, "call") || m_.callees(e).empty())) return false;
          }
          return !exprs.empty();
        };
        if (cpu_tensors)
          for (Node call : found->second) cpu_tensors = cpu_tensors && read_back(m_.argument(call, 0, ""));
        if (cpu_tensors) t.tensors = true;
        if (!typed && (stored || repeated || is(lit, "dictionary") || empty_mapping_call(m_, lit)))
          t.device = TypeDevice::Unresolved;
        if (!typed && open && !closed && is(lit, "list") && named_count(lit) == 0 && !module_appended)
          t.device = TypeDevice::Unresolved;
      }
      return t;
    }
    case Binding::Kind::LoopTarget: {
      Path own = b.unpack_index >= 0 ? target_path(b.target) : Path{};
      return iter(b.value, own.append(path));
    }
    case Binding::Kind::AugAssign: {
      if (path.size()) return AbstractType::unknown();
      AbstractType l = value(field(b.value, "left"), Path{}), r = value(field(b.value, "right"), Path{});
      // `texts += text` on a list (set H deep-text-recognition-benchmark's balanced batch): still
      // a list, extended by the other's elements (a host container's, a CPU tensor's rows).
      if (l.kind == Kind::HostContainer && text(field(b.value, "operator"), m_.src()) == "+=" &&
          ((r.kind == Kind::HostContainer && r.device == l.device) ||
           (r.kind == Kind::Tensor && r.device == TypeDevice::Cpu && l.device == TypeDevice::Cpu)))
        return l;
      return arith(l, r);
    }
    case Binding::Kind::Param: return param_type(b.function, b.param_index, path, false);
    case Binding::Kind::Def:
    case Binding::Kind::Class: return path.size() ? AbstractType::unknown() : AbstractType::of(Kind::Host);
    default: return AbstractType::unknown();
  }
}

AbstractType TypeInference::self_type(Node identifier) const {
  for (const Binding* b : m_.lookup("self", start(identifier))) {
    if (b->kind != Binding::Kind::Param || b->param_index != 0) return AbstractType::unknown();
    const Function& f = m_.functions()[b->function];
    if (f.klass < 0) return AbstractType::unknown();
    AbstractType t = instance_of(f.klass);
    if (t.kind == Kind::Module) t.device = TypeDevice::Unresolved;  // wherever the instance was moved
    return t;
  }
  return AbstractType::unknown();
}

namespace {

// The host type an annotation declares, read from its text: `int`, `float`, `str`, `bool`,
// `bytes`, `None` are host scalars; `List[str]`, `list[int]`, `Tuple[int, ...]`, `Dict[str, float]`,
// `Sequence[...]` (typing-prefixed or not) of host types are host containers; `Optional[X]` and
// `Union[...]`/`X | Y` join. Anything else (a tensor, a class, a string annotation): unknown.
struct AnnotationReader {
  std::string_view s;
  size_t i = 0;
  int depth = 0;
  void spaces() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\\')) ++i;
  }
  std::string_view name() {
    spaces();
    size_t b = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '.')) ++i;
    return s.substr(b, i - b);
  }
  // One type, `|` unions included.
  AbstractType type() {
    AbstractType t = single();
    spaces();
    while (i < s.size() && s[i] == '|' && t.kind != AbstractType::Kind::Unknown) {
      ++i;
      t = join(t, single());
      spaces();
    }
    return t;
  }
  AbstractType single() {
    using K = AbstractType::Kind;
    if (++depth > 16) return AbstractType::unknown();
    spaces();
    if (i + 3 <= s.size() && s.substr(i, 3) == "...") {
      i += 3;
      return AbstractType::bottom();
    }
    std::string_view n = name();
    if (n.substr(0, 7) == "typing.") n = n.substr(7);
    spaces();
    std::vector<AbstractType> args;
    if (i < s.size() && s[i] == '[') {
      ++i;
      for (;;) {
        args.push_back(type());
        spaces();
        if (i < s.size() && s[i] == ',') {
          ++i;
          continue;
        }
        if (i < s.size() && s[i] == ']') {
          ++i;
          break;
        }
        return AbstractType::unknown();
      }
    }
    if (n == "int" || n == "float" || n == "str" || n == "bool" || n == "bytes")
      return args.empty() ? AbstractType::of(K::HostScalar) : AbstractType::unknown();
    if (n == "None") return AbstractType::of(K::None);
    if (n == "Optional" || n == "Union") {
      AbstractType t = AbstractType::bottom();
      for (const auto& a : args) t = join(t, a);
      return args.empty() ? AbstractType::unknown() : t;
    }
    static const std::set<std::string_view> containers = {
        "List", "list", "Tuple", "tuple", "Dict", "dict", "Set", "set", "FrozenSet", "frozenset",
        "Sequence", "Iterable", "Mapping", "MutableMapping", "MutableSequence", "Collection"};
    if (!containers.count(n) || args.empty()) return AbstractType::unknown();
    for (const auto& a : args)
      if (!(a.kind == K::Bottom || a.is_host())) return AbstractType::unknown();
    return AbstractType::of(K::HostContainer, TypeDevice::Cpu);
  }
};

}  // namespace

AbstractType TypeInference::annotated_type(int fi, int pi) const {
  const Param& p = m_.functions()[fi].params[pi];
  Node annotation = field(p.node, "type");
  if (is_null(annotation) || p.is_variadic) return AbstractType::unknown();
  AnnotationReader r{text(annotation, m_.src())};
  AbstractType t = r.type();
  r.spaces();
  if (r.i != r.s.size() || t.kind == Kind::Bottom) return AbstractType::unknown();
  return t;
}

AbstractType TypeInference::param_type(int fi, int pi, Path path, bool iterate) const {
  // A parameter annotated with a host type (`prompts: List[str]`, `step: int`) holds host
  // values, whatever the callers' CUDA taint says.
  AbstractType declared = annotated_type(fi, pi);
  if (declared.kind != Kind::Unknown && declared.is_host()) {
    if (iterate) return declared.kind == Kind::HostContainer ? AbstractType::of(Kind::Host) : AbstractType::unknown();
    return element(declared, path.size());
  }
  AbstractType t = param_type_from_sites(fi, pi, path, iterate);
  if (t.kind != Kind::Unknown || (!iterate && path.size())) return t;
  // `criterion: torch.nn.Module`: annotated as a module, on a device the callers do not tell.
  const Param& p = m_.functions()[fi].params[pi];
  Node annotation = field(p.node, "type");
  if (is_null(annotation) || p.is_variadic) return t;
  if (named_count(annotation) == 1) annotation = named_child(annotation, 0);
  const std::string& q = m_.qualified_name(annotation);
  if (iterate && !is(annotation, "identifier") && !is(annotation, "attribute")) return t;
  if (q == "torch.nn.Module" || q == "torch.nn.modules.module.Module") return iterate ? t : AbstractType::of(Kind::Module);
  // `accelerator: Accelerator`: annotated with a framework class (data/frameworks.txt), an
  // instance of it, as a construction of that class is (its device, its `prepare`, `gather`
  // and `clip_grad_norm_` as the table says).
  if (!q.empty() && !iterate)
    if (int fw = FrameworkTable::get().object_class(q); fw >= 0) {
      AbstractType inst = AbstractType::of(Kind::Object);
      inst.framework = fw;
      return inst;
    }
  // `model: CFM`: annotated with a project class, of this module or of another (no call site
  // analyzed tells: the script building it is outside the analysis), an instance of it.
  if (is(annotation, "identifier") || is(annotation, "attribute")) {
    int klass = -1;
    if (is(annotation, "identifier")) {
      auto named = m_.classes_by_name_.find(std::string(text(annotation, m_.src())));
      if (named != m_.classes_by_name_.end() && named->second.size() == 1 &&
          m_.scopes_[m_.classes()[named->second[0]].scope].parent == 0)
        klass = named->second[0];
    }
    if (klass == -1 && m_.facts_ && !q.empty()) klass = ext_class_index(q);
    if (klass != -1) {
      AbstractType inst = instance_type(klass, TypeDevice::Unresolved);
      // Iterated (`for batch in self.train_iterator` of `train_iterator: dataloader.DataLoader`):
      // what iterating an instance of the class yields (its `__iter__`, here or by its facts).
      if (iterate) return inst.kind == Kind::Object ? instance_iter(inst, path) : t;
      if (inst.kind == Kind::Module || inst.kind == Kind::Object) return inst;
    }
  }
  return t;
}

AbstractType TypeInference::param_type_from_sites(int fi, int pi, Path path, bool iterate) const {
  const Function& fn = m_.functions()[fi];
  const Param& p = fn.params[pi];
  if (p.is_variadic) return AbstractType::unknown();
  if (pi == 0 && bound_params(fn) == 1) {
    if (p.name != "self") return AbstractType::unknown();
    AbstractType t = instance_of(fn.klass);
    if (t.kind == Kind::Module) t.device = TypeDevice::Unresolved;
    return iterate ? AbstractType::unknown() : element(t, path.size());
  }
  // Step hooks receive their arguments from the framework: those its table row names are on the
  // device it trains on (the HF Trainer's `model` and prepared `inputs`); for the others (a
  // Lightning module's batch) the model's CUDA taint decides.
  if (const StepHook* hook = m_.step_hook(fi)) {
    for (const auto& [name, arg] : hook->params) {
      if (name != p.name) continue;
      if (iterate) return AbstractType::unknown();
      AbstractType t = arg == StepHook::Arg::Module ? AbstractType::of(Kind::Module, TypeDevice::Any)
                                                     : AbstractType::of(Kind::HostContainer, TypeDevice::Any);
      return element(t, path.size());
    }
    return AbstractType::unknown();
  }
  int position = pi - bound_params(fn);
  std::vector<Node> sites;
  for (int ci : m_.callers(fi)) sites.push_back(m_.calls()[ci].call);
  if (fn.klass >= 0 && fn.name == "__init__")
    for (Node c : constructor_calls(fn.klass)) sites.push_back(c);
  AbstractType t = AbstractType::bottom();
  // Call sites in other modules of the project (their joined facts): first the callers' own
  // abstract types (`to_cpu(x)` passed on is a CPU tensor, a host flag a host value), joined as
  // the call sites here are; where those leave it open, a module or a tensor that may be on
  // CUDA, a CUDA device, from the callers' CUDA taint. That taint is read only for a parameter
  // without a default: it is a weaker answer than a default's type (`put_on_device=False`
  // stays a host value).
  const ArgFacts* ext = m_.ext_param(fi, pi, fact::kCuda | fact::kModule | fact::kDevice | fact::kType);
  if (ext && !ext->passed && !ext->defaulted) ext = nullptr;
  AbstractType typed = ext && ext->passed ? from_fact(ext->type_kind, ext->type_device) : AbstractType::unknown();
  // An instance of one framework class at every passing site (an Accelerator handed to a
  // trainer of another module): its `prepare` and device as a construction of it here would be.
  if (typed.kind == Kind::Object && !ext->framework.empty() && ext->framework != "?")
    typed.framework = FrameworkTable::get().object_class(ext->framework);
  if (typed.kind == Kind::Bottom) {
    typed = AbstractType::unknown();
    // Every passing site of another module is in a branch that never runs (its arguments type
    // nothing: summary.cpp's arg_facts): the sites here decide, where there are some.
    if (ext && ext->passed && !ext->defaulted && !sites.empty()) ext = nullptr;
  }
  bool plain = is_null(p.default_value);
  if (!plain && typed.kind == Kind::Unknown) ext = nullptr;  // the default decides, as without facts
  // The type those facts give a passed value: a module or a tensor that may be on CUDA, a CUDA
  // device; anything else is unknown here.
  auto passed_type = [](const ArgFacts& a) {
    if (a.module && a.cuda) return AbstractType::of(Kind::Module, TypeDevice::Any);
    if (a.device_cuda) return AbstractType::of(Kind::Device, TypeDevice::Cuda);
    if (a.tensor && !a.untyped) return AbstractType::of(Kind::Tensor, TypeDevice::Any);
    return AbstractType::unknown();
  };
  bool default_used = sites.empty() && !ext;
  // An instance of a project class that every call site of another module passes (its class is
  // the callers' type, not their taint: read whatever the default).
  AbstractType passed_instance = AbstractType::unknown();
  if (m_.facts_)
    if (const ArgFacts* c = m_.ext_param(fi, pi, fact::kArgClass | fact::kCuda | fact::kModule); c && c->passed) {
      int klass = class_by_canonical(c->klass);
      if (klass != -1) passed_instance = instance_type(klass, c->module && c->cuda ? TypeDevice::Any : TypeDevice::Unresolved);
      if (passed_instance.kind != Kind::Unknown && !ext) {
        if (iterate) return AbstractType::unknown();
        t = join(t, element(passed_instance, path.size()));
        default_used = default_used || !is_null(p.default_value);
      }
    }
  // A parameter with a default that call sites of other modules pass CUDA values (`labels=None`
  // given CUDA targets): not the default's type alone. Without such evidence the default's type
  // stands (`ignore_index=255` passed a config value stays a host int).
  if (m_.facts_ && !ext && !is_null(p.default_value) && passed_instance.kind == Kind::Unknown)
    if (const ArgFacts* d = m_.ext_param(fi, pi, fact::kCuda | fact::kModule | fact::kDevice);
        d && d->passed && (d->cuda || d->tensor || d->module || d->device_cuda)) {
      AbstractType e = passed_type(*d);
      if (iterate || e.kind == Kind::Unknown) return AbstractType::unknown();
      t = join(t, element(e, path.size()));
    }
  if (ext) {
    if (ext->defaulted) default_used = true;
    if (ext->passed) {
      AbstractType e = passed_instance.kind != Kind::Unknown ? passed_instance : typed;
      if (e.kind == Kind::Module && e.device == TypeDevice::Unresolved && ext->cuda) e.device = TypeDevice::Any;
      if (e.kind == Kind::Device && ext->device_cuda) e.device = TypeDevice::Cuda;
      if (e.kind == Kind::Unknown) e = passed_type(*ext);
      // An element of the tuple display every passing site gives (`dn_args=(targets, n)`): its
      // own type, not every element's (a host int beside a list of CUDA tensors).
      size_t depth = (iterate ? 1 : 0) + path.size();
      if (!iterate && path.size() && !ext->elems_mixed && static_cast<size_t>(path.at(0)) < ext->elem_types.size()) {
        const auto& [k, d] = ext->elem_types[static_cast<size_t>(path.at(0))];
        e = from_fact(k, d);
        depth = path.size() - 1;
        if (e.kind == Kind::Bottom) e = AbstractType::unknown();
      }
      if (e.kind == Kind::Unknown) return AbstractType::unknown();
      t = join(t, element(e, depth));
      if (t.kind == Kind::Unknown) return t;
    }
  }
  // A call in a branch that never runs passes nothing (its names' bindings there reach nothing),
  // as another module's such call does (summary.cpp's arg_facts): pretrain-gnns' skipgram-only
  // `cycle_index(len(substruct_rep), i+1)` beside the cbow call (set AR). Where every site here is
  // such a call, they are read as before.
  size_t live = 0;
  std::vector<char> dead(sites.size(), 0);
  for (size_t i = 0; i < sites.size(); ++i) {
    dead[i] = m_.guards_dead(model_detail::branch_guards(sites[i])) ? 1 : 0;
    live += dead[i] ? 0 : 1;
  }
  for (size_t i = 0; i < sites.size(); ++i) {
    Node call = sites[i];
    if (dead[i] && live) continue;
    Node a = m_.argument(call, p.keyword_only ? -1 : position, p.name);
    if (is_null(a)) {
      if (SemanticModel::has_splat_argument(call)) return AbstractType::unknown();
      default_used = true;
      continue;
    }
    t = join(t, iterate ? iter(a, path) : value(a, path));
    if (t.kind == Kind::Unknown) return t;
  }
  if (default_used) {
    if (is_null(p.default_value)) return AbstractType::unknown();
    t = join(t, iterate ? iter(p.default_value, path) : value(p.default_value, path));
  }
  return t;
}

// An iterator of host batches (data/frameworks.txt `host-batches`): its batches are on the
// host unless the construction names a device (torchtext's `device=`), then where that is.
AbstractType TypeInference::host_batch_iterator(Node call) const {
  Node dev = m_.argument(call, -1, "device");
  if (is_null(dev)) return AbstractType::of(Kind::Loader, TypeDevice::Cpu);
  // torchtext's legacy convention (0.3 and before): `-1` is the CPU and `None` the current GPU.
  // A device that may be -1 marks a program written for it: `None if torch.cuda.is_available()
  // else -1` may be CUDA (set AD pytorch-seq2seq), `-1` alone is the host (not an ordinal).
  bool minus_one = false, none = false, other = false;
  for (const auto& v : m_.values(dev)) {
    if (v.kind == Value::Kind::Int && v.i == -1) minus_one = true;
    else if (v.kind == Value::Kind::None) none = true;
    else other = true;
  }
  if (minus_one && !other) return AbstractType::of(Kind::Loader, none ? TypeDevice::Any : TypeDevice::Cpu);
  switch (m_.device_kind(dev)) {
    case SemanticModel::DeviceKind::Cpu: return AbstractType::of(Kind::Loader, TypeDevice::Cpu);
    case SemanticModel::DeviceKind::Cuda: return AbstractType::of(Kind::Loader, TypeDevice::Any);
    default: return AbstractType::of(Kind::Loader);
  }
}

// A collate_fn that builds its batch on the host: a function of this file (named, or the first
// argument of `functools.partial(f, ...)`), or the `__call__` of an instance of a plain class of
// this file, that moves nothing to CUDA and calls no `torch.cuda`
// function, nor does a function of this file it calls (one level: one that calls further
// functions here is not followed). Set AJ End-to-end-ASR-Pytorch's `collect_audio_batch`
// (`torch.LongTensor`, `pad_sequence`): its batches stay host batches for TX001.
static bool host_collate(const SemanticModel& m_, Node collate) {
  collate = unparen(collate);
  // `collect_tr = partial(collect_audio_batch, ...)` then `collate_fn=collect_tr`: its one binding.
  if (is(collate, "identifier")) {
    auto named = visible(m_, collate);
    if (named.size() == 1 && named[0]->is_plain_assign())
      collate = unparen(named[0]->value);
  }
  int f = -1;
  if (is(collate, "call")) {
    const std::string& q = m_.callee_name(collate);
    if (q != "functools.partial") {
      // `_AlignCollate = AlignCollate(imgH=...)`: an instance of a plain class of this file (no
      // base but object) whose `__call__` builds the batch (set H deep-text-recognition-benchmark's
      // dataset.py, resizing PIL images into `torch.cat` of CPU tensors).
      Node fn = unparen(field(collate, "function"));
      auto cb = is(fn, "identifier") ? visible(m_, fn) : std::vector<const Binding*>{};
      if (cb.size() != 1 || cb[0]->kind != Binding::Kind::Class) return false;
      for (const auto& c : m_.classes()) {
        if (!same(c.node, cb[0]->value)) continue;
        for (const auto& b : c.bases)
          if (b != "object" && b != "builtins.object") return false;
        if (auto it = c.methods.find("__call__"); it != c.methods.end()) f = it->second;
      }
      if (f < 0) return false;
    } else {
      collate = unparen(m_.argument(collate, 0, ""));
    }
  }
  if (f < 0) {
    if (!is(collate, "identifier")) return false;
    auto bs = visible(m_, collate);
    if (bs.size() != 1 || bs[0]->kind != Binding::Kind::Def || bs[0]->function < 0) return false;
    f = bs[0]->function;
    if (m_.functions()[f].klass >= 0) return false;
  }
  // Whether the calls inside `g` (nested functions and lambdas included) do CUDA work; the
  // functions of this file they call, one level down when `follow`.
  std::function<bool(int, bool)> host = [&](int g, bool follow) {
    Node body = m_.functions()[g].node;
    for (const auto& cs : m_.calls()) {
      if (!contains(body, cs.call)) continue;
      const std::string& cq = m_.callee_name(cs.call);
      if (m_.is_move_to_cuda(cs.call) || starts_with(cq, "torch.cuda.")) return false;
      for (int h : m_.callees(cs.call))
        if (h != g && (!follow || !host(h, false))) return false;
    }
    return true;
  };
  return host(f, true);
}

AbstractType TypeInference::loader_type(Node call) const {
  AbstractType t = AbstractType::of(Kind::Loader);
  // torch's DataLoader with its default collate over a dataset of host data yields CPU tensors:
  // the batch stays on the host until the loop moves it. Not when a collate_fn is given, the
  // dataset may hold CUDA tensors (`TensorDataset(x.cuda())`), or a dataset class of this file
  // does CUDA work in `__getitem__`/`__iter__` (DL005); a dataset of another module is taken
  // to be a host one, the default.
  const std::string& q = m_.callee_name(call);
  if (q != "torch.utils.data.DataLoader" && q != "torch.utils.data.dataloader.DataLoader") return t;
  auto kw = m_.keyword_arguments(call);
  if (!kw.complete) return t;
  Node collate = kw.find("collate_fn");
  // A collate_fn of Python values only (SemanticModel::collate_python_values) builds no tensor:
  // its batches are host values.
  if (!is_null(collate) && !is(unparen(collate), "none") && !host_collate(m_, collate) &&
      !m_.collate_python_values(collate))
    return t;
  for (Node a : named_children(field(call, "arguments")))
    if (is(a, "list_splat")) return t;
  if (!is_null(m_.argument(call, 6, ""))) return t;  // a positional collate_fn
  Node ds = m_.argument(call, 0, "dataset");
  if (is_null(ds) || m_.is_cuda(ds)) return t;
  if (!dataset_cuda_built_) {
    dataset_cuda_built_ = true;
    for (const auto& cs : m_.calls()) {
      if (cs.caller < 0) continue;
      const Function& fn = m_.functions()[cs.caller];
      if (fn.klass < 0 || (fn.name != "__getitem__" && fn.name != "__iter__" && fn.name != "__next__" &&
                           fn.name != "__getitems__"))
        continue;
      const std::string& cq = m_.callee_name(cs.call);
      if (m_.is_move_to_cuda(cs.call) || (starts_with(cq, "torch.cuda.") && cq != "torch.cuda.is_available"))
        dataset_cuda_ = true;
    }
  }
  if (dataset_cuda_) return t;
  t.device = TypeDevice::Cpu;
  return t;
}

const std::vector<std::pair<Node, bool>>& TypeInference::yields(int function) const {
  auto found = yields_.find(function);
  if (found != yields_.end()) return found->second;
  std::vector<std::pair<Node, bool>> out;
  Node fn = m_.functions()[function].node;
  // A function whose text holds no `yield` has none: no walk.
  std::vector<Node> stack;
  if (text(fn, m_.src()).find("yield") != std::string_view::npos) stack.push_back(field(fn, "body"));
  while (!stack.empty() && out.size() <= SemanticModel::kMaxCandidates) {
    Node n = stack.back();
    stack.pop_back();
    auto k = kind(n);
    if (k == "function_definition" || k == "class_definition" || k == "lambda") continue;
    if (k == "yield") {
      bool from = false;
      for (Node c : all_children(n)) from = from || kind(c) == "from";
      out.push_back({named_count(n) ? named_child(n, 0) : Node{}, from});
      continue;
    }
    for (Node c : named_children(n)) stack.push_back(c);
  }
  return yields_.emplace(function, std::move(out)).first->second;
}

AbstractType TypeInference::call_iter(int function, Path path, bool& any) const {
  AbstractType t = AbstractType::bottom();
  const auto& ys = yields(function);
  for (const auto& [y, from] : ys) {
    t = join(t, from ? iter(y, path) : value(y, path));
    any = true;
  }
  if (ys.empty())
    for (Node r : m_.functions()[function].returns) {
      t = join(t, iter(r, path));
      any = true;
    }
  return t;
}

TypeDevice TypeInference::moved_device(const Binding* b) const {
  if (!moves_built_) {
    moves_built_ = true;
    const auto& table = FrameworkTable::get();
    auto move_binding = [&](Node obj, TypeDevice d) {
      auto bindings = m_.lookup(text(obj, m_.src()), start(obj));
      if (bindings.size() > SemanticModel::kMaxCandidates) return;
      for (const Binding* mb : bindings) {
        auto [it, fresh] = moves_.try_emplace(mb, d);
        if (!fresh) it->second = join(it->second, d);
      }
    };
    for (const auto& cs : m_.calls()) {
      Node call = cs.call;
      // A framework object built on a module moves it to its device (`Trainer(model=model)`):
      // the framework class itself (the keyword or the first argument), or a project subclass of
      // it (the keyword only: its own __init__ may order its parameters otherwise).
      if (m_.uses_cuda()) {
        Node fn = unparen(field(call, "function"));
        int fw = framework_class_of_callee(fn);
        bool direct = fw >= 0;
        if (!direct && (is(fn, "identifier") || is(fn, "attribute"))) {  // a project class (here or elsewhere)
          std::string_view name = is(fn, "identifier") ? text(fn, m_.src()) : text(field(fn, "attribute"), m_.src());
          int local = m_.classes_by_name_.count(std::string(name)) ? class_of_callee(fn) : -1;
          if (local >= 0) {
            fw = framework_base(local);
          } else if (int ext = ext_instance_class(call); ext <= -2) {
            const FunctionFacts* f = ext_class(ext);
            if (f && !f->framework.empty()) fw = table.object_class(f->framework);
          }
        }
        std::string_view keyword = table.moved_module_keyword(fw);
        if (!keyword.empty()) {
          Node arg = unparen(m_.argument(call, direct ? 0 : -1, keyword));
          if (is(arg, "identifier")) move_binding(arg, TypeDevice::Any);
        }
      }
      // A statement of the move, or of a chain of nn.Module's methods that hand the module back
      // moved in place (`waveglow.cuda().eval()`, `model.eval().to(device)`).
      auto self_returning = [&](Node c) {
        Node f = unparen(field(c, "function"));
        if (!is(f, "attribute")) return false;
        std::string_view m = text(field(f, "attribute"), m_.src());
        return m == "eval" || m == "train" || module_move_or_cast(m);
      };
      Node stmt_call = call;
      for (int depth = 0; depth < 4; ++depth) {
        Node attr = parent(stmt_call);
        if (!is(attr, "attribute") || !is(parent(attr), "call") || !self_returning(parent(attr))) break;
        stmt_call = parent(attr);
      }
      if (!is(parent(stmt_call), "expression_statement")) continue;
      Node fn = unparen(field(call, "function"));
      if (!is(fn, "attribute")) continue;
      std::string_view meth = text(field(fn, "attribute"), m_.src());
      if (meth != "to" && meth != "cuda") continue;
      Node obj = unparen(field(fn, "object"));
      for (int depth = 0; depth < 4 && is(obj, "call") && self_returning(obj); ++depth)
        obj = unparen(field(unparen(field(obj, "function")), "object"));
      if (!is(obj, "identifier")) continue;
      TypeDevice d = TypeDevice::Cuda;
      if (meth == "to") {
        Node dev = m_.argument(call, 0, "device");
        if (is_null(dev)) continue;
        auto kind = m_.device_kind(dev);
        if (kind == SemanticModel::DeviceKind::Cpu || kind == SemanticModel::DeviceKind::Other) d = TypeDevice::Cpu;
        else if (kind == SemanticModel::DeviceKind::Unknown) d = TypeDevice::Any;
        else if (kind == SemanticModel::DeviceKind::NotDevice) continue;
      }
      if (!m_.uses_cuda() && d != TypeDevice::Cpu) continue;
      move_binding(obj, d);
    }
  }
  auto it = moves_.find(b);
  return it == moves_.end() ? TypeDevice::Unresolved : it->second;
}

bool TypeInference::is_loader_iteration(Node iterable) const { return loader_iteration(iterable, false); }

bool TypeInference::in_place_batch(const Binding& b) const {
  if (b.kind != Binding::Kind::LoopTarget || b.unpack_index >= 0 || is_null(b.value) ||
      !is(parent(b.value), "for_statement") || !loader_iteration(b.value, false))
    return false;
  return !loader_iteration(b.value, false, true);
}

bool TypeInference::is_host_loader_iteration(Node iterable) const { return loader_iteration(iterable, true); }

bool TypeInference::loader_iteration(Node iterable, bool host, bool device) const {
  Node e = unparen(iterable);
  for (int guard = 0; guard < 8 && is(e, "call"); ++guard) {
    Node fn = unparen(field(e, "function"));
    std::string_view name = is(fn, "attribute") ? text(field(fn, "attribute"), m_.src()) : text(fn, m_.src());
    if (name != "enumerate" && name != "tqdm" && name != "iter" && name != "islice" && name != "zip" &&
        name != "trange")
      break;
    Node first = m_.argument(e, 0, "");
    if (is_null(first)) return false;
    e = unparen(first);
  }
  AbstractType t = value(e, Path{});
  if (device) return t.kind == Kind::Loader && t.device == TypeDevice::Cuda;
  return t.kind == Kind::Loader && (!host || t.device == TypeDevice::Cpu);
}

// ---------------------------------------------------------------------------------------
// Iteration.

AbstractType TypeInference::iter_uncached(Node it, Path path) const {
  auto k = kind(it);
  if (k == "call") {
    Node fn = unparen(field(it, "function"));
    const std::string& q = m_.qualified_name(fn);
    std::string_view name = is(fn, "attribute") ? text(field(fn, "attribute"), m_.src()) : text(fn, m_.src());
    auto positional = [&](int i) {
      int n = 0;
      for (Node a : named_children(field(it, "arguments"))) {
        if (is(a, "keyword_argument")) continue;
        if (is(a, "list_splat")) return Node{};
        if (n++ == i) return a;
      }
      return Node{};
    };
    if (q == "builtins.enumerate") {
      if (path.size() == 0) return AbstractType::unknown();
      if (path.at(0) == 0) return AbstractType::of(Kind::HostScalar);
      if (path.at(0) == 1) return iter(positional(0), path.rest());
      return AbstractType::unknown();
    }
    if (q == "builtins.zip") {
      if (path.size() == 0) return AbstractType::unknown();
      return iter(positional(path.at(0)), path.rest());
    }
    if (q == "builtins.range") return AbstractType::of(Kind::HostScalar);
    // Iterating a mapping yields its keys (names, indices), whatever the values hold.
    if (q == "builtins.dict" || q == "collections.OrderedDict" || q == "collections.defaultdict")
      return AbstractType::of(Kind::Host);
    if (q == "builtins.iter" || q == "builtins.reversed" || q == "builtins.sorted" || q == "builtins.list" ||
        q == "builtins.tuple" || name == "tqdm" || name == "trange" || name == "islice" || q == "itertools.islice" ||
        q == "itertools.cycle")
      return iter(positional(0), path);
    // `it = loader.__iter__()`, Python's `iter(loader)` spelled out (set AD pytorch-seq2seq's
    // supervised_trainer.py, over a torchtext iterator): what the receiver yields.
    if (is(fn, "attribute") && name == "__iter__" && named_count(field(it, "arguments")) == 0)
      return iter(field(fn, "object"), path);
    // apex's `amp.master_params(optimizer)` (data/frameworks.txt `device-params`): the stepped
    // parameters, on the GPU (glow-tts's `clip_grad_value_(amp.master_params(opt), 5)`, set AY).
    if (FrameworkTable::get().device_params(q) && m_.uses_cuda()) return AbstractType::of(Kind::Tensor, TypeDevice::Cuda);
    if (is(fn, "attribute") && (name == "parameters" || name == "buffers" || name == "named_parameters" ||
                                name == "named_buffers")) {
      // A module's parameters live on its device; their names are strings.
      AbstractType mod = value(field(fn, "object"), Path{});
      if (mod.kind != Kind::Module) return AbstractType::unknown();
      bool named = name.substr(0, 6) == "named_";
      if (named && path.size() == 0) return AbstractType::unknown();
      if (named && path.at(0) == 0) return AbstractType::of(Kind::HostScalar);
      return AbstractType::of(Kind::Tensor, mod.device);
    }
    if (is(fn, "attribute") && (name == "modules" || name == "children" || name == "named_modules" ||
                                name == "named_children")) {
      // A module's submodules live on its device; their names are strings (DDP's
      // `for module_name, module in self.module.named_modules()`, then `f"{module_name}.{p}"`).
      AbstractType mod = value(field(fn, "object"), Path{});
      if (mod.kind != Kind::Module && mod.kind != Kind::ModuleMember) return AbstractType::unknown();
      bool named = name.substr(0, 6) == "named_";
      if (named && path.size() == 0) return AbstractType::unknown();
      if (named && path.at(0) == 0) return AbstractType::of(Kind::HostScalar);
      AbstractType sub = AbstractType::of(Kind::Module, mod.device);
      return element(sub, (named ? path.rest() : path).size());
    }
    if (is(fn, "attribute") && (name == "items" || name == "values" || name == "keys")) {
      // Keys are host values (names, indices) whatever the dict holds.
      if (name == "keys" || (name == "items" && path.size() && path.at(0) == 0)) return AbstractType::of(Kind::Host);
      AbstractType d = value(field(fn, "object"), Path{});
      if (d.kind == Kind::Tensor && d.device != TypeDevice::Unresolved) {
        // What a module returned, read as a dict (`loss_dict.items()` of a criterion's output):
        // its values live on the module's device.
        if (name == "items" && path.size() == 0) return AbstractType::unknown();
        return AbstractType::of(Kind::Tensor, d.device);
      }
      if (d.kind != Kind::HostContainer) return AbstractType::unknown();
      if (name == "values") return element(d, 1 + path.size());
      if (path.size() == 0) return AbstractType::unknown();
      return element(d, path.size());
    }
    // A generator of another project module (a function or a method of its class): what its
    // facts say it yields.
    if (m_.callees(it).empty())
      if (const FunctionFacts* ef = ext_function(it, fact::kReturnType | fact::kParams)) {
        int pi = ef->yields_param;
        if (pi >= 0 && static_cast<size_t>(pi) < ef->params.size()) {
          // The elements of the argument it is handed, at this call.
          const ParamSummary& p = ef->params[static_cast<size_t>(pi)];
          Node a = m_.argument(it, p.keyword_only ? -1 : pi - (ef->method ? 1 : 0), p.name);
          if (!is_null(a)) return iter(a, path);
        }
        if (ef->yield_kind >= 0) return element(from_fact(ef->yield_kind, ef->yield_device), path.size());
      }
    // A generator function (or method) defined here: what it yields.
    auto targets = m_.callees(it);
    // One that hands out the elements of a parameter (`def cycle(dl): ... for data in dl: yield
    // data`, passed_through): the elements of the argument this call hands it, not the join of
    // every call's (a prepared loader's device batches beside an unprepared one's, set BA
    // audiolm-pytorch).
    if (targets.size() == 1 && class_of_callee(fn) < 0)
      if (int p = passed_through(targets[0]); p >= 0)
        if (Node a = site_argument(targets[0], p, it); !is_null(a) && !m_.unresolved_argument(a)) return iter(a, path);
    if (!targets.empty() && class_of_callee(fn) < 0) {
      AbstractType t = AbstractType::bottom();
      bool any = false;
      for (int f : targets) t = join(t, call_iter(f, path, any));
      if (any) return t;
    }
  }
  if (k == "dictionary" || k == "dictionary_comprehension") return AbstractType::of(Kind::Host);  // its keys
  if (k == "tuple" || k == "list") {
    // `for loader in (train_loader, val_loader)`: each element.
    AbstractType t = AbstractType::bottom();
    for (Node c : named_children(it)) {
      if (is(c, "list_splat")) return AbstractType::unknown();
      t = join(t, value(c, path));
    }
    return t;
  }
  if (k == "identifier") {
    auto bindings = visible(m_, it);
    if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return AbstractType::unknown();
    AbstractType t = AbstractType::bottom();
    for (const Binding* b : bindings) {
      AbstractType bt;
      if ((b->kind == Binding::Kind::Assign || b->kind == Binding::Kind::With) && b->unpack_index < 0) {
        bt = iter(b->value, path);
        // `losses = []` then `losses.append(loss)` per element: what the appends and item stores
        // put there, as binding_part types the list (`sum(losses) / len(losses)` of CUDA losses
        // is one, not the host number the empty display's no elements joined with `len()` gave:
        // FragmentVC's model_fn, set BH). Only where that type says more than "host elements":
        // a device that may be CUDA, one it cannot tell (its elements unknown), or CPU tensors.
        Node lit = unparen(b->value);
        if (b->kind == Binding::Kind::Assign && is(b->target, "identifier") && is(lit, "list") && named_count(lit) == 0) {
          AbstractType whole = binding_part(*b, Path{});
          if (whole.kind == Kind::HostContainer && (whole.device != TypeDevice::Cpu || whole.tensors))
            bt = join(bt, element(whole, 1 + path.size()));
        }
      } else if (b->kind == Binding::Kind::Param)
        bt = param_type(b->function, b->param_index, path, true);
      else
        bt = element(binding_part(*b, Path{}), 1 + path.size());
      t = join(t, bt);
      if (t.kind == Kind::Unknown) break;
    }
    return t;
  }
  if (k == "attribute") {
    // `for x in self.iterable` in a wrapper class: what __init__ stored there.
    Node obj = unparen(field(it, "object"));
    if (is(obj, "identifier") && text(obj, m_.src()) == "self") {
      AbstractType s = self_type(obj);
      if (s.klass >= 0) {
        std::string key = m_.classes()[s.klass].name + "." + std::string(text(field(it, "attribute"), m_.src()));
        auto stores = self_stores(key);
        // A list the class builds by appending (`self.iters = []`, then `self.iters.append(
        // iter(loader))` per dataset: set H deep-text-recognition-benchmark's
        // Batch_Balanced_Dataset): its elements are what the appends and the item stores
        // (`self.iters[i] = iter(...)`) put there. Every store of the attribute an empty list
        // display; none in a nested scope of another class. An `extend`/`insert`, an augmented
        // store or any other store of the name leaves it as before. O(class size) per question.
        if (auto appended = m_.self_appends_.find(key); appended != m_.self_appends_.end() && !stores.empty()) {
          bool empty_lists = true;
          for (const auto& [v, p] : stores)
            empty_lists = empty_lists && p.size() == 0 && !(p.code & kPreparedStore) && is(unparen(v), "list") &&
                          named_count(unparen(v)) == 0;
          std::string_view attr = text(field(it, "attribute"), m_.src());
          std::vector<Node> items;
          bool other = false;
          if (empty_lists)
            for_each_identifier(m_.classes()[s.klass].node, false, [&](Node id) {
              Node a = parent(id);
              if (text(id, m_.src()) != "self" || !is(a, "attribute") || !same(unparen(field(a, "object")), id) ||
                  text(field(a, "attribute"), m_.src()) != attr)
                return true;
              Node up = parent(a);
              if (is(up, "attribute")) {  // `self.iters.append(...)`: only appends
                std::string_view meth = text(field(up, "attribute"), m_.src());
                if (meth != "append" && meth != "__len__" && meth != "__getitem__") other = true;
              } else if (is(up, "subscript") && same(unparen(field(up, "value")), a)) {
                Node st = parent(up);
                if (is(st, "assignment") && same(unparen(field(st, "left")), up)) items.push_back(field(st, "right"));
                else if (is(st, "augmented_assignment") && same(unparen(field(st, "left")), up)) other = true;
              } else if (is(up, "augmented_assignment") || is(up, "pattern_list") || is(up, "tuple_pattern")) {
                other = true;
              }
              return !other;
            });
          if (empty_lists && !other) {
            // An iterator of a loader (`iter(loader)`) yields what the loader does: typed as it.
            auto element_type = [&](Node e) {
              e = unparen(e);
              if (is_null(e)) return AbstractType::unknown();
              if (is(e, "call") && m_.callee_name(e) == "builtins.iter" && path.size() == 0) {
                AbstractType l = value(m_.argument(e, 0, ""), Path{});
                if (l.kind == Kind::Loader) return l;
              }
              return value(e, path);
            };
            AbstractType t = AbstractType::bottom();
            for (Node call : appended->second) t = join(t, element_type(m_.argument(call, 0, "")));
            for (Node v : items) t = join(t, element_type(v));
            return t;
          }
        }
        if (!stores.empty()) {
          AbstractType t = AbstractType::bottom();
          for (const auto& [v, p] : stores)
            t = join(t, p.size() == 0 && !(p.code & kPreparedStore) ? iter(v, path)
                                                                     : element(store_type(v, p), 1 + path.size()));
          return t;
        }
      }
    }
  }
  AbstractType v = value(it, Path{});
  if (v.kind == Kind::Object && v.klass != -1) return instance_iter(v, path);
  return element(v, 1 + path.size());
}

AbstractType TypeInference::instance_iter(const AbstractType& v, Path path) const {
  if (v.klass >= 0) return class_iter(v.klass, path);
  // A class of another project module: what its facts say iterating an instance yields.
  const FunctionFacts* f = v.klass <= -2 ? ext_class(v.klass) : nullptr;
  if (!f || f->iter_kind < 0) return AbstractType::unknown();
  return element(from_fact(f->iter_kind, f->iter_device), path.size());
}

}  // namespace stoker::python
