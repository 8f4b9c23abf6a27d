// A checkpoint's tensors as they sit in memory: the contract between the loading floor
// (safetensors files, shards, copy plans; core/src/loading/) and the model families
// (core/src/models/), which read weights only through this header.
//
// Half-precision tensors stay half: a model widens them to float32 inside its kernels' tiles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mha {

enum class DType : std::uint8_t { F32, F16, BF16, COUNT };

// Bytes per element of each dtype; "F32", "F16", "BF16" as safetensors names them.
std::size_t dtype_size(DType dtype);
const char* dtype_name(DType dtype);

// One tensor in memory: little-endian, row-major, contiguous; `data` aligned to 16 bytes.
struct WeightRef {
  std::string name;  // as stored in the file (prefixes kept: "transformer.h.0.attn.c_attn.weight")
  DType dtype = DType::F32;
  std::vector<std::size_t> shape;  // [] for a scalar
  const std::uint8_t* data = nullptr;
  std::size_t numel() const;
  std::size_t bytes() const { return numel() * dtype_size(dtype); }
};

// Every tensor a model may use, with the memory that holds them. Tensors the families never read
// (GPT-2's attn.bias mask buffers, BERT's position_ids, the pooler...) may be absent: the loader
// skips them. Immutable once built; shared by a model and whoever loaded it.
class Weights {
 public:
  Weights(std::vector<WeightRef> tensors, std::vector<std::shared_ptr<void>> storage);
  const WeightRef* find(const std::string& name) const;               // nullptr when absent
  const std::vector<WeightRef>& tensors() const { return tensors_; }  // sorted by name

 private:
  std::vector<WeightRef> tensors_;
  std::vector<std::shared_ptr<void>> storage_;  // keeps `data` alive
};

}  // namespace mha
