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

// A problem with an input that is not a finding (syntax error, unreadable file).
struct Notice {
  std::string file;
  std::string message;
  std::optional<TextRange> range = std::nullopt;
};

}  // namespace stoker
