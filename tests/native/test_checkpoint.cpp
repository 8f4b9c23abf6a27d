// The checkpoint loader (mha/checkpoint.hpp): one file or an index with its shards, read as a
// caller does (the first 8 bytes, the header, then the plan's slices, each from an allocation of
// exactly its size so that ASan sees any read past it); tensors kept as stored, 16-byte aligned,
// the skipped ones never copied; the reads' layout; every hostile file named with its problem;
// a fuzz of mutated sharded checkpoints (also under ASan+UBSan in native-sanitize): each loads or
// throws mha::Error, nothing else; and every checkpoint of the oracle (build/models) loaded through
// the loader computes what transformers computes, within the oracle's float32 bounds.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "ground/json.hpp"
#include "mha/checkpoint.hpp"
#include "mha/models.hpp"
#include "test_errors.hpp"
#include "test_model_fixtures.hpp"

using namespace mha;
using namespace mha_test;

namespace {

using Bytes = std::vector<std::uint8_t>;
using Files = std::map<std::string, Bytes>;

struct Spec {
  std::string name, dtype;
  std::vector<std::uint64_t> shape;
  Bytes data;
};

std::size_t dtype_bytes(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64") return 8;
  if (dtype == "F32" || dtype == "I32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  return 1;
}

// A tensor whose bytes are a pattern unique to its name (finite in every float dtype: the high
// byte of each element stays below 0x70).
Spec tensor(const std::string& name, const std::string& dtype, std::vector<std::uint64_t> shape) {
  std::size_t n = dtype_bytes(dtype);
  for (auto s : shape) n *= s;
  Bytes data(n);
  const std::size_t seed = std::hash<std::string>()(name);
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::uint8_t>((seed + 31 * i) % 0x70);
  return {name, dtype, std::move(shape), std::move(data)};
}

// A safetensors file of these tensors, their data in the given order, the header padded to 8.
Bytes file_of(const std::vector<Spec>& tensors, const std::string& metadata = "") {
  std::string header = "{" + metadata;
  std::uint64_t offset = 0;
  for (const Spec& t : tensors) {
    if (header.size() > 1) header += ",";
    header += "\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
    for (std::size_t d = 0; d < t.shape.size(); ++d) header += (d ? "," : "") + std::to_string(t.shape[d]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + t.data.size()) + "]}";
    offset += t.data.size();
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  Bytes out;
  for (int k = 0; k < 8; ++k)
    out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(header.size()) >> (8 * k)));
  out.insert(out.end(), header.begin(), header.end());
  for (const Spec& t : tensors) out.insert(out.end(), t.data.begin(), t.data.end());
  return out;
}

std::string index_of(const std::vector<std::pair<std::string, std::string>>& map) {
  std::string out = "{\"metadata\":{\"total_size\":1},\"weight_map\":{";
  for (std::size_t i = 0; i < map.size(); ++i)
    out += (i ? ",\"" : "\"") + map[i].first + "\":\"" + map[i].second + "\"";
  return out + "}}";
}

// An allocation of exactly these bytes.
std::unique_ptr<std::uint8_t[]> exact(const std::uint8_t* p, std::size_t n) {
  std::unique_ptr<std::uint8_t[]> out(new std::uint8_t[n + (n == 0 ? 1 : 0)]);
  if (n) std::memcpy(out.get(), p, n);
  return out;
}

bool keep_default(const std::string& name) {
  const auto ends = [&](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return !ends(".attn.bias") && !ends("position_ids");
}

struct Loaded {
  std::shared_ptr<const Weights> weights;
  std::vector<CheckpointRead> reads;
  std::vector<std::string> files;
};

// The whole protocol, as wasm/api/models.js runs it: `order` the files to add (all of `files` when empty).
Loaded load(const Files& files, const std::string* index = nullptr, std::vector<std::string> order = {},
            bool (*keep)(const std::string&) = keep_default, std::size_t slice = kCheckpointSlice) {
  CheckpointLoader loader(keep, slice);
  if (index) loader.add_index(*index);
  if (order.empty())
    for (const auto& [name, bytes] : files) order.push_back(name);
  for (const std::string& name : order) {
    const Bytes& b = files.at(name);
    const std::size_t first = std::min<std::size_t>(8, b.size());
    const std::uint64_t n = loader.header_bytes(name, exact(b.data(), first).get(), first, b.size());
    REQUIRE(n <= b.size());
    loader.add_file(name, exact(b.data(), static_cast<std::size_t>(n)).get(), static_cast<std::size_t>(n), b.size());
  }
  Loaded out;
  out.reads = loader.plan();
  out.files = loader.files();
  for (const CheckpointRead& r : out.reads) {
    const Bytes& b = files.at(out.files.at(r.file));
    REQUIRE(r.offset + r.length <= b.size());
    const auto slice_bytes = exact(b.data() + r.offset, r.length);
    for (const CheckpointCopy& c : r.copies) {
      REQUIRE(c.at + c.length <= r.length);
      std::memcpy(c.to, slice_bytes.get() + c.at, c.length);
    }
  }
  out.weights = loader.finish();
  return out;
}

void require_stored(const Weights& w, const Spec& t) {
  INFO(t.name);
  const WeightRef* ref = w.find(t.name);
  REQUIRE(ref);
  REQUIRE(std::string(dtype_name(ref->dtype)) == t.dtype);
  REQUIRE(ref->shape == std::vector<std::size_t>(t.shape.begin(), t.shape.end()));
  REQUIRE(ref->bytes() == t.data.size());
  REQUIRE(reinterpret_cast<std::uintptr_t>(ref->data) % 16 == 0);
  REQUIRE(std::memcmp(ref->data, t.data.data(), t.data.size()) == 0);
}

// A GPT-2-like checkpoint: kept tensors of every stored dtype, the skipped buffers between them.
std::vector<Spec> gpt2_like() {
  return {tensor("wte.weight", "F32", {50, 8}),
          tensor("h.0.attn.bias", "F32", {1, 1, 16, 16}),
          tensor("h.0.ln_1.weight", "F16", {8}),
          tensor("h.0.attn.c_attn.weight", "BF16", {8, 24}),
          tensor("h.0.attn.c_attn.bias", "F32", {24}),
          tensor("position_ids", "I64", {1, 16}),
          tensor("scalar", "F32", {}),
          tensor("odd", "F16", {3, 1})};
}

}  // namespace

TEST_CASE("one file: kept tensors as stored (F32, F16, BF16, a scalar), 16-byte aligned, skipped ones absent") {
  const std::vector<Spec> specs = gpt2_like();
  const Files files{{"model.safetensors", file_of(specs, R"("__metadata__":{"format":"pt"})")}};
  const Loaded l = load(files);
  REQUIRE(l.weights->tensors().size() == 6);
  for (const Spec& t : specs) {
    if (keep_default(t.name)) require_stored(*l.weights, t);
    else REQUIRE(l.weights->find(t.name) == nullptr);
  }
  // Sorted by name, as Weights keeps them.
  for (std::size_t i = 1; i < l.weights->tensors().size(); ++i)
    REQUIRE(l.weights->tensors()[i - 1].name < l.weights->tensors()[i].name);
  // The skipped mask buffer (1 KiB) is read over, not copied; the I64 ids (128 bytes) too.
  std::size_t copied = 0;
  for (const CheckpointRead& r : l.reads)
    for (const CheckpointCopy& c : r.copies) copied += c.length;
  std::size_t kept = 0;
  for (const WeightRef& w : l.weights->tensors()) kept += w.bytes();
  REQUIRE(copied == kept);
}

TEST_CASE(
    "the plan: reads at most a slice each, in file order, large tensors split, skipped gaps over 64 KiB not read") {
  const std::vector<Spec> specs{tensor("a", "F32", {1000}), tensor("h.0.attn.bias", "F32", {1, 1, 128, 128}),  // 64 KiB
                                tensor("b", "F16", {3}), tensor("h.1.attn.bias", "F32", {1, 1, 129, 128}),  // > 64 KiB
                                tensor("c", "BF16", {5000})};
  const Files files{{"model.safetensors", file_of(specs)}};
  for (const std::size_t slice : {std::size_t{1}, std::size_t{7}, std::size_t{4000}, std::size_t{4096},
                                  std::size_t{70000}, std::size_t{1} << 20}) {
    INFO("slice " << slice);
    const Loaded l = load(files, nullptr, {}, keep_default, slice);
    std::uint64_t last_end = 0;
    for (const CheckpointRead& r : l.reads) {
      REQUIRE(r.length >= 1);
      REQUIRE(r.length <= slice);
      REQUIRE(r.offset >= last_end);
      REQUIRE(!r.copies.empty());
      REQUIRE(r.copies.back().at + r.copies.back().length == r.length);  // no read runs past its last copy
      last_end = r.offset + r.length;
    }
    for (const Spec& t : specs)
      if (keep_default(t.name)) require_stored(*l.weights, t);
    if (slice == (std::size_t{1} << 20)) {
      REQUIRE(l.reads.size() == 2);  // a and b across the 64 KiB buffer; c after the larger one
      REQUIRE(l.reads[0].copies.size() == 2);
    }
  }
}

TEST_CASE("sharded: the index's shards, tensors from each, the files in any order") {
  const std::vector<Spec> one{tensor("wte.weight", "F32", {20, 4}), tensor("h.0.attn.bias", "F32", {1, 1, 4, 4})};
  const std::vector<Spec> two{tensor("h.0.mlp.weight", "BF16", {4, 16}), tensor("ln_f.weight", "F16", {4})};
  const Files files{{"model-00001-of-00002.safetensors", file_of(one)},
                    {"model-00002-of-00002.safetensors", file_of(two)}};
  const std::string index = index_of({{"wte.weight", "model-00001-of-00002.safetensors"},
                                      {"h.0.attn.bias", "model-00001-of-00002.safetensors"},
                                      {"h.0.mlp.weight", "model-00002-of-00002.safetensors"},
                                      {"ln_f.weight", "model-00002-of-00002.safetensors"}});
  CheckpointLoader loader(keep_default);
  loader.add_index(index);
  REQUIRE(loader.shards() ==
          std::vector<std::string>{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"});
  for (const auto& order : {std::vector<std::string>{}, std::vector<std::string>{"model-00002-of-00002.safetensors",
                                                                                 "model-00001-of-00002.safetensors"}}) {
    const Loaded l = load(files, &index, order);
    REQUIRE(l.weights->tensors().size() == 3);
    for (const auto* specs : {&one, &two})
      for (const Spec& t : *specs)
        if (keep_default(t.name)) require_stored(*l.weights, t);
  }
}

TEST_CASE("the weights outlive the loader, which gives them once") {
  const Files files{{"model.safetensors", file_of({tensor("w", "F32", {4})})}};
  std::shared_ptr<const Weights> w;
  {
    CheckpointLoader loader(keep_default);
    const Bytes& b = files.at("model.safetensors");
    const std::uint64_t n = loader.header_bytes("model.safetensors", b.data(), 8, b.size());
    loader.add_file("model.safetensors", b.data(), static_cast<std::size_t>(n), b.size());
    REQUIRE_ERROR_MENTIONS(loader.finish(), "finish() comes after plan()");
    for (const CheckpointRead& r : loader.plan())
      for (const CheckpointCopy& c : r.copies) std::memcpy(c.to, b.data() + r.offset + c.at, c.length);
    REQUIRE(loader.plan_bytes() == 16);
    w = loader.finish();
    REQUIRE_ERROR_MENTIONS(loader.finish(), "already given its weights");
    REQUIRE_ERROR_MENTIONS(loader.add_file("x.safetensors", b.data(), static_cast<std::size_t>(n), b.size()),
                           "before plan()");
  }
  require_stored(*w, tensor("w", "F32", {4}));
}

// ---- Hostile files -----------------------------------------------------------------------------

namespace {

const std::string kShard1 = "model-00001-of-00002.safetensors", kShard2 = "model-00002-of-00002.safetensors";

struct Sharded {
  Files files;
  std::string index;
};

Sharded sharded() {
  return {{{kShard1, file_of({tensor("wte.weight", "F32", {20, 4}), tensor("h.0.w", "F16", {4, 4})})},
           {kShard2, file_of({tensor("h.1.w", "BF16", {4, 4}), tensor("ln_f.weight", "F32", {4})})}},
          index_of({{"wte.weight", kShard1}, {"h.0.w", kShard1}, {"h.1.w", kShard2}, {"ln_f.weight", kShard2}})};
}

// Bytes of a float that is NaN or infinite in the dtype, little-endian.
Bytes non_finite(const std::string& dtype, bool nan) {
  if (dtype == "F32") return nan ? Bytes{0x01, 0x00, 0xC0, 0x7F} : Bytes{0x00, 0x00, 0x80, 0xFF};
  if (dtype == "F16") return nan ? Bytes{0x01, 0x7E} : Bytes{0x00, 0x7C};
  return nan ? Bytes{0xC1, 0x7F} : Bytes{0x80, 0xFF};  // BF16
}

}  // namespace

TEST_CASE(
    "hostile: a missing shard, an index naming a file not given, a tensor twice, shards that disagree with the index") {
  Sharded s = sharded();
  REQUIRE(load(s.files, &s.index).weights->tensors().size() == 4);

  REQUIRE_ERROR_MENTIONS(
      load(s.files, &s.index, {kShard1}),
      std::string("model-00002-of-00002.safetensors is missing: the index (model.safetensors.index.json) puts 2 "
                  "tensors in it ('h.1.w', ...); give every shard with the index"));
  REQUIRE_ERROR_MENTIONS(load(s.files, &s.index, {kShard2}),
                         std::string("model-00001-of-00002.safetensors is missing"));

  Files extra = s.files;
  extra["model.safetensors"] = file_of({tensor("x", "F32", {1})});
  REQUIRE_ERROR_MENTIONS(
      load(extra, &s.index),
      std::string(
          "model.safetensors: the index (model.safetensors.index.json) does not name this file among its shards"));

  const std::string twice = index_of({{"wte.weight", kShard1}, {"h.0.w", kShard1}, {"h.0.w", kShard2}});
  REQUIRE_ERROR_MENTIONS(load(s.files, &twice),
                         std::string("model.safetensors.index.json has the key 'h.0.w' twice in one object"));

  const std::string moved =
      index_of({{"wte.weight", kShard1}, {"h.0.w", kShard2}, {"h.1.w", kShard2}, {"ln_f.weight", kShard2}});
  REQUIRE_ERROR_MENTIONS(load(s.files, &moved),
                         std::string("model-00001-of-00002.safetensors: it holds tensor 'h.0.w', which the index "
                                     "(model.safetensors.index.json) puts in model-00002-of-00002.safetensors"));
  const std::string unlisted = index_of({{"wte.weight", kShard1}, {"h.1.w", kShard2}, {"ln_f.weight", kShard2}});
  REQUIRE_ERROR_MENTIONS(load(s.files, &unlisted), std::string("it holds tensor 'h.0.w', which the index"),
                         std::string("does not list"));
  const std::string phantom = index_of(
      {{"wte.weight", kShard1}, {"h.0.w", kShard1}, {"h.1.w", kShard2}, {"ln_f.weight", kShard2}, {"h.2.w", kShard2}});
  REQUIRE_ERROR_MENTIONS(
      load(s.files, &phantom),
      std::string("model.safetensors.index.json: it puts tensor 'h.2.w' in model-00002-of-00002.safetensors, but "
                  "that file's header does not hold it"));
}

TEST_CASE("hostile: indexes that are not one") {
  const Sharded s = sharded();
  for (const auto& [text, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"", "model.safetensors.index.json is not a JSON object"},
           {"{\"weight_map\":", "model.safetensors.index.json is not valid JSON: it ends where a value should be"},
           {"{\"metadata\":{}}", "model.safetensors.index.json: it has no \"weight_map\" object"},
           {"{\"weight_map\":[]}", "it has no \"weight_map\" object"},
           {"{\"weight_map\":{}}", "its weight_map names no tensor"},
           {"{\"weight_map\":{\"a\":1}}", "weight_map gives tensor 'a' the number '1'"},
           {"{\"weight_map\":{\"a\":\"\"}}", "weight_map gives tensor 'a' the string ''"},
           {"{\"weight_map\":{\"a\":\"x\"}} x", "unexpected characters after the JSON object"},
           {"{\"weight_map\":{\"a\":\"\xff\"}}", "model.safetensors.index.json is not valid UTF-8 text"},
       }) {
    INFO(text);
    REQUIRE_ERROR_MENTIONS(load(s.files, &text), fragment);
  }
  CheckpointLoader loader(keep_default);
  loader.add_index(s.index);
  REQUIRE_ERROR_MENTIONS(loader.add_index(s.index), "already has an index");
  // 100,000 tensors, each in a shard of its own: read in linear time, the first missing shard named.
  std::string many = "{\"weight_map\":{";
  for (int i = 0; i < 100000; ++i)
    many += (i ? ",\"t" : "\"t") + std::to_string(i) + "\":\"s" + std::to_string(i) + ".safetensors\"";
  many += "}}";
  CheckpointLoader big(keep_default);
  big.add_index(many);
  REQUIRE(big.shards().size() == 100000);
  REQUIRE_ERROR_MENTIONS(
      big.plan(), "s0.safetensors is missing: the index (model.safetensors.index.json) puts 1 tensor in it ('t0')");
}

TEST_CASE("hostile: truncated, extended and damaged weight files are named") {
  Sharded s = sharded();
  Files cut = s.files;
  cut[kShard2].resize(cut[kShard2].size() - 3);
  REQUIRE_ERROR_MENTIONS(
      load(cut, &s.index),
      std::string("model-00002-of-00002.safetensors: this is not a valid .safetensors file: its tensors need 48 "
                  "bytes of data but the file has only 45 after the header (is it cut short?)"));
  cut[kShard2].resize(20);
  REQUIRE_ERROR_MENTIONS(load(cut, &s.index),
                         std::string("model-00002-of-00002.safetensors: this is not a valid .safetensors file: "
                                     "the header says its length is"),
                         std::string("(is it cut short?)"));
  cut[kShard2].resize(5);
  REQUIRE_ERROR_MENTIONS(load(cut, &s.index),
                         std::string("model-00002-of-00002.safetensors: this is not a valid .safetensors file: "
                                     "it has 5 bytes, fewer than the 8"));
  Files longer = s.files;
  longer[kShard1].push_back(0);
  REQUIRE_ERROR_MENTIONS(load(longer, &s.index),
                         std::string("model-00001-of-00002.safetensors: this is not a valid .safetensors file: "
                                     "it has 1 bytes after the last tensor's data"));
  const Files zip{{"model.safetensors", Bytes{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}}};
  REQUIRE_ERROR_MENTIONS(load(zip),
                         std::string("model.safetensors: this is not a valid .safetensors file: it is a zip archive"));
  const Files text{{"model.safetensors", Bytes{'{', '"', 'a', '"', ':', ' ', '1', '}', '\n'}}};
  REQUIRE_ERROR_MENTIONS(load(text),
                         std::string("model.safetensors: this is not a valid .safetensors file: it starts with text"));
  Files bad_json = s.files;
  bad_json[kShard1][8] = '[';
  REQUIRE_ERROR_MENTIONS(
      load(bad_json, &s.index),
      std::string("model-00001-of-00002.safetensors: this is not a valid .safetensors file: its header is not a "
                  "JSON object"));
}

TEST_CASE("hostile: one file without an index, a file twice, no file, kept tensors in a dtype the core does not keep") {
  const Files two{{"a.safetensors", file_of({tensor("x", "F32", {1})})},
                  {"b.safetensors", file_of({tensor("y", "F32", {1})})}};
  REQUIRE_ERROR_MENTIONS(load(two),
                         std::string("a checkpoint of several files needs its model.safetensors.index.json (given: "
                                     "a.safetensors and b.safetensors)"));
  const Files one{{"model.safetensors", file_of({tensor("x", "F32", {1})})}};
  REQUIRE_ERROR_MENTIONS(load(one, nullptr, {"model.safetensors", "model.safetensors"}),
                         std::string("model.safetensors was given twice"));
  REQUIRE_ERROR_MENTIONS(load({}), std::string("no weights: give model.safetensors"));

  for (const char* dtype : {"F64", "I64", "U8", "BOOL", "F8_E4M3"}) {
    INFO(dtype);
    const Files f{{"model.safetensors", file_of({tensor("w", dtype, {2})})}};
    REQUIRE_ERROR_MENTIONS(load(f), std::string("model.safetensors: tensor 'w' is stored as ") + dtype +
                                        "; the core reads weights stored as F32, F16 or BF16");
  }
  // Skipped, any dtype of the format is fine; a dtype the format does not have is not.
  REQUIRE(load({{"model.safetensors", file_of({tensor("position_ids", "I64", {1, 4}), tensor("w", "F32", {1})})}})
              .weights->tensors()
              .size() == 1);
  REQUIRE_ERROR_MENTIONS(
      load({{"model.safetensors", file_of({tensor("position_ids", "Q4", {1, 4})})}}),
      std::string("model.safetensors: tensor 'position_ids': dtype 'Q4' is not supported; supported: BOOL, U8"));
  REQUIRE_ERROR_MENTIONS(load({{"model.safetensors", file_of({tensor("w", "F32", {3, 0})})}}),
                         std::string("model.safetensors: tensor 'w' is empty (shape [3, 0])"));
}

TEST_CASE("hostile: NaN and infinite weights are refused, naming the file, the tensor and the element") {
  for (const char* dtype : {"F32", "F16", "BF16"}) {
    for (const bool nan : {true, false}) {
      INFO(dtype << (nan ? " NaN" : " inf"));
      Spec t = tensor("h.3.mlp.weight", dtype, {2, 3});
      const Bytes v = non_finite(dtype, nan);
      std::copy(v.begin(), v.end(), t.data.begin() + static_cast<std::ptrdiff_t>(4 * v.size()));
      Sharded s = sharded();
      s.files[kShard2] = file_of({tensor("h.1.w", "BF16", {4, 4}), tensor("ln_f.weight", "F32", {4}), t});
      const std::string index = index_of({{"wte.weight", kShard1},
                                          {"h.0.w", kShard1},
                                          {"h.1.w", kShard2},
                                          {"ln_f.weight", kShard2},
                                          {"h.3.mlp.weight", kShard2}});
      REQUIRE_ERROR_MENTIONS(load(s.files, &index),
                             std::string("model-00002-of-00002.safetensors: tensor 'h.3.mlp.weight' holds ") +
                                 (nan ? "NaN" : "an infinity") + " (element 4 of 6)");
    }
  }
  // A skipped tensor may hold anything (GPT-2's masked_bias is -1e4, old files hold -inf there).
  Spec mask = tensor("h.0.attn.bias", "F32", {2});
  mask.data = non_finite("F32", false);
  mask.data.resize(8, 0);
  REQUIRE(load({{"model.safetensors", file_of({mask, tensor("w", "F32", {1})})}}).weights->tensors().size() == 1);
}

// ---- Fuzz --------------------------------------------------------------------------------------

TEST_CASE("fuzz: 3,000 mutated sharded checkpoints each load or throw mha::Error, nothing else") {
  const Sharded base = sharded();
  std::mt19937 gen(20260412);
  const auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(gen() % n); };
  const std::string alphabet = "{}[]\",:0123456789.-+eE \\u/tfnlrsa\x7f\xc3\xff";
  constexpr int kMutations = 3000;
  int loaded = 0, rejected = 0;
  std::set<std::string> rules;
  for (int i = 0; i < kMutations; ++i) {
    Sharded s = base;
    const std::size_t target = pick(3);  // 0: the index, 1 and 2: a shard
    if (target == 0) {
      std::string& text = s.index;
      switch (pick(4)) {
        case 0: text[pick(text.size())] = alphabet[pick(alphabet.size())]; break;
        case 1: text.erase(pick(text.size()), 1 + pick(8)); break;
        case 2: text.insert(pick(text.size()), 1, alphabet[pick(alphabet.size())]); break;
        default: {
          const std::size_t at = text.find("00002", pick(text.size()));
          if (at != std::string::npos) text.replace(at, 5, pick(2) ? "00001" : "00003");
        }
      }
    } else {
      Bytes& b = s.files[target == 1 ? kShard1 : kShard2];
      std::uint64_t n = 0;
      for (int k = 7; k >= 0; --k) n = n << 8 | b[static_cast<std::size_t>(k)];
      switch (pick(6)) {
        case 0:
          for (std::size_t k = 0, c = 1 + pick(4); k < c; ++k)
            b[pick(b.size())] ^= static_cast<std::uint8_t>(1u << pick(8));
          break;
        case 1: b.resize(pick(b.size())); break;
        case 2: b.resize(b.size() + 1 + pick(16), static_cast<std::uint8_t>(gen())); break;
        case 3:
          b[8 + pick(static_cast<std::size_t>(n))] = static_cast<std::uint8_t>(alphabet[pick(alphabet.size())]);
          break;
        case 4: b[pick(8)] = static_cast<std::uint8_t>(gen()); break;
        default: {  // a digit of the header changed: shapes, offsets
          std::vector<std::size_t> digits;
          for (std::size_t k = 8; k < 8 + n; ++k)
            if (b[k] >= '0' && b[k] <= '9') digits.push_back(k);
          if (!digits.empty()) b[digits[pick(digits.size())]] = static_cast<std::uint8_t>('0' + pick(10));
        }
      }
    }
    std::vector<std::string> order{kShard1, kShard2};
    if (pick(8) == 0) order.pop_back();
    try {
      const Loaded l = load(s.files, &s.index, order);
      for (const WeightRef& w : l.weights->tensors()) REQUIRE(reinterpret_cast<std::uintptr_t>(w.data) % 16 == 0);
      ++loaded;
    } catch (const Error& e) {
      // Every message starts with the file it is about: the index, a shard, or a file the index names.
      const std::string message = e.what();
      std::string file = message.substr(0, message.find(' '));
      if (!file.empty() && file.back() == ':') file.pop_back();
      INFO(message);
      REQUIRE((file == "model.safetensors.index.json" || s.files.count(file) ||
               s.index.find("\"" + file + "\"") != std::string::npos));
      rules.insert(message.substr(file.size(), 40));
      ++rejected;
    } catch (const std::exception& e) {
      FAIL("mutation " << i << " threw something other than mha::Error: " << e.what());
    } catch (...) {
      FAIL("mutation " << i << " threw something other than a std::exception");
    }
  }
  REQUIRE(loaded + rejected == kMutations);
  REQUIRE(loaded > 100);       // flips in the data keep the files valid (values stay finite but for a few)
  REQUIRE(rejected > 1500);    // most mutations break them
  REQUIRE(rules.size() > 15);  // by many different rules
}

// ---- The oracle's checkpoints ------------------------------------------------------------------

namespace {

// An oracle file's list of whole numbers: "ids", "logits_at".
std::vector<std::size_t> whole_numbers(const OracleFile& o, const std::string& key) {
  const json::Value list = *json::parse("{\"v\":" + o.meta.at(key) + "}", key).find("v");
  std::vector<std::size_t> out;
  for (const json::Value& v : list.items) out.push_back(static_cast<std::size_t>(v.uint));
  return out;
}

}  // namespace

TEST_CASE("the oracle's checkpoints load through the loader and compute what transformers computes", "[models]") {
  const json::Value cases = json::parse("{\"cases\":" + read_text(kModelFixtures + "/index.json") + "}", "index.json");
  std::size_t count = 0;
  for (const json::Value& c : cases.find("cases")->items) {
    const std::string name = c.find("case")->text, dir = kModelFixtures + "/" + name;
    INFO("case " << name);
    const Checkpoint l = read_checkpoint(dir, 4096);  // small slices: many reads, tensors split across them
    for (const WeightRef& w : l.weights->tensors()) REQUIRE(model_reads_tensor(l.config, w.name));
    REQUIRE(std::string(dtype_name(l.weights->tensors()[0].dtype)) == c.find("dtype")->text);
    Model model(l.config, l.weights);  // forward keeps an activations cache
    const OracleFile o = read_oracle(dir + "/oracle-0.safetensors");
    std::vector<std::int32_t> ids;
    for (std::size_t id : whole_numbers(o, "ids")) ids.push_back(static_cast<std::int32_t>(id));
    ModelForwardOptions options;
    if (model.has_lm_head()) options.logits_at = whole_numbers(o, "logits_at");
    const ModelOutput out = model.forward(ids, options);
    check_within(o, "attentions", out.attentions);
    check_within(o, "hidden", out.hidden);
    if (o.has("logits")) check_within(o, "logits", out.logits);
    ++count;
  }
  REQUIRE(count >= 20);
}
