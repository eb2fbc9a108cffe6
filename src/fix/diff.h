// Unified diffs (the format `patch` and `git apply` read) of a file before and after fixing.
#pragma once

#include <string>
#include <string_view>

namespace stoker::fix {

// Empty when the texts are equal. Lines keep their own endings (CRLF stays visible to patch).
std::string unified_diff(std::string_view before, std::string_view after, std::string_view path, int context = 3);

}  // namespace stoker::fix
