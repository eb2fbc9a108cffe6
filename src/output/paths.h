// Paths as CI consumers want them: relative to the working directory (the repository root in
// CI), with forward slashes; and as SARIF URIs.
#pragma once

#include <string>
#include <string_view>

namespace stoker::output {

// `path` relative to the working directory when it lies inside it; otherwise absolute.
std::string relative_path(const std::string& path);
// True when relative_path(path) is relative (the file lies under the working directory).
bool under_working_directory(const std::string& path);
// Percent-encodes a path for use in a URI (RFC 3986: unreserved characters and `/` stay).
std::string uri_escape(std::string_view path);
// `file:///abs/dir/` for the working directory (with the trailing slash SARIF requires).
std::string working_directory_uri();

}  // namespace stoker::output
