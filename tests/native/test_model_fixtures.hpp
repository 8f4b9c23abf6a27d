// The oracle's model fixtures for the suites of real checkpoints (test_models.cpp, test_checkpoint.cpp):
// build/models/<case>/ as tests/models/make_checkpoints.py writes it (CTest's models.checkpoints): the
// checkpoint as save_pretrained wrote it, loaded as wasm/api/models.js loads it, and oracle-<k>.safetensors with
// transformers' float64 run and a bound on any float32 implementation's error.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "loading/safetensors_header.hpp"
#include "mha/checkpoint.hpp"
#include "mha/models.hpp"

namespace mha_test {

inline const std::string kModelFixtures = MHA_MODEL_FIXTURES;

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path << " (written by tests/models/make_checkpoints.py: CTest's models.checkpoints)");
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Checkpoint {
  mha::CheckpointConfig config;
  std::shared_ptr<const mha::Weights> weights;
};

// A checkpoint folder through the CheckpointLoader, as the JS API loads it: config.json, then
// model.safetensors or the index and its shards, each file's header, the plan's reads of at most
// `slice` bytes, finish(). Keeps the tensors model_reads_tensor names.
inline Checkpoint read_checkpoint(const std::string& dir, std::size_t slice = mha::kCheckpointSlice) {
  Checkpoint c;
  c.config = mha::parse_checkpoint_config(read_text(dir + "/config.json"));
  mha::CheckpointLoader loader([&c](const std::string& name) { return mha::model_reads_tensor(c.config, name); },
                               slice);
  std::vector<std::string> files{"model.safetensors"};
  if (std::ifstream(dir + "/model.safetensors.index.json").good()) {
    loader.add_index(read_text(dir + "/model.safetensors.index.json"));
    files = loader.shards();
  }
  std::vector<std::string> contents;
  for (const std::string& f : files) {
    contents.push_back(read_text(dir + "/" + f));
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(contents.back().data());
    const std::size_t size = contents.back().size();
    loader.add_file(f, bytes, loader.header_bytes(f, bytes, std::min<std::size_t>(8, size), size), size);
  }
  for (const mha::CheckpointRead& r : loader.plan())
    for (const mha::CheckpointCopy& copy : r.copies)
      std::memcpy(copy.to, contents.at(r.file).data() + r.offset + copy.at, copy.length);
  c.weights = loader.finish();
  return c;
}

// An oracle file: its F64 tensors by name (the loading floor's safetensors header reader) and its
// metadata (JSON texts: "ids", "logits_at", "heads_off").
struct OracleFile {
  std::map<std::string, std::vector<double>> tensors;
  std::map<std::string, std::string> meta;
  bool has(const std::string& name) const { return tensors.count(name) > 0; }
  const std::vector<double>& f64(const std::string& name) const {
    const auto it = tensors.find(name);
    if (it == tensors.end()) FAIL("the oracle file has no tensor " << name);
    return it->second;
  }
};

inline OracleFile read_oracle(const std::string& path) {
  const std::string bytes = read_text(path);
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const std::uint64_t n = mha::safetensors::header_length(data, std::min<std::size_t>(8, bytes.size()), bytes.size());
  const mha::safetensors::Header header = mha::safetensors::parse_header(
      data, n, bytes.size(), [](const std::string& d) { return d == "F64"; }, "F64");
  OracleFile file;
  for (const auto& [k, v] : header.metadata) file.meta[k] = v;
  for (const mha::safetensors::Entry& e : header.entries) {
    std::vector<double>& values = file.tensors[e.name];
    values.resize(e.elements);
    std::memcpy(values.data(), data + header.data_start + e.begin, e.bytes);
  }
  return file;
}

// |ours - reference| <= bound at every element; reports the worst ratio.
inline void check_within(const OracleFile& oracle, const std::string& name, const mha::Tensor& ours) {
  const std::vector<double>&ref = oracle.f64(name), &bound = oracle.f64(name + ".bound");
  REQUIRE(ours.numel() == ref.size());
  const mha::Tensor c = ours.contiguous();
  double worst = 0.0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double error = std::fabs(double(c.data()[i]) - ref[i]);
    const double ratio = error / std::max(bound[i], 1e-300);
    if (!(ratio <= worst)) {
      worst = ratio;
      at = i;
    }
  }
  INFO(name << ": worst |ours - transformers (float64)| / bound = " << worst << " at element " << at << " (ours "
            << c.data()[at] << ", reference " << ref[at] << ", bound " << bound[at] << ")");
  CHECK(worst <= 1.0);
}

}  // namespace mha_test
