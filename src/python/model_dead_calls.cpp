// Methods called only from dead code (issue 10, session 32): a method of a module-level class
// whose every call site in the project sits in code a guard known False silences (`if
// args.do_predict: exp.predict(...)` with a store_true flag), or in code that never runs, never
// runs itself (in_unreached_method). The calls other modules make are known from their summaries
// (OutgoingCall::dead, IncomingCalls::dead_called); their other mentions of the name after a dot
// (ModuleSummary::attribute_names) leave out such dead calls and calls on objects a library call
// returned, which are the library's methods.
#include "python/descend.h"
#include "python/model_internal.h"
#include "python/project_fields.h"
#include "python/types.h"

#include <cctype>

namespace stoker::python {

using namespace model_detail;

namespace {
// Library functions whose result may be any object, the project's included (a pickled model,
// a configured instance, a wrapped or copied one): their results are not known library objects.
bool returns_any_object(std::string_view q) {
  size_t dot = q.rfind('.');
  std::string last(dot == std::string_view::npos ? q : q.substr(dot + 1));
  for (char& c : last) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* any : {"load", "instantiate", "import", "locate", "restore", "pickle", "compile", "prepare", "wrap",
                          "copy", "get", "call", "partial", "parallel", "build", "create", "make", "from"})
    if (last.find(any) != std::string::npos) return true;
  return false;
}
}  // namespace

// An identifier every binding of which (at most kMaxCandidates) assigns it the result of a call
// of a library callable (rooted in an import of a module outside the project, no builtin) that
// returns no object handed to it: no argument is of a project class or names one
// (`pm.auto_arima(seq)`, `GradientBoostingRegressor()`).
bool SemanticModel::library_object(Node obj) const {
  obj = unparen(obj);
  if (!is(obj, "identifier") || !facts_) return false;
  auto bindings = lookup(text(obj), start(obj));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return false;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0) return false;
    Node call = unparen(b->value);
    if (!is(call, "call")) return false;
    const std::string& q = callee_name(call);
    if (q.empty() || q.find('.') == std::string::npos || q.rfind("builtins.", 0) == 0) return false;
    if (facts_->project_name(q) || returns_any_object(q)) return false;
    for (Node a : named_children(field(call, "arguments"))) {
      if (is(a, "keyword_argument")) a = field(a, "value");
      else if (is(a, "list_splat") || is(a, "dictionary_splat")) return false;
      a = unparen(a);
      if (is(a, "identifier") && (classes_by_name_.count(std::string(text(a))) || !lookup(text(a), start(a)).empty())) {
        // A name of this file: a project class or function handed over, or an instance of one.
        for (const Binding* ab : lookup(text(a), start(a)))
          if (ab->kind == Binding::Kind::Class || ab->kind == Binding::Kind::Def) return false;
      }
      if (std::string aq = qualified_name(a); !aq.empty() && facts_->project_name(aq)) return false;
      if (types().type_of(a).klass != -1) return false;
    }
  }
  return true;
}

int SemanticModel::quiet_attribute_call(uint32_t name_at) const {
  Node id = descendant_at(root_, name_at);
  if (!is(id, "identifier")) return 0;
  Node attr = parent(id);
  if (!is(attr, "attribute") || field(attr, "attribute").id != id.id) return 0;
  Node call = parent(attr);
  if (!is(call, "call") || field(call, "function").id != attr.id) return 0;
  auto it = call_index_.find(call.id);
  if (it == call_index_.end()) return 0;
  return quiet_call(calls_[it->second], attr);
}

// The identifier `name`, with bytes, is the one node the point lookup at its first byte returns
// (a leaf: no other node holds that byte at its depth, and tree-sitter's descent takes the first
// child holding it), and `attr` and `cs.call` are its parent and grandparent: the lookups of the
// offset version above are skipped. `cs` is an element of calls_ (one per call node, so it is the
// one call_index_ names). An empty (missing) name goes the long way.
int SemanticModel::quiet_attribute_call(const CallSite& cs, Node attr, Node name) const {
  if (end(name) <= start(name)) return quiet_attribute_call(start(name));
  return quiet_call(cs, attr);
}

bool SemanticModel::dead_call(const CallSite& cs) const { return dead_call(cs, guards_dead(branch_guards(cs.call))); }

bool SemanticModel::dead_call(const CallSite& cs, bool guard_dead) const {
  return guard_dead || (cs.caller >= 0 && in_unreached_method(cs.caller));
}

int SemanticModel::quiet_call(const CallSite& cs, Node attr) const {
  if (dead_call(cs)) return 1;
  if (library_object(field(attr, "object"))) return 2;
  return 0;
}

// Bases that are `object`, classes of this file, or project classes of other modules that are no
// nn.Module nor framework class, each with such bases (at most 4 levels): no library code calls
// the class's methods by name (a `forward`, a `run`, a hook).
bool SemanticModel::project_ancestry(const std::vector<std::string>& bases, int depth) const {
  if (depth > 4) return false;
  for (const std::string& b : bases) {
    if (b == "object" || b == "builtins.object") continue;
    if (auto it = classes_by_name_.find(b); it != classes_by_name_.end()) {
      if (it->second.size() != 1 || !project_ancestry(classes_[it->second[0]].bases, depth + 1)) return false;
      continue;
    }
    if (!facts_ || b.find('(') != std::string::npos || !facts_->project_name(b)) return false;
    const FunctionFacts* k = facts_->callee(b, fact::kClass);
    if (!k || !k->is_class || k->module_kind != 0 || !k->framework.empty()) return false;
    if (!project_ancestry(k->bases, depth + 1)) return false;
  }
  return true;
}

// O(mentions of the name in this file x depth), with one incoming and one attribute query.
bool SemanticModel::dead_called_method(int f) const {
  const Function& fn = functions_[f];
  auto say = [](const char*) { return false; };  // the reason it is not (for a debugger)
  if (!facts_ || fn.klass < 0 || fn.name.empty() || fn.name.rfind("__", 0) == 0 || fn.other_decorators) return false;
  if (is(parent(fn.node), "decorated_definition") || local_name(f).empty()) return false;
  const Class& c = classes_[fn.klass];
  if (c.scope < 0 || scopes_[c.scope].parent != 0 || is(parent(c.node), "decorated_definition")) return false;
  for (Node b : named_children(field(c.node, "superclasses")))
    if (is(b, "keyword_argument") || is(b, "list_splat") || is(b, "dictionary_splat")) return false;
  // Reflection here: a name looked up at run time may be this one.
  for (std::string_view reflect : {"methodcaller", "__getattribute__", "attrgetter"})
    if (src_.find(reflect) != std::string_view::npos) return false;
  if (!project_ancestry(c.bases, 0)) return say("ancestry");
  bool dead_site = false;
  const std::string& name = fn.name;
  const uint32_t name_at = start(field(fn.node, "name"));
  const uint32_t from = start(fn.node), to = ts_node_end_byte(fn.node);
  auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  for (size_t at = src_.find(name); at != std::string_view::npos; at = src_.find(name, at + 1)) {
    if (at == name_at || (at >= from && at < to)) continue;  // its definition, or itself (recursion)
    if (at > 0 && word(src_[at - 1])) continue;
    if (at + name.size() < src_.size() && word(src_[at + name.size()])) continue;
    if (inert_text_at(static_cast<uint32_t>(at))) continue;
    Node d = descendant_at(root_, static_cast<uint32_t>(at));
    if (is(d, "string_content") && text(d) != name) continue;  // inside a longer string
    int quiet = quiet_attribute_call(static_cast<uint32_t>(at));
    if (quiet == 0) return say("live mention here");
    dead_site |= quiet == 1;
  }
  // A string of the name passed to getattr here (a computed one: any name) may call it.
  for (size_t at = src_.find("getattr("); at != std::string_view::npos; at = src_.find("getattr(", at + 1)) {
    Node d = descendant_at(root_, static_cast<uint32_t>(at));
    Node call = parent(d);
    if (!is(call, "call")) continue;
    auto args = named_children(field(call, "arguments"));
    if (args.size() < 2 || !is(unparen(args[1]), "string")) return false;
  }
  const IncomingCalls* in = facts_->incoming(local_name(f), fact::kCalled);
  if (in && in->called) return say("called elsewhere");
  if (in && in->dead_called) dead_site = true;
  if (!dead_site) return say("no dead site");  // no call site at all: an entry point of the class's users
  if (facts_->attribute_reachable(name)) return say("attribute mentioned");
  return true;
}

}  // namespace stoker::python
