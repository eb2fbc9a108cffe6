// Devices: whether the program uses CUDA, device expressions, which values may be CUDA
// tensors (and CUDA masks). Batch values are in model_batches.cpp, isinstance narrowing in
// model_narrowing.cpp.
#include "python/lambdas.h"
#include "python/call_positions.h"
#include "python/model_internal.h"
#include "python/host_items.h"

#include <cctype>
#include <functional>
#include <map>

#include "python/frameworks.h"
#include "python/types.h"
#include "python/types_detail.h"

namespace stoker::python {

using namespace model_detail;

namespace model_detail {
// Does the subscript store write into a list its scope binds only as None placeholders
// (model_batches.cpp)?
bool none_placeholder_list(const SemanticModel& m, Node store);
}  // namespace model_detail

// ---------------------------------------------------------------------------------------
// CUDA.

void SemanticModel::compute_cuda() {
  // Evidence that the program uses CUDA. Evidence in a branch that a flag switches off is none
  // (rules.md: a guard whose condition resolves to False silences what it guards): a script whose
  // every `.cuda()` sits under `if args.use_cuda:` with the argparse default 0 is a CPU program. The
  // branch conditions are read only for evidence found (O(depth) each, their truth memoized).
  bool guards_read = false, dead_evidence = false;
  auto live = [&](Node n) {
    for (const auto& [cond, need] : branch_guards(n)) {
      guards_read = true;
      auto truth = guard_truth(cond);
      if (!truth || *truth == need) continue;
      // A switch: the condition is a flag (`args.use_cuda`, `not cpu`), not a comparison
      // (`args.dataset == "speechcommands"` guards a branch of the program, whose other branch
      // hands its loaders to a CUDA trainer of another module: set O ast run.py).
      Node c = unparen(cond);
      if (is(c, "not_operator")) c = unparen(field(c, "argument"));
      if (is(c, "identifier") || is(c, "attribute")) {
        dead_evidence = true;
        return false;
      }
    }
    return true;
  };
  std::vector<Node> stack{root_};
  bool lightning_cpu = false, lightning_module = false;
  for (size_t c = 0; c < classes_.size(); ++c) {
    bool l = is_lightning_module(static_cast<int>(c));
    lightning_class_.push_back(l);
    lightning_module |= l;
    // A subclass of a framework class that trains on CUDA (`class CLTrainer(Trainer)`).
    for (const auto& b : classes_[c].bases)
      if (FrameworkTable::get().uses_cuda(b)) uses_cuda_ = true;
  }
  while (!stack.empty() && !uses_cuda_) {
    Node n = stack.back();
    stack.pop_back();
    auto k = kind(n);
    if (k == "string") {
      std::string s;
      bool complete = true;  // `f"cuda:{rank}"` too
      if (string_literal_prefix(n, src_, s, complete) &&
          (complete ? s == "cuda" || starts_with(s, "cuda:") : starts_with(s, "cuda:")) && live(n))
        uses_cuda_ = true;
      continue;
    }
    if (k == "call") {
      Node fn = unparen(field(n, "function"));
      bool evidence = is(fn, "attribute") && text(field(fn, "attribute")) == "cuda";
      std::string q = qualified_name(fn);
      evidence = evidence || starts_with(q, "torch.cuda.") || starts_with(q, "torch.accelerator.");
      evidence = evidence || FrameworkTable::get().uses_cuda(q);  // Accelerate, Fabric, HF Trainer
      // A model loaded onto the GPUs (`from_pretrained(name, device_map="auto")`), written out.
      if (std::string_view kw = FrameworkTable::get().placement_keyword(q); !kw.empty() && !evidence) {
        std::string placed;
        if (string_literal_value(argument(n, -1, kw), src_, placed) &&
            (placed == "auto" || placed == "balanced" || placed == "balanced_low_0" || placed == "sequential"))
          evidence = true;
      }
      if (evidence && live(n)) uses_cuda_ = true;
      if (last_part(q) == "Trainer") {
        std::string acc;
        if (string_literal_value(argument(n, -1, "accelerator"), src_, acc) && acc == "cpu") lightning_cpu = true;
      }
    }
    for_each_named_child(n, [&](Node c) {  // no vector per node
      stack.push_back(c);
      return true;
    });
  }
  if (lightning_module && !lightning_cpu) {
    uses_cuda_ = true;
    lightning_gpu_ = true;
  }
  // A program whose only evidence is switched off by a flag (every `.cuda()` under `if
  // args.use_cuda:`, default 0) chose its device: the constructor does not take the project's word that it uses
  // CUDA when nothing calls into it (a script: then that word comes only from what its callees
  // return for other callers' CUDA arguments, Conv-TasNet's `cal_loss` for solver.py).
  if (!uses_cuda_ && dead_evidence) memo_[kCudaSwitchedOff] = 1;
  // What the guards' values computed meanwhile saw a program not yet known to use CUDA (the
  // device type tests, the types): computed again from here on.
  if (guards_read) {
    clear_memos();
    types_ = std::make_unique<TypeInference>(*this);
  }
}

bool SemanticModel::default_device_moved() const {
  return memo("default_device_moved", [&] {
    return static_cast<int>(src_.find("set_default_device") != std::string_view::npos ||
                            src_.find("set_default_tensor_type") != std::string_view::npos);
  }) != 0;
}

SemanticModel::DeviceKind SemanticModel::device_kind(Node expr) const { return device_kind_impl(expr); }

SemanticModel::DeviceKind SemanticModel::device_kind_impl(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return DeviceKind::Unknown;
  auto cached = device_cache_.find(expr.id);
  if (cached != device_cache_.end())
    return cached->second ? static_cast<DeviceKind>(cached->second - 1) : DeviceKind::Unknown;
  Step step(*this);
  if (!step) return DeviceKind::Unknown;
  device_cache_[expr.id] = 0;  // in progress: a cycle answers unknown
  DeviceKind d = device_kind_uncached(expr);
  device_cache_[expr.id] = static_cast<char>(static_cast<int>(d) + 1);
  return d;
}

SemanticModel::DeviceKind SemanticModel::device_string_kind(std::string_view s, bool prefix_only) {
  // The device type is what precedes the index (`"xpu:0"`); an f-string's literal start names
  // it only when the ':' is in it (`f"xpu:{rank}"`, not `f"{kind}:0"` nor `f"cu{x}"`).
  size_t colon = s.find(':');
  if (prefix_only && colon == std::string_view::npos) return DeviceKind::Unknown;
  std::string_view type = s.substr(0, colon);
  if (type == "cuda") return DeviceKind::Cuda;
  if (type == "cpu") return DeviceKind::Cpu;
  // torch's other device types (c10/core/DeviceType.h): not CUDA. ("hip" is not among them:
  // ROCm builds of torch name their devices "cuda".)
  static const std::set<std::string, std::less<>> others = {
      "mps", "xpu", "hpu", "npu", "meta", "xla", "ipu", "mtia", "maia", "lazy", "vulkan", "mkldnn",
      "opengl", "opencl", "ideep", "ve", "fpga", "privateuseone"};
  if (others.count(type)) return DeviceKind::Other;
  return DeviceKind::Unknown;
}

namespace {
// The function `map(f, xs)` applies: a function of this file with one parameter (not a method,
// no decorator, no default, nothing variadic) that every value of the name `f` is; else -1.
int mapped_function(const SemanticModel& m, Node f) {
  f = unparen(f);
  if (!is(f, "identifier")) return -1;
  int out = -1;
  for (const auto& v : m.values(f)) {
    if (v.kind != Value::Kind::Expr || !is(v.expr, "function_definition")) return -1;
    int fi = m.function_of(v.expr);
    if (fi < 0 || (out >= 0 && fi != out)) return -1;
    const Function& fn = m.functions()[fi];
    if (fn.klass >= 0 || fn.other_decorators || fn.params.size() != 1 || fn.params[0].is_variadic ||
        !is_null(fn.params[0].default_value) || fn.returns.empty())
      return -1;
    out = fi;
  }
  return out;
}

// `box_utils.hard_negative_mining(...)`: a function reached through a name every binding of which
// is an import (a module: `from ..utils import box_utils`, `import utils as u`), which project mode
// resolves to another module's function as it does a name imported directly.
bool module_attribute_call(const SemanticModel& m, Node fn) {
  if (!is(fn, "attribute")) return false;
  Node obj = unparen(field(fn, "object"));
  if (!is(obj, "identifier")) return false;
  return all_bindings_of_kind(m.lookup(m.text(obj), start(obj)), Binding::Kind::Import);
}

// `self.device = 'cpu'` written as a statement of the block that holds the use's statement,
// before it (straight-line code: GRU4REC's `except: self.device = 'cpu'; h0 = torch.zeros(...)
// .to(self.device)`, set BJ lib/model.py:104): the value the attribute holds there, whatever
// the class's other stores hold. A statement between them that mentions the attribute in any
// other way (a call on it, a store in a nested block) leaves it open; at most 8 statements back,
// not across a function, class or lambda. Null when there is none.
Node preceding_attribute_store(const SemanticModel& m, Node expr) {
  Node st = expr;
  for (int guard = 0; guard < 64; ++guard) {
    Node p = parent(st);
    if (is_null(p) || is(p, "function_definition") || is(p, "class_definition") || is(p, "lambda")) return Node{};
    if (is(p, "block")) break;
    st = p;
  }
  Node blk = parent(st);
  if (!is(blk, "block")) return Node{};
  std::string_view name = m.text(expr);
  auto stmts = named_children(blk);
  size_t at = stmts.size();
  for (size_t i = 0; i < stmts.size(); ++i)
    if (same(stmts[i], st)) at = i;
  for (size_t back = 0; at < stmts.size() && back < 8 && back < at; ++back) {
    Node s = stmts[at - 1 - back];
    if (m.text(s).find(name) == std::string_view::npos) continue;
    Node a = is(s, "expression_statement") && named_count(s) == 1 ? named_child(s, 0) : Node{};
    if (is(a, "assignment") && m.text(unparen(field(a, "left"))) == name && !is_null(field(a, "right")) &&
        m.text(field(a, "right")).find(name) == std::string_view::npos)
      return field(a, "right");
    return Node{};
  }
  return Node{};
}

SemanticModel::DeviceKind ext_devkind(int k) {
  using DK = SemanticModel::DeviceKind;
  return k == 1 ? DK::Cpu : k == 2 ? DK::Cuda : k == 3 ? DK::Other : DK::Unknown;
}
}  // namespace

SemanticModel::DeviceKind SemanticModel::device_kind_uncached(Node expr) const {
  auto from_string = [](const std::string& s) { return device_string_kind(s); };
  auto k = kind(expr);
  if (k == "string" || k == "concatenated_string") {
    std::string s;
    bool complete = true;
    return string_literal_prefix(expr, src_, s, complete) ? device_string_kind(s, !complete) : DeviceKind::Unknown;
  }
  if (k == "integer") return DeviceKind::Cuda;
  if (k == "attribute") {
    if (Node stored = preceding_attribute_store(*this, expr); !is_null(stored)) return device_kind_impl(stored);
    std::string q = qualified_name(expr);
    if (starts_with(q, "torch.")) {
      static const std::set<std::string, std::less<>> dtypes = {
          "float", "float16", "float32", "float64", "half", "double", "bfloat16", "int", "int8", "int16",
          "int32", "int64", "long", "uint8", "bool", "short", "complex64", "complex128", "cfloat", "float8_e4m3fn"};
      if (dtypes.count(last_part(q))) return DeviceKind::NotDevice;
    }
    if (text(field(expr, "attribute")) == "device" && is_cuda(field(expr, "object"))) return DeviceKind::Cuda;
    AbstractType t = types_->type_of(expr);  // `accelerator.device`, `fabric.device`, a CPU tensor's
    if (t.kind == AbstractType::Kind::Device && (t.device == TypeDevice::Cuda || t.device == TypeDevice::Any))
      return DeviceKind::Cuda;  // may be CUDA
    if (t.kind == AbstractType::Kind::Device && t.device == TypeDevice::Cpu) return DeviceKind::Cpu;
  }
  if (k == "conditional_expression") {
    auto parts = named_children(expr);
    if (parts.size() == 3) {
      // A switch read as an attribute (`"cuda" if args.cuda else "cpu"`) does not pick an arm by
      // its default: the device may be CUDA (rules.md, Clarifications: `torch.device("cuda" if
      // ... else "cpu")` counts as "may be CUDA"; set N pytorch-soft-actor-critic, `--cuda`
      // store_true). A resolved comparison still does (`"cpu" if backend == "gloo" else "cuda"`
      // of the gloo group: set D SlowFast, YOLOX).
      Node test = unparen(parts[1]);
      auto c = is(test, "attribute") ? std::optional<Value>{} : constant(test);
      if (c && c->kind == Value::Kind::Bool) return device_kind_impl(c->b ? parts[0] : parts[2]);
      auto a = device_kind_impl(parts[0]), b = device_kind_impl(parts[2]);
      if (a == DeviceKind::Cuda || b == DeviceKind::Cuda) return DeviceKind::Cuda;  // may be CUDA
      if (a == b) return a;
      auto not_cuda = [](DeviceKind d) { return d == DeviceKind::Cpu || d == DeviceKind::Other; };
      if (not_cuda(a) && not_cuda(b)) return DeviceKind::Other;  // the host or another device
      return DeviceKind::Unknown;
    }
  }
  if (k == "call") {
    std::string q = callee_name(expr);
    if (q == "torch.device") return device_kind_impl(argument(expr, 0, "type"));
    // `torch.xpu.current_device()`: an ordinal of that backend's devices.
    if (starts_with(q, "torch.") && last_part(q) == "current_device") {
      std::string_view backend = std::string_view(q).substr(6);
      backend = backend.substr(0, backend.find('.'));
      if (backend != "current_device") return device_string_kind(backend);
    }
    if (starts_with(q, "torch.accelerator.")) return DeviceKind::Cuda;
    // `'cuda:{}'.format(gpu)`: the literal's type; `self._acquire_device()` of this module (sets R,
    // AA `Exp_Basic`): what its returns name (devkind_of).
    if (Node fn = unparen(field(expr, "function")); is(fn, "attribute") && text(field(fn, "attribute")) == "format")
      if (Node lit = unparen(field(fn, "object")); is(lit, "string")) return device_kind_impl(lit);
    std::vector<Node> returns;
    for (int f : callees(expr)) returns.insert(returns.end(), functions_[f].returns.begin(), functions_[f].returns.end());
    if (int dk = returns.empty() || returns.size() > kMaxCandidates ? 0 : devkind_of(returns); dk == 1 || dk == 2)
      return dk == 2 ? DeviceKind::Cuda : DeviceKind::Cpu;
    // A project function of another module that returns a device (`utils.get_device()`).
    if (facts_)
      if (const FunctionFacts* ext = ext_callee_of(expr, fact::kDevKind); ext && ext->devkind)
        return ext_devkind(ext->devkind);
    return DeviceKind::Unknown;
  }
  // `cfg["device"]` of a dict of settings another module hands (dict_args.cpp) reads its values.
  if (k == "identifier" || k == "attribute" || (k == "subscript" && param_dict_arg(expr))) {
    if (is_cuda(expr)) return DeviceKind::NotDevice;  // a tensor: `.to(other)`
    if (k == "identifier" && ext_param_flag(expr, fact::kDevice)) return DeviceKind::Cuda;
    bool any_cuda = false, all_cpu = true, all_other = true, any = false;
    for (const auto& v : values(expr)) {
      any = true;
      DeviceKind d = DeviceKind::Unknown;
      if (v.kind == Value::Kind::Str) d = from_string(v.s);
      else if (v.kind == Value::Kind::Int) d = DeviceKind::Cuda;
      else if (v.kind == Value::Kind::Expr && !same(v.expr, expr)) d = device_kind_impl(v.expr);
      if (d == DeviceKind::NotDevice) return d;
      any_cuda |= d == DeviceKind::Cuda;
      all_cpu &= d == DeviceKind::Cpu;
      all_other &= d == DeviceKind::Cpu || d == DeviceKind::Other;
    }
    if (any_cuda) return DeviceKind::Cuda;  // may be CUDA: the join
    if (any && all_cpu) return DeviceKind::Cpu;
    if (any && all_other) return DeviceKind::Other;
    // A module-level name of another module bound to a device (`from config import DEVICE`,
    // `cfg.DEVICE` with `import config as cfg`).
    if (const FunctionFacts* ext = module_attribute(expr, fact::kDevKind); ext && ext->devkind)
      return ext_devkind(ext->devkind);
    // `conf.device` of a settings object another function fills (`conf = get_config()`, or a
    // parameter handed one: InsightFace's Learner, set AN): what its stores name.
    if (k == "attribute")
      for (const auto& [attr, kind] : object_attr_devices(field(expr, "object")))
        if (attr == text(field(expr, "attribute"))) return ext_devkind(kind);
    // A name unpacked from another module's function that returns a device as an element of a
    // tuple (`device, ids = prepare_device(n)`: FunctionFacts::ret_elems): may be CUDA, or the CPU.
    if (k == "identifier" && facts_) {
      AbstractType t = types_->type_of(expr);
      if (t.kind == AbstractType::Kind::Device && t.device == TypeDevice::Cuda) return DeviceKind::Cuda;
      if (t.kind == AbstractType::Kind::Device && t.device == TypeDevice::Cpu) return DeviceKind::Cpu;
    }
  }
  return DeviceKind::Unknown;
}

std::vector<std::pair<std::string, int>> SemanticModel::object_attr_devices(Node obj, int depth) const {
  std::vector<std::pair<std::string, int>> out;
  obj = unparen(obj);
  // A call handed on as it is (`train(parse_cfg(path))`, tdmpc's train.py): what the returns of the
  // called function hold, as for a name bound to the call below (another module's function by its
  // FunctionFacts::ret_attr_devices, a function of this file by its returns).
  if (depth <= 4 && is(obj, "call")) {
    std::map<std::string, int> found;
    auto add = [&](const std::vector<std::pair<std::string, int>>& held) {
      for (const auto& [attr, k] : held) {
        if (k <= 0) continue;
        auto [it, fresh] = found.try_emplace(attr, k);
        if (!fresh && it->second != k) it->second = it->second == 2 || k == 2 ? 2 : -1;
      }
    };
    if (const FunctionFacts* ext = ext_callee_of(obj, fact::kDevKind)) add(ext->ret_attr_devices);
    for (int f : callees(obj))
      if (functions_[f].name != "__init__")
        for (Node r : functions_[f].returns) add(object_attr_devices(r, depth + 1));
    for (const auto& [attr, k] : found)
      if (k > 0 && out.size() < kMaxAttrDevices) out.push_back({attr, k});
    return out;
  }
  if (depth > 4 || !is(obj, "identifier") || text(obj) == "self") return out;
  if (auto cached = attr_devices_cache_.find(obj.id); cached != attr_devices_cache_.end()) return cached->second;
  auto bindings = lookup(text(obj), start(obj));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return out;
  Step step(*this);
  if (!step) return out;
  attr_devices_cache_[obj.id];  // in progress: a cycle answers nothing
  std::map<std::string, int> found;  // attribute -> device kind; -1 differing devices, none CUDA
  auto add = [&](const std::string& attr, int k) {
    if (k <= 0) return;
    auto [it, fresh] = found.try_emplace(attr, k);
    if (!fresh && it->second != k) it->second = it->second == 2 || k == 2 ? 2 : -1;
  };
  auto add_all = [&](const std::vector<std::pair<std::string, int>>& held) {
    for (const auto& [attr, k] : held) add(attr, k);
  };
  std::set<int> scopes;  // the functions (-1 the module) whose stores on the name count
  for (const Binding* b : bindings) {
    if (b->kind == Binding::Kind::Param && b->function >= 0) {
      scopes.insert(b->function);
      if (const ArgFacts* a = ext_param(b->function, b->param_index, fact::kDevice)) add_all(a->attr_devices);
      const Function& fn = functions_[b->function];
      if (b->param_index < 0 || static_cast<size_t>(b->param_index) >= fn.params.size()) continue;
      const Param& p = fn.params[b->param_index];
      int position = b->param_index - bound_params(fn);
      if (p.is_variadic || position < 0) continue;
      for (int ci : init_sites(b->function))
        add_all(object_attr_devices(argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name), depth + 1));
    } else if (b->is_plain_assign()) {
      scopes.insert(function_at(start(b->target)));
      Node v = unparen(b->value);
      if (is(v, "identifier")) {
        add_all(object_attr_devices(v, depth + 1));
      } else if (is(v, "call")) {
        if (const FunctionFacts* ext = ext_callee_of(v, fact::kDevKind)) add_all(ext->ret_attr_devices);
        for (int f : callees(v))
          if (functions_[f].name != "__init__")
            for (Node r : functions_[f].returns) add_all(object_attr_devices(r, depth + 1));
      }
    }
  }
  if (!stores_by_object_built_) {
    stores_by_object_built_ = true;
    for (const auto& [attr, stores] : attribute_stores_)
      for (const auto& [o, value] : stores)
        if (is(o, "identifier")) stores_by_object_[std::string(text(o))].push_back({attr, o, value});
  }
  if (auto it = stores_by_object_.find(std::string(text(obj))); it != stores_by_object_.end())
    for (const auto& [attr, o, value] : it->second)
      if (!is_null(value) && scopes.count(function_at(start(o)))) add(attr, devkind_of({value}));
  for (const auto& [attr, k] : found)
    if (k > 0 && out.size() < kMaxAttrDevices) out.push_back({attr, k});
  attr_devices_cache_[obj.id] = out;
  return out;
}

bool SemanticModel::is_move_to_cuda(Node call) const {
  if (!is(call, "call") || !uses_cuda_) return false;
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return false;
  auto m = text(field(fn, "attribute"));
  if (m != "cuda" && m != "to") return false;
  // `utils.cuda(x)`: a function of a module, not a tensor's method (`import utils`, or a name the
  // project resolves to one of its modules' definitions).
  if (Node obj = unparen(field(fn, "object")); is(obj, "identifier")) {
    auto bindings = lookup(text(obj), start(obj));
    if (all_bindings_of_kind(bindings, Binding::Kind::Import) &&
        ((bindings.size() == 1 && bindings[0]->qualified == text(obj)) || module_attribute(fn, 0)))
      return false;
  }
  if (m == "cuda") return true;
  Node dev = argument(call, 0, "device");
  if (is_null(dev)) return false;
  if (is(unparen(argument(call, 0, "")), "keyword_argument")) return false;
  // `.to(other)` of a tensor: to other's device (and dtype). None where other is a host tensor by
  // its type (`torch.LongTensor(xs).to(host_lengths)`: no copy). Where it is a CUDA tensor the move
  // is left to the device reading below, which does not take a tensor for a device (session 39:
  // taking it reported a move in code reached only through calls under a False flag, set G
  // stylegan2-pytorch non_leaking.py:392).
  if (types_ && types_->type_of(dev).kind == AbstractType::Kind::Tensor && types_->cuda(dev) == CudaAnswer::Host)
    return false;
  DeviceKind d = device_kind(dev);
  return d == DeviceKind::Cuda || d == DeviceKind::Unknown;
}

bool SemanticModel::places_on_gpus(Node call) const {
  if (!is(call, "call")) return false;
  std::string_view keyword = FrameworkTable::get().placement_keyword(callee_name(call));
  if (keyword.empty()) return false;
  Node placed = argument(call, -1, keyword);
  if (is_null(placed)) return false;
  auto placement = [&](const Value& v) {
    if (v.kind == Value::Kind::Int) return true;  // a GPU ordinal
    if (v.kind == Value::Kind::Str)
      return v.s == "auto" || v.s == "balanced" || v.s == "balanced_low_0" || v.s == "sequential" ||
             device_string_kind(v.s) == DeviceKind::Cuda;
    if (v.kind != Value::Kind::Expr || !is(v.expr, "dictionary") || named_count(v.expr) == 0) return false;
    // `{"": local_rank}`, `{"": torch.cuda.current_device()}`: a device per submodule, none of
    // them the host or the disk.
    for (Node pair : named_children(v.expr)) {
      if (!is(pair, "pair")) return false;
      Node d = unparen(field(pair, "value"));
      std::string s;
      if (string_literal_value(d, src_, s) && (s == "cpu" || s == "disk")) return false;
      DeviceKind k = device_kind(d);
      if (k == DeviceKind::Cpu || k == DeviceKind::Other || k == DeviceKind::NotDevice) return false;
    }
    return true;
  };
  auto vs = values(placed);
  if (vs.empty()) return false;
  for (const auto& v : vs)
    if (!placement(v)) return false;
  return true;
}

namespace {

// The canonical name of a torch dtype attribute's last part ("float" -> "float32"), or "".
std::string_view canonical_dtype(std::string_view name) {
  static const std::map<std::string_view, std::string_view, std::less<>> names = {
      {"bool", "bool"},           {"float", "float32"},     {"float32", "float32"},   {"float16", "float16"},
      {"half", "float16"},        {"float64", "float64"},   {"double", "float64"},    {"bfloat16", "bfloat16"},
      {"int", "int32"},           {"int32", "int32"},       {"int64", "int64"},       {"long", "int64"},
      {"int16", "int16"},         {"short", "int16"},       {"int8", "int8"},         {"uint8", "uint8"},
      {"complex64", "complex64"}, {"cfloat", "complex64"},  {"complex128", "complex128"},
      {"cdouble", "complex128"},  {"float8_e4m3fn", "float8_e4m3fn"}};
  auto it = names.find(name);
  return it == names.end() ? std::string_view{} : it->second;
}

}  // namespace

std::string_view SemanticModel::conversion_dtype(Node call, bool* moves) const {
  if (moves) *moves = false;
  if (!is(call, "call")) return {};
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return {};
  std::string_view meth = text(field(fn, "attribute"));
  Node args = field(call, "arguments");
  // `.float()`, `.long()`, `.bool()`...: no argument (a memory format at most).
  static const std::map<std::string_view, std::string_view, std::less<>> methods = {
      {"bool", "bool"},     {"float", "float32"}, {"double", "float64"}, {"half", "float16"},
      {"bfloat16", "bfloat16"}, {"long", "int64"}, {"int", "int32"},    {"short", "int16"},
      {"char", "int8"},     {"byte", "uint8"},    {"cfloat", "complex64"}, {"cdouble", "complex128"}};
  if (auto it = methods.find(meth); it != methods.end()) {
    for (Node a : named_children(args))
      if (!(is(a, "keyword_argument") && text(field(a, "name")) == "memory_format")) return {};
    return it->second;
  }
  if (meth != "to" && meth != "type") return {};
  // A dtype argument: a torch dtype attribute, or `<tensor>.dtype` ("?").
  auto dtype_of = [&](Node a) -> std::string_view {
    a = unparen(a);
    if (!is(a, "attribute")) return {};
    const std::string& q = qualified_name(a);
    if (starts_with(q, "torch.") && q.find('.', 6) == std::string::npos) return canonical_dtype(q.substr(6));
    if (text(field(a, "attribute")) == "dtype") return "?";
    return {};
  };
  std::string_view dtype;
  bool device = false;
  int position = 0;
  for (Node a : named_children(args)) {
    if (is(a, "comment")) continue;
    if (is(a, "list_splat") || is(a, "dictionary_splat")) return {};
    if (is(a, "keyword_argument")) {
      std::string_view name = text(field(a, "name"));
      if (name == "dtype") {
        dtype = dtype_of(field(a, "value"));
        if (dtype.empty()) return {};
      } else if (name == "device") {
        device = true;
      } else if (name != "non_blocking" && name != "copy" && name != "memory_format") {
        return {};
      }
      continue;
    }
    std::string_view d = dtype_of(a);
    if (!d.empty()) {
      dtype = d;
    } else if (meth == "to" && position == 0) {
      // `.to(device, dtype)`: the first positional argument names a device, or a tensor whose
      // dtype and device it takes (`.to(other)`: not a conversion this function can name).
      if (device_kind(a) == DeviceKind::NotDevice) return {};
      device = true;
    } else if (meth == "to" && (is(a, "true") || is(a, "false"))) {
      // non_blocking / copy written positionally
    } else {
      return {};
    }
    ++position;
  }
  if (moves) *moves = device;
  return dtype;
}

bool SemanticModel::is_cuda(Node expr) const { return uses_cuda_ && is_cuda_impl(expr); }

namespace {
// The `name.append(v)` calls of a model by (scope, name): one scan of its calls per model (this
// thread's; rebuilt when another model, or a model at another address or of other text, asks).
struct ListAppends {
  const SemanticModel* model = nullptr;
  const char* text = nullptr;
  size_t calls = 0;
  std::map<std::pair<int, std::string>, std::vector<Node>> by_name;
};
ListAppends& list_appends_index() {
  thread_local ListAppends index;
  return index;
}
// A copy: a question about an appended value may build another model's index on this thread
// (a reference would dangle), and the index is emptied when a model starts (collect(),
// clear_list_appends), so it never holds the nodes of a tree that is gone.
std::vector<Node> list_appends(const SemanticModel& m, Node name) {
  ListAppends& index = list_appends_index();
  if (index.model != &m || index.text != m.src().data() || index.calls != m.calls().size()) {
    index = ListAppends{};
    index.model = &m;
    index.text = m.src().data();
    index.calls = m.calls().size();
    for (const auto& cs : m.calls()) {
      Node fn = unparen(field(cs.call, "function"));
      if (!is(fn, "attribute") || m.text(field(fn, "attribute")) != "append") continue;
      Node obj = unparen(field(fn, "object"));
      if (is(obj, "identifier")) index.by_name[{m.scope_at(start(cs.call)), std::string(m.text(obj))}].push_back(cs.call);
    }
  }
  auto found = index.by_name.find({m.scope_at(start(name)), std::string(m.text(name))});
  return found == index.by_name.end() ? std::vector<Node>{} : found->second;
}
}  // namespace

void clear_list_appends() { list_appends_index() = ListAppends{}; }

int model_detail::module_list_element(const SemanticModel& m, Node list) {
  list = unparen(list);
  if (!is(list, "identifier") || !m.uses_cuda()) return 0;
  // Bound only to an empty list display, filled by appends of modules (the types' Module).
  auto bs = m.lookup(m.text(list), start(list));
  if (bs.empty() || bs.size() > 4) return 0;
  for (const Binding* b : bs) {
    Node v = b->plain_value();
    if (!is(v, "list") || named_count(v) != 0) return 0;
  }
  const std::vector<Node> appends = list_appends(m, list);
  if (appends.empty() || appends.size() > SemanticModel::kMaxCandidates) return 0;
  int r = 1;
  for (Node call : appends) {
    Node a = unparen(m.argument(call, 0, ""));
    if (is_null(a) || m.types().type_of(a).kind != AbstractType::Kind::Module) return 0;
    if (m.is_cuda(a)) r = 2;
  }
  return r;
}

namespace {
// The position, in its `for` target pattern, of the element holding a target (`x` of `for i, x
// in ...` is 1; of `for i, (x, y) in ...` the tuple's 1), or -1. A walk up the parents.
int unpacked_target_position(Node target) {
  int position = -1;
  Node below = target;
  for (Node n = parent(below); !is_null(n); below = n, n = parent(n)) {
    Node up = parent(n);
    if (is(up, "for_statement") || is(up, "for_in_clause")) {
      if (!same(field(up, "left"), n)) break;
      int i = 0;
      for (Node c : named_children(n)) {
        if (same(c, below)) position = i;
        ++i;
      }
      break;
    }
  }
  return position;
}
}  // namespace

Node model_detail::loop_target_iterable(const SemanticModel& m, const Binding& b) {
  if (b.kind != Binding::Kind::LoopTarget) return Node{};
  Node it = unparen(b.value);
  if (b.unpack_index < 0) return it;
  if (!is(it, "call")) return Node{};
  const std::string& q = m.callee_name(it);
  if (q != "builtins.zip" && q != "builtins.enumerate") return Node{};
  int position = unpacked_target_position(b.target);
  std::vector<Node> args;
  for (Node a : named_children(field(it, "arguments"))) {
    if (is(a, "list_splat") || is(a, "dictionary_splat")) return Node{};
    if (!is(a, "keyword_argument") && !is(a, "comment")) args.push_back(a);
  }
  if (q == "builtins.enumerate") return position == 1 && !args.empty() ? args[0] : Node{};
  return position >= 0 && position < static_cast<int>(args.size()) ? args[static_cast<size_t>(position)] : Node{};
}

bool SemanticModel::keyword_dict_key(Node dict, Node key) const {
  dict = unparen(dict);
  std::string literal;
  if (!is(dict, "identifier") || is_null(key) || !string_literal_value(unparen(key), src_, literal)) return false;
  auto bindings = lookup(text(dict), start(dict));
  if (bindings.empty()) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Param) return false;
    const Param& p = functions_[b->function].params[b->param_index];
    if (!p.double_star) return false;
  }
  return true;
}

bool SemanticModel::binding_is_cuda(const Binding& b) const {
  // An element of a list of modules one of which is on CUDA (temporal-shift-module's `net_list`,
  // appended `torch.nn.DataParallel(net.cuda())` per checkpoint): the list itself is no CUDA
  // value (the types keep it a host container), its elements are the modules.
  auto module_list_cuda = [&](Node list) { return model_detail::module_list_element(*this, list) == 2; };
  switch (b.kind) {
    case Binding::Kind::Assign:
    case Binding::Kind::With:
      if (b.unpack_index >= 0) {
        Node v = unparen(b.value);
        if ((is(v, "tuple") || is(v, "expression_list") || is(v, "list")) &&
            b.unpack_index < static_cast<int>(named_count(v)))
          return is_cuda_impl(named_child(v, b.unpack_index));
        // `targets, n = pair` of a parameter every caller passes a tuple display: that element.
        if (auto element = unpacked_param_cuda(b); element.has_value()) return *element;
        // `model, opt, it = load_checkpoint(...)` of a function here whose every return is a tuple
        // display: that element (a host `ckpt["iteration"]` next to a CUDA model stays host).
        if (auto element = unpacked_return_cuda(b); element.has_value()) return *element;
      }
      return is_cuda_impl(b.value);
    case Binding::Kind::AugAssign: return is_cuda_impl(field(b.value, "right"));
    case Binding::Kind::LoopTarget: {
      if (Node list = loop_target_iterable(*this, b); !is_null(list) && module_list_cuda(list)) return true;
      // `for (out, h, w, id) in zip(outputs, hs, ws, ids)`: each target reads its own iterable
      // (`for i, x in enumerate(xs)`: the index is a host int).
      Node it = unparen(b.value);
      if (b.unpack_index >= 0 && is(it, "call")) {
        const std::string& q = qualified_name(field(it, "function"));
        if (q == "builtins.zip" || q == "builtins.enumerate") {
          int position = unpacked_target_position(b.target);
          std::vector<Node> args;
          bool splat = false;
          for (Node a : named_children(field(it, "arguments"))) {
            if (is(a, "list_splat") || is(a, "dictionary_splat")) splat = true;
            if (!is(a, "keyword_argument")) args.push_back(a);
          }
          if (position >= 0 && !splat) {
            if (q == "builtins.enumerate") {
              if (position != 1 || args.empty()) return false;
              // `for i, (amateur, cache) in enumerate(zip(models, caches))`: a name of the nested
              // pattern reads its own zip argument, not the whole zip (x-transformers).
              Node inner = parent(b.target), a0 = unparen(args[0]);
              if ((is(inner, "tuple_pattern") || is(inner, "pattern_list")) &&
                  same(parent(inner), field(parent(it), "left")) && is(a0, "call") &&
                  qualified_name(field(a0, "function")) == "builtins.zip") {
                std::vector<Node> zipped;
                for (Node a : named_children(field(a0, "arguments"))) {
                  if (is(a, "list_splat") || is(a, "dictionary_splat") || is(a, "keyword_argument")) return is_cuda_impl(a0);
                  zipped.push_back(a);
                }
                int k = 0;
                for (Node c : named_children(inner)) {
                  if (same(c, b.target)) return k < static_cast<int>(zipped.size()) && is_cuda_impl(zipped[k]);
                  ++k;
                }
              }
              return is_cuda_impl(args[0]);
            }
            return position < static_cast<int>(args.size()) && is_cuda_impl(args[position]);
          }
        }
      }
      return is_cuda_impl(b.value);
    }
    case Binding::Kind::Param: {
      const Function& fn = functions_[b.function];
      const Param& p = fn.params[b.param_index];
      if (const ArgFacts* ext = ext_param(b.function, b.param_index, fact::kCuda); ext && ext->cuda) return true;
      // Lightning passes the batch first (on the device it trains on); the parameters after it are
      // host ints (batch_idx, optimizer_idx, dataloader_idx), whatever they are named, except the
      // truncated-BPTT `hiddens` of old training_step signatures.
      if (lightning_gpu_ && is_step_hook(b.function) && is_lightning_module(fn.klass) &&
          (b.param_index == 1 || p.name == "hiddens"))
        return true;
      int position = b.param_index - bound_params(fn);
      if (position < 0 || p.is_variadic) return false;
      // An `__init__`'s parameter: also what the constructions of its class here pass (and the
      // subclasses' `super().__init__(...)`), as the types read them (`DiagonalGaussianDistribution(
      // moments)` of a CUDA `moments` in the encoder's method: `self.parameters = parameters`).
      for (int ci : init_sites(b.function)) {
        Node a = argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name);
        if (!is_null(a) && is_cuda_impl(a)) return true;
      }
      return false;
    }
    default: return false;
  }
}

Node SemanticModel::called_result(Node a, bool& nothing) const {
  nothing = false;
  a = unparen(a);
  // A lambda without parameters: its body is what the call gives.
  if (is(a, "lambda") && is_null(field(a, "parameters"))) return field(a, "body");
  // A value that cannot be called (a number, a string, None, a display): the call never runs
  // (`d() if isfunction(d) else d` takes the other branch).
  static const std::set<std::string_view> kValues = {"integer", "float", "string", "concatenated_string", "none",
                                                     "true", "false", "list", "tuple", "dictionary", "set"};
  if (kValues.count(kind(a))) {
    nothing = true;
    return Node{};
  }
  return Node{};
}

bool SemanticModel::unresolved_argument(Node a) const {
  a = unparen(a);
  if (!is(a, "identifier")) return false;
  auto bindings = lookup(text(a), start(a));
  if (bindings.empty()) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Param || b->function < 0) return false;
    if (!callers(b->function).empty()) return false;
    if (facts_) {
      std::string name = local_name(b->function);
      const IncomingCalls* in = name.empty() ? nullptr : facts_->incoming(name, fact::kCalled);
      if (in && in->called) return false;
    }
    if (step_hook(b->function) || b->param_index < bound_params(functions_[b->function])) return false;
    // A parameter with a host literal default (`num_timesteps_cond=None`, `k=1`): the value
    // where no call passes one is that default, not what other calls hand the helper.
    if (b->param_index >= 0) {
      Node d = unparen(functions_[b->function].params[b->param_index].default_value);
      if (is(d, "none") || is(d, "integer") || is(d, "float") || is(d, "true") || is(d, "false") || is(d, "string"))
        return false;
    }
  }
  return true;
}

bool SemanticModel::compares_with_string(Node cmp) const {
  // Only `==` / `!=` operators, one operand a string literal (or an f-string).
  for (uint32_t i = 0; i < ts_node_child_count(cmp); ++i) {
    Node c = ts_node_child(cmp, i);
    if (ts_node_is_named(c)) continue;
    std::string_view op = text(c);
    if (op != "==" && op != "!=") return false;
  }
  for (Node c : named_children(cmp))
    if (is(unparen(c), "string") || is(unparen(c), "concatenated_string")) return true;
  return false;
}

namespace {

// A Python list by its syntax: a list display or comprehension, or a name every binding of which
// (an assignment, not unpacked) is one.
bool list_syntax(const SemanticModel& m, Node e) {
  e = unparen(e);
  if (is(e, "list") || is(e, "list_comprehension")) return true;
  if (!is(e, "identifier")) return false;
  auto bindings = m.lookup(m.text(e), start(e));
  if (bindings.empty() || bindings.size() > 4) return false;
  for (const Binding* b : bindings)
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 ||
        !(is(unparen(b->value), "list") || is(unparen(b->value), "list_comprehension")))
      return false;
  return true;
}

// `parameters == [p for p in model.parameters()]` (Accelerate's clip_grad_norm_): two lists
// compared with ==/!= give a Python bool; list equality tests the elements' identity first, so
// lists of the same Parameter objects are never read (lists of distinct CUDA scalars would be,
// which code does not write). A tensor compared with a list is a tensor: both operands are lists.
// Except an empty list literal (`if matching[i] != []:`, YOLOv7's build_targets over lists of
// CUDA tensors): a tensor compared with `[]` has no values to branch on, so the other operand is
// a container and the test its emptiness. O(1) plus the bindings of two names.
bool compares_lists(const SemanticModel& m, Node cmp) {
  if (named_count(cmp) != 2) return false;
  std::string_view op = m.text(ts_node_child(cmp, 1));
  if (op != "==" && op != "!=") return false;
  auto empty_list = [](Node e) {
    e = unparen(e);
    return is(e, "list") && named_count(e) == 0;
  };
  if (empty_list(named_child(cmp, 0)) || empty_list(named_child(cmp, 1))) return true;
  return list_syntax(m, named_child(cmp, 0)) && list_syntax(m, named_child(cmp, 1));
}

}  // namespace

bool SemanticModel::is_cuda_impl(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  // The expression's abstract type decides where it is known; the CUDA taint below otherwise.
  return memo_bool(cuda_cache_, expr, [&] {
    // `batch[0]` of a tuple whose element 0 is host in every candidate (elements_cuda): host,
    // whatever the type of the whole tuple says of its elements (a join over all of them); so
    // is what is read out of it (`targets[0][0]`, `names[i]` after `names = targets[0]`).
    std::function<bool(Node, int)> host_element = [&](Node e, int depth) {
      e = unparen(e);
      if (depth > 4) return false;
      if (is(e, "subscript")) {
        Node index = unparen(field(e, "subscript"));
        if (is(index, "integer"))
          if (auto c = constant(index); c && c->kind == Value::Kind::Int && c->i >= 0)
            if (auto elems = elements_cuda(field(e, "value"));
                static_cast<size_t>(c->i) < elems.size() && elems[static_cast<size_t>(c->i)] == 0)
              return true;
        return host_element(field(e, "value"), depth + 1);
      }
      if (is(e, "identifier") && depth > 0) {  // a name bound to one (not the expression itself)
        std::pair<int, std::string> key{scope_at(start(e)), std::string(text(e))};
        if (appends_.count(key) || subscript_stores_.count(key)) return false;
        auto bindings = lookup(text(e), start(e));
        if (bindings.empty() || bindings.size() > kMaxCandidates) return false;
        for (const Binding* b : bindings) {
          if (b->kind == Binding::Kind::LoopTarget) {
            // `for wav, name in zip(wavs, names)` of `names = targets[0]`, the host ids of a
            // batch whose other elements are CUDA (set Q FastSpeech2 tools.py:210): a target
            // reads its own iterable (the zip's argument, enumerate's, or the whole iterable),
            // an element of a host value is host.
            Node own = model_detail::loop_target_iterable(*this, *b);
            if (is_null(own) || !host_element(own, depth + 1)) return false;
            continue;
          }
          if (b->kind != Binding::Kind::Assign) return false;
          if (b->unpack_index >= 0) {
            // `mel, tag = synth_one_sample(batch, out)`: the element's own taint (the callee's
            // ret_elem_cuda, judged there by its types and taint) is host.
            auto u = unpacked_return_cuda(*b);
            if (!u || *u) return false;
          } else if (!host_element(b->value, depth + 1)) {
            return false;
          }
        }
        return true;
      }
      return false;
    };
    if (is(expr, "subscript") && host_element(expr, 0)) return false;
    if (is(expr, "identifier") && host_element(expr, 1)) return false;
    // A dict whose every item a loop before the read brought back to the host (host_items.h).
    if (is(expr, "identifier") && items_read_back(*this, expr)) return false;
    switch (types_->cuda(expr)) {
      case CudaAnswer::Host: return false;
      case CudaAnswer::Cuda: return true;
      default: return is_cuda_uncached(expr, kind(expr));
    }
  });
}

bool SemanticModel::is_cuda_uncached(Node expr, std::string_view k) const {
  bool result = false;
  // A host attribute of a tensor or module (the types' list), a device, an optimizer's groups, a module's
  // configuration.
  auto host_attr = [](std::string_view a) {
    return type_detail::host_attributes().count(a) || a == "device" || a == "param_groups" || a == "config" ||
           a.substr(0, 3) == "is_";
  };
  static const std::set<std::string, std::less<>> host_methods = {
      "item", "tolist", "numpy", "cpu", "size", "dim", "ndimension", "numel", "data_ptr", "element_size", "nelement", "stride",
      "is_contiguous", "__len__", "get_device", "storage_offset", "state_dict", "parameters", "named_parameters",
      "keys", "__repr__", "__str__", "is_floating_point", "is_complex", "log", "log_dict", "format", "nbytes"};
  // Builtins that hand back (parts of) their arguments; every other builtin returns a host value.
  static const std::set<std::string, std::less<>> passing_builtins = {
      "builtins.sum", "builtins.min", "builtins.max", "builtins.abs", "builtins.list", "builtins.tuple",
      "builtins.sorted", "builtins.reversed", "builtins.next", "builtins.iter", "builtins.zip",
      "builtins.enumerate", "builtins.map", "builtins.filter", "builtins.getattr", "builtins.pow"};
  // A parameter of a lambda applied where it is written (lambdas.h): the elements (a `map`
  // iterable's) or arguments it is applied to (`map(lambda t: t.detach().cpu(), (reward, ...))`).
  if (k == "identifier") {
    if (Node lambda = enclosing_lambda(expr); !is_null(lambda)) {
      auto sources = lambda_param_sources(*this, lambda, text(expr));
      for (const auto& s : sources) result = result || is_cuda_impl(s.expr);
      if (!sources.empty()) return result;
    }
  }
  if (k == "identifier") {
    for (const Binding* b : lookup(text(expr), start(expr)))
      if (binding_is_cuda(*b) && isinstance_narrowing(expr, *b) == Narrowing::None) {
        result = true;
        break;
      }
  } else if (k == "attribute") {
    std::string_view attr = text(field(expr, "attribute"));
    int klass = class_of_self(expr);
    if (host_attr(attr)) {
      result = false;
    } else if (klass >= 0) {
      std::string key = classes_[klass].name + "." + std::string(attr);
      for (int ai : self_stores(key))
        if (is_cuda_impl(self_assignments_[ai].second)) {
          result = true;
          break;
        }
      // `self.acc_loss += self.criterion(outputs, target)` in a method of the class, of a base
      // here, or of a subclass here (the instance `self` is may be one: a method the subclass
      // overrides adds to it, pytorch-seq2seq's `Perplexity.eval_batch` for `NLLLoss.get_loss`):
      // the sum is on the added value's device. O(classes x MRO) per attribute read (memoized).
      if (!result && !self_augmented_.empty()) {
        for (size_t c = 0; c < classes_.size() && !result; ++c) {
          auto aug = self_augmented_.find(classes_[c].name + "." + std::string(attr));
          if (aug == self_augmented_.end()) continue;
          auto related = [&](int sub, int base) {
            auto mro = model_detail::class_mro(classes_, classes_by_name_, sub);
            return std::find(mro.begin(), mro.end(), base) != mro.end();
          };
          if (static_cast<int>(c) != klass && !related(klass, static_cast<int>(c)) && !related(static_cast<int>(c), klass))
            continue;
          for (Node v : aug->second)
            if (is_cuda_impl(v)) {
              result = true;
              break;
            }
        }
      }
      // `self.frames.append(torch.zeros(84, 84, device=self.device))` in a method of the class:
      // the container holds CUDA tensors (as `xs.append(t)` taints `xs`).
      if (!result)
        if (auto appended = self_appends_.find(key); appended != self_appends_.end())
          for (Node call : appended->second)
            if (is_cuda_impl(argument(call, 0, ""))) {
              result = true;
              break;
            }
      // `self.queue_ptr` of a buffer the class registers, in a module class an instance of which
      // is on CUDA: on that device (moco's `int(self.queue_ptr)` per step).
      if (!result && types_->buffer_on_cuda(klass, attr)) result = true;
    } else if (!starts_with(qualified_name(expr), "torch")) {
      // An attribute of a module read as a value (`net.n_classes`) is not a tensor unless the
      // types know it is one (a parameter, a buffer, a tensor assigned); called, it computes.
      Node obj = field(expr, "object");
      Node p = parent(expr);
      bool called = is(p, "call") && same(unparen(field(p, "function")), expr);
      AbstractType ot = called ? AbstractType::unknown() : types_->type_of(obj);
      // `model.module.h`: what a wrapper (DDP, DataParallel, Accelerate) holds under `.module` is
      // a module, whatever its class (a model built through a registry is not resolved).
      Node wrapped = unparen(obj);
      bool wrapper_module = is(wrapped, "attribute") && text(field(wrapped, "attribute")) == "module";
      // An object the types know as a tensor is none (`self.step.data` of a parameter the class
      // stores, `self.step = nn.Parameter(...)`: RTVC's WaveRNN.get_step), whatever the module
      // test says of an attribute of `self`.
      bool module_attr = !called && attr != "module" &&
                         (ot.kind == AbstractType::Kind::Module || ot.kind == AbstractType::Kind::ModuleMember ||
                          wrapper_module || (ot.kind != AbstractType::Kind::Tensor && is_module_value(obj)));
      // A tensor the module's class stores on itself (`self.last_loss = F.cross_entropy(...)`
      // in forward) lives where the module does.
      if (module_attr && ot.kind == AbstractType::Kind::Module && ot.klass != -1 &&
          types_->type_of(expr).kind == AbstractType::Kind::Tensor)
        module_attr = false;
      result = !module_attr && is_cuda_impl(obj);
      // A field of a dataclass or NamedTuple of this file (`losses.loss` of `Loss(loss=token_nll,
      // ...)`): what a construction passes for it (by keyword or position) or its default.
      if (!called && ot.kind == AbstractType::Kind::Object && ot.klass >= 0) {
        auto fields = type_detail::record_fields(*this, ot.klass);
        for (size_t i = 0; i < fields.size() && !result; ++i) {
          if (fields[i].first != attr) continue;
          for (int ci : constructor_calls(ot.klass)) {
            Node v = argument(calls_[ci].call, static_cast<int>(i), attr);
            if (is_null(v)) v = fields[i].second;
            if (!is_null(v) && is_cuda_impl(v)) result = true;
          }
        }
      }
      // `posterior.parameters` of an instance of a class here (not a module) whose methods store
      // a CUDA value there (`self.parameters = parameters` of a construction handed a CUDA tensor):
      // what `self.parameters` reads in the class's own methods. The class and its bases here.
      if (!called && !result && ot.kind == AbstractType::Kind::Object && ot.klass >= 0 &&
          static_cast<size_t>(ot.klass) < classes_.size()) {
        auto mro = model_detail::class_mro(classes_, classes_by_name_, ot.klass);
        for (size_t i = 0; i < mro.size() && i < 16 && !result; ++i) {
          auto stores = self_stores(mro[i], attr);
          if (stores.size() > kMaxCandidates) continue;
          for (int ai : stores)
            if (is_cuda_impl(self_assignments_[ai].second)) {
              result = true;
              break;
            }
        }
      }
      // Member types per instance: `train_meters["top1"].avg` of an instance of a project class
      // (here or another module's) whose type the stores of every instance leave open (a meter's
      // `self.avg` is a host number for the timing meters, a tensor for the accuracy meter): a
      // CUDA value where this function hands the same instance, written the same way, a CUDA
      // argument through a method of its class (`train_meters["top1"].update(acc1[0], n)`, set AI
      // mdistiller). A host attribute the types know (`count`) never reaches here.
      // Another module's class: only through the parameters its class facts say the attribute's
      // stores follow (attr_sources: `update`'s `val` for `avg`), so a run handle a logger stores
      // from `wandb.init(...)` (YOLOv7's `wandb_logger.wandb_run`) stays host when the logger is
      // handed CUDA predictions (set I yolov7 train.py:397, test.py:164).
      if (!called && !result && ot.kind == AbstractType::Kind::Object && ot.klass != -1)
        result = [&] {
          // The receiver as written: a name, `self.x`, or either subscripted by a literal.
          Node r = unparen(obj);
          Node base = is(r, "subscript") ? unparen(field(r, "value")) : r;
          if (is(r, "subscript") && !is(unparen(field(r, "subscript")), "string") &&
              !is(unparen(field(r, "subscript")), "integer"))
            return false;
          if (!is(base, "identifier") &&
              !(is(base, "attribute") && is(unparen(field(base, "object")), "identifier") &&
                text(unparen(field(base, "object"))) == "self"))
            return false;
          // A class here: some store of the attribute (its bases' too) may hold a CUDA value by the
          // taint (`self.last = val.detach().cpu()` never does, whatever `val` is).
          if (ot.klass >= 0 && static_cast<size_t>(ot.klass) < classes_.size()) {
            bool holds = false;
            auto mro = model_detail::class_mro(classes_, classes_by_name_, ot.klass);
            for (size_t i = 0; i < mro.size() && i < 16 && !holds; ++i) {
              const std::string key = classes_[mro[i]].name + "." + std::string(attr);
              for (int ai : self_stores(key)) holds = holds || is_cuda_impl(self_assignments_[ai].second);
              if (auto aug = self_augmented_.find(key); aug != self_augmented_.end())
                for (Node v : aug->second) holds = holds || is_cuda_impl(v);
            }
            if (!holds) return false;
          }
          // Another module's class: one its methods store the attribute on from their parameters
          // (its "Class" entry's attr_sources), not one served by a `__getattr__`
          // (maskrcnn-benchmark's MetricLogger, whose `meters.time` is a SmoothedValue of host
          // floats) nor one stored from anything else.
          std::vector<const FunctionFacts::AttrSource*> sources;
          if (ot.klass <= -2) {
            const std::string name = types_->class_name(ot);
            const FunctionFacts* cf =
                name.empty() || name.find('|') != std::string::npos || !facts_ ? nullptr : facts_->callee(name, fact::kClass | fact::kAttrSources);
            if (!cf || !cf->is_class) return false;
            for (const auto& s : cf->attr_sources)
              if (s.attr == attr) sources.push_back(&s);
            if (sources.empty()) return false;
          }
          const std::string_view written = text(r);
          const int f = function_at(start(r));
          auto fed = [&](int ci) {
            Node call = calls_[ci].call;
            Node cf = unparen(field(call, "function"));
            if (!is(cf, "attribute") || text(unparen(field(cf, "object"))) != written) return false;
            // A method of the instance's class: resolved here, or by another module's facts.
            const FunctionFacts* ext = callees(call).empty() ? ext_callee_of(call, fact::kParams) : nullptr;
            if (callees(call).empty() && !ext) return false;
            if (ot.klass <= -2) {
              // The arguments of the parameters the attribute follows, by position or keyword.
              if (!ext) return false;
              const std::string_view method = text(field(cf, "attribute"));
              for (const auto* s : sources) {
                if (s->method != method || s->param <= 0 || static_cast<size_t>(s->param) >= ext->params.size()) continue;
                const ParamSummary& p = ext->params[static_cast<size_t>(s->param)];
                if (p.star || p.double_star) continue;
                Node v = argument(call, p.keyword_only ? -1 : s->param - 1, p.name);
                if (!is_null(v) && is_cuda_impl(v) && !is_module_value(v)) return true;
              }
              return false;
            }
            for (Node a : named_children(field(call, "arguments"))) {
              Node v = is(a, "keyword_argument") ? field(a, "value") : a;
              if (is(v, "list_splat") || is(v, "dictionary_splat") || is(v, "comment")) continue;
              if (is_cuda_impl(v) && !is_module_value(v)) return true;
            }
            return false;
          };
          if (f >= 0 && static_cast<size_t>(f) < calls_by_caller_.size()) {
            for (int ci : calls_by_caller_[f])
              if (fed(ci)) return true;
          } else {
            for (size_t ci = 0; ci < calls_.size(); ++ci)
              if (calls_[ci].caller < 0 && fed(static_cast<int>(ci))) return true;
          }
          return false;
        }();
    }
  } else if (k == "subscript") {
    // `kwargs["key"]` of a `**kwargs` parameter: the value under that key, which the callers'
    // joined keywords do not tell (one CUDA keyword does not make every key CUDA).
    Node value = field(expr, "value"), index = unparen(field(expr, "subscript"));
    result = !keyword_dict_key(value, index) && is_cuda_impl(value);
    // `d["r1"]` of a dict that a store under the same key filled with a CUDA value (`d["r1"] =
    // r1_loss` in the same scope), also through names it was bound to and calls that hand back
    // their argument (stylegan2's `loss_reduced = reduce_loss_dict(loss_dict)`). Only stores of
    // this key count: `d["lr"] = 0.1` next to `d["loss"] = loss` leaves `d["lr"]` on the host.
    // A read inside the right side of a store of its own key (`d["x"] = d["x"].cuda()`) reads
    // what was there before that store.
    std::string key;
    const bool literal = !result && string_literal_value(index, src_, key);
    bool own_store = false;
    if (literal && is(unparen(value), "identifier"))
      for (Node p = parent(expr); !is_null(p) && !own_store; p = parent(p)) {
        if (is(p, "assignment") || is(p, "augmented_assignment")) {
          Node left = unparen(field(p, "left"));
          std::string k;
          own_store = is(left, "subscript") && is(unparen(field(left, "value")), "identifier") &&
                      text(unparen(field(left, "value"))) == text(unparen(value)) &&
                      string_literal_value(unparen(field(left, "subscript")), src_, k) && k == key;
        }
        if (is(p, "expression_statement") || is(p, "block") || is(p, "function_definition")) break;
      }
    if (literal && !own_store) result = keyed_store_cuda(value, key, 0);
    // `batch[0]` of a tuple whose element 0 is known (elements_cuda): that element's taint.
    if (result && is(index, "integer")) {
      auto c = constant(index);
      if (c && c->kind == Value::Kind::Int && c->i >= 0)
        if (auto elems = elements_cuda(value); static_cast<size_t>(c->i) < elems.size()) result = elems[static_cast<size_t>(c->i)] != 0;
    }
  } else if (k == "call") {
    Node fn = unparen(field(expr, "function"));
    std::string q = qualified_name(fn);
    auto any_arg_cuda = [&] {
      for (auto a : named_children(field(expr, "arguments"))) {
        Node v = is(a, "keyword_argument") ? field(a, "value") : a;
        if (is(v, "list_splat") || is(v, "dictionary_splat")) v = named_child(v, 0);
        // A module passed along (`create_optimizer(model)`, `DDP(model)`) does not make the
        // result a tensor; calling the module does.
        if (is_cuda_impl(v) && !is_module_value(v)) return true;
      }
      return false;
    };
    // A predicate (`is_peft_model(model)`, `torch.is_tensor(x)`, `x.is_contiguous()`,
    // `coordinator.is_invalid_trace()`, `has_torch_function(args)`): PyTorch's `is_*`/`has_*`
    // functions and methods all return Python bools, and so do libraries' by convention; a
    // function defined here is judged by its returns below. (`torch.isnan`/`isfinite`, without
    // the underscore, return tensors.)
    std::string_view callee_word = is(fn, "attribute") ? text(field(fn, "attribute")) : is(fn, "identifier") ? text(fn) : std::string_view{};
    // The convention holds for private names too (`self._is_on_cuda()`), and a callee named for a
    // device (`model._device()`, `get_device()`: continual-learning's
    // `next(self.parameters()).device`) hands back a device, not a tensor, whatever the receiver
    // (an instance of some project class the types do not resolve; set AO evaluate.py:60).
    while (!callee_word.empty() && callee_word.front() == '_') callee_word.remove_prefix(1);
    const bool device_word = callee_word == "device" || callee_word == "get_device";
    // A class of torch.distributed (`dist.Reducer(parameters, ...)`, `dist.Logger(reducer)`, a
    // process group, a store: handles of the C++ runtime) is an object built from the tensors it
    // is given, not a tensor: DistributedDataParallel's `self.reducer._rebuild_buckets()` reads
    // no device value. (DTensor, ShardedTensor: tensors.)
    auto distributed_class = [&] {
      if (!starts_with(q, "torch.distributed.")) return false;
      std::string_view last = std::string_view(q).substr(q.rfind('.') + 1);
      return !last.empty() && std::isupper(static_cast<unsigned char>(last[0])) &&
             last.find("Tensor") == std::string_view::npos;
    };
    if ((starts_with(q, "builtins.") && !passing_builtins.count(q)) || starts_with(q, "numpy.") || starts_with(q, "math.") || starts_with(q, "time.") ||
        starts_with(q, "torch.cuda.") || starts_with(q, "logging.") || starts_with(callee_word, "is_") ||
        starts_with(callee_word, "has_") || device_word || distributed_class()) {
      result = false;
    } else if (std::string attr_name; q == "builtins.getattr" && string_literal_value(argument(expr, 1, ""), src_, attr_name)) {
      // `getattr(obj, "name", default)` reads `obj.name` (or the default): an attribute of a module
      // (`getattr(getattr(model, "config", None), "_name_or_path", None)`) is a configuration
      // value, not a tensor, as `model.config._name_or_path` is.
      Node obj = unparen(argument(expr, 0, ""));
      Node fallback = argument(expr, 2, "default");
      AbstractType ot = types_->type_of(obj);
      bool module_obj = ot.kind == AbstractType::Kind::Module || ot.kind == AbstractType::Kind::ModuleMember ||
                        is_module_value(obj);
      result = (!host_attr(attr_name) && !module_obj && is_cuda_impl(obj)) || (!is_null(fallback) && is_cuda_impl(fallback));
    } else if (starts_with(q, "torch.") && !is_null(argument(expr, -1, "device"))) {
      // Factories: torch.zeros(..., device=dev)
      DeviceKind d = device_kind(argument(expr, -1, "device"));
      result = d == DeviceKind::Cuda || d == DeviceKind::Unknown;
    } else if (is(fn, "attribute")) {
      std::string_view m = text(field(fn, "attribute"));
      Node recv = field(fn, "object");
      if (m == "cuda") result = true;
      else if (m == "to") {
        Node dev = argument(expr, 0, "device");
        DeviceKind d = is_null(dev) ? DeviceKind::NotDevice : device_kind(dev);
        if (d == DeviceKind::Cuda || d == DeviceKind::Unknown) result = true;
        else if (d == DeviceKind::Cpu || d == DeviceKind::Other) result = false;
        else result = is_cuda_impl(recv) || any_arg_cuda();
      } else if (host_methods.count(m) && !(m == "log" && starts_with(q, "torch."))) {
        // (`torch.log(x)` is the tensor operation, not a logger's `.log(...)`.)
        result = false;
      } else if (m == "from_pretrained" || m == "from_config") {
        // A model, tokenizer, processor or config loaded from a name, a path or a config: on the
        // host unless `device_map` places it; a name read off a CUDA model
        // (`get_config_model_id(model.config)`) does not put a tokenizer on the GPU.
        Node placed = argument(expr, -1, "device_map");
        result = (!is_null(placed) && device_kind(placed) == DeviceKind::Cuda) || places_on_gpus(expr);
      } else if (m == "append" || m == "extend") {
        result = false;
      } else if ((m == "get" || m == "pop") && keyword_dict_key(recv, argument(expr, 0, ""))) {
        // `kwargs.get("key", default)` of a `**kwargs` parameter: the value under that key (not
        // known: the callers' keywords are joined over every key), or the default.
        Node fallback = argument(expr, 1, m == "pop" ? "" : "default");
        result = !is_null(fallback) && is_cuda_impl(fallback);
      } else if ((m == "get" || m == "pop" || m == "setdefault") && !is_cuda_impl(recv) && !is_cuda_impl(fn)) {
        // A lookup in a mapping (`pool_cursor.get(name, 0)`): the value stored under the key, or
        // the default; a CUDA key does not make the value a tensor.
        Node fallback = argument(expr, 1, m == "pop" ? "" : "default");
        result = !is_null(fallback) && is_cuda_impl(fallback);
      } else if (types_ && !FrameworkTable::get().tensor_method(m) && !FrameworkTable::get().held_value_method(m) &&
                 types_->type_of(recv).kind == AbstractType::Kind::Tensor) {
        // A method torch.Tensor does not have, of a value typed a tensor (`g.num_nodes()` of a
        // graph moved with `g.to(device)`): no tensor method, so the receiver's device says
        // nothing of what it gives (TypeInference::call_type leaves it unknown); its arguments
        // may (`g.apply_feats(h)` of a CUDA `h`).
        result = any_arg_cuda();
      } else {
        result = is_cuda_impl(recv) || any_arg_cuda() || is_cuda_impl(fn);
      }
    } else if (int mapped = q == "builtins.map" ? mapped_function(*this, argument(expr, 0, "")) : -1; mapped >= 0) {
      // `map(is_audio, (x1, cond))` of a one-parameter function defined here: what it returns
      // for each element, by its return's dependence on the parameter (a predicate reading
      // `t.ndim` gives Python bools whatever the elements are).
      const ReturnDependence& d = types_->return_dependence(mapped);
      if (!d.known) {
        result = any_arg_cuda();
      } else {
        for (Node n : d.fixed_nodes) result = result || is_cuda_impl(n);
        for (const auto& use : d.uses) result = result || use.moved || any_arg_cuda();
      }
    } else if (q == "builtins.map" && is(unparen(argument(expr, 0, "")), "lambda")) {
      // `map(lambda x: x.to(device), xs)`: what the lambda gives for each element; a lambda that
      // reads each element back (`lambda t: t.cpu()`) gives host values.
      Node body = unparen(field(unparen(argument(expr, 0, "")), "body"));
      Node bf = is(body, "call") ? unparen(field(body, "function")) : Node{};
      bool reads_back = is(bf, "attribute") && host_methods.count(text(field(bf, "attribute")));
      result = !reads_back && (any_arg_cuda() || is_cuda_impl(body));
    } else {
      result = any_arg_cuda() || is_cuda_impl(fn);
    }
    // A method of a framework object (a table row: `self.callback_handler.on_step_end(...)` where
    // a vendored copy of transformers defines CallbackHandler relatively) is judged by the table
    // and the taint above, not by the copy's own facts.
    Node recv_of = is(fn, "attribute") ? field(fn, "object") : Node{};
    bool framework_method = !is_null(recv_of) && [&] {
      AbstractType rt = types_->type_of(recv_of);
      return rt.kind == AbstractType::Kind::Object && rt.framework >= 0;
    }();
    if (const FunctionFacts* ext =
            framework_method ? nullptr : ext_callee_of(expr, fact::kReturnsCuda | fact::kReturnDep)) {  // another module's
      result = ext->returns_cuda;
      if (auto at_site = site_return_cuda(*ext, expr)) result = *at_site;
    }
    // A function defined here: what it returns decides (an `accuracy()` that returns
    // `.item()` hands back a Python float); so do the functions a called parameter is handed.
    auto targets = callees(expr);
    if (targets.empty()) targets = passed_functions(expr);
    if (!targets.empty()) {
      bool returns_cuda = false;
      for (int f : targets) {
        // With this call's arguments where the return's dependence on them is known.
        if (auto at_site = site_return_cuda(f, expr)) {
          returns_cuda |= *at_site;
          continue;
        }
        for (Node r : functions_[f].returns) returns_cuda |= is_cuda_impl(r);
      }
      result = returns_cuda;
    }
  } else if (k == "binary_operator") {
    // `"%s" % t` is a host string (the formatting itself is the readback).
    bool formatting = text(field(expr, "operator")) == "%" && is_str_expr(field(expr, "left"));
    result = !formatting &&
             (is_cuda_impl(field(expr, "left")) || is_cuda_impl(field(expr, "right")));
  } else if (k == "unary_operator") {
    result = is_cuda_impl(field(expr, "argument"));
  } else if (k == "comparison_operator") {
    std::string_view op = text(ts_node_child(expr, 1));
    // `is`, `is not`, `in`, `not in` compare identities or membership: Python booleans; so does
    // `==`/`!=` with a string (a tensor compared with "auto" is False, nothing is read).
    if (op.substr(0, 2) != "is" && op != "in" && op.substr(0, 3) != "not" && !compares_with_string(expr) &&
        !compares_lists(*this, expr)) {
      for (auto c : named_children(expr)) result |= is_cuda_impl(c);
    }
  } else if (k == "conditional_expression") {
    auto parts = named_children(expr);
    if (parts.size() == 3) result = is_cuda_impl(parts[0]) || is_cuda_impl(parts[2]);
  } else if (k == "boolean_operator") {
    result = is_cuda_impl(field(expr, "left")) || is_cuda_impl(field(expr, "right"));
  } else if (k == "list" || k == "tuple" || k == "expression_list") {
    // `(*mloss, n)`: a starred element holds the elements of what it unpacks.
    for (auto c : named_children(expr)) result |= is_cuda_impl(is(c, "list_splat") ? named_child(c, 0) : c);
  } else if (k == "list_comprehension" || k == "generator_expression") {
    result = is_cuda_impl(field(expr, "body"));
  } else if (k == "dictionary_comprehension") {
    // `{t["image_id"].item(): out for t, out in zip(targets, results)}`: its values.
    Node body = field(expr, "body");
    result = is_cuda_impl(is(body, "pair") ? field(body, "value") : body);
  } else if (k == "dictionary") {
    // `{"boxes": b, "scores": s}`: a value (the keys are host values).
    for (Node c : named_children(expr)) {
      Node v = is(c, "pair") ? field(c, "value") : is(c, "dictionary_splat") ? named_child(c, 0) : Node{};
      if (!is_null(v) && is_cuda_impl(v) && !is_module_value(v)) result = true;
    }
  }
  // A container appended CUDA values: `losses.append(loss)` taints `losses`.
  if (!result && k == "identifier") {
    auto found = appends_.find({scope_at(start(expr)), std::string(text(expr))});
    if (found != appends_.end())
      for (Node call : found->second)
        if (is_cuda_impl(argument(call, 0, ""))) {
          result = true;
          break;
        }
  }
  // A dict of lists filled by item (`all_ret[k].append(ret[k])`, nerf-pytorch's batchify_rays
  // after `all_ret[k] = []` per new key): its items hold the appended values, so reading one
  // (`torch.cat(all_ret[k], 0)`) reads them. Asked of a name read by item only, in the same
  // function: O(the function's calls).
  if (!result && k == "identifier") {
    Node up = parent(expr);
    if (is(up, "subscript") && same(unparen(field(up, "value")), expr)) {
      const int f = function_at(start(expr));
      const std::string_view name = text(expr);
      auto item_append = [&](int ci) {
        Node call = calls_[static_cast<size_t>(ci)].call;
        Node fn = unparen(field(call, "function"));
        if (!is(fn, "attribute") || text(field(fn, "attribute")) != "append") return false;
        Node obj = unparen(field(fn, "object"));
        if (!is(obj, "subscript") || named_count(obj) != 2) return false;
        Node held = unparen(field(obj, "value"));
        return is(held, "identifier") && text(held) == name && is_cuda_impl(argument(call, 0, ""));
      };
      if (f >= 0 && static_cast<size_t>(f) < calls_by_caller_.size()) {
        for (int ci : calls_by_caller_[static_cast<size_t>(f)])
          if (item_append(ci)) {
            result = true;
            break;
          }
      } else if (f < 0) {
        for (size_t ci = 0; ci < calls_.size() && !result; ++ci)
          if (calls_[ci].caller < 0 && item_append(static_cast<int>(ci))) result = true;
      }
    }
  }
  // A container whose every element is replaced by a CUDA value (`for k, v in meta.items():
  // meta[k] = v.cuda()`, `for i in range(len(xs)): xs[i] = xs[i].cuda()`) holds CUDA values; so
  // does a list of None placeholders a slot of which is given one (`output[i] = detections`).
  if (!result && k == "identifier") {
    auto found = subscript_stores_.find({scope_at(start(expr)), std::string(text(expr))});
    // A placeholder list a slot of which is moved back to the host (`output[i] =
    // output[i].cpu().numpy()` after the CUDA detections: yolov4-pytorch's non_max_suppression,
    // set E) is read as host elsewhere: the slot's last value is what callers see.
    bool host_slot = false;
    if (found != subscript_stores_.end())
      for (Node store : found->second) {
        // The move itself reads the CUDA slot (`output[i].cpu()`): a sync there.
        if (start(expr) >= start(store) && end(expr) <= end(store)) continue;
        Node v = unparen(field(store, "right"));
        if (is(v, "call") && is(unparen(field(v, "function")), "attribute")) {
          std::string_view meth = text(field(unparen(field(v, "function")), "attribute"));
          if (meth == "cpu" || meth == "numpy" || meth == "tolist") host_slot = true;
        }
      }
    if (found != subscript_stores_.end())
      for (Node store : found->second)
        if ((elementwise_store(store) || (!host_slot && model_detail::none_placeholder_list(*this, store))) &&
            is_cuda_impl(field(store, "right"))) {
          result = true;
          break;
        }
  }
  // A container handed, before the use, to a function of this module that replaces its every
  // element by a CUDA value in place (LESS's `prepare_batch(batch)` running `for key in batch:
  // batch[key] = batch[key].to(device)`), with no binding of the name between the call and the
  // use: it holds CUDA values after the call (TypeInference::keyed_device_stores types a host
  // batch so). Asked only of a name whose items are read (`batch["labels"]`, `**batch`): O(the
  // calls of the enclosing function) each.
  Node up = parent(expr);
  const bool item_read = (is(up, "subscript") && same(unparen(field(up, "value")), expr)) || is(up, "dictionary_splat");
  if (!result && k == "identifier" && item_read)  // `batch["labels"]`, `model(**batch)`
    for (const auto& [f, pi] : handed_before(expr, lookup(text(expr), start(expr)))) {
      const std::string& param = functions_[f].params[pi].name;
      auto stores = subscript_stores_.find({functions_[f].scope, param});
      if (stores == subscript_stores_.end()) continue;
      for (Node store : stores->second) {
        // Into the parameter itself, never rebound in the helper (not a copy of it).
        auto held = lookup(param, start(unparen(field(unparen(field(store, "left")), "value"))));
        if (held.size() != 1 || held[0]->kind != Binding::Kind::Param) continue;
        if (elementwise_store(store) && is_cuda_impl(field(store, "right"))) {
          result = true;
          break;
        }
      }
      if (result) break;
    }
  return result;
}

bool SemanticModel::elementwise_store(Node store) const {
  Node target = unparen(field(store, "left"));
  Node container = unparen(field(target, "value"));
  Node key = unparen(field(target, "subscript"));
  if (!is(container, "identifier") || !is(key, "identifier")) return false;
  std::string_view name = text(container), k = text(key);
  // The key is the first name a loop over the container's keys or indices binds.
  for (Node n = parent(store); !is_null(n); n = parent(n)) {
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) break;
    if (!is(n, "for_statement")) continue;
    Node left = unparen(field(n, "left"));
    if (is(left, "pattern_list") || is(left, "tuple_pattern")) left = named_count(left) ? unparen(named_child(left, 0)) : Node{};
    if (!is(left, "identifier") || text(left) != k) continue;
    Node it = unparen(field(n, "right"));
    if (is(it, "identifier")) return text(it) == name;  // a dict's keys
    if (!is(it, "call")) return false;
    Node fn = unparen(field(it, "function"));
    Node arg = unparen(argument(it, 0, ""));
    if (is(fn, "attribute")) {  // meta.items(), meta.keys()
      std::string_view m = text(field(fn, "attribute"));
      Node obj = unparen(field(fn, "object"));
      return (m == "items" || m == "keys") && is(obj, "identifier") && text(obj) == name;
    }
    const std::string& q = qualified_name(fn);
    if (q == "builtins.enumerate") return is(arg, "identifier") && text(arg) == name;
    if (q == "builtins.range" && is(arg, "call") && qualified_name(field(arg, "function")) == "builtins.len") {
      Node of = unparen(argument(arg, 0, ""));
      return is(of, "identifier") && text(of) == name;
    }
    return false;
  }
  return false;
}

bool SemanticModel::is_cuda_bool(Node expr) const { return uses_cuda_ && is_cuda_bool_impl(expr); }

bool SemanticModel::is_cuda_bool_impl(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  return memo_bool(cuda_bool_cache_, expr, [&] { return is_cuda_bool_uncached(expr); });
}

bool SemanticModel::is_str_expr(Node expr) const { return is_str_expr_at(expr, 0); }

bool SemanticModel::is_str_expr_at(Node expr, int depth) const {
  expr = unparen(expr);
  auto k = kind(expr);
  if (k == "string" || k == "concatenated_string") return true;
  if (k != "binary_operator" || depth > 16) return false;
  auto op = text(field(expr, "operator"));
  Node l = unparen(field(expr, "left")), r = unparen(field(expr, "right"));
  if (op == "+") return is_str_expr_at(l, depth + 1) && is_str_expr_at(r, depth + 1);
  if (op != "*") return false;
  // A str repeated a number of times: `"%11.4g" * 7`, `"%10s" * len(names)`.
  auto count = [&](Node n) {
    return is(n, "integer") || constant_int(n).has_value() ||
           (is(n, "call") && callee_name(n) == "builtins.len");
  };
  return (is_str_expr_at(l, depth + 1) && count(r)) || (count(l) && is_str_expr_at(r, depth + 1));
}

namespace {

// einx's elementwise comparisons and logical operations give booleans (`einx.less("n, b -> b n", a, b)`).
bool einx_bool_op(std::string_view q) {
  static const std::set<std::string, std::less<>> ops = {
      "einx.greater", "einx.greater_equal", "einx.less", "einx.less_equal", "einx.equal", "einx.not_equal",
      "einx.logical_and", "einx.logical_or", "einx.logical_not", "einx.logical_xor"};
  return ops.count(q) > 0;
}

// torch functions whose result is a tensor of booleans.
bool torch_bool_fn(std::string_view q) {
  static const std::set<std::string, std::less<>> fns = {
      "torch.isnan", "torch.isinf", "torch.isfinite", "torch.logical_and", "torch.logical_or", "torch.logical_not",
      "torch.logical_xor", "torch.eq", "torch.ne", "torch.gt", "torch.lt", "torch.ge", "torch.le", "torch.isin"};
  return fns.count(q) > 0;
}

}  // namespace

bool SemanticModel::holds_bools(Node expr, int depth) const {
  expr = unparen(expr);
  if (is_null(expr) || depth > 8) return false;
  auto k = kind(expr);
  if (k == "comparison_operator") {
    std::string_view op = text(ts_node_child(expr, 1));
    return !(op.substr(0, 2) == "is" || op == "in" || op.substr(0, 3) == "not" || compares_with_string(expr) ||
             compares_lists(*this, expr));
  }
  if (k == "unary_operator") return text(ts_node_child(expr, 0)) == "~" && holds_bools(field(expr, "argument"), depth + 1);
  if (k == "binary_operator") {
    auto op = text(field(expr, "operator"));
    // `a * b` of two masks is one too (a product of booleans stays boolean; with any other dtype
    // it is promoted to that dtype).
    return (op == "&" || op == "|" || op == "^" || op == "*") && holds_bools(field(expr, "left"), depth + 1) &&
           holds_bools(field(expr, "right"), depth + 1);
  }
  if (k == "call") {
    Node fn = unparen(field(expr, "function"));
    std::string q = qualified_name(fn);
    if (einx_bool_op(q)) return true;
    // A torch factory or operation told `dtype=torch.bool`.
    Node dtype = argument(expr, -1, "dtype");
    if (starts_with(q, "torch.") && !is_null(dtype)) return qualified_name(unparen(dtype)) == "torch.bool";
    if (torch_bool_fn(q)) return true;
    // A function of another project module reached through its module's name
    // (`box_utils.hard_negative_mining(loss, labels, r)`) is judged by its facts, as a name
    // imported directly is below; a library module's function (`np.isnan`) has none.
    if (module_attribute_call(*this, fn) && callees(expr).empty())
      if (const FunctionFacts* ext = ext_callee_of(expr, fact::kReturnsMask)) return !ext->is_class && ext->returns_mask;
    if (!is(fn, "attribute") || !callees(expr).empty()) {
      // A function here, or of another module, whose every return holds booleans
      // (`mask_from_frac_lengths(lens, frac)`).
      auto targets = callees(expr);
      if (targets.size() == 1) return returns_mask(targets[0], depth + 1);
      if (!targets.empty()) return false;
      const FunctionFacts* ext = ext_callee_of(expr, fact::kReturnsMask);
      return ext && !ext->is_class && ext->returns_mask;
    }
    std::string_view dt = conversion_dtype(expr);
    if (!dt.empty()) return dt == "bool";
    auto meth = text(field(fn, "attribute"));
    static const std::set<std::string, std::less<>> bool_methods = {"eq", "ne", "gt", "lt", "ge", "le", "isnan",
                                                                    "isinf", "isfinite", "logical_not"};
    if (bool_methods.count(meth)) return true;
    static const std::set<std::string, std::less<>> keep = {"to", "cuda", "cpu", "t", "transpose", "permute",
                                                            "reshape", "flatten", "squeeze", "unsqueeze",
                                                            "contiguous", "clone", "detach", "expand", "repeat"};
    return keep.count(meth) && holds_bools(field(fn, "object"), depth + 1);
  }
  if (k == "identifier") {
    auto bindings = lookup(text(expr), start(expr));
    if (bindings.empty() || bindings.size() > 4) return false;
    for (const Binding* b : bindings)
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || same(unparen(b->value), expr) ||
          !holds_bools(b->value, depth + 1))
        return false;
    return true;
  }
  return false;
}

// Every return of function `f` holds booleans by its expression; O(returns), at most 8 calls deep.
bool SemanticModel::returns_mask(int f, int depth) const {
  if (f < 0 || depth > 8) return false;
  const Function& fn = functions_[f];
  if (fn.returns.empty() || fn.returns.size() > 16 || fn.name == "__init__") return false;
  for (Node r : fn.returns)
    if (!holds_bools(r, depth + 1)) return false;
  return true;
}

bool SemanticModel::is_cuda_bool_uncached(Node expr) const {
  auto k = kind(expr);
  if (k == "comparison_operator") {
    std::string_view op = text(ts_node_child(expr, 1));
    if (op.substr(0, 2) == "is" || op == "in" || op.substr(0, 3) == "not" || compares_with_string(expr) ||
        compares_lists(*this, expr))
      return false;
    return is_cuda_impl(expr);
  }
  if (k == "unary_operator" && text(ts_node_child(expr, 0)) == "~") return is_cuda_bool_impl(field(expr, "argument"));
  if (k == "binary_operator") {
    auto op = text(field(expr, "operator"));
    if (op == "&" || op == "|" || op == "^")
      return is_cuda_bool_impl(field(expr, "left")) || is_cuda_bool_impl(field(expr, "right"));
    // The product of two masks (`(prob > t) * valid.bool()`, U2PL's class masks) is a mask: both
    // operands must hold booleans (a mask times a float tensor is a float tensor, a weighting),
    // one of them on CUDA.
    if (op == "*") {
      Node l = field(expr, "left"), r = field(expr, "right");
      bool lc = is_cuda_bool_impl(l), rc = !lc && is_cuda_bool_impl(r);
      if (!lc && !rc) return false;
      return lc ? is_cuda_bool_impl(r) || holds_bools(r, 0) : holds_bools(l, 0);
    }
    return false;
  }
  // A view of a mask's elements (`mask.T`) and any subscript of a mask (`xc[xi]`, `m[:, 0]`)
  // hold booleans; so does an attribute of `self` every store of which is a mask.
  if (k == "attribute") {
    auto a = text(field(expr, "attribute"));
    if (a == "T" || a == "mT" || a == "data") return is_cuda_bool_impl(field(expr, "object"));
    return self_attribute_cuda_mask(expr);  // `self.mask`
  }
  if (k == "subscript") return is_cuda_bool_impl(field(expr, "value"));
  if (k == "call") {
    Node fn = unparen(field(expr, "function"));
    std::string q = qualified_name(fn);
    if (torch_bool_fn(q) || einx_bool_op(q)) return is_cuda_impl(expr);
    // A function of another module whose every return holds booleans, on CUDA by its facts.
    if ((!is(fn, "attribute") || module_attribute_call(*this, fn)) && callees(expr).empty())
      if (const FunctionFacts* ext = ext_callee_of(expr, fact::kReturnsMask); ext && !ext->is_class && ext->returns_mask)
        return is_cuda_impl(expr);
    // Joining masks: a mask when every part is one (a mask stacked with an index tensor is
    // promoted to the index's dtype).
    static const std::set<std::string, std::less<>> joins = {
        "torch.stack", "torch.cat", "torch.concat", "torch.concatenate", "torch.vstack", "torch.hstack",
        "torch.dstack", "torch.row_stack", "torch.column_stack"};
    if (joins.count(q)) {
      Node parts = unparen(argument(expr, 0, "tensors"));
      if (is(parts, "identifier")) return is_cuda_bool_impl(parts);  // a list of masks
      if (!is(parts, "tuple") && !is(parts, "list")) return false;
      auto items = named_children(parts);
      if (items.empty()) return false;
      for (Node c : items)
        if (is(c, "list_splat") || !is_cuda_bool_impl(c)) return false;
      return true;
    }
    // Same dtype as the input unless told otherwise: `torch.ones_like(mask)`, `torch.flatten(mask)`.
    static const std::set<std::string, std::less<>> keep_dtype = {
        "torch.ones_like", "torch.zeros_like", "torch.empty_like", "torch.full_like", "torch.clone",
        "torch.flatten", "torch.squeeze", "torch.unsqueeze", "torch.transpose", "torch.permute", "torch.reshape",
        "torch.t", "torch.flip", "torch.roll"};
    if (keep_dtype.count(q))
      return is_null(argument(expr, -1, "dtype")) && is_cuda_bool_impl(argument(expr, 0, "input"));
    if (is(fn, "attribute")) {
      auto meth = text(field(fn, "attribute"));
      // A conversion to bool (`.to(torch.bool)`, `.to(dtype=torch.bool)`, `.type(torch.bool)`)
      // makes a mask; one to another dtype makes none.
      bool moves = false;
      std::string_view dtype = conversion_dtype(expr, &moves);
      if (dtype == "bool") return is_cuda_impl(expr);
      if (!dtype.empty()) return false;
      // A move to a device that names no dtype (`.to(device)`) keeps the elements' dtype: a mask
      // moved to (or kept on) a CUDA device is one.
      // A host mask moved to the device is one there (`torch.eye(n, dtype=torch.bool).to(device)`).
      if (moves && meth == "to")
        return is_cuda_impl(expr) && (is_cuda_bool_impl(field(fn, "object")) || holds_bools(field(fn, "object"), 0));
      if (meth == "cuda" && holds_bools(field(fn, "object"), 0)) return is_cuda_impl(expr);
      static const std::set<std::string, std::less<>> bool_methods = {"bool", "eq", "ne", "gt", "lt", "ge", "le",
                                                                      "isnan", "isinf", "isfinite", "logical_not",
                                                                      "logical_and", "logical_or", "logical_xor"};
      if (bool_methods.count(meth)) return is_cuda_impl(expr);
      // Methods that keep the receiver's dtype (views, copies, repetitions of its elements).
      static const std::set<std::string, std::less<>> keep_dtype_methods = {
          "t", "transpose", "permute", "reshape", "flatten", "squeeze", "unsqueeze", "contiguous", "clone",
          "detach", "expand", "expand_as", "repeat", "flip", "roll", "cuda"};
      bool keeps = keep_dtype_methods.count(meth) > 0;
      // `view(shape...)` keeps it; `view(torch.uint8)` reinterprets the bytes.
      if (meth == "view") {
        keeps = true;
        for (auto a : named_children(field(expr, "arguments")))
          if (!is(a, "integer") && !is(a, "unary_operator") && !is(a, "tuple") && !is(a, "attribute") &&
              !is(a, "identifier") && !is(a, "subscript") && !is(a, "binary_operator"))
            keeps = false;
          else if (is(a, "attribute") && starts_with(qualified_name(a), "torch."))
            keeps = false;
      }
      if (keeps) return is_cuda_bool_impl(field(fn, "object"));
    }
    return false;
  }
  if (k == "identifier") {
    // The element at `position` of what a function defined here returns (`return mask, rel`).
    auto returned_mask = [&](Node call, int position) {
      for (int f : callees(call))
        for (Node r : functions_[f].returns) {
          r = unparen(r);
          if (position < 0) {
            if (is_cuda_bool_impl(r)) return true;
            continue;
          }
          if (!is(r, "tuple") && !is(r, "expression_list")) continue;
          bool starred = false;
          for (Node c : named_children(r)) starred |= is(c, "list_splat");
          if (!starred && position < static_cast<int>(named_count(r)) && is_cuda_bool_impl(named_child(r, position)))
            return true;
        }
      return false;
    };
    for (const Binding* b : lookup(text(expr), start(expr))) {
      if (b->kind == Binding::Kind::LoopTarget) {
        // `for m in masks:` over a mask: its rows.
        if (b->unpack_index < 0 && is(b->target, "identifier") && is_cuda_bool_impl(b->value)) return true;
        continue;
      }
      if (b->kind == Binding::Kind::Param) {
        // A parameter that a call site here passes a mask (`simota_matching(..., fg_mask)`).
        const Function& fn = functions_[b->function];
        const Param& p = fn.params[b->param_index];
        int position = b->param_index - bound_params(fn);
        if (position < 0 || p.is_variadic) continue;
        for (int ci : callers(b->function)) {
          Node a = argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name);
          if (!is_null(a) && is_cuda_bool_impl(a)) return true;
        }
        continue;
      }
      if (b->kind != Binding::Kind::Assign) continue;
      Node called = unparen(b->value);
      if (is(called, "call") && !callees(called).empty()) {
        // `fg_mask, rel = self.get_geometry_constraint(...)`: the returned tuple's element.
        Node pattern = parent(b->target);
        if (b->unpack_index < 0 ? returned_mask(called, -1)
                                : is(parent(pattern), "assignment") && returned_mask(called, b->unpack_index))
          return true;
        continue;
      }
      if (b->unpack_index < 0) {
        if (is_cuda_bool_impl(b->value)) return true;
        // `masks = []` then `masks.append(mask)`: a list of masks, when every append is one.
        if (is(unparen(b->value), "list") && named_count(unparen(b->value)) == 0) {
          auto found = appends_.find({scope_at(start(b->target)), std::string(text(b->target))});
          if (found != appends_.end() && !found->second.empty()) {
            bool all = true;
            for (Node call : found->second)
              all = all && text(field(unparen(field(call, "function")), "attribute")) == "append" &&
                    is_cuda_bool_impl(argument(call, 0, ""));
            if (all) return true;
          }
        }
        continue;
      }
      // `j, k = mask.T`: unpacking a mask along its first dimension gives masks; unpacking a
      // tuple display gives its element at the target's position (a top-level target, no
      // starred target or element to shift the positions).
      Node v = unparen(b->value);
      if (is(v, "tuple") || is(v, "expression_list") || is(v, "list")) {
        Node pattern = parent(b->target);
        if (!is(parent(pattern), "assignment")) continue;
        bool starred = false;
        for (Node c : named_children(pattern)) starred |= is(c, "list_splat_pattern") || is(c, "list_splat");
        for (Node c : named_children(v)) starred |= is(c, "list_splat");
        if (starred || b->unpack_index >= static_cast<int>(named_count(v))) continue;
        if (is_cuda_bool_impl(named_child(v, b->unpack_index))) return true;
        continue;
      }
      if (is_cuda_bool_impl(v)) return true;
    }
  }
  return false;
}

}  // namespace stoker::python
