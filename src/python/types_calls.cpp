// The types of attributes (`attribute_type`: torch constants, modules, instances' attributes) and
// of calls (`call_type`: constructors, torch functions and methods, project functions' returns,
// host builtins). Split from types.cpp at 1,853 lines in session 28.
#include "python/types.h"

#include <algorithm>
#include <functional>
#include <cctype>
#include <set>
#include <string>

#include "python/call_positions.h"
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

// What a `host-encoding` call returns (TypeInference::host_encoding's 1 or 2): one CPU tensor, or a
// mapping of them (a BatchEncoding: a host container whose every element is a CPU tensor).
AbstractType encoded_on_host(int encoding) {
  if (encoding == 1) return AbstractType::of(Kind::Tensor, TypeDevice::Cpu);
  AbstractType t = AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
  t.tensors = true;
  return t;
}

// Methods whose result is a host scalar whatever the receiver.
const std::set<std::string, std::less<>>& host_scalar_methods() {
  static const std::set<std::string, std::less<>> s = {
      "item", "size", "dim", "ndimension", "numel", "nelement", "element_size", "data_ptr", "stride", "is_contiguous",
      "__len__", "get_device", "storage_offset", "is_floating_point", "is_complex", "__repr__", "__str__",
      "format", "join", "startswith", "endswith", "lower", "upper", "strip", "split", "replace",
      "isdigit", "is_available", "is_initialized", "get_rank", "get_world_size", "nbytes",
      // str methods no tensor has (`print('[INFO]', msg.ljust(100))` of a message a project
      // method of a CUDA module builds: a string, whatever that method's facts say).
      "ljust", "rjust", "center", "zfill", "lstrip", "rstrip", "capitalize", "title", "casefold", "swapcase",
      "isalpha", "isalnum", "isspace", "isnumeric", "isdecimal", "isidentifier", "splitlines", "rsplit"};
  return s;
}

// Builtins whose result is a host value of its own (not one of the arguments).
bool host_builtin(std::string_view q) {
  static const std::set<std::string, std::less<>> passing = {
      "builtins.sum", "builtins.min", "builtins.max", "builtins.abs", "builtins.list", "builtins.tuple",
      "builtins.sorted", "builtins.reversed", "builtins.next", "builtins.iter", "builtins.zip",
      "builtins.enumerate", "builtins.map", "builtins.filter", "builtins.getattr", "builtins.pow",
      "builtins.range", "builtins.dict", "builtins.set", "builtins.super", "builtins.vars", "builtins.type",
      "builtins.object"};
  return starts_with(q, "builtins.") && !passing.count(q);
}

// torch functions that answer a question about a tensor or the runtime with a host value (a
// type test, a count, a dtype): `torch.is_tensor(x)` is a Python bool whatever x is.
bool host_torch_function(std::string_view q) {
  static const std::set<std::string, std::less<>> s = {
      "torch.is_tensor", "torch.is_storage", "torch.is_floating_point", "torch.is_complex", "torch.is_conj",
      "torch.is_same_size", "torch.is_grad_enabled", "torch.is_inference_mode_enabled",
      "torch.is_autocast_enabled", "torch.is_anomaly_enabled", "torch.are_deterministic_algorithms_enabled",
      "torch.is_deterministic_algorithms_warn_only_enabled", "torch.numel", "torch.typename",
      "torch.get_default_dtype", "torch.get_num_threads", "torch.result_type", "torch.can_cast",
      "torch.promote_types", "torch.finfo", "torch.iinfo", "torch.Size"};
  return s.count(q) > 0;
}

bool host_module(std::string_view q) {
  static const char* const prefixes[] = {"math.", "time.", "os.", "sys.", "random.", "logging.", "json.",
                                         "re.", "datetime.", "pathlib.", "shutil.", "glob.", "argparse.",
                                         "collections.", "itertools.count", "torch.cuda.", "torch.distributed.get_",
                                         "torch.distributed.is_", "wandb.", "yaml.", "pickle."};
  for (auto p : prefixes)
    if (starts_with(q, p)) return true;
  return false;
}

// torch functions whose result is one tensor on the device of their first operand (a tensor,
// or a sequence of tensors for stack/cat). `torch.max(x, dim=1)` (also min) gives a (values, indices) pair,
// both on x's device: typed as the tensor, so `torch.max(labels, dim=1)[1]` is one there too.
const std::set<std::string, std::less<>>& tensor_op_functions() {
  static const std::set<std::string, std::less<>> k = {
      "stack", "cat", "concat", "concatenate", "hstack", "vstack", "sum", "mean", "prod", "std", "var", "norm",
      "abs", "exp", "log", "sqrt", "sigmoid", "tanh", "softmax", "log_softmax", "logsumexp", "clamp", "clip",
      "flatten", "reshape", "squeeze", "unsqueeze", "transpose", "permute", "matmul", "mm", "bmm",
      "argmax", "argmin", "cumsum", "maximum", "minimum", "mul", "add", "sub", "div", "pow", "eq", "ne", "gt",
      "lt", "ge", "le", "isfinite", "isnan", "isinf", "all", "any", "diag", "tril", "triu", "roll", "flip",
      "sign", "neg", "round", "floor", "ceil", "square", "bincount", "max", "min", "amax", "amin"};
  return k;
}

// torch's factories of new tensors (not the `*_like` ones, which follow their argument).
const std::set<std::string, std::less<>>& host_factory_functions() {
  static const std::set<std::string, std::less<>> k = {
      "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.eye", "torch.arange", "torch.linspace",
      "torch.randperm", "torch.rand", "torch.randn", "torch.randint"};
  return k;
}

}  // namespace

AbstractType TypeInference::attribute_type(Node attr) const {
  std::string_view name = text(field(attr, "attribute"), m_.src());
  Node obj = unparen(field(attr, "object"));
  const std::string& q = m_.qualified_name(attr);
  if (!q.empty()) {
    if (starts_with(q, "torch.") && m_.device_kind(attr) == SemanticModel::DeviceKind::NotDevice)
      return AbstractType::of(Kind::HostScalar);  // a dtype
    if (host_module(q) || starts_with(q, "numpy.")) return AbstractType::of(Kind::Host);
    return AbstractType::unknown();
  }
  if (host_attributes().count(name) || name.substr(0, 3) == "is_") return AbstractType::of(Kind::HostScalar);
  if (name == "device") {
    AbstractType o = value(obj, Path{});
    // The device a framework object trains on: CUDA when the machine has a GPU.
    if (o.kind == Kind::Object && FrameworkTable::get().is_device_attribute(o.framework, name))
      return AbstractType::of(Kind::Device, TypeDevice::Any);
    // The device of a tensor known to be on the CPU (`device=tensor.device` keeps it there).
    if (o.kind == Kind::Tensor && o.device == TypeDevice::Cpu) return AbstractType::of(Kind::Device, TypeDevice::Cpu);
    return AbstractType::of(Kind::Device);
  }
  if (name == "param_groups") return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
  // A module the block stored just before (its value typed a module): what the move reads.
  // Anything else (a store whose own value is still being inferred) reads the class's join.
  if (Node earlier = earlier_self_store(attr); !is_null(earlier))
    if (AbstractType r = value(earlier, Path{}); r.kind == Kind::Module) return r;
  AbstractType o = value(obj, Path{});
  // `self.attr` in a class of unknown kind (a base imported from a module the analysis does not
  // read, or from a library: an nn.Module or not): an attribute every store of which in the class
  // holds an object (a tokenizer `from_pretrained`, an instance of a project class that is no
  // module) is that object either way; the object's methods are then judged by the table.
  if (o.kind == Kind::Unknown && is(obj, "identifier") && text(obj, m_.src()) == "self")
    for (const Binding* b : m_.lookup("self", start(obj))) {
      if (b->kind != Binding::Kind::Param || b->param_index != 0) break;
      int klass = m_.functions()[b->function].klass;
      if (klass < 0 || module_class(klass) >= 0) break;
      if (AbstractType t = member_type(klass, name, TypeDevice::Unresolved); t.kind == Kind::Object) return t;
      break;
    }
  // A name moved to a device and called as a function (`pipe = self.pipeline_class(...).to(dev)`
  // then `pipe(**inputs)`): a module, not a tensor; `pipe.vae_scale_factor` is a member.
  if (o.kind == Kind::Tensor && is(unparen(obj), "identifier") && m_.is_module_value(obj))
    return AbstractType::of(Kind::ModuleMember, o.device);
  switch (o.kind) {
    case Kind::Tensor: return o;  // .T, .grad, .data; a model output's `.loss`, `.logits`
    case Kind::Object: {
      // What the class assigns itself first (a subclass of a framework class), then the table.
      AbstractType t = o.klass != -1 ? member_type(o.klass, name, TypeDevice::Unresolved) : AbstractType::unknown();
      if (t.kind != Kind::Unknown || o.framework < 0) return t;
      const auto& table = FrameworkTable::get();
      if (int held = table.attribute_class(o.framework, name); held >= 0) {  // `trainer.args`
        AbstractType h = AbstractType::of(Kind::Object);
        h.framework = held;
        return h;
      }
      if (table.is_device_module(o.framework, name)) return AbstractType::of(Kind::Module, TypeDevice::Any);
      if (table.is_device_attribute(o.framework, name)) return AbstractType::of(Kind::Device, TypeDevice::Any);
      // An attribute holding a loader the framework prepared (trl's `self.dataloader`).
      if (table.returns_device_loader(o.framework, name)) return AbstractType::of(Kind::Loader, TypeDevice::Cuda);
      return AbstractType::unknown();
    }
    case Kind::Module: {
      if (name == "module" && o.klass == -1) return o;  // DDP / DataParallel's wrapped module
      AbstractType t = o.klass != -1 ? member_type(o.klass, name, o.device) : AbstractType::unknown();
      // `model.module` of a wrapped model of a known class the class does not define: the model.
      if (name == "module" && t.kind == Kind::Unknown) return o;
      // An attribute of a module that is not known as a tensor (a parameter, a buffer, a tensor
      // assigned) is a member: read, a host value (`model.n_classes`); called, a tensor. For a
      // class of another project module, whose attributes its facts list, whatever the device.
      if (t.kind == Kind::Unknown &&
          ((o.device != TypeDevice::Unresolved && o.device != TypeDevice::Cpu) || o.klass <= -2))
        return AbstractType::of(Kind::ModuleMember, o.device);  // `model.n_classes`, `model.encoder`
      return t;
    }
    case Kind::ModuleMember: return o;  // `model.config.num_labels`
    // `enc.input_ids` of a mapping of tensors (a BatchEncoding: row `host-encoding`): a tensor
    // where the mapping's are. Not a container of host values (lists of ids), nor a method
    // called on it (`enc.word_ids()`).
    case Kind::HostContainer:
      if (o.tensors && o.device != TypeDevice::Unresolved &&
          !(is(parent(attr), "call") && same(field(parent(attr), "function"), attr)))
        return AbstractType::of(Kind::Tensor, o.device);
      return AbstractType::unknown();
    case Kind::HostScalar:
    case Kind::Host: return AbstractType::of(Kind::HostScalar);  // args.lr, a namespace of host values
    default: return AbstractType::unknown();
  }
}

int TypeInference::host_encoding(Node call) const {
  if (!is(call, "call")) return 0;
  Node fn = unparen(field(call, "function"));
  std::string_view meth = "__call__";
  AbstractType obj;
  if (is(fn, "attribute")) {
    meth = text(field(fn, "attribute"), m_.src());
    obj = value(field(fn, "object"), Path{});
  } else {
    obj = value(fn, Path{});
  }
  if (obj.kind != Kind::Object || obj.framework < 0) return 0;
  const FrameworkTable::HostEncoding* row = FrameworkTable::get().host_encoding(obj.framework, meth);
  if (!row) return 0;
  Node kw = m_.keyword_arguments(call).find(row->keyword);
  if (is_null(kw)) return 0;
  auto c = m_.constant(kw);
  if (!c || c->kind != Value::Kind::Str || c->s != row->value) return 0;
  return row->tensor ? 1 : 2;
}

TypeDevice TypeInference::hook_self_device(Node expr) const {
  expr = unparen(expr);
  if (!is(expr, "identifier") || text(expr, m_.src()) != "self" || !m_.uses_cuda()) return TypeDevice::Unresolved;
  auto bindings = m_.lookup("self", start(expr));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->param_index != 0)
    return TypeDevice::Unresolved;
  const StepHook* hook = m_.step_hook(bindings[0]->function);
  if (hook)
    for (const auto& [name, arg] : hook->params)
      if (name == "self" && arg == StepHook::Arg::Module) return TypeDevice::Any;
  return TypeDevice::Unresolved;
}

bool TypeInference::runs_module_method(Node call) const {
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return false;
  std::string_view meth = text(field(fn, "attribute"), m_.src());
  if (meth.empty() || meth[0] == '_' || module_api_method(meth)) return false;
  AbstractType recv = value(field(fn, "object"), Path{});
  if (recv.kind != Kind::Module || recv.klass != -1 || (recv.device != TypeDevice::Cuda && recv.device != TypeDevice::Any))
    return false;
  for (Node a : named_children(field(call, "arguments"))) {
    if (is(a, "keyword_argument")) a = field(a, "value");
    if (is_null(a) || is(a, "comment") || is(a, "list_splat") || is(a, "dictionary_splat")) continue;
    AbstractType at = value(a, Path{});
    if (at.kind == Kind::Tensor && (at.device == TypeDevice::Cuda || at.device == TypeDevice::Any)) return true;
  }
  return false;
}

// What the functions `targets` (defined here) return at `call`: typed with the call's arguments
// where every callee's return dependence is known, else the join of their return expressions.
// Unknown for a generator, for callees without a return statement, and (with `every_returns`) as
// soon as one callee has none. O(targets x returns).
AbstractType TypeInference::callees_return(const std::vector<int>& targets, Node call, bool every_returns) const {
  AbstractType at_site = AbstractType::bottom();
  bool all_known = true;
  for (int f : targets) {
    AbstractType one;
    if (!site_return(f, call, one)) {
      all_known = false;
      break;
    }
    at_site = join(at_site, one);
  }
  if (all_known) return at_site;
  AbstractType t = AbstractType::bottom();
  bool any = false;
  for (int f : targets) {
    const auto& returns = m_.functions()[f].returns;
    if (!yields(f).empty() || (every_returns && returns.empty())) return AbstractType::unknown();
    for (Node r : returns) {
      t = join(t, value(r, Path{}));
      any = true;
    }
  }
  return any ? t : AbstractType::unknown();
}

AbstractType TypeInference::call_type(Node call) const {
  Node fn = unparen(field(call, "function"));
  // `from_fn = model_class.from_pretrained` (or `.from_config` under a flag) then `from_fn(path)`:
  // the call of what the name refers to, joined over its bindings (trlx's `get_arch`), where the
  // name resolves to nothing itself (no import, no function of this file).
  if (is(fn, "identifier") && m_.qualified_name(fn).empty() && m_.callees(call).empty())
    if (auto refs = m_.called_references(fn); !refs.empty()) {
      AbstractType t = AbstractType::bottom();
      for (Node r : refs) {
        t = join(t, call_type_of(call, r));
        if (t.kind == Kind::Unknown) break;
      }
      if (t.kind != Kind::Unknown && t.kind != Kind::Bottom) return t;
    }
  return call_type_of(call, fn);
}

AbstractType TypeInference::call_type_of(Node call, Node fn) const {
  const std::string& q = m_.qualified_name(fn);
  const auto& table = FrameworkTable::get();
  if (q.empty() && m_.is_loader_call(call)) return loader_type(call);  // a DataLoader subclass of this file
  if (!q.empty()) {
    int fw = table.object_class(q);
    if (fw >= 0) {
      AbstractType t = AbstractType::of(Kind::Object);
      t.framework = fw;
      return t;
    }
    // A library reader returning host data whatever it is given (row `host-function`:
    // `torchaudio.load(path)`, a CPU tensor and the sample rate): a CPU tensor, a host value, or
    // a tuple of them (its elements by position: value_uncached).
    if (const auto* host = table.host_function(q)) {
      if (host->tuple) return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
      return host->parts.front() == FrameworkTable::HostPart::Tensor ? AbstractType::of(Kind::Tensor, TypeDevice::Cpu)
                                                                     : AbstractType::of(Kind::Host);
    }
    // A library function of one tensor computing on its device (row `same-device-functions`:
    // `torchaudio.functional.resample(waveform, ...)`): a tensor where its argument is, when the
    // argument's type says where (else the CUDA taint decides).
    if (table.same_device_function(q)) {
      Node first = m_.argument(call, 0, "");
      AbstractType a = is_null(first) || is(first, "keyword_argument") ? AbstractType::unknown() : value(first, Path{});
      if (a.kind == Kind::Tensor && a.device != TypeDevice::Unresolved) return AbstractType::of(Kind::Tensor, a.device);
    }
    if (table.wraps_first(q)) {  // `skip_first_batches(loader, n)`: a loader like the one given
      Node first = m_.argument(call, 0, "");
      return is_null(first) ? AbstractType::unknown() : value(first, Path{});
    }
    if (table.host_batches(q)) return host_batch_iterator(call);  // torchtext's `BucketIterator(...)`
    if (table.identity(q)) {  // `Variable(x)`: x
      Node first = m_.argument(call, 0, "");
      return is_null(first) || is(first, "keyword_argument") ? AbstractType::unknown() : value(first, Path{});
    }
    // `model = amp.initialize(model, opt_level="O1")`: its one positional argument, as it was.
    if (table.passes_args(q) && is_null(m_.argument(call, 1, ""))) {
      Node first = m_.argument(call, 0, "");
      return is_null(first) || is(first, "keyword_argument") || is(first, "list_splat") ? AbstractType::unknown()
                                                                                         : value(first, Path{});
    }
    // apex's `amp.master_params(optimizer)` (row `device-params`): the parameters on the GPU, typed
    // as a CUDA module's `parameters()` is (a tensor on the device, whose elements are too).
    if (table.device_params(q) && m_.uses_cuda()) return AbstractType::of(Kind::Tensor, TypeDevice::Cuda);
    if (q == "builtins.range") return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
    // `defaultdict(int)`, `dict()`, `OrderedDict()`: an empty mapping, as `{}` is (its item
    // stores fill it: binding_part).
    if (empty_mapping_call(m_, call)) return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
    if (starts_with(q, "torch.cuda.") && q.size() > 6 && q.substr(q.size() - 6) == "Tensor")
      return AbstractType::of(Kind::Tensor, TypeDevice::Cuda);  // torch.cuda.FloatTensor(...)
    {
      // The legacy typed constructors of host tensors: torch.ByteTensor(storage), torch.FloatTensor(n).
      static const std::set<std::string, std::less<>> legacy = {
          "torch.ByteTensor", "torch.CharTensor", "torch.ShortTensor", "torch.IntTensor", "torch.LongTensor",
          "torch.HalfTensor", "torch.FloatTensor", "torch.DoubleTensor", "torch.BoolTensor", "torch.BFloat16Tensor"};
      if (legacy.count(q)) return AbstractType::of(Kind::Tensor, TypeDevice::Cpu);
    }
    // Lists of the population's elements (NGCF's sampled user ids).
    if (q == "random.sample" || q == "random.choices") return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
    if (host_builtin(q) || host_module(q) || host_torch_function(q)) return AbstractType::of(Kind::HostScalar);
    if (starts_with(q, "numpy.")) return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
    if (q == "torch.device") {
      // `torch.device("cpu")`: the host, a fact that travels with the type (a constructor
      // parameter every construction hands it: RTVC's `SpeakerEncoder(device, loss_device)`).
      std::string s;
      Node a = unparen(m_.argument(call, 0, "type"));
      if (is(a, "string") && string_literal_value(a, m_.src(), s) &&
          SemanticModel::device_string_kind(s) == SemanticModel::DeviceKind::Cpu)
        return AbstractType::of(Kind::Device, TypeDevice::Cpu);
      return AbstractType::of(Kind::Device);
    }
    if (starts_with(q, "torch.optim.") && q.find("lr_scheduler") == std::string::npos &&
        std::isupper(static_cast<unsigned char>(last_part(q).empty() ? 'a' : last_part(q)[0])))
      return AbstractType::of(Kind::Optimizer);
    if (m_.is_loader_call(call)) return loader_type(call);
    if (const auto* w = FrameworkTable::get().module_wrapper(q)) {
      using Place = FrameworkTable::ModuleWrapper::Place;
      AbstractType inner = value(m_.argument(call, 0, w->keyword), Path{});
      AbstractType t = AbstractType::of(Kind::Module, inner.kind == Kind::Module ? inner.device : TypeDevice::Unresolved);
      t.klass = inner.kind == Kind::Module ? inner.klass : -1;
      if (w->place == Place::Cuda || (w->place == Place::DeviceIds && !is_null(m_.argument(call, -1, "device_ids"))))
        t.device = join(t.device, TypeDevice::Cuda);
      if (t.device == TypeDevice::Any && (inner.device == TypeDevice::Unresolved || inner.kind != Kind::Module))
        t.device = TypeDevice::Cuda;
      return t;
    }
    if (q == "torch.nn.Parameter" || q == "torch.nn.parameter.Parameter" || q == "torch.nn.Buffer")
      return AbstractType::of(Kind::Tensor);
    if (starts_with(q, "torch.nn.") && !last_part(q).empty() && std::isupper(static_cast<unsigned char>(last_part(q)[0])))
      return AbstractType::of(Kind::Module, built_on_cuda_default(call) ? TypeDevice::Cuda : TypeDevice::Unresolved);
    if (q == "torch.tensor" || q == "torch.as_tensor" || q == "torch.from_numpy") {
      if (is_null(m_.argument(call, -1, "device"))) {
        // `torch.as_tensor(v)` of a tensor given no device keeps it where it is (`torch.tensor(t)`
        // copies it on its device): a CUDA tensor stays one (a gathered metric, a clipped
        // gradient's norm). Host data (a list, an array, a number) converts on the CPU.
        if (q != "torch.from_numpy") {
          Node data = m_.argument(call, 0, "data");
          AbstractType a = is_null(data) || is(data, "keyword_argument") ? AbstractType::unknown() : value(data, Path{});
          if (a.kind == Kind::Tensor && (a.device == TypeDevice::Cuda || a.device == TypeDevice::Any))
            return AbstractType::of(Kind::Tensor, a.device);
        }
        return AbstractType::of(Kind::Tensor, TypeDevice::Cpu);
      }
    }
    // The factories of new tensors given no device build on the CPU (unless the file moves
    // torch's default device: `torch.set_default_device("cuda")`).
    if (host_factory_functions().count(q) && is_null(m_.argument(call, -1, "device")) && !m_.default_device_moved())
      return AbstractType::of(Kind::Tensor, TypeDevice::Cpu);
    // `torch.full_like(src, i)` of a CPU tensor given no device: a CPU tensor (where the
    // argument may be CUDA, the CUDA taint decides).
    if (starts_with(q, "torch.") && q.size() > 11 && q.substr(q.size() - 5) == "_like" &&
        is_null(m_.argument(call, -1, "device")))
      if (AbstractType a = value(m_.argument(call, 0, "input"), Path{}); a.kind == Kind::Tensor && a.device == TypeDevice::Cpu)
        return a;
    // Padding a sequence of tensors gives one tensor on their device (`pad_sequence([torch.tensor(ids)
    // for ids in batch])`: a CPU tensor).
    if (q == "torch.nn.utils.rnn.pad_sequence") {
      AbstractType a = value(m_.argument(call, 0, "sequences"), Path{});
      if ((a.kind == Kind::HostContainer || a.kind == Kind::Tensor) && a.device != TypeDevice::Unresolved)
        return AbstractType::of(Kind::Tensor, a.device);
    }
    // A factory given a device that is the CPU (`torch.zeros(n, device=t.device)` of a CPU t).
    if (starts_with(q, "torch.") && last_part(q) != "device") {
      Node dev = m_.argument(call, -1, "device");
      if (!is_null(dev) && m_.device_kind(dev) == SemanticModel::DeviceKind::Cpu)
        return AbstractType::of(Kind::Tensor, TypeDevice::Cpu);
      // One of the factories of new tensors given a device that is or may be CUDA, in a program
      // that uses CUDA: a tensor there, as `.to(dev)` of it would give (a replay buffer's storage
      // `torch.zeros(..., device=device)` on the configuration's device, whose sampled rows need
      // no copy: set BA CORL).
      // Not a device read off a value (`device = tensor_list[0].device` in a collate_fn: the
      // images' device, the host there): each source of the device, through names and the
      // arguments every call site (or construction, for `__init__`) passes a parameter, must be
      // a literal, a `torch.device(...)`, or the `.device` of a configuration object (a project
      // class that is no module). At most 3 parameter hops and 32 expressions read in all.
      int budget = 32;
      std::function<bool(Node, int)> configured = [&](Node d, int depth) -> bool {
        d = unparen(d);
        if (is_null(d) || depth > 3 || --budget < 0) return false;
        if (is(d, "string") || is(d, "integer")) return true;
        if (is(d, "call")) return m_.qualified_name(unparen(field(d, "function"))) == "torch.device";
        if (is(d, "attribute")) {
          AbstractType o = value(field(d, "object"), Path{});
          return text(field(d, "attribute"), m_.src()) == "device" && o.kind == Kind::Object && o.klass >= 0;
        }
        if (!is(d, "identifier")) return false;
        auto bindings = visible(m_, d);
        if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
        for (const Binding* b : bindings) {
          if (b->is_plain_assign()) {
            if (!configured(b->value, depth)) return false;
            continue;
          }
          if (b->kind != Binding::Kind::Param || b->function < 0) return false;
          const Function& f = m_.functions()[b->function];
          std::vector<Node> sites;
          for (int ci : m_.callers(b->function)) sites.push_back(m_.calls()[ci].call);
          if (f.klass >= 0 && f.name == "__init__")
            for (Node c : constructor_calls(f.klass)) sites.push_back(c);
          if (sites.empty() || sites.size() > SemanticModel::kMaxCandidates) return false;
          for (Node c : sites)
            if (!configured(site_argument(b->function, b->param_index, c), depth + 1)) return false;
        }
        return true;
      };
      if (!is_null(dev) && host_factory_functions().count(q) && m_.uses_cuda()) {
        auto kind = m_.device_kind(dev);
        if (kind == SemanticModel::DeviceKind::Cuda) return AbstractType::of(Kind::Tensor, TypeDevice::Cuda);
        if (kind == SemanticModel::DeviceKind::Unknown && configured(dev, 0))
          return AbstractType::of(Kind::Tensor, TypeDevice::Any);
      }
    }
    // Tensor operations give a tensor on their first operand's device (`torch.stack(values)`
    // of a list of CUDA tensors, `F.softmax(logits)`).
    if ((starts_with(q, "torch.") && tensor_op_functions().count(q.substr(6))) ||
        (starts_with(q, "torch.nn.functional.") && q.find('.', 20) == std::string::npos)) {
      // "May be CUDA" answers from the first operand; a CPU answer only when every operand
      // (each element of a sequence written out) is known to be on the CPU or a host value.
      Node first = m_.argument(call, 0, "input");
      if (!is_null(first)) {
        AbstractType a = value(first, Path{});
        if ((a.kind == Kind::Tensor || a.kind == Kind::HostContainer) &&
            (a.device == TypeDevice::Cuda || a.device == TypeDevice::Any))
          return AbstractType::of(Kind::Tensor, a.device);
        auto host_side = [&](Node n) {
          AbstractType t = value(n, Path{});
          return (tensor_like(t) && t.device == TypeDevice::Cpu) || t.kind == Kind::HostScalar;
        };
        bool cpu = true, any_tensor = false;
        for (Node arg : named_children(field(call, "arguments"))) {
          if (is(arg, "comment")) continue;
          if (is(arg, "keyword_argument")) {
            if (text(field(arg, "name"), m_.src()) == "out") cpu = false;
            continue;
          }
          Node u = unparen(arg);
          if (is(u, "list_splat") || is(u, "dictionary_splat")) {
            cpu = false;
            break;
          }
          if (is(u, "tuple") || is(u, "list")) {
            for (Node e : named_children(u)) {
              if (is(e, "comment")) continue;
              if (is(e, "list_splat") || !host_side(e)) cpu = false;
              any_tensor |= value(e, Path{}).kind == Kind::Tensor;
            }
          } else {
            if (!host_side(u)) cpu = false;
            AbstractType ut = value(u, Path{});
            any_tensor |= tensor_like(ut);
          }
        }
        if (cpu && any_tensor) return AbstractType::of(Kind::Tensor, TypeDevice::Cpu);
        // A tensor of a device not resolved here (a module's output in its own class): a tensor
        // on that device, unresolved (`self.last_loss = F.cross_entropy(logits, y)` is a tensor
        // attribute, placed with the module by its users).
        if (a.kind == Kind::Tensor && a.device == TypeDevice::Unresolved) return a;
      }
    }
  }
  if (is(fn, "attribute")) {
    std::string_view meth = text(field(fn, "attribute"), m_.src());
    Node recv_node = field(fn, "object");
    // `split` is str's and torch.Tensor's: a tensor's (`pred_distri, pred_scores = feats.split((64,
    // 80), 1)`, yolov9's loss, set BG) gives tensors on its device, unpacked as such. So for a
    // receiver typed a tensor (or a module's tensor); for one of unknown type, a split at sizes (an
    // integer, a tuple or list display, a `dim=`) leaves the answer to the CUDA taint; what else
    // (`line.split()`, `s.split(sep)`) is a str's.
    if (meth == "split") {
      AbstractType r = value(recv_node, Path{});
      if (r.kind == Kind::Tensor || r.kind == Kind::ModuleMember) return r;
      if (r.kind == Kind::Unknown) {
        Node a = m_.argument(call, 0, "");
        Node u = is_null(a) ? a : unparen(is(a, "keyword_argument") ? field(a, "value") : a);
        bool sizes = !is_null(u) && !m_.is_str_expr(u) &&
                     (is(u, "integer") || is(u, "tuple") || is(u, "list") || !is_null(m_.argument(call, 1, "dim")));
        if (sizes) return AbstractType::unknown();
      }
    }
    if (host_scalar_methods().count(meth)) return AbstractType::of(Kind::HostScalar);
    // Lists of host values by the API that defines the method: `.tolist()`, `.numpy()`, an LR
    // scheduler's `get_last_lr()` (floats), a tokenizer's `batch_decode(...)` (strings).
    if (meth == "tolist" || meth == "numpy" || meth == "get_last_lr" || meth == "batch_decode")
      return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
    if (meth == "parse_args" || meth == "parse_known_args") return AbstractType::of(Kind::Host);
    // `LLaMA.from_pretrained_llama3_meta(...)`: a method of a class defined here called on the
    // class itself (a classmethod or staticmethod): what its definitions return, as a function
    // of this file's (below), not what a method of a module instance computes.
    if (is(unparen(recv_node), "identifier") && class_of_callee(unparen(recv_node)) >= 0)
      if (auto targets = m_.callees(call); !targets.empty()) return callees_return(targets, call, true);
    AbstractType recv = value(recv_node, Path{});
    // `model = AutoModel.from_pretrained(...)`, a model zoo constructor: a module by construction.
    if (recv.kind == Kind::Unknown && (meth == "to" || meth == "cuda" || meth == "cpu") && m_.is_module(recv_node))
      recv = AbstractType::of(Kind::Module);
    if (meth == "cpu") return AbstractType::of(recv.kind == Kind::Module ? Kind::Module : Kind::Tensor, TypeDevice::Cpu);
    if (meth == "cuda" || meth == "to") {
      TypeDevice d = TypeDevice::Cuda;
      if (meth == "to") {
        Node dev = m_.argument(call, 0, "device");
        if (is_null(dev) || is(unparen(m_.argument(call, 0, "")), "keyword_argument")) return recv;  // .to(dtype=)
        auto kind = m_.device_kind(dev);
        if (kind == SemanticModel::DeviceKind::NotDevice) {
          // `.to(other)` of a tensor `other` (a name or attribute that may be CUDA: device_kind's
          // NotDevice for them): a tensor on other's device, left to the CUDA taint when the type
          // of other does not place it. A dtype keeps the receiver's device.
          Node d = unparen(dev);
          if ((is(d, "identifier") || is(d, "attribute")) && m_.is_cuda(d)) {
            AbstractType o = value(d, Path{});
            return AbstractType::of(Kind::Tensor, o.kind == Kind::Tensor ? o.device : TypeDevice::Unresolved);
          }
          return recv.kind == Kind::Tensor ? recv : AbstractType::unknown();
        }
        d = kind == SemanticModel::DeviceKind::Cuda  ? TypeDevice::Cuda
            : kind == SemanticModel::DeviceKind::Cpu || kind == SemanticModel::DeviceKind::Other ? TypeDevice::Cpu
                                                     : TypeDevice::Any;
      }
      if (!m_.uses_cuda() && d != TypeDevice::Cpu) return AbstractType::unknown();
      if (recv.kind == Kind::Module) {
        recv.device = d;
        return recv;
      }
      // `tokenizer(texts, return_tensors="pt").to(device)`: a BatchEncoding moves its tensors
      // (a mapping of CPU tensors by its type: row `host-encoding`), and is a mapping of tensors
      // on that device.
      if (recv.kind == Kind::HostContainer && recv.tensors && recv.device == TypeDevice::Cpu) {
        AbstractType moved = AbstractType::of(Kind::HostContainer, d);
        moved.tensors = true;
        return moved;
      }
      if (recv.kind == Kind::Object || recv.is_host()) return AbstractType::unknown();  // a project `.to()`
      return AbstractType::of(Kind::Tensor, d);
    }
    // `t.type_as(other)` moves t to other's device; `t.type(T)` to T's unless T is a dtype
    // (`torch.cuda.FloatTensor`, `x.type()`): yolov4's `y_true = y_true.type_as(x)` of a host
    // `torch.zeros(...)` is a tensor on x's device.
    if (recv.kind == Kind::Tensor && (meth == "type_as" || meth == "type")) {
      Node a = m_.argument(call, 0, meth == "type_as" ? "other" : "dtype");
      if (!is_null(a) && !is(unparen(m_.argument(call, 0, "")), "keyword_argument")) {
        if (meth == "type" && m_.device_kind(a) == SemanticModel::DeviceKind::NotDevice) return recv;  // a dtype
        AbstractType o = meth == "type_as" ? value(a, Path{}) : AbstractType::unknown();
        return AbstractType::of(Kind::Tensor, o.kind == Kind::Tensor ? o.device : TypeDevice::Unresolved);
      }
    }
    if (meth == "train" || meth == "eval" || meth == "half" || meth == "float" || meth == "bfloat16" ||
        meth == "double" || meth == "requires_grad_" || meth == "share_memory")
      if (recv.kind == Kind::Module || recv.kind == Kind::Tensor) return recv;
    if (meth == "from_pretrained" || meth == "from_config") {
      // A model loaded with a device map (`device_map="auto"`): placed on the GPUs there are.
      if (m_.places_on_gpus(call)) return AbstractType::of(Kind::Module, TypeDevice::Any);
      // `Net.from_pretrained(...)` of a module class of the project: an instance of it. Otherwise
      // a model (or a tokenizer, a config): unknown, but not a tensor.
      if (is(recv_node, "identifier") || is(recv_node, "attribute")) {
        std::string_view name =
            is(recv_node, "identifier") ? text(recv_node, m_.src()) : text(field(recv_node, "attribute"), m_.src());
        int local = m_.classes_by_name_.count(std::string(name)) ? class_of_callee(recv_node) : -1;
        if (local >= 0 && module_class(local) == 1) return instance_of(local);
        if (local < 0 && m_.facts_) {
          const std::string& qn = m_.qualified_name(recv_node);
          if (int ext = qn.empty() ? -1 : ext_class_index(qn); ext <= -2 && ext_class(ext)->module_kind == 1) {
            AbstractType t = AbstractType::of(Kind::Module);
            t.klass = ext;
            return t;
          }
        }
      }
      return AbstractType::unknown();
    }
    // A method of a class of another project module: what its facts say it returns.
    if ((recv.kind == Kind::Module || recv.kind == Kind::Object) && recv.klass <= -2 && meth != "forward" &&
        meth != "generate" && m_.facts_)
      if (const FunctionFacts* mf = m_.facts_->callee(
              ext_classes_[static_cast<size_t>(-2 - recv.klass)] + "." + std::string(meth),
              fact::kReturnsCuda | fact::kReturnsTensor | fact::kReturnsModule | fact::kReturnsLoader |
                  fact::kReturnType | fact::kReturnsClass | fact::kReturnDep)) {
        if (AbstractType c = returned_instance(*mf); c.kind != Kind::Unknown) return c;
        if (AbstractType at_site; site_return(*mf, call, at_site)) return at_site;
        AbstractType rt = ext_return(*mf);
        if (rt.kind != Kind::Unknown) return rt;
        if (mf->returns_tensor) return AbstractType::of(Kind::Tensor, TypeDevice::Any);
        if (mf->returns_module && mf->returns_cuda) return AbstractType::of(Kind::Module, TypeDevice::Any);
        return AbstractType::unknown();  // the CUDA taint (its `returns_cuda`) decides
      }
    // A predicate of a tensor or of what a module holds (`x.is_contiguous()`,
    // `model.optimizer.param_coordinator.is_invalid_trace()`): a Python bool.
    // Private names too (`model._is_on_cuda()`); and an accessor named for the device
    // (`model._device()`, continual-learning's `next(self.parameters()).device`, on a model the
    // types take for a tensor or do not resolve): a device, where the receiver is (set AO).
    if (recv.kind == Kind::ModuleMember || recv.kind == Kind::Tensor) {
      std::string_view word = meth;
      while (!word.empty() && word.front() == '_') word.remove_prefix(1);
      if (word.substr(0, 3) == "is_") return AbstractType::of(Kind::HostScalar);
      if (word == "device")
        return AbstractType::of(Kind::Device, recv.device == TypeDevice::Cpu ? TypeDevice::Cpu : TypeDevice::Any);
    }
    switch (recv.kind) {
      case Kind::ModuleMember: return AbstractType::of(Kind::Tensor, recv.device);  // model.encode(x), model.weight.sum()
      case Kind::Tensor:
        if (meth == "state_dict" || meth == "parameters") break;
        // A method torch.Tensor does not have (data/frameworks.txt `tensor-methods`; nor one of a mapping or a distribution,
        // which a value typed a tensor may be: a dict of a module's outputs): the value is no
        // tensor (a graph of a graph library moved with `g.to(device)`: `g.num_nodes()` is a host
        // int, set BF GraphMAE edcoder.py:200), so what the call gives is not known; the CUDA
        // taint follows its arguments only (SemanticModel::is_cuda_uncached).
        if (!FrameworkTable::get().tensor_method(meth) && !FrameworkTable::get().held_value_method(meth)) return AbstractType::unknown();
        return recv;  // tensor methods return tensors on the same device
      case Kind::Module:
        if (meth == "forward" || meth == "generate") {
          // `self.forward(batch)` in a Lightning hook: on the accelerator (unless the class's
          // forward returns host values by its types).
          if (TypeDevice d = recv.device == TypeDevice::Unresolved ? hook_self_device(recv_node) : TypeDevice::Unresolved;
              d != TypeDevice::Unresolved && meth == "forward") {
            AbstractType h = host_forward(recv.klass);
            return h.kind != Kind::Unknown ? h : AbstractType::of(Kind::Tensor, d);
          }
          return AbstractType::of(Kind::Tensor, recv.device);
        }
        // Another method of a module of a library class (DDP's `_get_ddp_logging_data()`, a
        // dict of strings): what it returns is not known, the CUDA taint decides; only calling
        // the module (or a submodule the types know) computes on its device. nn.Module's own
        // accessors of its tensors (`parameters()`, `state_dict()`...) hand back those tensors.
        if (runs_module_method(call)) return AbstractType::of(Kind::Tensor, TypeDevice::Any);
        if (recv.klass == -1 && meth != "parameters" && meth != "buffers" && meth != "named_parameters" &&
            meth != "named_buffers" && meth != "state_dict" && value(fn, Path{}).kind == Kind::ModuleMember)
          return AbstractType::unknown();
        break;
      case Kind::Object:
        if (recv.framework >= 0) {
          if (table.prepares_first(recv.framework, meth)) return prepared(m_.argument(call, 0, ""));
          // A method that hands back its argument as it is (row `identity CLASS.METHOD`:
          // `accelerator.unwrap_model(model)`, the model on its device).
          if (table.identity(table.class_name(recv.framework) + "." + std::string(meth))) {
            Node first = m_.argument(call, 0, "");
            return is_null(first) || is(first, "keyword_argument") ? AbstractType::unknown() : value(first, Path{});
          }
          if (table.returns_on_device(recv.framework, meth)) {
            // `accelerator.gather(t)`, `pad_across_processes(d)`: its tensors on the device; a
            // host value given stays what it was (the CUDA taint decides).
            Node first = m_.argument(call, 0, "");
            AbstractType a = is_null(first) ? AbstractType::unknown() : value(first, Path{});
            if ((a.kind == Kind::Tensor || a.kind == Kind::HostContainer) && a.device != TypeDevice::Cpu)
              return AbstractType::of(a.kind, a.device == TypeDevice::Cuda ? TypeDevice::Cuda : TypeDevice::Any);
            return AbstractType::unknown();
          }
          // `tokenizer.encode(text, return_tensors="pt")` (row `host-encoding`): CPU tensors.
          if (int enc = host_encoding(call); enc != 0) return encoded_on_host(enc);
          // A tokenizer's `decode(ids)` (row `host-result`): strings, even of CUDA ids (the
          // readback is the call itself).
          if (table.returns_host(recv.framework, meth)) return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
          if (table.returns_device_loader(recv.framework, meth)) return AbstractType::of(Kind::Loader, TypeDevice::Cuda);
          if (table.returns_device_tensor(recv.framework, meth)) return AbstractType::of(Kind::Tensor, TypeDevice::Cuda);
          if (table.returns_device_tensors(recv.framework, meth))
            return AbstractType::of(Kind::HostContainer, TypeDevice::Cuda);  // a tensor or a tuple of them
          if (table.prepares(recv.framework, meth)) {
            int positional = 0;
            Node only{};
            for (Node a : named_children(field(call, "arguments")))
              if (!is(a, "keyword_argument")) {
                ++positional;
                only = a;
              }
            if (positional == 1) return prepared(only);
            return AbstractType::of(Kind::HostContainer, TypeDevice::Cuda);
          }
          return AbstractType::unknown();
        }
        break;
      case Kind::HostScalar:
      case Kind::None: return AbstractType::of(Kind::HostScalar);  // str methods
      case Kind::HostContainer:
        if (meth == "append" || meth == "extend" || meth == "clear" || meth == "update" || meth == "insert")
          return AbstractType::of(Kind::None);
        if (meth == "items" || meth == "values" || meth == "keys" || meth == "copy") return recv;
        if (meth == "get" || meth == "pop") return element(recv, 1);
        break;
      default: break;
    }
  }
  // Calling a module gives a tensor on its device, whatever is known about the batch.
  AbstractType callee = value(fn, Path{});
  // Calling a framework object whose call gives host data (`tokenizer(texts, return_tensors="pt")`:
  // row `host-result CLASS __call__`): CPU tensors or lists, whatever it is given.
  // With `return_tensors="pt"` (row `host-encoding`): CPU tensors, a BatchEncoding of them.
  if (callee.kind == Kind::Object)
    if (int enc = host_encoding(call); enc != 0) return encoded_on_host(enc);
  if (callee.kind == Kind::Object && table.returns_host(callee.framework, "__call__"))
    return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
  // Calling a library module that computes on its input's device (row `same-device-modules`:
  // `resampler(waveform)` of a `torchaudio.transforms.Resample`): a tensor where the input is,
  // when its type says where (else the CUDA taint decides).
  if (callee.kind == Kind::Object && callee.framework >= 0 && table.same_device_module(callee.framework)) {
    Node first = m_.argument(call, 0, "");
    AbstractType a = is_null(first) || is(first, "keyword_argument") ? AbstractType::unknown() : value(first, Path{});
    if (a.kind == Kind::Tensor && a.device != TypeDevice::Unresolved) return AbstractType::of(Kind::Tensor, a.device);
    return AbstractType::unknown();
  }
  // Except a project module whose forward hands back CPU tensors by its types (a matcher that
  // computes its index tensors after `.cpu()`): those, wherever the module lives.
  if (callee.kind == Kind::Module)
    if (AbstractType h = host_forward(callee.klass); h.kind != Kind::Unknown) return h;
  // A method of a module class defined here every return of which is a CPU tensor by its types
  // (stargan-v2's `FAN.get_landmark`: `torch.cat` of per-image results computed after
  // `heatmaps[i].cpu()`): that, wherever the module lives.
  if (std::vector<int> targets = callee.kind == Kind::ModuleMember ? m_.callees(call) : std::vector<int>{};
      !targets.empty()) {
    AbstractType t = AbstractType::bottom();
    for (int f : targets) {
      const auto& returns = m_.functions()[f].returns;
      if (returns.empty() || !yields(f).empty()) t = AbstractType::unknown();
      if (t.kind != Kind::Unknown)
        for (Node r : returns) t = join(t, value(r, Path{}));
    }
    if (t.device == TypeDevice::Cpu && tensor_like(t)) return t;
    // Every return a device or a Python scalar by its types (continual-learning's
    // `ContinualLearner._device()`: `next(self.parameters()).device`, `_is_on_cuda()`: its
    // `.is_cuda`): that, not a tensor the module computes (set AO evaluate.py:60, utils.py:42).
    if (t.kind == Kind::Device || t.kind == Kind::HostScalar) return t;
  }
  if (callee.kind == Kind::Module || callee.kind == Kind::ModuleMember) {
    // `self(batch)` in a step hook of a module the framework placed (Lightning's accelerator).
    if (callee.kind == Kind::Module && callee.device == TypeDevice::Unresolved)
      if (TypeDevice d = hook_self_device(fn); d != TypeDevice::Unresolved) return AbstractType::of(Kind::Tensor, d);
    // A module on an unknown device computes where its inputs are: CUDA inputs, CUDA outputs
    // (or a device mismatch error).
    if (callee.kind == Kind::Module && callee.device == TypeDevice::Unresolved)
      for (Node a : named_children(field(call, "arguments"))) {
        if (is(a, "keyword_argument")) a = field(a, "value");
        if (is(a, "list_splat") || is(a, "dictionary_splat") || is_null(a)) continue;
        AbstractType at = value(a, Path{});
        if (at.kind == Kind::Tensor && (at.device == TypeDevice::Cuda || at.device == TypeDevice::Any))
          return AbstractType::of(Kind::Tensor, at.device);
      }
    return AbstractType::of(Kind::Tensor, callee.device);
  }
  int klass = class_of_callee(fn);
  if (klass >= 0) {
    AbstractType t = instance_of(klass);
    if (t.kind == Kind::Module && built_on_cuda_default(call)) t.device = TypeDevice::Cuda;
    return t;
  }
  // `_ENCODERS[kind](...)`, a dict display of classes of this module subscripted and called: an
  // instance of one of them (the join of their instance types: a module of no one class, which
  // class_names reads as the union).
  if (auto table = table_classes(fn); !table.empty()) {
    AbstractType t = AbstractType::bottom();
    for (int c : table) t = join(t, instance_of(c));
    if (t.kind == Kind::Module && built_on_cuda_default(call)) t.device = TypeDevice::Cuda;
    if (t.kind == Kind::Module || t.kind == Kind::Object) return t;
  }
  if (int ext = ext_instance_class(call); ext <= -2) {  // another module's class
    AbstractType t = instance_type(ext, TypeDevice::Unresolved);
    if (t.kind == Kind::Module && built_on_cuda_default(call)) t.device = TypeDevice::Cuda;
    return t;
  }
  if (is(fn, "identifier")) {
    int fw = framework_class_of_callee(fn);
    if (fw >= 0) {
      AbstractType t = AbstractType::of(Kind::Object);
      t.framework = fw;
      return t;
    }
    // A name bound only to lambdas each of which picks elements of a tensor it closes over
    // (`get = lambda i: hidden[i][alias_inputs[i]]`, SR-GNN): a tensor on that tensor's device,
    // whatever the index. The lambda's parameters are no scope of the model, so only a body
    // whose indexed tensor is not one of them is read.
    auto lambda_pick = [&]() -> AbstractType {
      auto vs = m_.values(fn);
      if (vs.empty()) return AbstractType::unknown();
      AbstractType out = AbstractType::bottom();
      for (const auto& v : vs) {
        if (v.kind != Value::Kind::Expr || !is(v.expr, "lambda")) return AbstractType::unknown();
        Node body = unparen(field(v.expr, "body"));
        if (!is(body, "subscript")) return AbstractType::unknown();
        while (is(body, "subscript")) body = unparen(field(body, "value"));
        if (!is(body, "identifier")) return AbstractType::unknown();
        for (Node p : named_children(field(v.expr, "parameters")))
          if (text(is(p, "identifier") ? p : field(p, "name"), m_.src()) == text(body, m_.src()))
            return AbstractType::unknown();
        AbstractType t = value(body, Path{});
        if (t.kind != Kind::Tensor) return AbstractType::unknown();
        out = join(out, t);
      }
      return out.kind == Kind::Tensor ? out : AbstractType::unknown();
    };
    if (AbstractType picked = lambda_pick(); picked.kind != Kind::Unknown) return picked;
  }
  // A function (or method, or `__call__`) defined here: what it returns.
  if (auto targets = m_.callees(call); !targets.empty()) return callees_return(targets, call, false);
  // A function of another project module that returns a module that may be on CUDA, or (by its
  // own abstract types) a tensor that may be.
  if (const FunctionFacts* ext = m_.ext_callee_of(call, fact::kReturnsCuda | fact::kReturnsTensor |
                                                           fact::kReturnsModule | fact::kReturnsLoader | fact::kReturnType |
                                                           fact::kReturnsClass | fact::kReturnDep)) {
    // What its own types say it returns (`to_cpu(t)`: a CPU tensor; `(model, flag)`: a tuple).
    if (AbstractType c = returned_instance(*ext); c.kind != Kind::Unknown) return c;  // `exp.get_model()`
    if (!ext->ret_framework.empty()) return ext_return(*ext);  // `prepare_accelerator(args)`: an Accelerator
    if (AbstractType at_site; site_return(*ext, call, at_site)) return at_site;  // with this call's arguments
    AbstractType rt = ext_return(*ext);
    if (rt.kind != Kind::Unknown) return rt;
    if (ext->returns_cuda && !ext->returns_loader && (ext->returns_module || ext->returns_tensor))
      return AbstractType::of(ext->returns_module ? Kind::Module : Kind::Tensor, TypeDevice::Any);
  }
  // One of several (a registry lookup called): the union of their classes, or the join of their types.
  if (auto fs = ext_union_functions(call, fact::kReturnType | fact::kReturnsClass); !fs.empty()) {
    std::string classes;
    AbstractType rt = AbstractType::bottom();
    for (const FunctionFacts* f : fs) {
      classes = f->returns_class.empty() ? std::string{} : classes.empty() && f == fs[0] ? f->returns_class
                                                                                       : union_join(classes, f->returns_class);
      rt = join(rt, ext_return(*f));
    }
    if (int klass = classes.empty() ? -1 : class_by_canonical(classes); klass != -1) {
      AbstractType c = instance_type(klass, TypeDevice::Unresolved);
      if (c.kind == Kind::Module || c.kind == Kind::Object) return c;
    }
    if (rt.kind != Kind::Unknown && rt.kind != Kind::Bottom) return rt;
  }
  // Builtins that hand back their arguments.
  if (q == "builtins.sum" || q == "builtins.min" || q == "builtins.max" || q == "builtins.abs" || q == "builtins.pow") {
    auto args = named_children(field(call, "arguments"));
    if (args.size() == 1 && q != "builtins.abs") return element_of(args[0]);
    AbstractType t = AbstractType::bottom();
    for (Node a : args) {
      if (is(a, "keyword_argument")) continue;
      t = arith(t, value(a, Path{}));
    }
    return t.kind == Kind::Bottom ? AbstractType::unknown() : t;
  }
  if (q == "builtins.list" || q == "builtins.tuple" || q == "builtins.sorted" || q == "builtins.set") {
    Node a = m_.argument(call, 0, "");
    if (is_null(a)) return AbstractType::of(Kind::HostContainer, TypeDevice::Cpu);
    AbstractType e = element_of(a);
    TypeDevice d = e.is_host() ? TypeDevice::Cpu
                   : (e.kind == Kind::Tensor || e.kind == Kind::Module) ? e.device
                                                                        : TypeDevice::Unresolved;
    return AbstractType::of(Kind::HostContainer, d);
  }
  if (q == "builtins.next") return element_of(m_.argument(call, 0, ""));
  return AbstractType::unknown();
}

// O(enclosing statements x the statements before the construction in each block, at most 64 per
// block), only in a file that names torch's default device setters.
bool TypeInference::built_on_cuda_default(Node call) const {
  if (!m_.default_device_moved()) return false;
  const std::string_view src = m_.src();
  // A default-device setter statement: 1 sets CUDA, 0 sets another default, -1 none.
  auto setter = [&](Node st) -> int {
    if (!is(st, "expression_statement") || named_count(st) != 1) return -1;
    Node c = unparen(named_child(st, 0));
    if (!is(c, "call")) return -1;
    const std::string& q = m_.qualified_name(unparen(field(c, "function")));
    if (q != "torch.set_default_tensor_type" && q != "torch.set_default_device") return -1;
    Node a = unparen(m_.argument(c, 0, q == "torch.set_default_device" ? "device" : "t"));
    if (is_null(a)) return 0;
    std::string lit;
    std::string_view written = string_literal_value(a, src, lit) ? std::string_view(lit) : text(a, src);
    if (q == "torch.set_default_tensor_type") return starts_with(written, "torch.cuda.") ? 1 : 0;
    if (string_literal_value(a, src, lit)) return starts_with(lit, "cuda") ? 1 : 0;
    return m_.device_kind(a) == SemanticModel::DeviceKind::Cuda ? 1 : 0;
  };
  for (Node n = call; !is_null(n); n = parent(n)) {
    Node p = parent(n);
    if (is_null(p) || is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) break;
    // `with torch.device("cuda"):` around the construction.
    if (is(p, "with_statement") && same(field(p, "body"), n)) {
      for (Node clause : named_children(p)) {
        if (!is(clause, "with_clause")) continue;
        for (Node item : named_children(clause)) {
          Node v = unparen(field(item, "value"));
          if (is(v, "call") && m_.qualified_name(unparen(field(v, "function"))) == "torch.device") {
            std::string lit;
            Node a = unparen(m_.argument(v, 0, "type"));
            if (string_literal_value(a, src, lit) && starts_with(lit, "cuda")) return true;
          }
        }
      }
    }
    if (!is(p, "block") && !is(p, "module")) continue;
    // The statements before `n` in its block, nearest first.
    auto statements = named_children(p);
    size_t at = statements.size();
    for (size_t i = 0; i < statements.size(); ++i)
      if (same(statements[i], n)) at = i;
    for (size_t i = at, seen = 0; i > 0 && at < statements.size() && seen < 64; --i, ++seen)
      if (int s = setter(statements[i - 1]); s >= 0) return s == 1;
  }
  return false;
}

}  // namespace stoker::python
