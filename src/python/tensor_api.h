// torch.Tensor's own API: the names of the methods a tensor has (PyTorch 1.x and 2.x, the
// `torch.Tensor` reference: operations, in-place variants, conversions, accessors, autograd).
// One list for the readers that ask whether a method called on a value typed a tensor is a
// tensor method at all: a method the list does not name (`g.num_nodes()` of a graph library's
// graph that `g.to(device)` made look like a tensor) says the value is not a tensor, so what the
// call gives is not known (TypeInference::call_type, and the CUDA taint in
// SemanticModel::is_cuda_uncached, which then follows the call's arguments only).
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace stoker::python {

// `name` is a method of torch.Tensor: one of the list, an in-place variant of one (`abs_`), or
// a private or special name (`_values`, `__getitem__`: left to the readers as they were).
// O(log list).
inline bool tensor_method(std::string_view name) {
  static const std::set<std::string, std::less<>> kTensorApi = {
      // Element-wise arithmetic and math.
      "abs", "absolute", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "addr",
      "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "asin", "asinh",
      "atan", "atan2", "atanh", "baddbmm", "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or",
      "bitwise_right_shift", "bitwise_xor", "ceil", "clamp", "clamp_max", "clamp_min", "clip", "conj",
      "conj_physical", "copysign", "cos", "cosh", "deg2rad", "digamma", "div", "divide", "dot", "erf", "erfc",
      "erfinv", "exp", "exp2", "expm1", "fix", "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod",
      "frac", "frexp", "gcd", "heaviside", "hypot", "i0", "igamma", "igammac", "lcm", "ldexp", "lerp", "lgamma",
      "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or",
      "logical_xor", "logit", "mul", "multiply", "mvlgamma", "nan_to_num", "neg", "negative", "nextafter",
      "polygamma", "positive", "pow", "rad2deg", "reciprocal", "relu", "remainder", "round", "rsqrt", "sgn",
      "sigmoid", "sign", "signbit", "sin", "sinc", "sinh", "sqrt", "square", "sub", "subtract", "tan", "tanh",
      "true_divide", "trunc", "xlogy", "hardshrink", "softmax", "log_softmax", "resolve_conj", "resolve_neg",
      // Comparisons.
      "allclose", "eq", "equal", "ge", "greater", "greater_equal", "gt", "isclose", "isfinite", "isinf",
      "isnan", "isneginf", "isposinf", "isreal", "le", "less", "less_equal", "lt", "maximum", "minimum", "ne",
      "not_equal",
      // Reductions, scans, sorting, statistics.
      "all", "amax", "amin", "aminmax", "any", "argmax", "argmin", "argsort", "argwhere", "bincount",
      "count_nonzero", "cov", "corrcoef", "cummax", "cummin", "cumprod", "cumsum", "diff", "dist", "histc",
      "histogram", "kthvalue", "logcumsumexp", "logsumexp", "max", "mean", "median", "min", "mode", "msort",
      "nanmean", "nanmedian", "nanquantile", "nansum", "nonzero", "norm", "prod", "quantile", "renorm", "sort",
      "std", "sum", "sum_to_size", "topk", "unique", "unique_consecutive", "var",
      // Linear algebra.
      "bmm", "cholesky", "cholesky_inverse", "cholesky_solve", "cross", "det", "diag", "diag_embed",
      "diagflat", "diagonal", "diagonal_scatter", "eig", "geqrf", "ger", "inner", "inverse", "kron", "logdet",
      "lstsq", "lu", "lu_solve", "matmul", "matrix_exp", "matrix_power", "mm", "mv", "orgqr", "ormqr", "outer",
      "pinverse", "qr", "slogdet", "solve", "svd", "symeig", "trace", "triangular_solve", "tril", "triu",
      "vdot",
      // Shapes, views, indexing, joining.
      "as_strided", "broadcast_to", "chunk", "contiguous", "dsplit", "expand", "expand_as", "flatten", "flip",
      "fliplr", "flipud", "gather", "hsplit", "index_add", "index_copy", "index_fill", "index_put",
      "index_reduce", "index_select", "masked_fill", "masked_scatter", "masked_select", "movedim", "moveaxis",
      "narrow", "narrow_copy", "permute", "put", "ravel", "repeat", "repeat_interleave", "reshape",
      "reshape_as", "roll", "rot90", "scatter", "scatter_add", "scatter_reduce", "select", "select_scatter",
      "slice_scatter", "split", "split_with_sizes", "squeeze", "swapaxes", "swapdims", "t", "take",
      "take_along_dim", "tensor_split", "tile", "transpose", "unbind", "unflatten", "unfold", "unsqueeze",
      "view", "view_as", "vsplit", "where", "align_as", "align_to", "refine_names", "rename",
      // Creation from a tensor.
      "new_empty", "new_empty_strided", "new_full", "new_ones", "new_tensor", "new_zeros", "clone",
      "bernoulli", "multinomial", "stft", "istft", "fft", "ifft", "rfft", "irfft",
      // In place only (fills, samplers, resizes).
      "apply_", "cauchy_", "copy_", "exponential_", "fill_", "fill_diagonal_", "geometric_", "index_put_",
      "log_normal_", "map_", "normal_", "random_", "resize_", "resize_as_", "set_", "uniform_", "zero_",
      // Types, devices, memory.
      "bfloat16", "bool", "byte", "cdouble", "cfloat", "chalf", "char", "cpu", "cuda", "double", "float",
      "half", "int", "long", "short", "to", "type", "type_as", "pin_memory", "share_memory_", "record_stream",
      "storage", "untyped_storage", "storage_type", "to_dense", "to_sparse", "to_sparse_coo", "to_sparse_csr",
      "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc", "to_mkldnn", "coalesce", "indices", "values",
      "crow_indices", "col_indices", "ccol_indices", "row_indices", "sparse_mask", "sparse_dim", "dense_dim",
      "dequantize", "int_repr", "q_scale", "q_zero_point", "q_per_channel_scales",
      "q_per_channel_zero_points", "q_per_channel_axis", "qscheme", "as_subclass", "view_as_real",
      "view_as_complex", "dim_order",
      // Accessors and host reads.
      "data_ptr", "dim", "element_size", "get_device", "item", "ndimension", "nelement", "numel", "numpy",
      "size", "storage_offset", "stride", "tolist", "is_contiguous", "is_complex", "is_floating_point",
      "is_inference", "is_nonzero", "is_pinned", "is_same_size", "is_set_to", "is_shared", "is_signed",
      "is_coalesced", "is_conj", "is_neg",
      // Autograd.
      "backward", "detach", "register_hook", "register_post_accumulate_grad_hook", "requires_grad_",
      "retain_grad",
      // Others.
      "adjoint", "map2_", "unsafe_chunk", "unsafe_split", "smm", "sspaddmm", "to_padded_tensor"};
  if (name.empty() || name.front() == '_') return true;
  if (kTensorApi.count(name)) return true;
  // An in-place variant: `abs_`, `add_`, `masked_fill_`, `clamp_min_`.
  return name.size() > 1 && name.back() == '_' && kTensorApi.count(name.substr(0, name.size() - 1)) > 0;
}

// Methods a value typed a tensor may have that give what it holds, on its device: a mapping's
// accessors and a Hugging Face ModelOutput's `to_tuple` (a module's outputs read as a dict,
// `loss_dict.items()`), and a probability distribution's (torch.distributions' Distribution, and
// the diagonal Gaussian of a diffusers VAE's output, `vae.encode(x).latent_dist.sample()`: set AF
// fast-DiT extract_features.py:170), which compute on its parameters' device. O(1).
inline bool held_value_method(std::string_view name) {
  return name == "items" || name == "values" || name == "keys" || name == "get" || name == "pop" ||
         name == "copy" || name == "setdefault" || name == "popitem" || name == "update" || name == "to_tuple" ||
         name == "sample" || name == "rsample" || name == "sample_n" || name == "log_prob" || name == "cdf" ||
         name == "icdf" || name == "entropy" || name == "enumerate_support" || name == "perplexity" ||
         name == "kl" || name == "nll";
}

}  // namespace stoker::python
