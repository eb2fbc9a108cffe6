// What a Python check sees: the file, the semantic model, the walk frame, and a way to report.
#pragma once

#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/diagnostic.h"
#include "core/rules.h"
#include "core/settings.h"
#include "python/semantic_model.h"

namespace stoker::python {

class Context {
 public:
  Context(const SourceFile& file, const SemanticModel& model, const Settings& settings, std::vector<Diagnostic>& out)
      : file_(file), model_(model), settings_(settings), out_(out) {}

  const SourceFile& file() const { return file_; }
  const SemanticModel& model() const { return model_; }
  const Settings& settings() const { return settings_; }
  std::string_view text(Node n) const { return model_.text(n); }
  const WalkFrame& frame() const { return *frame_; }
  void set_frame(const WalkFrame* f) { frame_ = f; }

  // Reports with the rule's default severity, unless the code is dead (an enclosing guard is
  // known never to hold): then the returned diagnostic is a scratch one, never emitted.
  Diagnostic& report(std::string_view code, Node at, std::string message);
  // Reports a per-step pattern: only in a hot context, at info severity when amortized or
  // flag-guarded, silent when it runs once per epoch or its amortized cost is negligible.
  // Returns nullptr when nothing was reported.
  Diagnostic* report_in_hot_context(std::string_view code, Node at, std::string message);
  HotContext hot() const { return model_.hot_context(*frame_, 0); }

  // Edits helpers.
  Edit insert_keyword_argument(Node call, std::string_view keyword_and_value) const;

  // A fact of the whole file that several checks read (gu::ProgramFacts): computed on the first
  // request, kept for the file's walk. It must not depend on the walk's frame.
  template <class T, class F>
  const T& per_file(F&& compute) const {
    for (const auto& s : per_file_)
      if (s.first == &typeid(T)) return *static_cast<const T*>(s.second.get());
    auto value = std::make_shared<T>(compute());
    per_file_.emplace_back(&typeid(T), value);
    return *value;
  }

 private:
  const SourceFile& file_;
  const SemanticModel& model_;
  const Settings& settings_;
  std::vector<Diagnostic>& out_;
  const WalkFrame* frame_ = nullptr;
  Diagnostic dropped_;
  mutable std::vector<std::pair<const std::type_info*, std::shared_ptr<const void>>> per_file_;
};

// Amortized patterns are silent once their period is long enough that the modelled cost of
// the worst case (a full queue drain of the default workload every step, ~30 pp) falls under
// 1 pp: every > 30 steps.
constexpr long long kAmortizedSilentAbove = 30;

std::string backticked(std::string_view code);

}  // namespace stoker::python
