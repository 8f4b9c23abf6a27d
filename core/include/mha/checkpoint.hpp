// A checkpoint's weights loaded from its files (the loading floor): model.safetensors, or
// model.safetensors.index.json and its shards. Only the headers are parsed in memory; the data is
// copied slice by slice straight into the memory that keeps it (one copy of the weights, never
// two: peak about the weights plus one slice). F32, F16 and BF16 stay as stored.
//
// Usage:
//
//   #include "mha/checkpoint.hpp"
//   #include "mha/models.hpp"  // the floor above: which tensors a model reads, and the Model
//
//   mha::CheckpointConfig config = mha::parse_checkpoint_config(config_json);
//   mha::CheckpointLoader loader(                    // keeps the tensors the model reads
//       [&config](const std::string& name) { return mha::model_reads_tensor(config, name); });
//   loader.add_index(index_json);                     // sharded only; loader.shards() lists the files
//   for (const File& f : weight_files) {              // model.safetensors, or every shard
//     std::uint64_t n = loader.header_bytes(f.name, f.bytes, std::min<std::size_t>(8, f.size), f.size);
//     loader.add_file(f.name, f.bytes, n, f.size);    // f's first n bytes: 8 + its header
//   }
//   for (const mha::CheckpointRead& r : loader.plan())  // allocates the weights' memory
//     for (const mha::CheckpointCopy& c : r.copies)     // (in JS: one file.slice() per read)
//       std::memcpy(c.to, file_bytes(r.file) + r.offset + c.at, c.length);
//   std::shared_ptr<const mha::Weights> weights = loader.finish();  // refuses NaN and infinities
//   mha::Model model(config, weights);
//
// Every problem with the files (a missing or truncated shard, an index that names a file not given,
// a damaged header, a weight stored in an unsupported dtype, NaN weights) throws mha::Error naming
// the file and the problem; whatever the loader allocated is freed with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mha/weights.hpp"

namespace mha {

constexpr std::size_t kCheckpointSlice = std::size_t{16} << 20;  // bytes per read of a file

// Copy `length` bytes from `at` bytes into the read to `to`.
struct CheckpointCopy {
  std::size_t at = 0, length = 0;
  std::uint8_t* to = nullptr;
};

// One slice of a file: bytes [offset, offset + length) of files()[file], and where they go.
struct CheckpointRead {
  std::size_t file = 0;
  std::uint64_t offset = 0;
  std::size_t length = 0;
  std::vector<CheckpointCopy> copies;
};

class CheckpointLoader {
 public:
  // `keep(name)`: whether the model reads the tensor (the others are skipped, never copied); the
  // loader knows no model: its caller passes model_reads_tensor (mha/models.hpp) bound to the config.
  explicit CheckpointLoader(std::function<bool(const std::string& name)> keep,
                            std::size_t slice_bytes = kCheckpointSlice);
  ~CheckpointLoader();
  CheckpointLoader(const CheckpointLoader&) = delete;
  CheckpointLoader& operator=(const CheckpointLoader&) = delete;

  // model.safetensors.index.json's text: {"weight_map": {tensor: shard file}}. Without an index the
  // checkpoint is one file.
  void add_index(const std::string& index_json, const std::string& index_name = "model.safetensors.index.json");
  const std::vector<std::string>& shards() const;  // the index's files, in order of first mention

  // 8 + N: how many of the file's first bytes add_file needs. `first`: its first `available` =
  // min(8, size) bytes; `size`: the whole file's.
  std::uint64_t header_bytes(const std::string& file, const std::uint8_t* first, std::size_t available,
                             std::uint64_t size) const;
  // The file's first `n` = header_bytes(...) bytes.
  void add_file(const std::string& file, const std::uint8_t* bytes, std::size_t n, std::uint64_t size);
  const std::vector<std::string>& files() const;  // as added; CheckpointRead::file indexes them

  // After every file: checks the shards against the index, allocates the kept tensors (16-byte
  // aligned) and returns the reads that fill them, in file order, each at most the slice size.
  const std::vector<CheckpointRead>& plan();
  std::uint64_t plan_bytes() const;  // the bytes the reads cover (for progress)

  // After the plan is filled: checks every value is finite and hands the memory to the Weights.
  std::shared_ptr<const Weights> finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mha
