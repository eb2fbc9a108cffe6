// Whether a module may read its own namespace by a computed name. One test for both readers of
// "a name a module imports and writes nowhere else": SemanticModel::unused_imports (project
// calls) and the project's word index (ProjectLayout::index_words, before any module is parsed).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace stoker::python {

// Might the module's code reach a name it imports without writing it (`from models import
// ResNet`, then `eval(args.arch)`)? Calls of the builtins that read the module's namespace:
// `eval(`, `exec(`, `globals(`, `locals(`, `vars()` (no argument: `vars(args)` reads that
// object), `__import__(`; a handle on a module object by its name (`sys.modules`, a call of
// `importlib.import_module(`: an import of importlib alone reads nothing); `getattr(`
// of something other than a name or a dotted name (`getattr(sys.modules[__name__], name)`; not
// `getattr(self, name)` or `getattr(models, arch)`, which read another object's attributes). Not
// attribute calls (`model.eval()`), nor a call of the module's own function of that name
// (`def eval(model, loader):` at the start of a line). `code(at)` says whether the byte at `at`
// is code (not a comment or a string); without it every byte is, which only finds more.
// O(text): one search per word of a fixed list.
bool reads_namespace_by_name(std::string_view text, const std::function<bool(size_t)>& code = {});

}  // namespace stoker::python
