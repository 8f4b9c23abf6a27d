// The checkpoint loader: headers parsed in memory, the data copied by the caller slice by slice
// into one 16-byte-aligned block that becomes the Weights' storage.
#include "mha/checkpoint.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <new>

#include "ground/json.hpp"
#include "mha/error.hpp"
#include "safetensors_header.hpp"

namespace mha {
namespace {

using json::quoted;

constexpr std::size_t kAlign = 16;
// Skipped bytes a read may cover between two kept tensors rather than starting a new read.
constexpr std::uint64_t kMaxGap = 64 << 10;

}  // namespace

// (Named, not anonymous: CheckpointLoader::Impl holds them, and under the unity build this file is an include.)
namespace checkpoint_detail {

struct KeptTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::size_t> shape;
  std::size_t file = 0;
  std::uint64_t offset = 0;  // in the file
  std::size_t bytes = 0;
  std::size_t at = 0;  // in the storage block
};

}  // namespace checkpoint_detail

namespace {

using checkpoint_detail::KeptTensor;

bool stored_dtype(const std::string& name, DType& out) {
  for (std::size_t d = 0; d < static_cast<std::size_t>(DType::COUNT); ++d) {
    if (name == dtype_name(static_cast<DType>(d))) {
      out = static_cast<DType>(d);
      return true;
    }
  }
  return false;
}

std::string megabytes(std::uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MB"; }

// The first element of a tensor that is NaN or infinite, or -1.
std::ptrdiff_t first_non_finite(const std::uint8_t* data, DType dtype, std::size_t count) {
  switch (dtype) {
    case DType::F32:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, data + 4 * i, 4);
        if ((bits & 0x7F800000u) == 0x7F800000u) return static_cast<std::ptrdiff_t>(i);
      }
      return -1;
    case DType::F16:
    case DType::BF16: {
      const std::uint16_t exponent = dtype == DType::F16 ? 0x7C00 : 0x7F80;
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, data + 2 * i, 2);
        if ((bits & exponent) == exponent) return static_cast<std::ptrdiff_t>(i);
      }
      return -1;
    }
    case DType::COUNT: break;
  }
  return -1;
}

bool is_nan(const std::uint8_t* p, DType dtype) {
  if (dtype == DType::F32) {
    std::uint32_t bits;
    std::memcpy(&bits, p, 4);
    return (bits & 0x007FFFFFu) != 0;
  }
  std::uint16_t bits;
  std::memcpy(&bits, p, 2);
  return (bits & (dtype == DType::F16 ? 0x03FF : 0x007F)) != 0;
}

void free_aligned(void* p) { ::operator delete (p, std::align_val_t{kAlign}); }

}  // namespace

struct CheckpointLoader::Impl {
  std::function<bool(const std::string&)> keep;
  std::size_t slice = kCheckpointSlice;
  std::string index_name;
  bool indexed = false;
  std::map<std::string, std::size_t> index;  // tensor → shard (index into shards)
  std::vector<std::string> shards;
  std::vector<std::string> files;
  std::vector<std::size_t> file_shard;  // files[i] is shards[file_shard[i]] (indexed only)
  std::vector<KeptTensor> kept;
  std::map<std::string, std::size_t> held;  // every tensor of the files added → its file
  std::vector<CheckpointRead> reads;
  std::uint64_t read_bytes = 0;
  std::shared_ptr<void> storage;
  bool planned = false, finished = false;

  [[noreturn]] void refuse(const std::string& file, const std::string& why) const { throw Error(file + ": " + why); }
  void add_index(const std::string& text, const std::string& name);
  void add_file(const std::string& file, const std::uint8_t* bytes, std::size_t n, std::uint64_t size);
  void check_shards() const;
  void allocate();
  void make_reads();
};

void CheckpointLoader::Impl::add_index(const std::string& text, const std::string& name) {
  if (indexed) throw Error("the checkpoint already has an index (" + index_name + "); give only one");
  if (!files.empty()) throw Error("add the index (" + name + ") before the shards it names");
  const json::Value doc = json::parse(text, name);
  const json::Value* map = doc.find("weight_map");
  if (!map || map->kind != json::Value::Object) {
    refuse(name,
           "it has no \"weight_map\" object ({tensor name: shard file}) as save_pretrained writes; is it a "
           "model.safetensors.index.json?");
  }
  if (map->members.empty()) refuse(name, "its weight_map names no tensor");
  std::map<std::string, std::size_t> shard_of;  // file → its place in `files_named`
  std::vector<std::string> files_named;
  std::map<std::string, std::size_t> tensors;
  for (const auto& [tensor, file] : map->members) {
    if (file.kind != json::Value::String || file.text.empty()) {
      refuse(name, "weight_map gives tensor " + quoted(tensor) + " " + json::kind_name(file) +
                       "; each tensor's value must be its shard's file name");
    }
    const auto shard = shard_of.emplace(file.text, shard_of.size()).first;
    if (shard->second == files_named.size()) files_named.push_back(file.text);
    tensors.emplace(tensor, shard->second);
  }
  shards = std::move(files_named);
  index = std::move(tensors);
  index_name = name;
  indexed = true;
}

void CheckpointLoader::Impl::add_file(const std::string& file, const std::uint8_t* bytes, std::size_t n,
                                      std::uint64_t size) {
  if (planned) throw Error("add every file before plan()");
  if (std::find(files.begin(), files.end(), file) != files.end()) throw Error(file + " was given twice");
  std::size_t shard = 0;
  if (indexed) {
    const auto it = std::find(shards.begin(), shards.end(), file);
    if (it == shards.end()) refuse(file, "the index (" + index_name + ") does not name this file among its shards");
    shard = static_cast<std::size_t>(it - shards.begin());
  } else if (!files.empty()) {
    throw Error("a checkpoint of several files needs its model.safetensors.index.json (given: " + files[0] + " and " +
                file + ")");
  }
  if (n < 8) refuse(file, "add_file needs the file's first 8 + N bytes (header_bytes)");
  safetensors::Header header;
  try {
    const std::uint64_t length = safetensors::header_length(bytes, 8, size);
    if (n != 8 + length)
      throw Error("add_file needs exactly the file's first 8 + N = " + std::to_string(8 + length) + " bytes");
    header = safetensors::parse_header(bytes, length, size, safetensors::every_dtype, safetensors::kFormatDTypes);
  } catch (const Error& e) {
    refuse(file, e.what());
  }

  // Nothing is recorded until the whole file is accepted.
  const std::size_t index_of_file = files.size();
  std::vector<KeptTensor> mine;
  for (const safetensors::Entry& e : header.entries) {
    const std::string what = "tensor " + quoted(e.name);
    if (indexed) {
      const auto it = index.find(e.name);
      if (it == index.end()) refuse(file, "it holds " + what + ", which the index (" + index_name + ") does not list");
      if (it->second != shard) {
        refuse(file, "it holds " + what + ", which the index (" + index_name + ") puts in " + shards[it->second]);
      }
    }
    if (!keep(e.name)) continue;
    KeptTensor t;
    t.name = e.name;
    if (!stored_dtype(e.dtype->name, t.dtype)) {
      refuse(file, what + " is stored as " + e.dtype->name +
                       "; the core reads weights stored as F32, F16 or BF16 "
                       "(save the model with torch_dtype=torch.float32, float16 or bfloat16)");
    }
    if (e.elements == 0) refuse(file, what + " is empty (shape " + safetensors::dims_text(e.dims) + ")");
    if (e.bytes > std::numeric_limits<std::size_t>::max() / 2) {
      refuse(file, what + " has " + megabytes(e.bytes) + ", more than this core can address");
    }
    for (const std::uint64_t d : e.dims) t.shape.push_back(static_cast<std::size_t>(d));  // each <= elements
    t.file = index_of_file;
    t.offset = header.data_start + e.begin;
    t.bytes = static_cast<std::size_t>(e.bytes);
    mine.push_back(std::move(t));
  }
  for (const safetensors::Entry& e : header.entries) held.emplace(e.name, index_of_file);
  kept.insert(kept.end(), std::make_move_iterator(mine.begin()), std::make_move_iterator(mine.end()));
  files.push_back(file);
  file_shard.push_back(shard);
}

void CheckpointLoader::Impl::check_shards() const {
  if (!indexed) {
    if (files.empty())
      throw Error("no weights: give model.safetensors (or model.safetensors.index.json with its shards)");
    return;
  }
  for (std::size_t s = 0; s < shards.size(); ++s) {
    if (std::find(file_shard.begin(), file_shard.end(), s) != file_shard.end()) continue;
    std::size_t count = 0;
    std::string example;
    for (const auto& [tensor, shard] : index) {
      if (shard != s) continue;
      if (count++ == 0) example = tensor;
    }
    throw Error(shards[s] + " is missing: the index (" + index_name + ") puts " + std::to_string(count) + " tensor" +
                (count == 1 ? "" : "s") + " in it (" + quoted(example) + (count > 1 ? ", ..." : "") +
                "); give every shard with the index");
  }
  for (const auto& [tensor, shard] : index) {
    if (held.count(tensor) == 0) {
      throw Error(index_name + ": it puts tensor " + quoted(tensor) + " in " + shards[shard] +
                  ", but that file's header does not hold it");
    }
  }
}

void CheckpointLoader::Impl::allocate() {
  std::uint64_t total = 0;
  for (KeptTensor& t : kept) {
    t.at = static_cast<std::size_t>(total);
    total += (t.bytes + kAlign - 1) / kAlign * kAlign;  // each t.bytes < SIZE_MAX / 2: no wrap in 64 bits
    if (total > std::numeric_limits<std::size_t>::max() / 2) {
      throw Error("the weights need more than " + megabytes(total) +
                  ", more than this core can address (a wasm32 tab: 4 GB)");
    }
  }
  if (total == 0) return;
  void* block = ::operator new (static_cast<std::size_t>(total), std::align_val_t{kAlign}, std::nothrow);
  if (!block) {
    throw Error("out of memory: the weights need " + megabytes(total) +
                " (F16 and BF16 stay half) and the browser could not "
                "give this tab that much; close other tabs or try a smaller model");
  }
  storage = std::shared_ptr<void>(block, free_aligned);
}

void CheckpointLoader::Impl::make_reads() {
  std::uint8_t* base = static_cast<std::uint8_t*>(storage.get());
  std::vector<const KeptTensor*> order;
  for (const KeptTensor& t : kept) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const KeptTensor* a, const KeptTensor* b) {
    return a->file != b->file ? a->file < b->file : a->offset < b->offset;
  });
  for (const KeptTensor* t : order) {
    for (std::size_t done = 0; done < t->bytes;) {
      const std::uint64_t from = t->offset + done;
      CheckpointRead* last = reads.empty() ? nullptr : &reads.back();
      const bool joins = last && last->file == t->file && from >= last->offset + last->length &&
                         from - (last->offset + last->length) <= kMaxGap && from - last->offset < slice;
      if (!joins) {
        reads.push_back({t->file, from, 0, {}});
        last = &reads.back();
      }
      const std::size_t at = static_cast<std::size_t>(from - last->offset);
      const std::size_t length = std::min(t->bytes - done, slice - at);
      last->copies.push_back({at, length, base + t->at + done});
      last->length = at + length;
      done += length;
    }
  }
  for (const CheckpointRead& r : reads) read_bytes += r.length;
}

CheckpointLoader::CheckpointLoader(std::function<bool(const std::string&)> keep, std::size_t slice_bytes)
    : impl_(std::make_unique<Impl>()) {
  if (!keep) throw Error("CheckpointLoader needs a function that says which tensors to keep");
  if (slice_bytes == 0) throw Error("CheckpointLoader: the slice size must be at least 1 byte");
  impl_->keep = std::move(keep);
  impl_->slice = slice_bytes;
}

CheckpointLoader::~CheckpointLoader() = default;

void CheckpointLoader::add_index(const std::string& index_json, const std::string& index_name) {
  impl_->add_index(index_json, index_name);
}

const std::vector<std::string>& CheckpointLoader::shards() const { return impl_->shards; }

std::uint64_t CheckpointLoader::header_bytes(const std::string& file, const std::uint8_t* first, std::size_t available,
                                             std::uint64_t size) const {
  if (available != std::min<std::uint64_t>(size, 8))
    throw Error(file + ": header_bytes needs the file's first min(8, size) bytes");
  try {
    return 8 + safetensors::header_length(first, available, size);
  } catch (const Error& e) {
    impl_->refuse(file, e.what());
  }
}

void CheckpointLoader::add_file(const std::string& file, const std::uint8_t* bytes, std::size_t n, std::uint64_t size) {
  impl_->add_file(file, bytes, n, size);
}

const std::vector<std::string>& CheckpointLoader::files() const { return impl_->files; }

const std::vector<CheckpointRead>& CheckpointLoader::plan() {
  Impl& m = *impl_;
  if (m.planned) return m.reads;
  m.check_shards();
  m.allocate();
  m.make_reads();
  m.planned = true;
  return m.reads;
}

std::uint64_t CheckpointLoader::plan_bytes() const { return impl_->read_bytes; }

std::shared_ptr<const Weights> CheckpointLoader::finish() {
  Impl& m = *impl_;
  if (!m.planned) throw Error("finish() comes after plan() and its reads");
  if (m.finished) throw Error("this loader has already given its weights");
  const std::uint8_t* base = static_cast<const std::uint8_t*>(m.storage.get());
  std::vector<WeightRef> refs;
  for (const KeptTensor& t : m.kept) {
    const std::uint8_t* data = base + t.at;
    const std::size_t count = t.bytes / dtype_size(t.dtype);
    const std::ptrdiff_t bad = first_non_finite(data, t.dtype, count);
    if (bad >= 0) {
      const std::uint8_t* p = data + static_cast<std::size_t>(bad) * dtype_size(t.dtype);
      m.refuse(m.files[t.file],
               "tensor " + quoted(t.name) + " holds " + (is_nan(p, t.dtype) ? "NaN" : "an infinity") + " (element " +
                   std::to_string(bad) + " of " + std::to_string(count) +
                   "): a model with NaN or infinite weights computes nothing meaningful; is the file damaged?");
    }
    refs.push_back({t.name, t.dtype, t.shape, data});
  }
  auto weights = std::make_shared<const Weights>(std::move(refs), std::vector<std::shared_ptr<void>>{m.storage});
  m.storage.reset();
  m.finished = true;
  return weights;
}

}  // namespace mha
