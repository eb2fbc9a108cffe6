#include <string_view>

#include "python/types.h"
#include "python/types_detail.h"

// The lattice of abstract types (join, what a type answers), destructuring paths and the
// elements of a type (split out of types.cpp).

namespace stoker::python {

using Kind = AbstractType::Kind;

namespace type_detail {

bool tensor_like(const AbstractType& t) {
  return t.kind == Kind::Tensor || (t.kind == Kind::HostContainer && t.tensors);
}

const std::set<std::string, std::less<>>& host_attributes() {
  static const std::set<std::string, std::less<>> s = {
      "shape", "dtype", "ndim", "requires_grad", "grad_fn", "layout", "is_leaf", "training", "names",
      "itemsize", "nbytes", "defaults", "batch_size", "num_workers", "__name__", "__class__", "width", "height"};
  return s;
}

int device_fact(const AbstractType& t) {
  return static_cast<int>(t.device) | (t.kind == Kind::HostContainer && t.tensors ? kTensorsFact : 0);
}

}  // namespace type_detail

// ---------------------------------------------------------------------------------------
// The lattice.

bool AbstractType::is_host() const {
  switch (kind) {
    case Kind::None:
    case Kind::HostScalar:
    case Kind::Host:
    case Kind::Loader:
    case Kind::Optimizer:
    case Kind::Device:
    case Kind::Object:
    case Kind::ModuleMember: return true;
    case Kind::HostContainer: return device == TypeDevice::Cpu;
    default: return false;
  }
}

TypeDevice join(TypeDevice a, TypeDevice b) {
  if (a == b) return a;
  if (a == TypeDevice::Any || b == TypeDevice::Any) return TypeDevice::Any;
  if (a == TypeDevice::Cuda || b == TypeDevice::Cuda) return TypeDevice::Any;  // with Cpu or Unresolved
  return TypeDevice::Unresolved;                                             // Cpu with Unresolved
}

AbstractType join(const AbstractType& a, const AbstractType& b) {
  if (a.kind == Kind::Bottom) return b;
  if (b.kind == Kind::Bottom) return a;
  if (a.kind == Kind::Unknown || b.kind == Kind::Unknown) return AbstractType::unknown();
  if (a.kind == Kind::None) return b;  // an optional value
  if (b.kind == Kind::None) return a;
  if (a.kind == b.kind) {
    AbstractType t = a;
    t.device = join(a.device, b.device);
    if (a.klass != b.klass) t.klass = -1;
    if (a.framework != b.framework) t.framework = -1;
    t.tensors = a.tensors && b.tensors;
    return t;
  }
  if (a.is_host() && b.is_host()) return AbstractType::of(Kind::Host);
  // A tensor (perhaps a module's dict output) or a container of tensors, both on CUDA
  // (`return input_dict` or a dict of its reduced values): read as a tensor, whose subscripts,
  // `.values()` and `.items()` values are CUDA tensors.
  auto on_cuda = [](const AbstractType& t) { return t.device == TypeDevice::Cuda || t.device == TypeDevice::Any; };
  if (((a.kind == Kind::Tensor && b.kind == Kind::HostContainer) ||
       (a.kind == Kind::HostContainer && b.kind == Kind::Tensor)) &&
      on_cuda(a) && on_cuda(b))
    return AbstractType::of(Kind::Tensor, join(a.device, b.device));
  // A tensor or a module, on the same devices: both "may be CUDA" or neither.
  return AbstractType::unknown();
}

CudaAnswer cuda_answer(const AbstractType& t) {
  switch (t.kind) {
    case Kind::Bottom:
    case Kind::Unknown: return CudaAnswer::Undecided;
    case Kind::HostContainer:
    case Kind::Tensor:
    case Kind::Module:
      if (t.device == TypeDevice::Cuda || t.device == TypeDevice::Any) return CudaAnswer::Cuda;
      if (t.device == TypeDevice::Cpu) return CudaAnswer::Host;
      return CudaAnswer::Undecided;
    default: return CudaAnswer::Host;
  }
}

// ---------------------------------------------------------------------------------------
// Paths.

TypeInference::Path TypeInference::Path::single(int i) {
  Path p;
  if (i < 0 || i > 255) {
    p.code = 0xF;
    return p;
  }
  p.code = 1 | (static_cast<uint64_t>(i) << 4);
  return p;
}

TypeInference::Path TypeInference::Path::rest() const {
  Path p;
  if (size() == 0 || !valid()) return p;
  uint64_t indices = code >> 12;  // drop the first index
  p.code = (indices << 4) | (size() - 1);
  return p;
}

TypeInference::Path TypeInference::Path::append(const Path& tail) const {
  Path p;
  if (!valid() || !tail.valid() || size() + tail.size() > 7) {
    p.code = 0xF;
    return p;
  }
  uint64_t indices = (code >> 4) | ((tail.code >> 4) << (8 * size()));
  p.code = (indices << 4) | (size() + tail.size());
  return p;
}

// ---------------------------------------------------------------------------------------
// Elements.

AbstractType TypeInference::element(const AbstractType& t, size_t depth) {
  AbstractType e = t;
  for (size_t i = 0; i < depth; ++i) {
    switch (e.kind) {
      case Kind::Tensor:
      case Kind::Module:
      case Kind::HostScalar:
      case Kind::Host:
      case Kind::Bottom: break;  // rows of a tensor, submodules, characters
      case Kind::HostContainer:
        // A container of CPU tensors (a matcher's index tensors): its elements, and their rows,
        // are CPU tensors.
        if (e.device == TypeDevice::Cpu) e = e.tensors ? AbstractType::of(Kind::Tensor, TypeDevice::Cpu) : AbstractType::of(Kind::Host);
        else if (e.device == TypeDevice::Unresolved) return AbstractType::unknown();
        else e = AbstractType::of(Kind::Tensor, e.device);
        break;
      case Kind::Loader:
        // A batch (and any part of it) of a loader of device batches, or of host batches; of one
        // whose batches may be on CUDA (torchtext's iterator given a device that may be CUDA, such
        // as `None if torch.cuda.is_available() else -1`: set AD pytorch-seq2seq), a tensor that
        // may be CUDA.
        if (e.device == TypeDevice::Cuda || e.device == TypeDevice::Cpu || e.device == TypeDevice::Any)
          e = AbstractType::of(Kind::Tensor, e.device);
        else return AbstractType::unknown();
        break;
      default: return AbstractType::unknown();
    }
  }
  return e;
}

}  // namespace stoker::python
