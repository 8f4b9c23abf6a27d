#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include "mha/tensor.hpp"
namespace mha {
struct NamedTensor { std::string name; Tensor value; };
struct SafetensorsFile {
  std::vector<NamedTensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
};
SafetensorsFile read_safetensors(const std::uint8_t* bytes, std::size_t size);
std::vector<std::uint8_t> write_safetensors(const std::vector<NamedTensor>& tensors,
                                            const std::vector<std::pair<std::string, std::string>>& metadata = {});
}
