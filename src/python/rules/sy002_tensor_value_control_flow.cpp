// SY002: Python control flow on the value of a CUDA tensor.
#include <algorithm>
#include <set>

#include "python/rules/common.h"
#include "python/types.h"

namespace stoker::python::rules {

namespace {

// The operands of a chain of `and` / `or` / `not` (at most 32).
void bool_operands(Node c, std::vector<Node>& out) {
  c = unparen(c);
  if (out.size() >= 32) return;
  if (is(c, "not_operator")) return bool_operands(field(c, "argument"), out);
  if (is(c, "boolean_operator")) {
    bool_operands(field(c, "left"), out);
    bool_operands(field(c, "right"), out);
    return;
  }
  out.push_back(c);
}

// Names the condition itself uses as mappings: `"key" in d`, `d["key"]` (a tensor has no string
// keys). Their truthiness is a dict's, not a tensor's (`if meta and "boxes" in meta:`).
bool used_as_mapping(const Context& ctx, Node cond, std::string_view name) {
  std::vector<Node> stack{cond};
  for (size_t guard = 0; !stack.empty() && guard < 256; ++guard) {
    Node n = stack.back();
    stack.pop_back();
    if (is(n, "comparison_operator") && named_count(n) == 2 && ctx.text(ts_node_child(n, 1)) == "in" &&
        is(unparen(named_child(n, 0)), "string") && is(unparen(named_child(n, 1)), "identifier") &&
        ctx.text(unparen(named_child(n, 1))) == name)
      return true;
    if (is(n, "subscript") && is(unparen(field(n, "value")), "identifier") &&
        ctx.text(unparen(field(n, "value"))) == name && is(unparen(field(n, "subscript")), "string"))
      return true;
    for (Node c : named_children(n)) stack.push_back(c);
  }
  return false;
}

// Names an `and` chain tests with `isinstance(name, list)` (a builtin host type, or a tuple of
// them) before reading them: where the later operands run, the name is that host value, so
// `isinstance(v, list) and v and isinstance(v[0], list)` reads a list's length. Empty when an
// operator of the chain is not `and`.
std::vector<std::string_view> host_instances(const Context& ctx, Node c) {
  std::vector<std::string_view> out;
  std::vector<Node> stack{unparen(c)};
  std::vector<Node> operands;
  while (!stack.empty() && operands.size() < 32) {
    Node n = stack.back();
    stack.pop_back();
    if (is(n, "boolean_operator")) {
      if (ctx.text(field(n, "operator")) != "and") return {};
      stack.push_back(unparen(field(n, "right")));
      stack.push_back(unparen(field(n, "left")));
      continue;
    }
    operands.push_back(n);
  }
  static const std::set<std::string_view> host_types = {"list", "tuple", "dict", "str", "int", "float",
                                                        "bool", "set", "bytes"};
  auto host_type = [&](Node t) {
    t = unparen(t);
    if (is(t, "identifier")) return host_types.count(ctx.text(t)) > 0;
    if (!is(t, "tuple") || named_count(t) == 0) return false;
    for (Node e : named_children(t))
      if (!is(e, "identifier") || !host_types.count(ctx.text(e))) return false;
    return true;
  };
  for (Node o : operands) {
    if (!is(o, "call") || ctx.model().callee_name(o) != "builtins.isinstance") continue;
    auto args = named_children(field(o, "arguments"));
    if (args.size() == 2 && is(unparen(args[0]), "identifier") && host_type(args[1]))
      out.push_back(ctx.text(unparen(args[0])));
  }
  return out;
}

// A list, tuple, dict or numpy array by its type: its truth is its length (or, for an array,
// its host values), whatever tensors it holds (`results if results else COCO()`). So is an
// nn.Module by its type (`if criterion:` of a loss module moved to the GPU, or a parameter that
// defaults to None): its truth is the object's (a container module's length), never a tensor
// value, whatever device its parameters are on.
bool host_container(const SemanticModel& m, Node c) {
  auto k = m.types().type_of(c).kind;
  return k == AbstractType::Kind::HostContainer || k == AbstractType::Kind::Module;
}

// A Python str by its form or its values: a literal or f-string, `str(x)`/`repr(x)`, a str method
// of one (`s.strip()`, `s.split(sep)[0]`), a conditional of two, a name bound only to those
// (`actual = err if ... else err.split(sep)[0]`, `for key in ("loss", "aux")`). A tensor holds
// no strings: `key in t` of a str is no tensor membership test (it raises, it reads nothing).
bool host_string(const SemanticModel& m, Node e, int depth) {
  e = unparen(e);
  if (is_null(e) || depth > 6) return false;
  auto k = kind(e);
  if (k == "string" || k == "concatenated_string" || m.is_str_expr(e)) return true;
  if (k == "conditional_expression" && named_count(e) == 3)
    return host_string(m, named_child(e, 0), depth + 1) && host_string(m, named_child(e, 2), depth + 1);
  if (k == "call") {
    std::string q = m.callee_name(e);
    if (q == "builtins.str" || q == "builtins.repr") return true;
    Node fn = unparen(field(e, "function"));
    static const std::set<std::string_view> str_methods = {"format", "join", "strip", "lstrip", "rstrip",
                                                           "lower", "upper", "replace", "title"};
    return is(fn, "attribute") && str_methods.count(m.text(field(fn, "attribute"))) &&
           host_string(m, field(fn, "object"), depth + 1);
  }
  if (k == "subscript") {
    // `s.split(sep)[0]`, `s.rsplit(sep, 1)[-1]`: a piece of a str.
    Node v = unparen(field(e, "value"));
    Node fn = is(v, "call") ? unparen(field(v, "function")) : Node{};
    std::string_view meth = is(fn, "attribute") ? m.text(field(fn, "attribute")) : std::string_view{};
    return (meth == "split" || meth == "rsplit") && host_string(m, field(fn, "object"), depth + 1);
  }
  if (k == "identifier") {
    auto values = m.values(e);
    return !values.empty() && std::all_of(values.begin(), values.end(), [&](const Value& v) {
      return v.kind == Value::Kind::Str || (v.kind == Value::Kind::Expr && host_string(m, v.expr, depth + 1));
    });
  }
  return false;
}

// `last_tokens[i] in eos_token_id`: a membership test of a tensor compares it with each element
// of a list or tuple (`==`, then the truth of the result) until one matches, and `x in t` of a
// tensor reads `(x == t).any()`: with a CUDA tensor on either side, the test copies a CUDA value
// to the host. Both by the types (a tensor on CUDA, not the taint); not a dict or set (hashed by
// identity: nothing is read) nor a string.
bool membership_reads_cuda(const SemanticModel& m, Node c) {
  if (!is(c, "comparison_operator") || named_count(c) != 2) return false;
  std::string_view op = kind(ts_node_child(c, 1));  // the grammar's "not in" whatever the spacing
  if (op != "in" && op != "not in") return false;
  // A tensor on CUDA by its type; or an element picked from a value the CUDA taint marks, whose
  // type is not decided (`last_tokens[i]` of a parameter the call sites hand `torch.cat(...)` of
  // CUDA tensors), not at a string key (`batch["ids"]` of a dict).
  auto cuda_tensor = [&](Node e) {
    AbstractType t = m.types().type_of(e);
    CudaAnswer a = m.types().cuda(e);
    if (t.kind == AbstractType::Kind::Tensor && a == CudaAnswer::Cuda) return true;
    return a == CudaAnswer::Undecided && is(e, "subscript") && !is(unparen(field(e, "subscript")), "string") &&
           m.is_cuda(e);
  };
  Node left = unparen(named_child(c, 0)), right = unparen(named_child(c, 1));
  // `"pad_size" in meta`, `key in out`: a key looked up in a mapping (a tensor holds no strings).
  if (host_string(m, left, 0)) return false;
  // A dict or set (a display, a comprehension, a dict()/set() call, a mapping's keys view, the
  // state dict of a module or optimizer: `assert name in model.state_dict()`, set BF
  // guided-diffusion fp16_util.py:106), or a name bound only to those (`stop = {0, 1}` then `if
  // tok in stop:`), or a string: the test hashes the left operand, no tensor value is read,
  // whatever the mapping's values hold or how the types place the name.
  auto hashed = [&](Node e) {
    auto k = kind(e);
    if (k == "dictionary" || k == "set" || k == "dictionary_comprehension" || k == "set_comprehension" ||
        k == "string")
      return true;
    std::string q = is(e, "call") ? m.callee_name(e) : std::string();
    if (q == "builtins.dict" || q == "builtins.set" || q == "builtins.frozenset" || q == "builtins.str") return true;
    Node fn = is(e, "call") ? unparen(field(e, "function")) : Node{};
    if (!is(fn, "attribute") || named_count(field(e, "arguments")) != 0) return false;
    std::string_view meth = m.text(field(fn, "attribute"));
    if (meth == "keys") return true;  // a keys view
    if (meth != "state_dict") return false;
    // By the receiver's type: nn.Module's and torch.optim's `state_dict()` return a dict.
    Node recv = unparen(field(fn, "object"));
    auto rk = m.types().type_of(recv).kind;
    return rk == AbstractType::Kind::Module || rk == AbstractType::Kind::ModuleMember ||
           rk == AbstractType::Kind::Optimizer || m.is_module(recv);
  };
  auto hashed_or_bound = [&](Node e) {
    if (hashed(e)) return true;
    if (!is(e, "identifier")) return false;
    auto values = m.values(e);
    return !values.empty() && std::all_of(values.begin(), values.end(), [&](const Value& v) {
      return v.kind == Value::Kind::Expr && hashed(unparen(v.expr));
    });
  };
  if (hashed_or_bound(right)) return false;
  if (cuda_tensor(right)) return true;
  if (!cuda_tensor(left)) return false;
  if ((is(right, "tuple") || is(right, "list")) && named_count(right) == 0) return false;  // `x not in ()`
  return true;
}

}  // namespace

void sy002_tensor_value_control_flow(Context& ctx, Node node) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  Node cond{};
  auto k = kind(node);
  if (k == "if_statement" || k == "elif_clause" || k == "while_statement") cond = field(node, "condition");
  else if (k == "assert_statement") cond = named_count(node) ? named_child(node, 0) : Node{};
  else if (k == "conditional_expression" && named_count(node) == 3) cond = named_child(node, 1);
  if (is_null(cond)) return;
  Node c = unparen(cond);
  if (is(c, "not_operator")) c = unparen(field(c, "argument"));
  bool tensor = false;
  if (is(c, "boolean_operator")) {
    // Each operand of `a and b or not c` is read as a bool; a name the condition uses as a
    // mapping is a dict's truthiness (the CUDA taint of its values does not make it a tensor).
    std::vector<Node> operands;
    bool_operands(c, operands);
    auto instances = host_instances(ctx, c);
    for (Node o : operands) {
      if (is(o, "identifier") && used_as_mapping(ctx, c, ctx.text(o))) continue;
      if (is(o, "identifier") && std::find(instances.begin(), instances.end(), ctx.text(o)) != instances.end())
        continue;
      if ((m.is_cuda(o) && !host_container(m, o)) || membership_reads_cuda(m, o)) {
        tensor = true;
        break;
      }
    }
  } else {
    tensor = (m.is_cuda(c) && !host_container(m, c)) || membership_reads_cuda(m, c);
  }
  if (!tensor) return;
  // The condition's own statement (a while loop's condition runs per iteration of that loop,
  // which the walk frame does not include yet: only report it when the loop sits in a hot context).
  Diagnostic* d = ctx.report_in_hot_context(
      "SY002", cond, "Branching on the value of a CUDA tensor copies it to the host and waits for the GPU");
  if (d)
    d->fix = Fix{"Use `torch.where`/masking, `torch._assert_async`, or check every N steps",
                 Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
