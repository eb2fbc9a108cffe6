#include "python/rules/gu_common.h"

#include "core/compute_speedup.h"
#include "core/impact.h"
#include "python/rules/dd_common.h"

namespace stoker::python::rules::gu {

namespace {

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// torchvision image models are convolutional except the vision transformers.
bool torchvision_conv_model(std::string_view q) {
  if (!starts(q, "torchvision.models.")) return false;
  std::string_view name = q.substr(std::string_view("torchvision.models.").size());
  if (name.find('.') != std::string_view::npos) name = name.substr(name.rfind('.') + 1);
  for (std::string_view t : {"vit_", "swin_", "maxvit", "get_model", "get_weight", "list_models"})
    if (starts(name, t)) return false;
  for (std::string_view c : {"resnet", "resnext", "wide_resnet", "vgg", "alexnet", "densenet", "efficientnet",
                             "mobilenet", "mnasnet", "shufflenet", "squeezenet", "regnet", "convnext", "googlenet",
                             "inception", "fcn_", "deeplab", "fasterrcnn", "maskrcnn", "retinanet", "ssd", "lraspp",
                             "keypointrcnn", "fcos", "r3d_", "r2plus1d", "mc3_", "s3d", "raft"})
    if (starts(name, c)) return true;
  return false;
}

// torch.nn classes that make up a model's compute (not losses, containers or wrappers).
bool model_layer(std::string_view q) {
  if (!starts(q, "torch.nn.")) return false;
  std::string_view n = q.substr(std::string_view("torch.nn.").size());
  for (std::string_view p : {"Linear", "Bilinear", "LazyLinear", "Conv", "LazyConv", "Embedding", "RNN", "LSTM", "GRU",
                             "Transformer", "MultiheadAttention"})
    if (starts(n, p)) return true;
  return false;
}

// `torchvision.models.__dict__[args.arch]` (pytorch/examples' ImageNet trainer and the many
// trainers derived from it) with the key resolved (a literal, or the argparse default of
// `args.arch`): the subscript, and `kind` 'c' (every name a conv model), 't' (a vision
// transformer) or 'o' (another model); null when there is none or its key is not resolved.
Node torchvision_arch_subscript(const Context& ctx, char& kind) {
  const auto& m = ctx.model();
  kind = 0;
  if (m.src().find("__dict__[") == std::string_view::npos) return Node{};
  Node found{};
  any_node(m.root(), [&](Node n) {
    if (!is(n, "subscript")) return false;
    Node v = field(n, "value");
    if (!is(v, "attribute") || ctx.text(field(v, "attribute")) != "__dict__") return false;
    if (m.qualified_name(field(v, "object")) != "torchvision.models") return false;
    Node key = unparen(field(n, "subscript"));
    std::vector<Value> names;
    if (auto c = m.constant(key)) names.push_back(*c);
    else if (is(key, "attribute")) names = m.argparse_default(ctx.text(field(key, "attribute")));
    if (names.empty()) return false;
    for (const auto& val : names)
      if (val.kind != Value::Kind::Str) return false;
    bool conv = true, vit = true;
    for (const auto& val : names) {
      if (!torchvision_conv_model("torchvision.models." + val.s)) conv = false;
      if (!starts(val.s, "vit_") && !starts(val.s, "swin_") && !starts(val.s, "maxvit")) vit = false;
    }
    kind = conv ? 'c' : vit ? 't' : 'o';
    found = n;
    return true;
  });
  return found;
}

}  // namespace

namespace {
ProgramFacts compute_program_facts(const Context& ctx) {
  const auto& m = ctx.model();
  ProgramFacts f;
  for (const auto& cs : m.calls()) {
    Node call = cs.call;
    const std::string& q = m.callee_name(call);
    std::string_view meth = method_name(ctx, call);
    if (starts(q, "torch.nn.Conv") || starts(q, "torch.nn.ConvTranspose") || starts(q, "torch.nn.LazyConv") ||
        starts(q, "torch.nn.functional.conv") || torchvision_conv_model(q)) {
      if (is_null(f.conv)) f.conv = call;
      bool one_d = q.find("1d") != std::string::npos;
      if (!one_d) f.conv1d_only = false;
      if (q.find("2d") != std::string::npos || torchvision_conv_model(q)) f.conv2d = true;
    }
    if (is_null(f.any_layer) && (model_layer(q) || starts(q, "torchvision.models.") || starts(q, "transformers.")))
      f.any_layer = call;
    if (starts(q, "torch.nn.Transformer") || q == "torch.nn.MultiheadAttention" ||
        q == "torch.nn.functional.scaled_dot_product_attention" || starts(q, "transformers.") ||
        starts(q, "torchvision.models.vit_") || starts(q, "torchvision.models.swin_")) {
      if (is_null(f.transformer)) f.transformer = call;
    }
    if (q == "torch.nn.Linear") {
      auto a = m.constant_int(m.argument(call, 0, "in_features"));
      auto b = m.constant_int(m.argument(call, 1, "out_features"));
      if (a && b) {
        if (*a * *b >= kBigLinear && is_null(f.big_linear)) f.big_linear = call;
      } else if ((!a || *a >= 1024) && (!b || *b >= 1024) && is_null(f.open_linear)) {
        // Unresolved sizes (a thin layer with one small resolved side is not heavy).
        f.open_linear = call;
      }
    }
    // Mixed precision.
    if (q == "torch.autocast" || starts(q, "torch.cuda.amp.") || starts(q, "torch.amp.") ||
        q == "torch.GradScaler" || starts(q, "apex.amp.") || starts(q, "apex.fp16_utils.") || meth == "autocast" ||
        meth == "half" ||
        meth == "bfloat16")
      f.amp = true;
    if (meth == "to" || meth == "cuda" || q.find("from_pretrained") != std::string::npos) {
      std::string_view args = ctx.text(field(call, "arguments"));
      if (args.find("float16") != std::string_view::npos || args.find("bfloat16") != std::string_view::npos ||
          args.find(".half") != std::string_view::npos)
        f.amp = true;
    }
    auto kw = m.keyword_arguments(call);
    for (const char* key : {"precision", "mixed_precision"}) {
      Node v = kw.find(key);
      if (is_null(v)) continue;
      auto c = m.constant(v);
      if (!c) {
        f.precision_open = true;
      } else if (c->kind == Value::Kind::Str) {
        if (c->s != "32" && c->s != "32-true" && c->s != "no" && c->s != "fp32" && c->s != "highest") f.amp = true;
      } else if (c->kind == Value::Kind::Int) {
        if (c->i != 32 && c->i != 64) f.amp = true;
      } else if (c->kind != Value::Kind::None) {
        f.precision_open = true;
      }
    }
    if (q == "torch.set_float32_matmul_precision") {
      auto c = m.constant(m.argument(call, 0, "precision"));
      if (!c || c->kind != Value::Kind::Str || c->s != "highest") f.tf32 = true;
    }
    if (q == "torch.set_default_dtype") {
      std::string_view args = ctx.text(field(call, "arguments"));
      if (args.find("float16") != std::string_view::npos || args.find("bfloat16") != std::string_view::npos)
        f.amp = true;
    }
    // Training: backward() in a hot loop or a function called from one.
    if (is_null(f.train_step) && meth == "backward") {
      bool hot = m.function_is_hot(cs.caller);
      Node loop{};
      for (int li : cs.loops)
        if (m.loops()[li].kind == LoopKind::Hot) {
          hot = true;
          loop = m.loops()[li].node;
        }
      if (hot) {
        f.train_step = call;
        f.step_loop = loop;
      }
    }
  }
  if (is_null(f.conv) && is_null(f.transformer)) {
    char kind = 0;
    Node sub = torchvision_arch_subscript(ctx, kind);
    if (kind == 'c') {
      f.conv = sub;
      f.conv1d_only = false;
      f.conv2d = true;
    } else if (kind == 't') {
      f.transformer = sub;
    }
    if (!is_null(sub) && is_null(f.any_layer)) f.any_layer = sub;
  }
  // Lightning: the framework runs training_step per batch.
  if (is_null(f.train_step))
    for (size_t fi = 0; fi < m.functions().size(); ++fi)
      if (m.functions()[fi].name == "training_step" && m.is_step_hook(static_cast<int>(fi)) &&
          m.is_lightning_module(m.functions()[fi].klass)) {
        f.train_step = field(m.functions()[fi].node, "name");
        break;
      }
  // Frameworks that choose the precision from their own configuration.
  if (!m.scopes().empty())
    for (const auto& [name, bindings] : m.scopes()[0].bindings)
      for (const auto& b : bindings)
        if (b.kind == Binding::Kind::Import &&
            // apex's mixed precision (`apex.amp`, `apex.fp16_utils`, or `import apex`), not its
            // other parts (`apex.parallel.LARC`, `apex.optimizers`).
            (starts(b.qualified, "deepspeed") || b.qualified == "apex" || starts(b.qualified, "apex.amp") ||
             starts(b.qualified, "apex.fp16_utils") || starts(b.qualified, "accelerate") ||
             starts(b.qualified, "colossalai") || starts(b.qualified, "composer")))
          f.precision_open = true;
  // Settings written as assignments and memory formats written anywhere.
  std::string_view src = m.src();
  f.entry_file = src.find("__main__") != std::string_view::npos;
  for (auto stmt : named_children(m.root()))
    if (is(stmt, "for_statement") || is(stmt, "while_statement")) f.entry_file = true;
  if (src.find("channels_last") != std::string_view::npos) f.channels_last = true;
  if (src.find("cudnn.benchmark") != std::string_view::npos) f.benchmark_set = true;
  if (src.find("allow_tf32") != std::string_view::npos) {
    // `torch.backends.cuda.matmul.allow_tf32 = True` (cudnn.allow_tf32 is on by default and is
    // about convolutions).
    size_t at = src.find("matmul.allow_tf32");
    if (at != std::string_view::npos) f.tf32 = true;
  }
  return f;
}
}  // namespace

const ProgramFacts& program_facts(const Context& ctx) {
  return ctx.per_file<ProgramFacts>([&] { return compute_program_facts(ctx); });
}

TorchVersion target_torch(const Context& ctx) { return effective_torch_version(ctx.settings().target_torch_version); }

int guard_state(const Context& ctx) {
  const auto& m = ctx.model();
  int state = 0;
  for (const auto& [cond, polarity] : ctx.frame().guards) {
    auto c = m.constant(cond);
    if (c && (c->kind == Value::Kind::Bool || c->kind == Value::Kind::Int || c->kind == Value::Kind::None)) {
      bool v = c->kind == Value::Kind::Bool ? c->b : c->kind == Value::Kind::Int ? c->i != 0 : false;
      if (v != polarity) return 2;
      continue;
    }
    // `args.flag` with a resolved argparse default.
    Node e = unparen(cond);
    if (is(e, "attribute")) {
      auto defaults = m.argparse_default(ctx.text(field(e, "attribute")));
      if (!defaults.empty()) {
        bool all_off = true;
        for (const auto& d : defaults)
          if (!(d.kind == Value::Kind::Bool && d.b == !polarity) && !(d.kind == Value::Kind::None && polarity))
            all_off = false;
        if (all_off) return 2;
      }
    }
    state = 1;
  }
  return state;
}

Edit line_after_imports(const Context& ctx, const std::string& statement) {
  const auto& m = ctx.model();
  Node root = m.root();
  Node last_import{};
  bool torch_bound = false;
  for (auto stmt : named_children(root)) {
    if (is(stmt, "comment")) continue;
    if (is(stmt, "expression_statement") && named_count(stmt) == 1 && is(named_child(stmt, 0), "string")) continue;
    if (is(stmt, "future_import_statement") || is(stmt, "import_statement") || is(stmt, "import_from_statement")) {
      last_import = stmt;
      if (is(stmt, "import_statement"))
        for (auto name : named_children(stmt))
          if (is(name, "dotted_name") && ctx.text(name) == "torch") torch_bound = true;
      continue;
    }
    break;
  }
  if (is_null(last_import)) return Edit{{0, 0}, ""};
  std::string text = "\n";
  if (!torch_bound) text += "import torch\n";
  text += statement;
  return Edit{{end(last_import), end(last_import)}, text};
}

void attach_speedup(const Context& ctx, Diagnostic& d, bool kind_resolved) {
  const HardwareProfile* hw = find_profile(ctx.settings().gpu);
  if (!hw) hw = find_profile("generic");
  if (hw) d.impact = compute_speedup_impact(d.code, *hw, kind_resolved);
}

namespace {
// A decorator that is not torch's but turns grad mode off: a decorator factory or wrapper of this
// module whose body uses torch.no_grad / torch.inference_mode (yolov5's
// `smart_inference_mode()` returns `(torch.inference_mode if torch_1_9 else torch.no_grad)()(fn)`),
// or, where its definition is in another module, one whose name says so (`*no_grad*`,
// `*inference_mode*`): silent rather than a finding its author already answered.
bool grad_off_decorator(const Context& ctx, Node e) {
  Node target = is(e, "call") ? unparen(field(e, "function")) : e;
  if (!is(target, "identifier") && !is(target, "attribute")) return false;
  std::string_view text = ctx.text(target);
  std::string_view last = text.substr(text.rfind('.') == std::string_view::npos ? 0 : text.rfind('.') + 1);
  auto says = [](std::string_view t) {
    return t.find("no_grad") != std::string_view::npos || t.find("inference_mode") != std::string_view::npos;
  };
  if (says(last)) return true;
  if (!is(target, "identifier")) return false;
  for (const auto& f : ctx.model().functions())
    if (f.name == last && f.klass < 0 && says(ctx.text(field(f.node, "body")))) return true;
  return false;
}
}  // namespace

bool under_no_grad(const Context& ctx, Node n) {
  const auto& m = ctx.model();
  auto turns_off = [&](Node call) {
    if (!is(call, "call")) return false;
    const std::string& q = m.callee_name(call);
    if (q == "torch.no_grad" || q == "torch.inference_mode" || q == "torch.autograd.no_grad" ||
        q == "torch.autograd.grad_mode.no_grad" || q == "torch.autograd.inference_mode")
      return true;
    if (q == "torch.set_grad_enabled" || q == "torch.autograd.set_grad_enabled") {
      auto c = m.constant(m.argument(call, 0, "mode"));
      return !c || (c->kind == Value::Kind::Bool && !c->b);  // unresolved: do not report
    }
    std::string_view meth = method_name(ctx, call);
    return meth == "no_grad" || meth == "inference_mode";
  };
  for (Node p = parent(n); !is_null(p); p = parent(p)) {
    if (is(p, "with_statement")) {
      for (Node c : named_children(p)) {
        if (!is(c, "with_clause")) continue;
        for (Node item : named_children(c)) {
          Node v = field(item, "value");
          if (is(v, "as_pattern")) v = named_child(v, 0);
          if (turns_off(unparen(v))) return true;
        }
      }
    }
    if (is(p, "decorated_definition")) {
      for (Node c : named_children(p)) {
        if (!is(c, "decorator")) continue;
        Node e = named_child(c, 0);
        if (is(e, "call") ? turns_off(e)
                          : (m.qualified_name(e) == "torch.no_grad" || m.qualified_name(e) == "torch.inference_mode"))
          return true;
        if (grad_off_decorator(ctx, e)) return true;
      }
    }
  }
  return false;
}

}  // namespace stoker::python::rules::gu
