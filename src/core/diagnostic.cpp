#include "core/diagnostic.h"

namespace stoker {

const char* to_string(StepTerm t) {
  switch (t) {
    case StepTerm::LoaderWait: return "loader wait";
    case StepTerm::Copies: return "blocking copies";
    case StepTerm::Syncs: return "syncs";
    case StepTerm::Allocations: return "allocations";
    case StepTerm::Respawns: return "worker respawns";
    case StepTerm::Overhead: return "per-step overhead";
  }
  return "?";
}

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
  }
  return "warning";
}

std::optional<Severity> severity_from_string(std::string_view s) {
  if (s == "error") return Severity::Error;
  if (s == "warning") return Severity::Warning;
  if (s == "info") return Severity::Info;
  return std::nullopt;
}

const char* to_string(Applicability a) {
  switch (a) {
    case Applicability::Safe: return "safe";
    case Applicability::Unsafe: return "unsafe";
    case Applicability::DisplayOnly: return "display-only";
  }
  return "display-only";
}

}  // namespace stoker
