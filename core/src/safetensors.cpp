// safetensors, read and written from the specification (huggingface/safetensors README and
// safetensors/src/tensor.rs). The reader is a parser for untrusted files: every size is checked
// before it is used, by subtraction or checked multiplication, and every rule has its own message.
#include "mha/safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "loading/json.hpp"

namespace mha {
namespace {

using json::Value;
using json::kind_name;
using json::quoted;
using json::valid_utf8;

constexpr std::uint64_t kMaxHeader = 100'000'000;
// JSON values in one tensor entry (a valid one has at most 1 + 3 + kMaxDims + 2 = 14) or one
// metadata value: the parse tree of an entry is dropped once read, so a hostile 100 MB header
// cannot make a tree tens of times its size.
constexpr std::size_t kMaxEntryValues = 64;
const char kNotSafetensors[] = "this is not a valid .safetensors file: ";
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

[[noreturn]] void bad(const std::string& why) { throw Error(kNotSafetensors + why); }

// The next values read from the header form one entry, `what`: at most kMaxEntryValues of them.
void limit_entry(json::Parser& json, const std::string& what) {
  json.limit(kMaxEntryValues, kNotSafetensors + what + " is too large: more than " + std::to_string(kMaxEntryValues) +
                                  " JSON values (a tensor's entry has at most " + std::to_string(6 + kMaxDims) + ")");
}

std::string dims_text(const std::vector<std::uint64_t>& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

enum class Dtype { F32, F16, BF16, F64 };
struct DtypeInfo {
  const char* name;
  Dtype type;
  std::uint64_t bytes;
};
constexpr DtypeInfo kDtypes[] = {{"F32", Dtype::F32, 4}, {"F16", Dtype::F16, 2}, {"BF16", Dtype::BF16, 2}, {"F64", Dtype::F64, 8}};

float float_from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// IEEE binary16 to binary32, exact: every half is a float (subnormals become normal floats).
float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  if (exp == 31) return float_from_bits(sign | 0x7F800000u | mant << 13);  // infinities; NaN keeps its payload
  const float magnitude = exp == 0 ? std::ldexp(static_cast<float>(mant), -24)
                                   : std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  std::uint32_t bits;
  std::memcpy(&bits, &magnitude, 4);
  return float_from_bits(bits | sign);
}

void decode(Dtype type, const std::uint8_t* p, std::size_t count, float* out) {
  switch (type) {
    case Dtype::F32:
      if (kLittleEndian) {
        std::memcpy(out, p, 4 * count);  // a copy: the data may be unaligned
        return;
      }
      for (std::size_t i = 0; i < count; ++i, p += 4)
        out[i] = float_from_bits(std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24);
      return;
    case Dtype::F16:
      for (std::size_t i = 0; i < count; ++i, p += 2) out[i] = half_to_float(static_cast<std::uint16_t>(p[0] | p[1] << 8));
      return;
    case Dtype::BF16:  // the high half of a float32
      for (std::size_t i = 0; i < count; ++i, p += 2) out[i] = float_from_bits(std::uint32_t{p[0]} << 16 | std::uint32_t{p[1]} << 24);
      return;
    case Dtype::F64:  // rounded to nearest, as torch's .float()
      for (std::size_t i = 0; i < count; ++i, p += 8) {
        std::uint64_t bits = 0;
        for (int k = 7; k >= 0; --k) bits = bits << 8 | p[k];
        double d;
        std::memcpy(&d, &bits, 8);
        out[i] = static_cast<float>(d);
      }
      return;
  }
}

struct Entry {
  std::string name;
  const DtypeInfo* dtype = nullptr;
  std::vector<std::uint64_t> dims;
  std::uint64_t begin = 0, end = 0, elements = 0, bytes = 0;
};

std::uint64_t whole(const Value& v, const std::string& what) {
  if (v.kind != Value::Number) bad(what + " is " + kind_name(v) + "; it must be a whole number");
  if (!v.whole) {
    bad(what + " is " + quoted(v.text) + "; it must be a whole number from 0 to 2^53 written without a sign, '.' or exponent");
  }
  return v.uint;
}

Entry tensor_entry(const std::string& name, const Value& v) {
  Entry e;
  e.name = name;
  const std::string what = "tensor " + quoted(name);
  if (v.kind != Value::Object) bad(what + " is described by " + kind_name(v) + ", not by an object {dtype, shape, data_offsets}");
  const Value *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
  for (const auto& [key, field] : v.members) {
    if (key == "dtype") dtype = &field;
    else if (key == "shape") shape = &field;
    else if (key == "data_offsets") offsets = &field;
    else bad(what + " has an unknown field " + quoted(key) + " (a tensor has exactly dtype, shape and data_offsets)");
  }
  if (!dtype || !shape || !offsets) bad(what + " has no " + (!dtype ? "dtype" : !shape ? "shape" : "data_offsets"));

  if (dtype->kind != Value::String) bad(what + ": dtype is " + kind_name(*dtype) + "; it must be a string such as \"F32\"");
  for (const DtypeInfo& d : kDtypes)
    if (dtype->text == d.name) e.dtype = &d;
  if (!e.dtype) throw Error(what + ": dtype " + quoted(dtype->text) + " is not supported; supported: F32, F16, BF16, F64 (read as float32)");

  if (shape->kind != Value::Array) bad(what + ": shape is " + kind_name(*shape) + "; it must be an array of sizes");
  if (shape->items.size() > kMaxDims) {
    throw Error(what + " has " + std::to_string(shape->items.size()) + " dimensions; at most " + std::to_string(kMaxDims) + " are supported");
  }
  for (std::size_t i = 0; i < shape->items.size(); ++i) e.dims.push_back(whole(shape->items[i], what + ": shape[" + std::to_string(i) + "]"));
  // Checked products. The nonzero sizes are multiplied even when one size is 0, so that a zero does
  // not hide sizes whose product wraps (a wrapped product once passed a popular parser's checks).
  std::uint64_t product = 1;
  bool zero = false;
  for (const std::uint64_t s : e.dims) {
    if (s == 0) {
      zero = true;
    } else {
      if (product > kU64Max / s) bad(what + ": the element count of shape " + dims_text(e.dims) + " overflows 64 bits");
      product *= s;
    }
  }
  if (product > kU64Max / e.dtype->bytes) bad(what + ": the byte size of shape " + dims_text(e.dims) + " in " + e.dtype->name + " overflows 64 bits");
  e.elements = zero ? 0 : product;
  e.bytes = e.elements * e.dtype->bytes;

  if (offsets->kind != Value::Array || offsets->items.size() != 2) {
    bad(what + ": data_offsets must be an array of two whole numbers [BEGIN, END]" +
        (offsets->kind == Value::Array ? ", not " + std::to_string(offsets->items.size()) : ", not " + kind_name(*offsets)));
  }
  e.begin = whole(offsets->items[0], what + ": data_offsets[0]");
  e.end = whole(offsets->items[1], what + ": data_offsets[1]");
  const std::string range = "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.end < e.begin) bad(what + ": data_offsets " + range + " end before they begin");
  if (e.end - e.begin != e.bytes) {
    bad(what + " of shape " + dims_text(e.dims) + " and dtype " + e.dtype->name + " needs " + std::to_string(e.bytes) +
        " bytes, but its data_offsets " + range + " cover " + std::to_string(e.end - e.begin));
  }
  return e;
}

void read_metadata(json::Parser& json, std::vector<std::pair<std::string, std::string>>& metadata) {
  if (!json.at('{')) {
    limit_entry(json, "__metadata__");
    bad("__metadata__ is " + kind_name(json.value(1)) + "; it must be an object of strings");
  }
  json.object([&](const std::string& key) {
    limit_entry(json, "__metadata__ " + quoted(key));
    Value v = json.value(2);
    if (v.kind != Value::String) bad("__metadata__ " + quoted(key) + " is " + kind_name(v) + "; metadata values must be strings");
    metadata.emplace_back(key, std::move(v.text));
  });
}

// The files students most often take for .safetensors, named by their first bytes.
const char* other_format(const std::uint8_t* bytes, std::size_t size) {
  const auto starts = [&](const char* magic, std::size_t n) { return size >= n && std::memcmp(bytes, magic, n) == 0; };
  if (starts("PK\x03\x04", 4)) {
    return "it is a zip archive, as torch.save writes (.pt, .pth); save the weights with "
           "safetensors.torch.save_file(model.state_dict(), \"model.safetensors\") instead";
  }
  if (size >= 2 && bytes[0] == 0x80 && bytes[1] >= 2 && bytes[1] <= 5) {
    return "it is a Python pickle, as torch.save's legacy format writes; save the weights with "
           "safetensors.torch.save_file(model.state_dict(), \"model.safetensors\") instead";
  }
  if (starts("\x93NUMPY", 6)) return "it is a NumPy .npy file, not a .safetensors file";
  if (starts("\x89HDF", 4)) return "it is an HDF5 file (Keras .h5), not a .safetensors file";
  return nullptr;
}

// A header length made of text characters ("{\n  \"cel"…): a text file, not a .safetensors file.
bool text_length(const std::uint8_t* bytes) {
  for (int k = 0; k < 8; ++k) {
    if (bytes[k] < 0x09 || (bytes[k] > 0x0d && bytes[k] < 0x20) || bytes[k] > 0x7e) return false;
  }
  return true;
}

}  // namespace

SafetensorsFile read_safetensors(const std::uint8_t* bytes, std::size_t size) {
  // Another format is named only where these bytes cannot be a header length that fits the file (a valid
  // file's length can start with a pickle's or zip's first bytes: a 640-byte header is 0x80 0x02 …).
  std::uint64_t n = 0;
  for (int k = size >= 8 ? 7 : -1; k >= 0; --k) n = n << 8 | bytes[k];
  const bool fits = size >= 8 && n <= size - 8;
  if (const char* other = fits ? nullptr : other_format(bytes, size)) bad(other);
  if (size < 8) bad("it has " + std::to_string(size) + " bytes, fewer than the 8 that give the header's length");
  if (!fits && text_length(bytes)) {
    bad("it starts with text (\"" + std::string(reinterpret_cast<const char*>(bytes), 8) + "…\") where a .safetensors "
        "file has the header's length in 8 bytes: it is a text file, not a .safetensors file");
  }
  if (n > kMaxHeader) bad("the header says its length is " + std::to_string(n) + " bytes, more than the 100,000,000 allowed");
  if (n > size - 8) {
    bad("the header says its length is " + std::to_string(n) + " bytes but the file has only " + std::to_string(size - 8) +
        " bytes after the first 8 (is it cut short?)");
  }
  const std::size_t header_size = static_cast<std::size_t>(n);  // fits: n <= size - 8
  if (!valid_utf8(bytes + 8, header_size)) bad("its header is not valid UTF-8 text");
  const std::uint8_t* data = bytes + 8 + header_size;
  const std::uint64_t buffer = size - 8 - header_size;

  SafetensorsFile file;
  std::vector<Entry> entries;
  json::Parser json(reinterpret_cast<const char*>(bytes + 8), header_size, kNotSafetensors + std::string("its header"), "the header");
  if (!json.at('{')) bad("its header is not a JSON object (it must start with '{')");
  json.object([&](const std::string& key) {
    if (key == "__metadata__") {
      read_metadata(json, file.metadata);
    } else {
      limit_entry(json, "the entry of tensor " + quoted(key));
      entries.push_back(tensor_entry(key, json.value(1)));
    }
  });
  json.finish();

  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.begin < b.begin || (a.begin == b.begin && a.end < b.end); });
  std::uint64_t at = 0;
  for (const Entry& e : entries) {
    if (e.begin != at) {
      bad("tensor " + quoted(e.name) + (e.begin < at ? " overlaps the tensor before it" : " leaves a gap before it") +
          " (its data starts at byte " + std::to_string(e.begin) + " of the data, expected " + std::to_string(at) + ")");
    }
    at = e.end;
  }
  if (at > buffer) {
    bad("its tensors need " + std::to_string(at) + " bytes of data but the file has only " + std::to_string(buffer) +
        " after the header (is it cut short?)");
  }
  if (at < buffer) {
    bad("it has " + std::to_string(buffer - at) + " bytes after " +
        (entries.empty() ? "its header, which describes no tensor" : "the last tensor's data (nothing may follow it)"));
  }

  // Every size below is at most `buffer`, so it fits in std::size_t.
  for (const Entry& e : entries) {
    const std::string what = "tensor " + quoted(e.name);
    if (e.elements == 0) throw Error(what + " is empty (shape " + dims_text(e.dims) + "); empty tensors are not supported");
    Shape shape;
    for (const std::uint64_t s : e.dims) shape.push_back(static_cast<std::size_t>(s));
    check_shape(shape, what.c_str());
    Tensor t = Tensor::empty(shape);
    decode(e.dtype->type, data + e.begin, t.numel(), t.data());
    file.tensors.push_back({e.name, std::move(t)});
  }
  return file;
}

namespace {

// As serde_json writes strings (and Python's json.dumps with ensure_ascii=False): UTF-8 as is,
// '"' and '\\' escaped, control characters as \b \f \n \r \t or \u00xx.
void json_string(std::string& out, const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

}  // namespace

std::vector<std::uint8_t> write_safetensors(const std::vector<NamedTensor>& tensors,
                                            const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::set<std::string> keys;
  for (const auto& [key, value] : metadata) {
    if (!keys.insert(key).second) throw Error("cannot save two metadata entries named " + quoted(key));
    if (!valid_utf8(key) || !valid_utf8(value)) throw Error("metadata " + (valid_utf8(key) ? quoted(key) : "key") + " is not UTF-8 text");
  }
  std::vector<const NamedTensor*> order;
  std::set<std::string> names;
  for (const NamedTensor& t : tensors) {
    if (!valid_utf8(t.name)) throw Error("tensor names must be UTF-8 text");
    if (t.name == "__metadata__") throw Error("a tensor cannot be named '__metadata__': the format reserves that key");
    if (!names.insert(t.name).second) throw Error("cannot save two tensors named " + quoted(t.name));
    if (t.value.numel() == 0) throw Error("tensor " + quoted(t.name) + " is empty; empty tensors are not supported");
    order.push_back(&t);
  }
  // Every tensor is F32, so the reference order (dtype alignment, then name) is by name, bytewise.
  std::sort(order.begin(), order.end(), [](const NamedTensor* a, const NamedTensor* b) { return a->name < b->name; });

  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    for (std::size_t i = 0; i < metadata.size(); ++i) {
      if (i) header += ',';
      json_string(header, metadata[i].first);
      header += ':';
      json_string(header, metadata[i].second);
    }
    header += '}';
  }
  std::uint64_t offset = 0;
  for (const NamedTensor* t : order) {
    if (header.size() > 1) header += ',';
    json_string(header, t->name);
    header += ":{\"dtype\":\"F32\",\"shape\":[";
    for (std::size_t d = 0; d < t->value.dim(); ++d) header += (d ? "," : "") + std::to_string(t->value.shape()[d]);
    const std::uint64_t bytes = 4 * static_cast<std::uint64_t>(t->value.numel());
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += '}';
  header.append((8 - header.size() % 8) % 8, ' ');  // the data starts at a multiple of 8
  if (offset > std::numeric_limits<std::size_t>::max() - 8 - header.size()) throw Error("the tensors are too large to save in one file");

  std::vector<std::uint8_t> out(8 + header.size() + static_cast<std::size_t>(offset));
  const std::uint64_t n = header.size();
  for (int k = 0; k < 8; ++k) out[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(n >> (8 * k));
  std::memcpy(out.data() + 8, header.data(), header.size());
  std::uint8_t* p = out.data() + 8 + header.size();
  for (const NamedTensor* t : order) {
    const Tensor c = t->value.contiguous();
    if (kLittleEndian) {
      std::memcpy(p, c.data(), 4 * c.numel());
      p += 4 * c.numel();
      continue;
    }
    for (std::size_t i = 0; i < c.numel(); ++i, p += 4) {
      std::uint32_t bits;
      std::memcpy(&bits, c.data() + i, 4);
      for (int k = 0; k < 4; ++k) p[k] = static_cast<std::uint8_t>(bits >> (8 * k));
    }
  }
  return out;
}

}  // namespace mha
