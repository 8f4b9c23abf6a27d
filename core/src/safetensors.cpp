// safetensors, read and written from the specification (huggingface/safetensors README and
// safetensors/src/tensor.rs). The reader is a parser for untrusted files: every size is checked
// before it is used, by subtraction or checked multiplication, and every rule has its own message.
#include "mha/safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace mha {
namespace {

constexpr std::uint64_t kMaxHeader = 100'000'000;
constexpr int kMaxDepth = 16;  // a valid header nests 3 deep
// JSON values in one tensor entry (a valid one has at most 1 + 3 + kMaxDims + 2 = 14) or one
// metadata value: the parse tree of an entry is dropped once read, so a hostile 100 MB header
// cannot make a tree tens of times its size.
constexpr std::size_t kMaxEntryValues = 64;
constexpr std::uint64_t kMaxWhole = std::uint64_t{1} << 53;  // beyond it JSON numbers are not exact doubles
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

[[noreturn]] void bad(const std::string& why) { throw Error("this is not a valid .safetensors file: " + why); }

// Text from the file, for a message: quoted, and cut (at a UTF-8 boundary) when long.
std::string quoted(const std::string& s) {
  constexpr std::size_t kShown = 80;
  if (s.size() <= kShown) return "'" + s + "'";
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return "'" + s.substr(0, cut) + "...' (" + std::to_string(s.size()) + " bytes)";
}

std::string dims_text(const std::vector<std::uint64_t>& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool whole = false;      // Number: digits only (no sign, '.', exponent), at most 2^53
  std::uint64_t uint = 0;  // Number, when whole
  std::string text;        // String: decoded; Number: as written; Bool: "true" or "false"
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;  // in file order
};

std::string kind_name(const Json& v) {
  switch (v.kind) {
    case Json::Null: return "null";
    case Json::Bool: return v.text;
    case Json::Number: return "the number " + quoted(v.text);
    case Json::String: return "the string " + quoted(v.text);
    case Json::Array: return "an array";
    case Json::Object: return "an object";
  }
  return "a value";
}

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

bool valid_utf8(const std::string& s) { return valid_utf8(reinterpret_cast<const unsigned char*>(s.data()), s.size()); }

// Strict JSON (RFC 8259) over header bytes already checked to be UTF-8. Duplicate keys are errors
// at every level. object() hands each member to a callback, so the top level streams.
class Parser {
 public:
  Parser(const char* p, std::size_t n) : begin_(p), p_(p), end_(p + n) {}

  // Skips whitespace; true when the next character is c.
  bool at(char c) {
    skip_space();
    return p_ != end_ && *p_ == c;
  }

  // Limits the values the next value() calls may build; `what` names the entry in the message.
  void limit(std::size_t values, std::string what) {
    budget_ = values;
    budget_what_ = std::move(what);
  }

  // The object at the cursor (at('{') is true): on_member(key) is called with the cursor at each
  // member's value, and must consume it.
  template <class OnMember>
  void object(OnMember&& on_member) {
    ++p_;
    std::set<std::string> seen;
    if (at('}')) {
      ++p_;
      return;
    }
    for (;;) {
      if (!at('"')) fail("expected a key in double quotes");
      std::string key = string();
      if (!at(':')) fail("expected ':' after the key " + quoted(key));
      ++p_;
      if (!seen.insert(key).second) {
        bad("its header has the key " + quoted(key) + " twice in one object (duplicate keys are ambiguous: JSON readers "
            "disagree on which one counts)");
      }
      on_member(key);
      skip_space();
      if (p_ == end_) fail("an object is not closed with '}'");
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ != '}') fail("expected ',' or '}' after a value in an object");
      ++p_;
      return;
    }
  }

  Json value(int depth) {
    if (depth > kMaxDepth) fail("it nests deeper than " + std::to_string(kMaxDepth) + " levels");
    if (budget_ == 0) {
      bad(budget_what_ + " is too large: more than " + std::to_string(kMaxEntryValues) +
          " JSON values (a tensor's entry has at most " + std::to_string(6 + kMaxDims) + ")");
    }
    --budget_;
    skip_space();
    if (p_ == end_) fail("it ends where a value should be");
    Json v;
    switch (*p_) {
      case '{':
        v.kind = Json::Object;
        object([&](const std::string& key) { v.members.emplace_back(key, value(depth + 1)); });
        return v;
      case '[':
        ++p_;
        v.kind = Json::Array;
        if (at(']')) {
          ++p_;
          return v;
        }
        for (;;) {
          v.items.push_back(value(depth + 1));
          skip_space();
          if (p_ == end_) fail("an array is not closed with ']'");
          if (*p_ == ',') {
            ++p_;
            continue;
          }
          if (*p_ != ']') fail("expected ',' or ']' after a value in an array");
          ++p_;
          return v;
        }
      case '"':
        v.kind = Json::String;
        v.text = string();
        return v;
      default:
        for (const char* word : {"true", "false", "null"}) {
          const std::size_t n = std::strlen(word);
          if (static_cast<std::size_t>(end_ - p_) >= n && std::memcmp(p_, word, n) == 0) {
            p_ += n;
            v.kind = word[0] == 'n' ? Json::Null : Json::Bool;
            if (v.kind == Json::Bool) v.text = word;
            return v;
          }
        }
        return number();
    }
  }

  // Only whitespace may follow the top-level object (the reference writer pads with spaces).
  void finish() {
    skip_space();
    if (p_ != end_) fail("unexpected characters after the JSON object");
  }

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
  std::size_t budget_ = 0;
  std::string budget_what_;

  [[noreturn]] void fail(const std::string& why) {
    bad("its header is not valid JSON: " + why + " (at byte " + std::to_string(p_ - begin_) + " of the header)");
  }

  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  bool digit() const { return p_ != end_ && *p_ >= '0' && *p_ <= '9'; }

  Json number() {
    const char* start = p_;
    if (p_ != end_ && *p_ == '-') ++p_;
    if (!digit()) fail("unexpected character '" + std::string(1, p_ == end_ ? ' ' : *p_) + "'");
    if (*p_ == '0' && p_ + 1 != end_ && p_[1] >= '0' && p_[1] <= '9') fail("a number has a leading zero");
    while (digit()) ++p_;
    const char* int_end = p_;
    bool integer = *start != '-';
    if (p_ != end_ && *p_ == '.') {
      integer = false;
      ++p_;
      if (!digit()) fail("a number has no digit after '.'");
      while (digit()) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digit()) fail("a number has an empty exponent");
      while (digit()) ++p_;
    }
    Json v;
    v.kind = Json::Number;
    v.text.assign(start, p_);
    if (integer && int_end - start <= 16) {  // 16 digits cannot overflow 64 bits
      std::uint64_t n = 0;
      for (const char* c = start; c != int_end; ++c) n = n * 10 + static_cast<std::uint64_t>(*c - '0');
      v.whole = n <= kMaxWhole;
      v.uint = n;
    }
    return v;
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
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
      else fail("a \\u escape needs four hexadecimal digits");
    }
    return v;
  }

  // The string at the cursor (on its opening quote), decoded; the result is UTF-8 because the
  // header is and escapes give only code points (surrogates must come in pairs).
  std::string string() {
    ++p_;
    std::string out;
    for (;;) {
      if (p_ == end_) fail("a string is not closed with '\"'");
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return out;
      }
      if (c < 0x20) fail("a string contains a control character (write it as an escape such as \\n)");
      ++p_;
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (p_ == end_) fail("a string ends with '\\'");
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
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("a \\u escape is a low surrogate without a high one before it");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') fail("a \\u escape is a high surrogate without a low one after it");
            p_ += 2;
            const std::uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("a \\u escape is a high surrogate without a low one after it");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: fail("unknown escape '\\" + std::string(1, e) + "'");
      }
    }
  }
};

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

std::uint64_t whole(const Json& v, const std::string& what) {
  if (v.kind != Json::Number) bad(what + " is " + kind_name(v) + "; it must be a whole number");
  if (!v.whole) {
    bad(what + " is " + quoted(v.text) + "; it must be a whole number from 0 to 2^53 written without a sign, '.' or exponent");
  }
  return v.uint;
}

Entry tensor_entry(const std::string& name, const Json& v) {
  Entry e;
  e.name = name;
  const std::string what = "tensor " + quoted(name);
  if (v.kind != Json::Object) bad(what + " is described by " + kind_name(v) + ", not by an object {dtype, shape, data_offsets}");
  const Json *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
  for (const auto& [key, field] : v.members) {
    if (key == "dtype") dtype = &field;
    else if (key == "shape") shape = &field;
    else if (key == "data_offsets") offsets = &field;
    else bad(what + " has an unknown field " + quoted(key) + " (a tensor has exactly dtype, shape and data_offsets)");
  }
  if (!dtype || !shape || !offsets) bad(what + " has no " + (!dtype ? "dtype" : !shape ? "shape" : "data_offsets"));

  if (dtype->kind != Json::String) bad(what + ": dtype is " + kind_name(*dtype) + "; it must be a string such as \"F32\"");
  for (const DtypeInfo& d : kDtypes)
    if (dtype->text == d.name) e.dtype = &d;
  if (!e.dtype) throw Error(what + ": dtype " + quoted(dtype->text) + " is not supported; supported: F32, F16, BF16, F64 (read as float32)");

  if (shape->kind != Json::Array) bad(what + ": shape is " + kind_name(*shape) + "; it must be an array of sizes");
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

  if (offsets->kind != Json::Array || offsets->items.size() != 2) {
    bad(what + ": data_offsets must be an array of two whole numbers [BEGIN, END]" +
        (offsets->kind == Json::Array ? ", not " + std::to_string(offsets->items.size()) : ", not " + kind_name(*offsets)));
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

void read_metadata(Parser& json, std::vector<std::pair<std::string, std::string>>& metadata) {
  if (!json.at('{')) {
    json.limit(kMaxEntryValues, "__metadata__");
    bad("__metadata__ is " + kind_name(json.value(1)) + "; it must be an object of strings");
  }
  json.object([&](const std::string& key) {
    json.limit(kMaxEntryValues, "__metadata__ " + quoted(key));
    Json v = json.value(2);
    if (v.kind != Json::String) bad("__metadata__ " + quoted(key) + " is " + kind_name(v) + "; metadata values must be strings");
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
  Parser json(reinterpret_cast<const char*>(bytes + 8), header_size);
  if (!json.at('{')) bad("its header is not a JSON object (it must start with '{')");
  json.object([&](const std::string& key) {
    if (key == "__metadata__") {
      read_metadata(json, file.metadata);
    } else {
      json.limit(kMaxEntryValues, "the entry of tensor " + quoted(key));
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
