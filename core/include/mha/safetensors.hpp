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

// Parses an untrusted file. Checks: at least 8 bytes; N <= 100,000,000 and N <= size - 8; a UTF-8
// JSON object with no duplicate key at any level; __metadata__ values strings; each tensor exactly
// {dtype, shape, data_offsets}; dtype F32, F16, BF16 or F64 (read as float32); shape products and
// byte sizes with checked multiplication; END - BEGIN equal to the byte size; offsets contiguous
// from 0 with no gap or overlap; nothing after the last tensor. Empty tensors are rejected (the
// core has none). Throws mha::Error naming what is wrong; never reads out of bounds.
SafetensorsFile read_safetensors(const std::uint8_t* bytes, std::size_t size);

// Writes F32 tensors as the reference writer does: keys ordered by dtype alignment, then name (all
// F32 here: by name); data_offsets contiguous from 0; the header padded with spaces so the data
// starts at a multiple of 8; __metadata__ first when given.
std::vector<std::uint8_t> write_safetensors(const std::vector<NamedTensor>& tensors,
                                            const std::vector<std::pair<std::string, std::string>>& metadata = {});

}  // namespace mha
