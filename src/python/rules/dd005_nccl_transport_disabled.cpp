// DD005: NCCL's fast transports switched off from the program's own environment.
#include "python/rules/dd_common.h"

namespace stoker::python::rules {

namespace {
// The transport a variable disables ("p2p", "ib", "shm"), or empty.
std::string_view disabled_transport(std::string_view var) {
  if (var == "NCCL_P2P_DISABLE") return "p2p";
  if (var == "NCCL_IB_DISABLE") return "ib";
  if (var == "NCCL_SHM_DISABLE") return "shm";
  return {};
}
// Does the value resolve to a setting that disables (1, "1", True)?
bool is_one(const SemanticModel& m, Node value) {
  auto c = m.constant(value);
  if (!c) return false;
  if (c->kind == Value::Kind::Str) return c->s == "1";
  if (c->kind == Value::Kind::Int) return c->i == 1;
  return c->kind == Value::Kind::Bool && c->b;
}
bool is_environ(const SemanticModel& m, Node expr) { return m.qualified_name(expr) == "os.environ"; }

void report(Context& ctx, Node at, std::string_view var) {
  std::string_view what = disabled_transport(var);
  std::string lost = what == "p2p"   ? "GPU peer-to-peer copies over NVLink and PCIe; traffic between GPUs of a node goes through host memory"
                     : what == "ib" ? "InfiniBand and RoCE; traffic between nodes falls back to TCP sockets"
                                    : "the shared-memory transport between processes of a node";
  Diagnostic& d = ctx.report("DD005", at,
                             "`" + std::string(var) + "=1` set in code disables " + lost +
                                 "; every gradient all-reduce is slower");
  d.facts.push_back({"kind", std::string(what)});
  d.fix = Fix{"Remove it; if it works around a hang on this machine, set it in that machine's job environment instead",
              Applicability::DisplayOnly, {}};
}
}  // namespace

void dd005_nccl_transport_disabled(Context& ctx, Node node) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !uses_distributed(m)) return;
  if (is(node, "subscript")) {
    // os.environ["NCCL_P2P_DISABLE"] = "1"
    Node assign = parent(node);
    if (!is(assign, "assignment") || !same(field(assign, "left"), node)) return;
    if (!is_environ(m, field(node, "value"))) return;
    auto key = m.constant(field(node, "subscript"));
    if (!key || key->kind != Value::Kind::Str || disabled_transport(key->s).empty()) return;
    if (!is_one(m, field(assign, "right"))) return;
    report(ctx, node, key->s);
    return;
  }
  if (!is(node, "call")) return;
  std::string_view method = method_name(ctx, node);
  Node recv = receiver(node);
  if ((method == "setdefault" && is_environ(m, recv)) || m.callee_name(node) == "os.putenv") {
    Node k = m.argument(node, 0, ""), v = m.argument(node, 1, "");
    auto key = m.constant(k);
    if (!key || key->kind != Value::Kind::Str || disabled_transport(key->s).empty() || !is_one(m, v)) return;
    report(ctx, k, key->s);
    return;
  }
  if (method == "update" && is_environ(m, recv)) {
    // os.environ.update(NCCL_P2P_DISABLE="1") / os.environ.update({"NCCL_IB_DISABLE": "1"})
    for (auto arg : named_children(field(node, "arguments"))) {
      if (is(arg, "keyword_argument")) {
        std::string name(ctx.text(field(arg, "name")));
        if (!disabled_transport(name).empty() && is_one(m, field(arg, "value"))) report(ctx, arg, name);
      } else if (is(arg, "dictionary")) {
        for (auto pair : named_children(arg)) {
          if (!is(pair, "pair")) continue;
          auto key = m.constant(field(pair, "key"));
          if (key && key->kind == Value::Kind::Str && !disabled_transport(key->s).empty() &&
              is_one(m, field(pair, "value")))
            report(ctx, pair, key->s);
        }
      }
    }
  }
}

}  // namespace stoker::python::rules
