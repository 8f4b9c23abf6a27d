// embind bindings of state dicts and safetensors files (mha/module.hpp, mha/safetensors.hpp), shared by every
// module class (MultiHeadAttention, TinyAttentionModel: their classes bind these templates): conversion and
// validation only.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "mha/attention.hpp"
#include "mha/module.hpp"
#include "mha/safetensors.hpp"
#include "mha/train.hpp"

using emscripten::val;

namespace {

using namespace mha_js;

// names[i] with its tensor staged at addrs[i] (api.js validated both).
std::vector<mha::NamedTensor> named_from_blocks(const val& names, const val& addrs) {
  const std::size_t n = to_count(names["length"].as<double>(), "the number of tensors", 100000);
  if (to_count(addrs["length"].as<double>(), "the number of tensors", 100000) != n)
    throw mha::Error("names and tensors differ in number");
  std::vector<mha::NamedTensor> out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = names[i].as<std::string>();
    out.push_back({name, tensor_from_block(addrs[i].as<double>(), "'" + name + "'")});
  }
  return out;
}

val bytes_to_js(const std::vector<std::uint8_t>& bytes) {
  return val::global("Uint8Array").new_(val(emscripten::typed_memory_view(bytes.size(), bytes.data())));
}

// What a state_dict cannot say (num_heads has no tensor of its own), kept in the file's __metadata__ so that
// the page and the lab can rebuild the module; "format": "pt" as safetensors.torch.save_file writes.
using Metadata = std::vector<std::pair<std::string, std::string>>;
Metadata metadata_of(const mha::MultiHeadAttention& m) {
  return {{"format", "pt"},
          {"d_model", std::to_string(m.config().d_model)},
          {"num_heads", std::to_string(m.config().num_heads)}};
}
Metadata metadata_of(const mha::TinyAttentionModel& m) {
  const mha::ModelConfig& c = m.config();
  return {{"format", "pt"},
          {"task", mha::task_name(c.task)},
          {"vocab", std::to_string(c.vocab)},
          {"seq_len", std::to_string(c.seq_len)},
          {"d_model", std::to_string(c.d_model)},
          {"num_heads", std::to_string(c.num_heads)},
          {"layers", std::to_string(c.layers)}};
}

// The bytes api.js copied to wasm memory at `address`.
val js_read_safetensors(double address, double size) {
  return guarded([&] {
    const std::size_t n = to_count(size, "the file size", 2147483647.0);
    const std::size_t addr = to_count(address, "buffer address", 4294967295.0);
    if (n > 0 && addr == 0) throw mha::Error("invalid buffer address");
    const mha::SafetensorsFile file = mha::read_safetensors(reinterpret_cast<const std::uint8_t*>(addr), n);
    val names = val::array(), tensors = val::array(), metadata = val::array();
    for (std::size_t i = 0; i < file.tensors.size(); ++i) {
      names.set(i, file.tensors[i].name);
      tensors.set(i, tensor_to_js(file.tensors[i].value));
    }
    for (std::size_t i = 0; i < file.metadata.size(); ++i) {
      val pair = val::array();
      pair.set(0, file.metadata[i].first);
      pair.set(1, file.metadata[i].second);
      metadata.set(i, pair);
    }
    val out = val::object();
    out.set("names", names);
    out.set("tensors", tensors);
    out.set("metadata", metadata);
    return out;
  });
}

}  // namespace

namespace mha_js {

template <class M>
val state_dict_to_js(const M& m) {
  return guarded([&] {
    val out = val::object();
    for (const mha::NamedTensor& t : m.state_dict()) out.set(t.name, tensor_to_js(t.value));
    return out;
  });
}

template <class M>
val module_load_state_dict(M& m, val names, val addrs) {
  return guarded([&] {
    m.load_state_dict(named_from_blocks(names, addrs));
    return val::undefined();
  });
}

template <class M>
val module_to_safetensors(const M& m) {
  return guarded([&] { return bytes_to_js(mha::write_safetensors(m.state_dict(), metadata_of(m))); });
}

// The module classes that bind them (attention_bindings.cpp, training_bindings.cpp).
template val state_dict_to_js(const mha::MultiHeadAttention&);
template val state_dict_to_js(const mha::TinyAttentionModel&);
template val module_load_state_dict(mha::MultiHeadAttention&, val, val);
template val module_load_state_dict(mha::TinyAttentionModel&, val, val);
template val module_to_safetensors(const mha::MultiHeadAttention&);
template val module_to_safetensors(const mha::TinyAttentionModel&);

}  // namespace mha_js

EMSCRIPTEN_BINDINGS(mha_state_dicts) {
  using namespace emscripten;
  function("readSafetensors", &js_read_safetensors);
}
