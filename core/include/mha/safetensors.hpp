// safetensors, the format safetensors.torch.save_file(model.state_dict(), path) writes:
// 8-byte little-endian header length N, N bytes of UTF-8 JSON
// ({"name": {"dtype", "shape", "data_offsets": [BEGIN, END]}, "__metadata__": {str: str}}), then the
// tensors' bytes (little-endian, row-major), contiguous from 0.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mha/tensor.hpp"

namespace mha {

struct NamedTensor {
  std::string name;
  Tensor value;
};

struct SafetensorsFile {
  std::vector<NamedTensor> tensors;                           // in the order of their data offsets
  std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__", in file order
};

// Parses an untrusted file. Checks, each with its own message: at least 8 bytes; N <= 100,000,000
// and N <= size - 8; the header valid UTF-8 and a strict JSON object (trailing whitespace allowed,
// nesting depth and per-entry size limited) with no duplicate key at any level; __metadata__ an
// object of strings; each tensor exactly {dtype, shape, data_offsets}; dtype F32, F16, BF16 or F64
// (converted to float32, F16/BF16 exactly); at most kMaxDims sizes, each a whole number <= 2^53;
// element count and byte size by checked multiplication (a zero size does not hide an overflow in
// the others); END >= BEGIN and END - BEGIN equal to the byte size; offsets contiguous from 0 with
// no gap or overlap and nothing after the last tensor; the core's shape caps (check_shape).
// Empty tensors (a 0 in the shape) are valid safetensors but rejected, after every other check,
// with a message saying so: the core has no zero-size tensors. Shape [] is a one-element scalar.
// Throws mha::Error; never reads out of bounds; the data may be unaligned.
SafetensorsFile read_safetensors(const std::uint8_t* bytes, std::size_t size);

// Writes as the reference writer does: F32 tensors, keys ordered by dtype alignment (descending),
// then name (all F32 here: by name, bytewise); data_offsets contiguous from 0; the header padded
// with spaces so the data starts at a multiple of 8; __metadata__ first when non-empty, in the
// given order; strings escaped as serde_json does. Throws mha::Error for what read_safetensors
// would refuse: two tensors or metadata keys with one name, a tensor named __metadata__, text that
// is not UTF-8, an empty tensor.
std::vector<std::uint8_t> write_safetensors(const std::vector<NamedTensor>& tensors,
                                            const std::vector<std::pair<std::string, std::string>>& metadata = {});

}  // namespace mha
