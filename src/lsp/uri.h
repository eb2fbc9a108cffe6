// file:// URIs and paths (RFC 8089 as editors write them: percent-encoded UTF-8).
#pragma once

#include <string>
#include <string_view>

namespace stoker::lsp {

// The local path of a file:// URI; other schemes (untitled:, ...) come back unchanged.
std::string path_from_uri(std::string_view uri);
std::string uri_from_path(std::string_view path);

}  // namespace stoker::lsp
