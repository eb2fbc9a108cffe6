// The CUDA stream "in scope" at a call, for fixes that move blocking work onto a stream (CU006's
// cudaMemset -> cudaMemsetAsync). Resolved precisely or not at all (precision first):
// - candidates are the `cudaStream_t` variables visible at the call by their name: parameters of
//   the enclosing function, locals declared before the call in an enclosing block, fields of
//   `this` and globals the function references; a name hidden by an inner declaration does not
//   count; inside a lambda without a capture default only the lambda's own are visible;
// - a candidate must be created or used in the function: a local initialized at its declaration
//   or referenced before the call (`cudaStreamCreate(&s)`), a parameter, field or global
//   referenced in the function;
// - the neighbours decide: the stream arguments of the other calls and kernel launches in the
//   innermost loop around the call (the function body when there is none). When they name
//   exactly one stream and it is a candidate, that is the stream; when they name another stream
//   (`streams[i]`, another object's member, a call) or several, there is none. When they name none, a launch on
//   the default stream among them means none, otherwise a single candidate is the stream.
#pragma once

#include "cxx/check.h"

namespace stoker::cxx {

// True for `cudaStream_t` (a pointer to `CUstream_st`).
bool is_stream_type(clang::QualType t);

// The stream variable (or field of `this`) a fix at `call` may pass, by its name; nullptr
// when none is resolved (see above).
const clang::ValueDecl* stream_in_scope(const CheckContext& ctx, const clang::CallExpr* call);

}  // namespace stoker::cxx
