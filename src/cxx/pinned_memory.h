// Where a host pointer's memory came from (CU002): pinned (cudaMallocHost, cudaHostAlloc,
// cudaHostRegister), pageable (malloc, calloc, new, std::vector::data(), stack arrays and
// objects, globals), device memory (cudaMalloc*), or unknown. Follows initializers,
// assignments, struct fields and function parameters (through every call site in the
// translation unit). Conflicting or unknown sources give Unknown: rules stay silent.
#pragma once

#include <set>

#include "cxx/tu_model.h"

namespace stoker::cxx {

enum class MemoryKind { Unknown, Pageable, Pinned, Device };
const char* to_string(MemoryKind k);

class PinnedMemoryTracker {
 public:
  explicit PinnedMemoryTracker(const TranslationUnitModel& model) : model_(model) {}
  MemoryKind kind_of(const clang::Expr* pointer) const;

 private:
  MemoryKind kind_of(const clang::Expr* e, int depth, std::set<const void*>& seen) const;
  MemoryKind object_kind(const clang::Expr* e, int depth, std::set<const void*>& seen) const;
  MemoryKind kind_of_decl(const clang::ValueDecl* d, int depth, std::set<const void*>& seen) const;
  bool registered(const clang::ValueDecl* d) const;
  const TranslationUnitModel& model_;
};

}  // namespace stoker::cxx
