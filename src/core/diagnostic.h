// The shared vocabulary of both front ends and every consumer: a diagnostic, its fix, its
// impact estimate. Everything here is plain data.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/source.h"

namespace stoker {

enum class Severity { Error, Warning, Info };
const char* to_string(Severity s);
std::optional<Severity> severity_from_string(std::string_view s);

enum class Applicability { Safe, Unsafe, DisplayOnly };
const char* to_string(Applicability a);  // "safe", "unsafe", "display-only"

struct Edit {
  TextRange range;          // byte range in the analyzed text (insertion: start == end)
  std::string replacement;
};

struct Fix {
  std::string title;        // imperative: "Add `num_workers=...`"
  Applicability applicability = Applicability::DisplayOnly;
  std::vector<Edit> edits;  // empty for a display-only suggestion without a mechanical edit
};

struct Impact {
  std::string model;                      // "serial-loader", "sync-bubble", ...
  double gain_low = 0, gain_high = 0;     // percentage points of GPU busy time recovered
  std::string profile;                    // hardware profile name
  std::vector<std::string> assumptions;   // "batch_size=64 (resolved)", "T_gpu=50ms (default)"
  // Midpoint idle fractions (0..1) with the pattern present and after its fix; the per-file
  // "GPU busy now / after" totals combine these (core/impact.h).
  double idle_now = 0, idle_after = 0;
};

struct RelatedLocation {
  std::string file;
  TextRange range;
  std::string message;
};

struct Diagnostic {
  std::string code;         // "DL001"
  std::string message;
  std::string file;
  TextRange range;
  Severity severity = Severity::Warning;
  std::optional<Fix> fix;
  std::optional<Impact> impact;
  std::vector<RelatedLocation> related;
  // Facts the front end resolved that the impact model may use ("batch_size" -> "64").
  std::vector<std::pair<std::string, std::string>> facts;
};

// The step model of one hot loop (core/impact.h): the step time is the GPU work plus the host
// work the GPU waits for, one term per kind of wait; each finding of the loop adds to one term
// and its fix removes or shrinks that addition. Plain data, kept with the file's result.
enum class StepTerm { LoaderWait, Copies, Syncs, Allocations, Respawns, Overhead };
constexpr int kStepTerms = 6;
const char* to_string(StepTerm t);  // "loader wait", "blocking copies", ...

struct StepBreakdown {
  double gpu_ms = 0;                 // GPU work per step
  double host_ms[kStepTerms] = {};   // host work the GPU waits for, per StepTerm
  double step_ms() const {
    double s = gpu_ms;
    for (double h : host_ms) s += h;
    return s;
  }
  double busy() const { return step_ms() > 0 ? gpu_ms / step_ms() : 1; }
};

// One finding as the loop's model sees it, kept so the loop can be composed again (with
// measured step and load times, src/trace).
struct StepMember {
  std::string code;
  std::string model;     // impact model of the rule
  uint32_t offset = 0;   // the finding's start offset
  bool reported = false; // selected and not suppressed: its fix counts in "after"
  int diagnostic = -1;   // index into the result's diagnostics when reported
  std::vector<std::pair<std::string, std::string>> facts;
};

struct LoopStep {
  std::string key;               // "loop:<offset>" for a hot loop; "file" for the file's other findings
  int64_t loop_offset = -1;      // byte offset of the loop statement, -1 for "file"
  std::string profile;
  StepBreakdown now, after;      // at the midpoint of every assumption
  double busy_now_lo = 1, busy_now_hi = 1, busy_after_lo = 1, busy_after_hi = 1;  // over all corners
  std::string dominant;          // the assumption that dominates the width of the loop's gain
  bool measured = false;         // composed with measured times (MeasuredStep)
  std::vector<StepMember> members;
};

// A problem with an input that is not a finding (syntax error, unreadable file).
struct Notice {
  std::string file;
  std::string message;
  std::optional<TextRange> range = std::nullopt;
};

}  // namespace stoker
