// safetensors, read and written from the specification (huggingface/safetensors README and
// safetensors/src/tensor.rs). The reader is a parser for untrusted files: every size is checked
// before it is used, by subtraction or checked multiplication, and every rule has its own message.
#include "mha/safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace mha {
namespace {

constexpr std::uint64_t kMaxHeader = 100'000'000;
constexpr int kMaxDepth = 16;
constexpr std::uint64_t kMaxSafeInteger = (std::uint64_t{1} << 53) - 1;
constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

[[noreturn]] void bad(const std::string& why) { throw Error("this is not a valid .safetensors file: " + why); }

// A JSON value, as much of JSON as a safetensors header uses.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  bool integer = false;  // a number written without fraction or exponent, non-negative, <= 2^53 - 1
  std::uint64_t uint = 0;
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;  // in file order
};

// Strict JSON (RFC 8259) over the header bytes; duplicate keys are errors at every level.
class Parser {
 public:
  Parser(const char* p, std::size_t n) : p_(p), end_(p + n) {}

  Json document() {
    Json v = value(0);
    skip_space();
    if (p_ != end_) fail("unexpected characters after the JSON object");
    return v;
  }

 private:
  const char* p_;
  const char* end_;

  [[noreturn]] void fail(const std::string& why) { bad("its header is not valid JSON (" + why + ")"); }

  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  bool literal(const char* word) {
    const std::size_t n = std::strlen(word);
    if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }

  Json value(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    skip_space();
    if (p_ == end_) fail("it ends too early");
    Json v;
    switch (*p_) {
      case '{': return object(depth);
      case '[': {
        ++p_;
        v.kind = Json::Array;
        skip_space();
        if (p_ != end_ && *p_ == ']') {
          ++p_;
          return v;
        }
        for (;;) {
          v.items.push_back(value(depth + 1));
          skip_space();
          if (p_ == end_) fail("an array is not closed");
          if (*p_ == ',') {
            ++p_;
            continue;
          }
          if (*p_ == ']') {
            ++p_;
            return v;
          }
          fail("expected ',' or ']' in an array");
        }
      }
      case '"':
        v.kind = Json::String;
        v.text = string();
        return v;
      case 't':
      case 'f':
      case 'n':
        if (literal("true")) {
          v.kind = Json::Bool;
          v.boolean = true;
        } else if (literal("false")) {
          v.kind = Json::Bool;
        } else if (!literal("null")) {
          fail("unknown word");
        }
        return v;
      default: return number();
    }
  }

  Json object(int depth) {
    ++p_;
    Json v;
    v.kind = Json::Object;
    std::set<std::string> seen;
    skip_space();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return v;
    }
    for (;;) {
      skip_space();
      if (p_ == end_ || *p_ != '"') fail("expected a quoted key");
      std::string key = string();
      if (!seen.insert(key).second) bad("its header names '" + key + "' twice");
      skip_space();
      if (p_ == end_ || *p_ != ':') fail("expected ':' after a key");
      ++p_;
      v.members.emplace_back(std::move(key), value(depth + 1));
      skip_space();
      if (p_ == end_) fail("an object is not closed");
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == '}') {
        ++p_;
        return v;
      }
      fail("expected ',' or '}' in an object");
    }
  }

  Json number() {
    const char* start = p_;
    if (p_ != end_ && *p_ == '-') ++p_;
    if (p_ == end_ || !(*p_ >= '0' && *p_ <= '9')) fail("unexpected character");
    if (*p_ == '0' && p_ + 1 != end_ && p_[1] >= '0' && p_[1] <= '9') fail("a number with a leading zero");
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    const char* int_end = p_;
    bool fraction = false;
    if (p_ != end_ && *p_ == '.') {
      fraction = true;
      ++p_;
      if (p_ == end_ || !(*p_ >= '0' && *p_ <= '9')) fail("a number ends with '.'");
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      fraction = true;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !(*p_ >= '0' && *p_ <= '9')) fail("a number has an empty exponent");
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    Json v;
    v.kind = Json::Number;
    if (!fraction && *start != '-' && int_end - start <= 16) {
      std::uint64_t n = 0;
      for (const char* c = start; c != int_end; ++c) n = n * 10 + static_cast<std::uint64_t>(*c - '0');
      if (n <= kMaxSafeInteger) {
        v.integer = true;
        v.uint = n;
      }
    }
    return v;
  }

  void utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::uint32_t hex4() {
    if (end_ - p_ < 4) fail("a \\u escape is cut short");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
      const char c = *p_;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else fail("a \\u escape has a character that is not hexadecimal");
    }
    return v;
  }

  std::string string() {
    ++p_;  // the opening quote
    std::string out;
    for (;;) {
      if (p_ == end_) fail("a string is not closed");
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return out;
      }
      if (c < 0x20) fail("a string contains a control character");
      if (c != '\\') {
        out += static_cast<char>(c);
        ++p_;
        continue;
      }
      if (++p_ == end_) fail("a string ends with '\\'");
      const char e = *p_++;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') fail("a \\u escape has an unpaired surrogate");
            p_ += 2;
            const std::uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("a \\u escape has an unpaired surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("a \\u escape has an unpaired surrogate");
          }
          utf8(out, cp);
          break;
        }
        default: fail("unknown escape '\\" + std::string(1, e) + "'");
      }
    }
  }
};

// Well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool valid_utf8(const unsigned char* s, std::size_t n) {
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    std::size_t len;
    std::uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (n - i < len) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

struct Dtype {
  const char* name;
  std::size_t bytes;
};
constexpr Dtype kDtypes[] = {{"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F64", 8}};

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  float magnitude;
  if (exp == 0) magnitude = std::ldexp(static_cast<float>(mant), -24);  // zero and subnormals, exact
  else if (exp == 31) magnitude = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else magnitude = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  std::uint32_t bits;
  std::memcpy(&bits, &magnitude, 4);
  bits |= sign;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

float decode(const std::string& dtype, const std::uint8_t* p) {
  if (dtype == "F32") {
    std::uint32_t bits = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  if (dtype == "F16") return half_to_float(static_cast<std::uint16_t>(p[0] | p[1] << 8));
  if (dtype == "BF16") {
    const std::uint32_t bits = static_cast<std::uint32_t>(p[0]) << 16 | static_cast<std::uint32_t>(p[1]) << 24;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  std::uint64_t bits = 0;
  for (int k = 7; k >= 0; --k) bits = bits << 8 | p[k];
  double d;
  std::memcpy(&d, &bits, 8);
  return static_cast<float>(d);
}

struct Entry {
  std::string name, dtype;
  Shape shape;
  std::uint64_t begin = 0, end = 0, elements = 0;
};

}  // namespace

SafetensorsFile read_safetensors(const std::uint8_t* bytes, std::size_t size) {
  if (size < 8) bad("it has " + std::to_string(size) + " bytes, fewer than the 8 that give the header's length");
  std::uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = n << 8 | bytes[k];
  if (n > kMaxHeader) bad("its header would be " + std::to_string(n) + " bytes long, more than the 100,000,000 allowed");
  if (n > size - 8) {
    bad("the header says its length is " + std::to_string(n) + " bytes but the file has only " + std::to_string(size - 8) +
        " bytes after the first 8 (is it cut short?)");
  }
  const auto* header = reinterpret_cast<const char*>(bytes + 8);
  if (!valid_utf8(bytes + 8, n)) bad("its header is not valid UTF-8 text");
  const Json root = Parser(header, n).document();
  if (root.kind != Json::Object) bad("its header is not a JSON object");
  const std::uint64_t buffer = size - 8 - n;
  const std::uint8_t* data = bytes + 8 + n;

  SafetensorsFile file;
  std::vector<Entry> entries;
  for (const auto& [name, v] : root.members) {
    if (name == "__metadata__") {
      if (v.kind != Json::Object) bad("__metadata__ must be an object of strings");
      for (const auto& [key, value] : v.members) {
        if (value.kind != Json::String) bad("__metadata__ '" + key + "' is not a string");
        file.metadata.emplace_back(key, value.text);
      }
      continue;
    }
    const std::string what = "tensor '" + name + "'";
    if (v.kind != Json::Object) bad(what + " is not described by an object");
    const Json *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
    for (const auto& [key, field] : v.members) {
      if (key == "dtype") dtype = &field;
      else if (key == "shape") shape = &field;
      else if (key == "data_offsets") offsets = &field;
      else bad(what + " has an unknown field '" + key + "'");
    }
    if (!dtype || !shape || !offsets) bad(what + " needs dtype, shape and data_offsets");
    if (dtype->kind != Json::String) bad(what + ": dtype must be a string");
    const Dtype* type = nullptr;
    for (const Dtype& d : kDtypes)
      if (dtype->text == d.name) type = &d;
    if (!type) {
      throw Error("tensor '" + name + "': dtype '" + dtype->text +
                  "' is not supported; supported: F32, F16, BF16, F64 (read as float32)");
    }
    if (shape->kind != Json::Array) bad(what + ": shape must be an array of sizes");
    if (shape->items.size() > kMaxDims) {
      throw Error(what + " has " + std::to_string(shape->items.size()) + " dimensions; at most " + std::to_string(kMaxDims) +
                  " are supported");
    }
    Entry e{name, dtype->text, {}, 0, 0, 1};
    for (const Json& s : shape->items) {
      if (s.kind != Json::Number || !s.integer) bad(what + ": every size in its shape must be a whole number >= 0");
      // checked product: a product that wraps (to 0, say) would pass the offset checks below
      if (s.uint != 0 && e.elements > std::numeric_limits<std::uint64_t>::max() / s.uint) bad(what + ": its shape is too large");
      e.elements *= s.uint;
      e.shape.push_back(static_cast<std::size_t>(std::min<std::uint64_t>(s.uint, std::numeric_limits<std::size_t>::max())));
    }
    if (e.elements > std::numeric_limits<std::uint64_t>::max() / type->bytes) bad(what + ": its shape is too large");
    if (offsets->kind != Json::Array || offsets->items.size() != 2 || offsets->items[0].kind != Json::Number ||
        !offsets->items[0].integer || offsets->items[1].kind != Json::Number || !offsets->items[1].integer) {
      bad(what + ": data_offsets must be two whole numbers [BEGIN, END]");
    }
    e.begin = offsets->items[0].uint;
    e.end = offsets->items[1].uint;
    if (e.end < e.begin) bad(what + ": data_offsets end before they begin");
    if (e.end - e.begin != e.elements * type->bytes) {
      bad(what + " of shape " + to_string(e.shape) + " and dtype " + e.dtype + " needs " + std::to_string(e.elements * type->bytes) +
          " bytes, but its data_offsets cover " + std::to_string(e.end - e.begin));
    }
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.begin < b.begin || (a.begin == b.begin && a.end < b.end); });
  std::uint64_t at = 0;
  for (const Entry& e : entries) {
    if (e.begin != at) {
      bad("tensor '" + e.name + "' " + (e.begin < at ? "overlaps the tensor before it" : "leaves a gap before it") +
          " (its data starts at byte " + std::to_string(e.begin) + ", expected " + std::to_string(at) + ")");
    }
    at = e.end;
  }
  if (at != buffer) {
    bad(at > buffer ? "its tensors need " + std::to_string(at) + " bytes of data but the file has " + std::to_string(buffer) + " (is it cut short?)"
                    : "it has " + std::to_string(buffer - at) + " bytes after the last tensor");
  }
  for (const Entry& e : entries) {
    if (e.elements == 0) throw Error("tensor '" + e.name + "' is empty (shape " + to_string(e.shape) + "); empty tensors are not supported");
    check_shape(e.shape, ("tensor '" + e.name + "'").c_str());
    Tensor t = Tensor::empty(e.shape);
    const std::size_t width = e.end == e.begin ? 0 : static_cast<std::size_t>((e.end - e.begin) / e.elements);
    if (e.dtype == "F32" && kLittleEndian)
      std::memcpy(t.data(), data + e.begin, 4 * t.numel());  // a copy: the buffer may be misaligned
    else
      for (std::size_t i = 0; i < t.numel(); ++i) t.data()[i] = decode(e.dtype, data + e.begin + i * width);
    file.tensors.push_back({e.name, std::move(t)});
  }
  return file;
}

namespace {

void json_string(std::string& out, const std::string& s) {
  out += '"';
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
}

}  // namespace

std::vector<std::uint8_t> write_safetensors(const std::vector<NamedTensor>& tensors,
                                            const std::vector<std::pair<std::string, std::string>>& metadata) {
  // Every tensor is F32, so the reference writer's order (dtype alignment, then name) is by name.
  std::vector<const NamedTensor*> order;
  std::set<std::string> names;
  for (const NamedTensor& t : tensors) {
    if (t.name == "__metadata__" || !names.insert(t.name).second) throw Error("cannot save two tensors named '" + t.name + "'");
    if (!valid_utf8(reinterpret_cast<const unsigned char*>(t.name.data()), t.name.size())) throw Error("tensor names must be UTF-8 text");
    order.push_back(&t);
  }
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
  while (header.size() % 8 != 0) header += ' ';  // the data starts at a multiple of 8
  std::vector<std::uint8_t> out(8 + header.size() + offset);
  const std::uint64_t n = header.size();
  for (int k = 0; k < 8; ++k) out[k] = static_cast<std::uint8_t>(n >> (8 * k));
  std::memcpy(out.data() + 8, header.data(), header.size());
  std::uint8_t* p = out.data() + 8 + header.size();
  for (const NamedTensor* t : order) {
    const Tensor c = t->value.contiguous();
    for (std::size_t i = 0; i < c.numel(); ++i, p += 4) {
      std::uint32_t bits;
      std::memcpy(&bits, c.data() + i, 4);
      for (int k = 0; k < 4; ++k) p[k] = static_cast<std::uint8_t>(bits >> (8 * k));
    }
  }
  return out;
}

}  // namespace mha
