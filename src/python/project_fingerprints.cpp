// Fingerprints of the project's answers (python/project_fingerprints.h), moved out of
// python/project.cpp.
#include "python/project_fingerprints.h"

#include <cstdlib>
#include <string_view>

#include "python/project_fields.h"
#include "python/types_detail.h"

namespace stoker::python {

// Call sites "file.py:12" in order: by file name, then line.
bool earlier_site(const std::string& a, const std::string& b) {
  auto ca = a.rfind(':'), cb = b.rfind(':');
  std::string_view fa(a.data(), ca == std::string::npos ? a.size() : ca), fb(b.data(), cb == std::string::npos ? b.size() : cb);
  if (fa != fb) return fa < fb;
  long la = ca == std::string::npos ? 0 : std::atol(a.c_str() + ca + 1);
  long lb = cb == std::string::npos ? 0 : std::atol(b.c_str() + cb + 1);
  return la < lb;
}

// One scalar value as the fingerprints spell it: kind:int:float:string:bool.
static std::string fp_scalar(const ScalarFact& v) {
  return std::to_string(static_cast<int>(v.kind)) + ":" + std::to_string(v.i) + ":" + std::to_string(v.f) + ":" + v.s +
         ":" + (v.b ? "1" : "0");
}

// Fingerprints of the parts of answers a query reads: equal strings, equal answers. No facts
// read as all false.
std::string fp_arg(const ArgFacts* a, unsigned fields) {
  static const ArgFacts kNone;
  const ArgFacts& x = a ? *a : kNone;
  std::string o;
  if (fields & fact::kCuda) {
    o += std::string(x.cuda ? "c" : "-") + (x.tensor ? "t" : "-") + (x.untyped ? "u" : "-");
    if (!x.elems_mixed)
      for (char e : x.elem_cuda) o += e ? '1' : '0';
  }
  if (fields & fact::kModule) o += x.module ? 'm' : '-';
  if (fields & fact::kValues) {
    o += std::string("|w") + (x.kw_known ? "k" : "-") + (x.kw_open ? "o" : "-");
    for (const auto& k : x.kw_names) o += "," + k;
  }
  if (fields & fact::kLoader) {
    o += x.loader ? 'l' : '-';
    for (const auto& k : x.loader_keys) o += "|k" + k;
  }
  if (fields & fact::kDevice) {
    o += x.device_cuda ? 'g' : '-';
    for (const auto& [attr, k] : x.attr_devices) o += "|." + attr + "=" + std::to_string(k);
  }
  if (fields & fact::kBatch) o += std::string(x.batch ? "b" : "-") + (x.step ? "s" : "-");
  if (fields & fact::kType) {
    o += "T" + std::to_string(x.type_kind) + ":" + std::to_string(x.type_device);
    if (!x.framework.empty()) o += "F" + x.framework;
    if (!x.elems_mixed)
      for (const auto& [k, d] : x.elem_types) o += "," + std::to_string(k) + ":" + std::to_string(d);
  }
  if (fields & fact::kHotValues) {
    o += x.hot_passed ? "|hp" : "|h-";
    o += x.hot_defaulted ? 'd' : '-';
    for (const auto& v : x.hot_values)
      o += "|" + fp_scalar(v);
  }
  if (fields & fact::kUseValues) {
    o += std::string("|U") + (x.fed_passed ? "p" : "-") + (x.fed_defaulted ? "d" : "-") + (x.epoch_passed ? "P" : "-") +
         (x.epoch_defaulted ? "D" : "-");
    for (const auto* vs : {&x.fed_values, &x.epoch_values}) {
      o += "|";
      for (const auto& v : *vs)
        o += fp_scalar(v) + ";";
    }
  }
  if (fields & fact::kArgClass) o += "<" + x.klass + ">" + (x.func.empty() ? "" : "{" + x.func + "}");
  if (fields & fact::kElemValues) {
    o += "|e";
    for (const auto& v : x.elem_values)
      o += "|" + fp_scalar(v);
  }
  // A namespace's or a dict's values by attribute or key: |<tag><state>|key=v;v;...
  auto keyed = [&](const char* tag, int state, const auto& values) {
    o += tag + std::to_string(state);
    for (const auto& [key, vs] : values) {
      o += "|" + key + "=";
      for (const auto& v : vs)
        o += fp_scalar(v) + ";";
    }
  };
  if (fields & fact::kNamespaceArg) keyed("|n", x.ns, x.ns_values);
  if (fields & fact::kDictArg) keyed("|D", x.dict, x.dict_values);
  if (fields & fact::kValues) {
    bool all_unknown = true;
    for (const auto& v : x.values) all_unknown &= v.kind == ScalarFact::Kind::Unknown;
    if (!a || ((fields & fact::kPlain) && all_unknown)) {
      o += "|null";
    } else {
      o += x.passed ? "|p" : "|-";
      o += x.defaulted ? 'd' : '-';
      for (const auto& v : x.values)
        o += "|" + fp_scalar(v);
    }
  }
  return o;
}

std::string fp_incoming(const IncomingCalls* in, unsigned fields) {
  static const IncomingCalls kNone;
  const IncomingCalls& x = in ? *in : kNone;
  std::string o;
  if (fields & fact::kHot) {
    if (x.hot) {
      o += 'H' + std::to_string(x.every);
      o += x.once_per_epoch ? 'O' : '-';
      o += x.flag_guarded ? 'F' : '-';
      o += x.via;
    } else {
      o += '-';
    }
  }
  if (fields & fact::kInLoop) o += x.in_loop ? 'L' : '-';
  if (fields & fact::kResult) {
    o += (x.result_feeds_training ? 'R' : '-') + std::to_string(x.result_per_epoch) + 'e' + std::to_string(x.result_fed);
    for (const auto& a : x.attrs_fed) o += '.' + a;
  }
  if (fields & fact::kCalled) o += x.called ? 'C' : x.dead_called ? 'D' : '-';
  if (fields & fact::kRebuilt) o += x.rebuilt ? "B" + x.rebuilt_via : "-";
  return o;
}

std::string fp_function(const FunctionFacts* f, unsigned fields) {
  static const FunctionFacts kNone;
  const FunctionFacts& x = f ? *f : kNone;
  std::string o;
  if (fields & fact::kSteps) o += std::string(x.steps ? "s" : "-") + (x.steps_forward ? "f" : "-");
  if (fields & fact::kHotLoop) o += std::string(x.has_hot_loop ? "h" : "-") + (x.trains_loop ? "t" : "-");
  if (fields & fact::kReturnsCuda) {
    o += x.returns_cuda ? 'c' : '-';
    for (int c : x.ret_elem_cuda) o += c ? 'C' : 'H';
  }
  if (fields & fact::kReturnsTensor) o += x.returns_tensor ? 't' : '-';
  if (fields & fact::kReturnsLoader) o += x.returns_loader ? 'l' : '-';
  if (fields & fact::kReturnsLoader)
    for (const auto& k : x.ret_loader_keys) o += "|K" + k;
  if ((fields & fact::kReturnsLoader) && x.ret_loader_dicts) o += "|D" + std::to_string(x.ret_loader_dicts);
  if ((fields & fact::kReturnsLoader) && x.workers_param >= 0 && static_cast<size_t>(x.workers_param) < x.params.size())
    o += "w" + std::to_string(x.workers_param) + x.params[static_cast<size_t>(x.workers_param)].name +
         (x.params[static_cast<size_t>(x.workers_param)].keyword_only ? "k" : "p") + (x.method ? 'm' : 'f');
  if (fields & fact::kReturnsModule) o += x.returns_module ? 'm' : '-';
  if (fields & fact::kReturnType) {
    o += "R" + std::to_string(x.ret_kind) + ":" + std::to_string(x.ret_device) + x.ret_framework;
    for (const auto& [k, d] : x.ret_elems) o += "," + std::to_string(k) + ":" + std::to_string(d);
    for (const auto& c : x.ret_elem_classes) o += "," + c;
    o += std::string(x.returns_py_values ? "P" : "") + (x.yields_built ? "B" : "") + "Y" + std::to_string(x.yield_kind) + ":" + std::to_string(x.yield_device) + ":" +
         std::to_string(x.yields_param) + (x.method ? "m" : "f");
    if (x.yields_param >= 0 && static_cast<size_t>(x.yields_param) < x.params.size())
      o += x.params[static_cast<size_t>(x.yields_param)].name +
           (x.params[static_cast<size_t>(x.yields_param)].keyword_only ? "k" : "p");
  }
  if (fields & fact::kHostReturn) {
    // The device without the container-of-tensors bit (TypeInference::from_fact).
    // A Python scalar or another host value too (TypeInference::host_forward reads them),
    // whatever its device field.
    if ((x.ret_device >= 0 && (x.ret_device & ~type_detail::kTensorsFact) == static_cast<int>(TypeDevice::Cpu)) ||
        x.ret_kind == static_cast<int>(AbstractType::Kind::HostScalar) ||
        x.ret_kind == static_cast<int>(AbstractType::Kind::Host))
      o += "Q" + std::to_string(x.ret_kind) + ":" + std::to_string(x.ret_device) + (x.is_class ? "K" : "-");
    else
      o += "Q-";
  }
  if (fields & fact::kReturnsClass) o += "<" + x.returns_class + ">";
  if (fields & fact::kExists) o += f ? 'E' : '-';
  if (fields & fact::kDevKind) {
    o += "V" + std::to_string(x.devkind);
    for (const auto& [attr, k] : x.ret_attr_devices) o += "|." + attr + "=" + std::to_string(k);
  }
  if (fields & fact::kLoaderClass) o += (x.loader_class ? "L" : "-") + std::to_string(x.loader_positional);
  if (fields & fact::kNamespace) {
    o += x.returns_namespace ? "N" : x.returns_parser ? "P" : "-";
    if (x.namespace_object) o += "O";
    for (const auto& [dest, vs] : x.namespace_values) {
      o += "|" + dest;
      for (const auto& v : vs)
        o += "=" + fp_scalar(v);
    }
  }
  if (fields & fact::kReturnsMask) o += x.returns_mask ? "M" : "-";
  if (fields & fact::kConstValues)
    for (const auto& v : x.const_values)
      o += "=" + fp_scalar(v);
  if (fields & fact::kReturnDep) {
    o += "D" + std::string(x.dep_known ? "1" : "0") + std::to_string(x.dep_kind) + ":" + std::to_string(x.dep_device) +
         (x.dep_cuda ? "c" : "-");
    for (const auto& [i, d] : x.dep_uses) {
      o += "," + std::to_string(i) + ":" + std::to_string(d);
      if (i >= 0 && static_cast<size_t>(i) < x.params.size())  // how a call site binds it
        o += x.params[static_cast<size_t>(i)].name + (x.params[static_cast<size_t>(i)].keyword_only ? "k" : "p");
    }
    o += x.method ? 'm' : 'f';
  }
  if (fields & fact::kReturnsFollow)
    for (int i : x.returns_follow.params) o += "/" + std::to_string(i);  // SemanticModel::keyed_store_cuda
  if (fields & fact::kTable)
    for (const auto& c : x.table_classes) o += "[" + c;
  if ((fields & fact::kBatchSize) && x.batch_size_param >= 0 && static_cast<size_t>(x.batch_size_param) < x.params.size())
    o += "b" + std::to_string(x.batch_size_param) + x.params[static_cast<size_t>(x.batch_size_param)].name;
  if ((fields & fact::kBatchSize) && x.returns_first_item) o += "i";
  if (fields & fact::kClass) {
    o += (x.is_class ? "K" : "-") + std::to_string(x.module_kind) + "i" + std::to_string(x.iter_kind) + ":" +
         std::to_string(x.iter_device);
    if (!x.framework.empty()) o += "|F" + x.framework;
    for (const auto& b : x.bases) o += "|B" + b;
  }
  // The attributes' types are read one attribute at a time (fp_class_attr); `self_stores` only
  // by the table (ExternalFacts::subclass_stores is a query of its own).
  if (fields & fact::kAttrsCuda) {
    bool cuda = false;
    for (const auto& a : x.attrs)
      cuda |= a.device == static_cast<int>(TypeDevice::Cuda) || a.device == static_cast<int>(TypeDevice::Any);
    o += cuda ? "|AC" : "|A-";
  }
  if (fields & fact::kAttrSources)
    for (const auto& a : x.attr_sources) o += "|a" + a.attr + ":" + a.method + ":" + std::to_string(a.param);
  if (fields & fact::kHotSelfCalls)
    for (const auto& h : x.hot_self_calls) o += "|h" + h;
  if (fields & fact::kParams)  // what callers read of the parameters: which ones a hot loop iterates
    for (size_t i = 0; i < x.params.size(); ++i) {  // or the function calls
      const auto& p = x.params[i];
      if (!p.iterated_hot && !p.called && p.hot_keys.empty() && !p.enters_numpy) continue;
      o += '|' + std::to_string(i - (x.method ? 1 : 0)) + p.name;
      for (bool b : {p.keyword_only, p.star, p.double_star, p.iterated_hot, p.called, p.iterated_per_epoch, p.enters_numpy})
        o += b ? '1' : '0';
      for (const auto& k : p.hot_keys) o += ",k" + k;
    }
  return o;
}

std::string fp_class_attr(const FunctionFacts* f, std::string_view attr) {
  if (!f || !f->is_class) return "-";
  for (const auto& a : f->attrs)
    if (a.name == attr) return std::to_string(a.kind) + ":" + std::to_string(a.device) + ":" + a.framework;
  return "n";
}

}  // namespace stoker::python
