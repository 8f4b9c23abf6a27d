// embind bindings of real checkpoints (mha/checkpoint.hpp, mha/models.hpp): conversion and
// validation only. The JS API's loadModel (wasm/api/models.js) drives the loader: config → index → each file's header →
// the plan's reads (copied by the JS API straight into wasm memory) → finish, which builds the Model.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "loaded_model.hpp"
#include "mha/analysis.hpp"
#include "mha/checkpoint.hpp"
#include "mha/models.hpp"

using emscripten::val;

namespace {

using namespace mha_js;

constexpr double kMaxAddress = 4294967295.0;
constexpr double kMaxFileSize = 9007199254740991.0;  // 2^53 - 1: File.size is a JS number
constexpr double kMaxHeaderBytes = 8.0 + 100'000'000.0;

// A checkpoint being loaded: its config and the loader, until finish() builds the model; `skipped`, the tensors the
// model does not read (for unusedLayers). Held by a shared_ptr, never moved: the loader's callback keeps `this`.
struct ModelLoading {
  mha::CheckpointConfig config;
  std::vector<std::string> skipped;
  mha::CheckpointLoader loader;
  explicit ModelLoading(mha::CheckpointConfig c)
      : config(std::move(c)), loader([this](const std::string& name) {
          const bool keep = mha::model_reads_tensor(config, name);
          if (!keep) skipped.push_back(name);
          return keep;
        }) {}
};

// `name` with its first all-digit part (the layer index of "h.5.attn.c_attn.weight") as `layer` and that part
// replaced by 0, or false when it has none.
bool layer_part(const std::string& name, std::size_t& layer, std::string& as_layer0) {
  for (std::size_t start = 0; start < name.size();) {
    std::size_t end = name.find('.', start);
    if (end == std::string::npos) end = name.size();
    if (end > start && end - start < 10 && name.find_first_not_of("0123456789", start) >= end) {
      layer = std::stoul(name.substr(start, end - start));
      as_layer0 = name.substr(0, start) + "0" + name.substr(end);
      return true;
    }
    start = end + 1;
  }
  return false;
}

// `size` bytes the JS API wrote at `address`.
const std::uint8_t* bytes_at(double address, std::size_t size) {
  const std::size_t addr = to_count(address, "buffer address", kMaxAddress);
  if (size > 0 && addr == 0) throw mha::Error("invalid buffer address");
  return reinterpret_cast<const std::uint8_t*>(addr);
}

val loading_create(std::string config_json) {
  return guarded([&] { return val(std::make_shared<ModelLoading>(mha::parse_checkpoint_config(config_json))); });
}

val loading_add_index(ModelLoading& m, std::string index_json) {
  return guarded([&] {
    m.loader.add_index(index_json);
    val shards = val::array();
    for (std::size_t i = 0; i < m.loader.shards().size(); ++i) shards.set(i, m.loader.shards()[i]);
    return shards;
  });
}

val loading_header_bytes(ModelLoading& m, std::string file, double address, double available, double size) {
  return guarded([&] {
    const std::size_t n = to_count(available, "the bytes given", 8);
    const std::uint64_t file_size = to_count(size, "the file size", kMaxFileSize);
    return val(static_cast<double>(m.loader.header_bytes(file, bytes_at(address, n), n, file_size)));
  });
}

val loading_add_file(ModelLoading& m, std::string file, double address, double bytes, double size) {
  return guarded([&] {
    const std::size_t n = to_count(bytes, "the header's bytes", kMaxHeaderBytes);
    m.loader.add_file(file, bytes_at(address, n), n, to_count(size, "the file size", kMaxFileSize));
    return val::undefined();
  });
}

// {files, bytes, reads: [{file, offset, length, copies: [at, length, to, ...]}]}
val loading_plan(ModelLoading& m) {
  return guarded([&] {
    const std::vector<mha::CheckpointRead>& reads = m.loader.plan();
    val out = val::object(), list = val::array(), files = val::array();
    for (std::size_t i = 0; i < m.loader.files().size(); ++i) files.set(i, m.loader.files()[i]);
    for (std::size_t i = 0; i < reads.size(); ++i) {
      const mha::CheckpointRead& r = reads[i];
      std::vector<double> copies;
      for (const mha::CheckpointCopy& c : r.copies) {
        copies.push_back(static_cast<double>(c.at));
        copies.push_back(static_cast<double>(c.length));
        copies.push_back(static_cast<double>(reinterpret_cast<std::uintptr_t>(c.to)));
      }
      val read = val::object();
      read.set("file", static_cast<double>(r.file));
      read.set("offset", static_cast<double>(r.offset));
      read.set("length", static_cast<double>(r.length));
      read.set("copies", array_from(copies));
      list.set(i, read);
    }
    out.set("files", files);
    out.set("bytes", static_cast<double>(m.loader.plan_bytes()));
    out.set("reads", list);
    return out;
  });
}

// The skipped tensors of layers config.json does not run (a file of 6 layers under num_hidden_layers: 4): their
// layer index is past config.json's layers, and the model reads the same name at layer 0.
val loading_unused_layers(const ModelLoading& m) {
  return guarded([&] {
    val out = val::array();
    std::size_t n = 0, layer = 0;
    std::string as_layer0;
    for (const std::string& name : m.skipped) {
      if (layer_part(name, layer, as_layer0) && layer >= m.config.layers &&
          mha::model_reads_tensor(m.config, as_layer0))
        out.set(n++, name);
    }
    return out;
  });
}

// The Model's constructor checks every tensor's name and shape against config.json.
val loading_finish(ModelLoading& m) {
  return guarded([&] {
    std::shared_ptr<const mha::Weights> weights = m.loader.finish();
    try {
      return val(std::make_shared<LoadedModel>(m.config, std::move(weights)));
    } catch (const mha::Error& e) {
      throw mha::Error(std::string("config.json does not match the weights: ") + e.what());
    }
  });
}

// The stored dtype that holds most of the weights' bytes.
std::string main_dtype(const mha::Weights& w) {
  std::map<std::string, std::size_t> bytes;
  for (const mha::WeightRef& t : w.tensors()) bytes[mha::dtype_name(t.dtype)] += t.bytes();
  std::string best = "F32";
  for (const auto& [name, n] : bytes)
    if (n > bytes[best]) best = name;
  return best;
}

val model_info(const LoadedModel& m) {
  const mha::CheckpointConfig& c = m.model.config();
  std::size_t weight_bytes = 0;
  for (const mha::WeightRef& t : m.weights->tensors()) weight_bytes += t.bytes();
  val out = val::object();
  out.set("family", std::string(mha::family_name(c.family)));
  out.set("modelType", c.model_type);
  out.set("layers", static_cast<double>(c.layers));
  out.set("heads", static_cast<double>(c.heads));
  out.set("kvHeads", static_cast<double>(c.kv_heads));
  out.set("dModel", static_cast<double>(c.d_model));
  out.set("headDim", static_cast<double>(c.head_dim));
  out.set("rotaryDim", static_cast<double>(c.rotary_dim));
  val windows = val::array();
  for (std::size_t w : c.windows) windows.call<void>("push", static_cast<double>(w));
  out.set("windows", windows);
  out.set("ropeTheta", c.rotary_dim ? c.rope_theta : 0.0);
  out.set("ropeLocalTheta", c.rope_local_theta);  // Gemma 3's sliding layers; 0: ropeTheta on every layer
  out.set("ropeFactor", c.rope_factor);
  out.set("queryPreAttnScalar", c.query_pre_attn_scalar);  // Gemma 2's; 0: scores / sqrt(headDim)
  out.set("attnSoftcap", c.attn_softcap);
  out.set("finalSoftcap", c.final_softcap);
  out.set("vocab", static_cast<double>(c.vocab));
  out.set("maxPositions", static_cast<double>(c.max_positions));
  out.set("causal", c.causal);
  out.set("hasLmHead", m.model.has_lm_head());
  out.set("dtype", main_dtype(*m.weights));
  out.set("weightBytes", static_cast<double>(weight_bytes));
  return out;
}

std::size_t list_length(const val& list, const std::string& what, double max_length) {
  if (!list.isArray()) throw mha::Error(what + " must be an array");
  return to_count(list["length"].as<double>(), "the length of " + what, max_length);
}

// The JS API checked these with messages for students; here they are checked again, as numbers that cross as doubles.
std::vector<std::int32_t> read_ids(const mha::CheckpointConfig& c, const val& ids) {
  const std::size_t T = list_length(ids, "ids", static_cast<double>(c.max_positions));
  std::vector<std::int32_t> tokens(T);
  for (std::size_t i = 0; i < T; ++i) {
    tokens[i] = static_cast<std::int32_t>(
        to_count(ids[i].as<double>(), "token id " + std::to_string(i), static_cast<double>(c.vocab - 1)));
  }
  return tokens;
}

std::vector<mha::HeadRef> read_heads_off(const mha::CheckpointConfig& c, const val& heads_off) {
  std::vector<mha::HeadRef> out;
  for (std::size_t i = 0, n = list_length(heads_off, "headsOff", 1e6); i < n; ++i) {
    const val pair = heads_off[i];
    if (list_length(pair, "headsOff[" + std::to_string(i) + "]", 2) != 2)
      throw mha::Error("headsOff entries are [layer, head]");
    out.push_back({to_count(pair[0].as<double>(), "headsOff layer", static_cast<double>(c.layers - 1)),
                   to_count(pair[1].as<double>(), "headsOff head", static_cast<double>(c.heads - 1))});
  }
  return out;
}

// The forward options of heads switched off as `ablation` says (a name of protocol().ablations); other: the text
// whose outputs a resample puts in.
mha::ModelForwardOptions ablated(LoadedModel& m, const std::vector<std::int32_t>& tokens, const val& heads_off,
                                 const std::string& ablation, const val& other) {
  const mha::CheckpointConfig& c = m.model.config();
  const mha::Ablation* kind = std::find_if(std::begin(mha::kAblations), std::end(mha::kAblations),
                                           [&](mha::Ablation k) { return ablation == mha::ablation_name(k); });
  if (kind == std::end(mha::kAblations))
    throw mha::Error("ablation must be one of protocol().ablations, got " + ablation);
  const std::vector<std::int32_t> others =
      *kind == mha::Ablation::Resample ? read_ids(c, other) : std::vector<std::int32_t>();
  return mha::ablation_options(m.model, tokens, read_heads_off(c, heads_off), *kind, others);
}

mha::Pool read_pool(const std::string& name) {
  for (mha::Pool p : mha::kPools)
    if (name == mha::pool_name(p)) return p;
  throw mha::Error("pool must be one of protocol().pools, got " + name);
}

// ids: token ids; heads_off: [[layer, head], ...] switched off as `ablation` says (other: a resample's text);
// logits_at: positions; attentions: false for none (attentions null; the model may resume from its cache); thumbnail:
// 0, or the side of every head's pooled map (pool: a name of protocol().pools); writes: out.writes [L, H, T].
val model_forward(LoadedModel& m, val ids, val heads_off, std::string ablation, val other, val logits_at,
                  bool attentions, double thumbnail, std::string pool, bool writes) {
  return guarded([&] {
    const mha::CheckpointConfig& c = m.model.config();
    const std::vector<std::int32_t> tokens = read_ids(c, ids);
    const std::size_t T = tokens.size();
    mha::ModelForwardOptions options = ablated(m, tokens, heads_off, ablation, other);
    options.writes = writes;
    for (std::size_t i = 0, n = list_length(logits_at, "logitsAt", static_cast<double>(T)); i < n; ++i) {
      options.logits_at.push_back(to_count(logits_at[i].as<double>(), "logitsAt position", static_cast<double>(T - 1)));
    }
    options.attentions = attentions;
    options.thumbnail = to_count(thumbnail, "thumbnail", 4096);
    options.pool = read_pool(pool);
    const mha::ModelOutput r = m.model.forward(tokens, options);
    val out = val::object();
    out.set("attentions", attentions ? tensor_to_js(r.attentions) : val::null());
    out.set("thumbnails", options.thumbnail ? tensor_to_js(r.thumbnails) : val::null());
    out.set("hidden", tensor_to_js(r.hidden));
    out.set("logits", r.logits_at.empty() ? val::null() : tensor_to_js(r.logits));
    out.set("logitsAt", array_from(r.logits_at));
    out.set("trace", trace_to_js(r.trace));
    out.set("firstLayer", static_cast<double>(r.first_layer));
    out.set("writes", writes ? tensor_to_js(r.writes) : val::null());
    return out;
  });
}

// Layer `layer`'s attention [1, H, T, T], or head `head`'s [T, T] (head < 0: every head), from the model's cache.
val model_attention(LoadedModel& m, val ids, double layer, val heads_off, std::string ablation, val other,
                    double head) {
  return guarded([&] {
    const mha::CheckpointConfig& c = m.model.config();
    const std::vector<std::int32_t> tokens = read_ids(c, ids);
    const std::size_t l = to_count(layer, "layer", static_cast<double>(c.layers - 1));
    const mha::ModelForwardOptions o = ablated(m, tokens, heads_off, ablation, other);
    const mha::Tensor all = m.model.attention(tokens, l, o.heads_off, o.head_values);
    if (head < 0) return tensor_to_js(all);
    const std::size_t h = to_count(head, "head", static_cast<double>(c.heads - 1)), T = tokens.size();
    mha::Tensor one = mha::Tensor::empty({T, T});
    std::copy_n(all.data() + h * T * T, T * T, one.data());
    return tensor_to_js(one);
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(mha_models) {
  using namespace emscripten;
  class_<ModelLoading>("ModelLoadingCore")
      .smart_ptr<std::shared_ptr<ModelLoading>>("ModelLoadingCorePtr")
      .function("addIndex", &loading_add_index)
      .function("headerBytes", &loading_header_bytes)
      .function("addFile", &loading_add_file)
      .function("plan", &loading_plan)
      .function("unusedLayers", &loading_unused_layers)
      .function("finish", &loading_finish);
  class_<LoadedModel>("LoadedModelCore")
      .smart_ptr<std::shared_ptr<LoadedModel>>("LoadedModelCorePtr")
      .function("info", &model_info)
      .function("forward", &model_forward)
      .function("attention", &model_attention);
  function("modelLoadingCreate", &loading_create);
}
