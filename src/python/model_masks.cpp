// Masks kept on an instance (`self.mask = ...` in a method, read in another): SY003's
// boolean-mask indexing, through SemanticModel::is_cuda_bool.
#include <string>

#include "python/model_internal.h"
#include "python/semantic_model.h"

namespace stoker::python {

// Every store of the attribute in its class's methods (plain or tuple-display assignments:
// self_assignments_) is a CUDA mask by its expression (set AQ MolCLR's NT-Xent
// `self.mask_samples_from_same_repr = self._get_correlated_mask().type(torch.bool)`, whose method
// returns `mask.to(self.device)`). One store of another kind (positions, an unknown call) leaves
// it unknown: not a mask. A class with more than kMaxCandidates stores of the name is not
// followed. O(stores) memoized is_cuda_bool questions.
bool SemanticModel::self_attribute_cuda_mask(Node attr) const {
  int klass = class_of_self(attr);
  if (klass < 0) return false;
  auto stores = self_stores(klass, text(field(attr, "attribute")));
  if (stores.empty() || stores.size() > kMaxCandidates) return false;
  for (int ai : stores)
    if (!is_cuda_bool_impl(self_assignments_[ai].second)) return false;
  return true;
}

}  // namespace stoker::python
