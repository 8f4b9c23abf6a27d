// safetensors, read and written from the specification (huggingface/safetensors README and
// safetensors/src/tensor.rs). The reader is a parser for untrusted files: every size is checked
// before it is used, by subtraction or checked multiplication, and every rule has its own message.
#include "mha/safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "ground/json.hpp"
#include "safetensors_header.hpp"

namespace mha {
namespace {

using json::quoted;
using json::valid_utf8;

constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

enum class Dtype { F32, F16, BF16, F64 };
struct DtypeInfo {
  const char* name;
  Dtype type;
};
constexpr DtypeInfo kDtypes[] = {{"F32", Dtype::F32}, {"F16", Dtype::F16}, {"BF16", Dtype::BF16}, {"F64", Dtype::F64}};

const DtypeInfo* find_dtype(const std::string& name) {
  for (const DtypeInfo& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

bool readable(const std::string& dtype) { return find_dtype(dtype) != nullptr; }

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
        out[i] = float_from_bits(std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
                                 std::uint32_t{p[3]} << 24);
      return;
    case Dtype::F16:
      for (std::size_t i = 0; i < count; ++i, p += 2)
        out[i] = half_to_float(static_cast<std::uint16_t>(p[0] | p[1] << 8));
      return;
    case Dtype::BF16:  // the high half of a float32
      for (std::size_t i = 0; i < count; ++i, p += 2)
        out[i] = float_from_bits(std::uint32_t{p[0]} << 16 | std::uint32_t{p[1]} << 24);
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

}  // namespace

SafetensorsFile read_safetensors(const std::uint8_t* bytes, std::size_t size) {
  const std::uint64_t n = safetensors::header_length(bytes, std::min<std::size_t>(size, 8), size);
  safetensors::Header header =
      safetensors::parse_header(bytes, n, size, readable, "F32, F16, BF16, F64 (read as float32)");
  const std::uint8_t* data = bytes + header.data_start;
  SafetensorsFile file;
  file.metadata = std::move(header.metadata);
  const std::vector<safetensors::Entry>& entries = header.entries;

  // Every size below is at most the file's, so it fits in std::size_t.
  for (const safetensors::Entry& e : entries) {
    const std::string what = "tensor " + quoted(e.name);
    if (e.elements == 0)
      throw Error(what + " is empty (shape " + safetensors::dims_text(e.dims) + "); empty tensors are not supported");
    Shape shape;
    for (const std::uint64_t s : e.dims) shape.push_back(static_cast<std::size_t>(s));
    check_shape(shape, what.c_str());
    Tensor t = Tensor::empty(shape);
    decode(find_dtype(e.dtype->name)->type, data + e.begin, t.numel(), t.data());
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
    if (!valid_utf8(key) || !valid_utf8(value))
      throw Error("metadata " + (valid_utf8(key) ? quoted(key) : "key") + " is not UTF-8 text");
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
  if (offset > std::numeric_limits<std::size_t>::max() - 8 - header.size())
    throw Error("the tensors are too large to save in one file");

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
