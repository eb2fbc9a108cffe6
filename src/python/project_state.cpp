#include <string>

#include <nlohmann/json.hpp>

#include "python/project.h"

// A module's state (its summary and the queries it recorded) as a string and back, for the CLI's
// cache. Split from project.cpp by concern (issue 10's layout).

namespace stoker::python {

namespace {
using nlohmann::json;
json const_json(const std::vector<ScalarFact>& values) {
  json vs = json::array();
  for (const auto& v : values) vs.push_back({static_cast<int>(v.kind), v.i, v.f, v.s, v.b});
  return vs;
}
void scalars_from(const json& list, std::vector<ScalarFact>& out) {
  for (const auto& v : list) {
    ScalarFact f;
    int k = v.at(0);
    if (k < 0 || k > static_cast<int>(ScalarFact::Kind::None)) throw std::runtime_error("bad kind");
    f.kind = static_cast<ScalarFact::Kind>(k);
    f.i = v.at(1);
    f.f = v.at(2);
    f.s = v.at(3);
    f.b = v.at(4);
    out.push_back(std::move(f));
  }
}
std::vector<ScalarFact> const_parse(const json& list) {
  std::vector<ScalarFact> out;
  scalars_from(list, out);
  return out;
}
json arg_json(const ArgFacts& a) {
  json vs = const_json(a.values), hvs = const_json(a.hot_values), evs = const_json(a.elem_values);
  json ns = json::array();
  for (const auto& [dest, dvs] : a.ns_values) ns.push_back({dest, const_json(dvs)});
  json dict = json::array();
  for (const auto& [key, kvs] : a.dict_values) dict.push_back({key, const_json(kvs)});
  return {a.passed, a.defaulted, a.cuda, a.module, a.loader, a.device_cuda, vs, a.tensor, a.untyped, a.type_kind,
          a.type_device, a.hot_passed, a.hot_defaulted, hvs, a.klass, a.elem_cuda, a.elems_mixed, a.elem_types, evs,
          a.batch, a.step, a.ns, ns, a.loader_keys, a.kw_names, a.kw_known, a.kw_open, a.dict, dict, a.attr_devices,
          a.framework, a.func};
}
ArgFacts arg_from(const json& j) {
  ArgFacts a;
  a.passed = j.at(0);
  a.defaulted = j.at(1);
  a.cuda = j.at(2);
  a.module = j.at(3);
  a.loader = j.at(4);
  a.device_cuda = j.at(5);
  a.tensor = j.at(7);
  a.untyped = j.at(8);
  a.type_kind = j.at(9);
  a.type_device = j.at(10);
  a.hot_passed = j.at(11);
  a.hot_defaulted = j.at(12);
  const auto& scalars = scalars_from;
  scalars(j.at(6), a.values);
  scalars(j.at(13), a.hot_values);
  a.klass = j.at(14).get<std::string>();
  a.elem_cuda = j.at(15).get<std::vector<char>>();
  a.elems_mixed = j.at(16);
  a.elem_types = j.at(17).get<std::vector<std::pair<int, int>>>();
  scalars(j.at(18), a.elem_values);
  a.batch = j.at(19);
  a.step = j.at(20);
  a.ns = j.at(21);
  for (const auto& d : j.at(22)) a.ns_values.push_back({d.at(0).get<std::string>(), const_parse(d.at(1))});
  if (j.size() > 23) a.loader_keys = j.at(23).get<std::vector<std::string>>();
  if (j.size() > 26) {
    a.kw_names = j.at(24).get<std::vector<std::string>>();
    a.kw_known = j.at(25);
    a.kw_open = j.at(26);
  }
  if (j.size() > 28) {
    a.dict = j.at(27);
    for (const auto& d : j.at(28)) a.dict_values.push_back({d.at(0).get<std::string>(), const_parse(d.at(1))});
  }
  if (j.size() > 29) a.attr_devices = j.at(29).get<std::vector<std::pair<std::string, int>>>();
  if (j.size() > 30) a.framework = j.at(30).get<std::string>();
  if (j.size() > 31) a.func = j.at(31).get<std::string>();
  return a;
}
}  // namespace

std::string serialize_module_state(const ModuleSummary& s, const QueryLog& queries) {
  json fns = json::array();
  for (const auto& [name, f] : s.functions) {
    json ps = json::array();
    for (const auto& p : f.params)
      ps.push_back({p.name, p.keyword_only, p.star, p.double_star, p.iterated_hot, p.called, p.iterated_per_epoch,
                    p.hot_keys, p.enters_numpy});
    json attrs = json::array();
    for (const auto& a : f.attrs) attrs.push_back({a.name, a.kind, a.device, a.framework});
    json ns = json::array();
    for (const auto& [dest, vs] : f.namespace_values) ns.push_back({dest, const_json(vs)});
    json sources = json::array();
    for (const auto& a : f.attr_sources) sources.push_back({a.attr, a.method, a.param});
    fns.push_back({name, f.method, f.has_hot_loop, f.steps, f.steps_forward, f.returns_cuda, f.returns_loader,
                   f.returns_module, ps, f.returns_tensor, f.is_class, f.module_kind, f.iter_kind, f.iter_device,
                   attrs, f.ret_kind, f.ret_device, f.ret_elems, f.yield_kind, f.yield_device, f.yields_param, f.framework, f.returns_class,
                   f.bases, f.self_calls, f.table_classes, f.ret_elem_classes, f.registry, f.batch_size_param, f.dep_known, f.dep_kind,
                   f.dep_device, f.dep_cuda, f.dep_uses, f.returns_follow.params, f.returns_follow.calls, f.devkind,
                   const_json(f.const_values), f.loader_class, f.returns_first_item, f.ret_framework, f.returns_namespace, ns,
                   f.hot_self_calls, f.returns_mask, f.ret_elem_cuda, f.self_stores, sources, f.workers_param,
                   f.ret_attr_devices, f.returns_parser, f.trains_loop, f.ret_loader_keys, f.yields_built,
                   f.namespace_object, f.loader_positional, f.returns_py_values, f.ret_loader_dicts});
  }
  json calls = json::array();
  for (const auto& c : s.calls) {
    json pos = json::array(), kws = json::array();
    for (const auto& a : c.positional) pos.push_back(arg_json(a));
    for (const auto& [k, a] : c.keywords) kws.push_back({k, arg_json(a)});
    json follows = json::array();
    for (const auto* list : {&c.positional_follow, &c.keyword_follow}) {
      json l = json::array();
      for (const auto& t : *list) l.push_back({t.params, t.calls});
      follows.push_back(std::move(l));
    }
    calls.push_back({c.callee, c.line, c.hot, c.every, c.once_per_epoch, c.flag_guarded, c.in_loop,
                     c.result_feeds_training, c.splat, pos, kws, c.caller, c.hot_if_caller, c.caller_every,
                     c.caller_once_per_epoch, c.caller_flag_guarded, c.result_per_epoch, follows, c.attrs_fed,
                     c.splat_cuda, c.rebuilds, c.rebuilds_if_caller, c.star_cuda, c.result_fed, c.dead});
  }
  json qs = json::array();
  for (const auto& [key, e] : queries)
    qs.push_back({key, std::string(1, e.first.type), e.first.name, e.first.index, e.first.fields, e.second});
  json j{{"uses_cuda", s.uses_cuda}, {"functions", fns}, {"imports", s.imports}, {"stars", s.star_imports}, {"unused_imports", s.unused_imports}, {"attrs", s.attribute_names},
         {"calls", calls}, {"queries", qs}, {"cuda_instances", s.cuda_instances}, {"module_stores", s.module_stores},
         {"module_reads", s.module_reads}};
  return j.dump();
}

bool parse_module_state(const std::string& text, ModuleSummary& s, QueryLog& queries) {
  try {
    json j = json::parse(text);
    s = ModuleSummary{};
    queries.clear();
    s.uses_cuda = j.at("uses_cuda");
    for (const auto& f : j.at("functions")) {
      FunctionFacts ff;
      ff.method = f.at(1);
      ff.has_hot_loop = f.at(2);
      ff.steps = f.at(3);
      ff.steps_forward = f.at(4);
      ff.returns_cuda = f.at(5);
      ff.returns_loader = f.at(6);
      ff.returns_module = f.at(7);
      ff.returns_tensor = f.at(9);
      ff.is_class = f.at(10);
      ff.module_kind = f.at(11);
      ff.iter_kind = f.at(12);
      ff.iter_device = f.at(13);
      for (const auto& a : f.at(14)) ff.attrs.push_back({a.at(0).get<std::string>(), a.at(1), a.at(2), a.at(3).get<std::string>()});
      ff.ret_kind = f.at(15);
      ff.ret_device = f.at(16);
      ff.ret_elems = f.at(17).get<std::vector<std::pair<int, int>>>();
      ff.yield_kind = f.at(18);
      ff.yield_device = f.at(19);
      ff.yields_param = f.at(20);
      ff.framework = f.at(21).get<std::string>();
      ff.returns_class = f.at(22).get<std::string>();
      ff.bases = f.at(23).get<std::vector<std::string>>();
      ff.self_calls = f.at(24).get<std::vector<std::string>>();
      ff.table_classes = f.at(25).get<std::vector<std::string>>();
      ff.ret_elem_classes = f.at(26).get<std::vector<std::string>>();
      ff.registry = f.at(27).get<std::string>();
      ff.batch_size_param = f.at(28);
      ff.dep_known = f.at(29);
      ff.dep_kind = f.at(30);
      ff.dep_device = f.at(31);
      ff.dep_cuda = f.at(32);
      ff.dep_uses = f.at(33).get<std::vector<std::pair<int, int>>>();
      ff.returns_follow.params = f.at(34).get<std::vector<int>>();
      ff.returns_follow.calls = f.at(35).get<std::vector<int>>();
      ff.devkind = f.at(36);
      ff.const_values = const_parse(f.at(37));
      ff.loader_class = f.at(38);
      ff.returns_first_item = f.at(39).get<bool>();
      ff.ret_framework = f.at(40).get<std::string>();
      ff.returns_namespace = f.at(41).get<bool>();
      for (const auto& d : f.at(42)) ff.namespace_values.push_back({d.at(0).get<std::string>(), const_parse(d.at(1))});
      ff.hot_self_calls = f.at(43).get<std::vector<std::string>>();
      ff.returns_mask = f.at(44).get<bool>();
      ff.ret_elem_cuda = f.at(45).get<std::vector<int>>();
      ff.self_stores = f.at(46).get<std::vector<std::string>>();
      for (const auto& a : f.at(47)) ff.attr_sources.push_back({a.at(0).get<std::string>(), a.at(1).get<std::string>(), a.at(2)});
      ff.workers_param = f.size() > 48 ? f.at(48).get<int>() : -1;
      if (f.size() > 49) ff.ret_attr_devices = f.at(49).get<std::vector<std::pair<std::string, int>>>();
      ff.returns_parser = f.size() > 50 && f.at(50).get<bool>();
      ff.trains_loop = f.size() > 51 ? f.at(51).get<bool>() : ff.has_hot_loop;
      if (f.size() > 52) ff.ret_loader_keys = f.at(52).get<std::vector<std::string>>();
      ff.yields_built = f.size() > 53 && f.at(53).get<bool>();
      ff.namespace_object = f.size() > 54 && f.at(54).get<bool>();
      ff.loader_positional = f.size() > 55 ? f.at(55).get<int>() : -1;
      ff.returns_py_values = f.size() > 56 && f.at(56).get<bool>();
      ff.ret_loader_dicts = f.size() > 57 ? f.at(57).get<unsigned>() : 0u;
      for (const auto& p : f.at(8))
        ff.params.push_back(ParamSummary{p.at(0), p.at(1), p.at(2), p.at(3), p.at(4), p.at(5), p.at(6),
                                         p.size() > 7 ? p.at(7).get<std::vector<std::string>>() : std::vector<std::string>{},
                                         p.size() > 8 && p.at(8).get<bool>()});
      s.functions.push_back({f.at(0).get<std::string>(), std::move(ff)});
    }
    s.imports = j.at("imports").get<std::vector<std::pair<std::string, std::string>>>();
    s.star_imports = j.at("stars").get<std::vector<std::string>>();
    if (j.contains("unused_imports")) s.unused_imports = j.at("unused_imports").get<std::vector<std::string>>();
    s.attribute_names = j.at("attrs").get<std::vector<std::string>>();
    s.cuda_instances = j.at("cuda_instances").get<std::vector<std::string>>();
    s.module_stores = j.at("module_stores").get<std::vector<std::string>>();
    s.module_reads = j.at("module_reads").get<std::vector<std::string>>();
    for (const auto& c : j.at("calls")) {
      OutgoingCall oc;
      oc.callee = c.at(0);
      oc.line = c.at(1);
      oc.hot = c.at(2);
      oc.every = c.at(3);
      oc.once_per_epoch = c.at(4);
      oc.flag_guarded = c.at(5);
      oc.in_loop = c.at(6);
      oc.result_feeds_training = c.at(7);
      oc.splat = c.at(8);
      for (const auto& a : c.at(9)) oc.positional.push_back(arg_from(a));
      for (const auto& k : c.at(10)) oc.keywords.push_back({k.at(0).get<std::string>(), arg_from(k.at(1))});
      oc.caller = c.at(11);
      oc.hot_if_caller = c.at(12);
      oc.caller_every = c.at(13);
      oc.caller_once_per_epoch = c.at(14);
      oc.caller_flag_guarded = c.at(15);
      oc.result_per_epoch = c.at(16);
      for (const auto& t : c.at(17).at(0)) oc.positional_follow.push_back({t.at(0).get<std::vector<int>>(), t.at(1).get<std::vector<int>>()});
      for (const auto& t : c.at(17).at(1)) oc.keyword_follow.push_back({t.at(0).get<std::vector<int>>(), t.at(1).get<std::vector<int>>()});
      if (c.size() > 18) oc.attrs_fed = c.at(18).get<std::vector<std::string>>();
      if (c.size() > 19) oc.splat_cuda = c.at(19).get<bool>();
      if (c.size() > 21) {
        oc.rebuilds = c.at(20).get<bool>();
        oc.rebuilds_if_caller = c.at(21).get<bool>();
      }
      if (c.size() > 22) oc.star_cuda = c.at(22).get<bool>();
      if (c.size() > 23) oc.result_fed = c.at(23).get<unsigned>();
      if (c.size() > 24) oc.dead = c.at(24).get<bool>();
      s.calls.push_back(std::move(oc));
    }
    for (const auto& q : j.at("queries")) {
      std::string type = q.at(1);
      if (type.size() != 1) return false;
      queries[q.at(0).get<std::string>()] = {ModuleEnv::Query{type[0], q.at(2), q.at(3), q.at(4)},
                                             q.at(5).get<std::string>()};
    }
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace stoker::python
