// A checkpoint's tensors in memory (mha/weights.hpp): the dtype table, element counts, lookup by name. The model
// families read weights only through this.
#include "mha/weights.hpp"

#include <algorithm>
#include <array>

#include "mha/error.hpp"

namespace mha {

namespace {
struct DTypeInfo {
  const char* name;
  std::size_t size;
};
constexpr std::array<DTypeInfo, 3> kDTypes{{{"F32", 4}, {"F16", 2}, {"BF16", 2}}};
static_assert(kDTypes.size() == static_cast<std::size_t>(DType::COUNT), "one row per DType");
}  // namespace

std::size_t dtype_size(DType dtype) { return kDTypes.at(static_cast<std::size_t>(dtype)).size; }
const char* dtype_name(DType dtype) { return kDTypes.at(static_cast<std::size_t>(dtype)).name; }

std::size_t WeightRef::numel() const {
  std::size_t n = 1;
  for (std::size_t s : shape) n *= s;
  return n;
}

Weights::Weights(std::vector<WeightRef> tensors, std::vector<std::shared_ptr<void>> storage)
    : tensors_(std::move(tensors)), storage_(std::move(storage)) {
  std::sort(tensors_.begin(), tensors_.end(), [](const WeightRef& a, const WeightRef& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < tensors_.size(); ++i)
    if (tensors_[i].name == tensors_[i - 1].name)
      throw Error("the checkpoint holds the tensor " + tensors_[i].name + " twice");
}

const WeightRef* Weights::find(const std::string& name) const {
  auto it = std::lower_bound(tensors_.begin(), tensors_.end(), name,
                             [](const WeightRef& t, const std::string& n) { return t.name < n; });
  return it != tensors_.end() && it->name == name ? &*it : nullptr;
}

}  // namespace mha
