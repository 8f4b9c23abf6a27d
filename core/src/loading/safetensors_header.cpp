// A safetensors header from its first 8 + N bytes (safetensors_header.hpp), shared by the lessons' reader
// (safetensors.cpp) and the checkpoint loader (checkpoint.cpp): lengths, dtypes, shapes and offsets checked before
// use; other formats (a torch.save zip or pickle, NumPy, HDF5, a text file) named.
#include "safetensors_header.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "ground/json.hpp"
#include "mha/error.hpp"
#include "mha/tensor.hpp"

namespace mha::safetensors {

const char kNotSafetensors[] = "this is not a valid .safetensors file: ";

// As huggingface/safetensors' Dtype enum, in its order.
constexpr FormatDType kDTypes[] = {{"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
                                   {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
                                   {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};
const char kFormatDTypes[] = "BOOL, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64";

bool every_dtype(const std::string&) { return true; }  // tensor_entry looks the name up in kDTypes first

std::string dims_text(const std::vector<std::uint64_t>& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

namespace {

using json::kind_name;
using json::quoted;
using json::Value;

constexpr std::uint64_t kMaxHeader = 100'000'000;
// JSON values in one tensor entry (a valid one has at most 1 + 3 + kMaxDims + 2 = 14) or one
// metadata value: the parse tree of an entry is dropped once read, so a hostile 100 MB header
// cannot make a tree tens of times its size.
constexpr std::size_t kMaxEntryValues = 64;
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

[[noreturn]] void bad(const std::string& why) { throw Error(kNotSafetensors + why); }

// The next values read from the header form one entry, `what`: at most kMaxEntryValues of them.
void limit_entry(json::Parser& json, const std::string& what) {
  json.limit(kMaxEntryValues, kNotSafetensors + what + " is too large: more than " + std::to_string(kMaxEntryValues) +
                                  " JSON values (a tensor's entry has at most " + std::to_string(6 + kMaxDims) + ")");
}

std::uint64_t whole(const Value& v, const std::string& what) {
  if (v.kind != Value::Number) bad(what + " is " + kind_name(v) + "; it must be a whole number");
  if (!v.whole) {
    bad(what + " is " + quoted(v.text) +
        "; it must be a whole number from 0 to 2^53 written without a sign, '.' or exponent");
  }
  return v.uint;
}

Entry tensor_entry(const std::string& name, const Value& v, bool (*accepts)(const std::string&),
                   const char* supported) {
  Entry e;
  e.name = name;
  const std::string what = "tensor " + quoted(name);
  if (v.kind != Value::Object)
    bad(what + " is described by " + kind_name(v) + ", not by an object {dtype, shape, data_offsets}");
  const Value *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
  for (const auto& [key, field] : v.members) {
    if (key == "dtype") dtype = &field;
    else if (key == "shape") shape = &field;
    else if (key == "data_offsets") offsets = &field;
    else bad(what + " has an unknown field " + quoted(key) + " (a tensor has exactly dtype, shape and data_offsets)");
  }
  if (!dtype || !shape || !offsets) bad(what + " has no " + (!dtype ? "dtype" : !shape ? "shape" : "data_offsets"));

  if (dtype->kind != Value::String)
    bad(what + ": dtype is " + kind_name(*dtype) + "; it must be a string such as \"F32\"");
  for (const FormatDType& d : kDTypes)
    if (dtype->text == d.name && accepts(dtype->text)) e.dtype = &d;
  if (!e.dtype) throw Error(what + ": dtype " + quoted(dtype->text) + " is not supported; supported: " + supported);

  if (shape->kind != Value::Array) bad(what + ": shape is " + kind_name(*shape) + "; it must be an array of sizes");
  if (shape->items.size() > kMaxDims) {
    throw Error(what + " has " + std::to_string(shape->items.size()) + " dimensions; at most " +
                std::to_string(kMaxDims) + " are supported");
  }
  for (std::size_t i = 0; i < shape->items.size(); ++i)
    e.dims.push_back(whole(shape->items[i], what + ": shape[" + std::to_string(i) + "]"));
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
  if (product > kU64Max / e.dtype->bytes)
    bad(what + ": the byte size of shape " + dims_text(e.dims) + " in " + e.dtype->name + " overflows 64 bits");
  e.elements = zero ? 0 : product;
  e.bytes = e.elements * e.dtype->bytes;

  if (offsets->kind != Value::Array || offsets->items.size() != 2) {
    bad(what + ": data_offsets must be an array of two whole numbers [BEGIN, END]" +
        (offsets->kind == Value::Array ? ", not " + std::to_string(offsets->items.size())
                                       : ", not " + kind_name(*offsets)));
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
    if (v.kind != Value::String)
      bad("__metadata__ " + quoted(key) + " is " + kind_name(v) + "; metadata values must be strings");
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

std::uint64_t header_length(const std::uint8_t* bytes, std::size_t available, std::uint64_t size) {
  // Another format is named only where these bytes cannot be a header length that fits the file (a valid
  // file's length can start with a pickle's or zip's first bytes: a 640-byte header is 0x80 0x02 …).
  std::uint64_t n = 0;
  for (int k = available >= 8 ? 7 : -1; k >= 0; --k) n = n << 8 | bytes[k];
  const bool fits = available >= 8 && size >= 8 && n <= size - 8;
  if (const char* other = fits ? nullptr : other_format(bytes, available)) bad(other);
  if (size < 8) bad("it has " + std::to_string(size) + " bytes, fewer than the 8 that give the header's length");
  if (available < 8) throw Error("header_length needs the file's first 8 bytes");
  if (!fits && text_length(bytes)) {
    bad("it starts with text (\"" + std::string(reinterpret_cast<const char*>(bytes), 8) +
        "…\") where a .safetensors "
        "file has the header's length in 8 bytes: it is a text file, not a .safetensors file");
  }
  if (n > kMaxHeader)
    bad("the header says its length is " + std::to_string(n) + " bytes, more than the 100,000,000 allowed");
  if (n > size - 8) {
    bad("the header says its length is " + std::to_string(n) + " bytes but the file has only " +
        std::to_string(size - 8) + " bytes after the first 8 (is it cut short?)");
  }
  return n;
}

Header parse_header(const std::uint8_t* bytes, std::uint64_t n, std::uint64_t size, bool (*accepts)(const std::string&),
                    const char* supported) {
  const std::size_t header_size = static_cast<std::size_t>(n);  // n <= kMaxHeader
  if (!json::valid_utf8(bytes + 8, header_size)) bad("its header is not valid UTF-8 text");
  const std::uint64_t buffer = size - 8 - n;

  Header header;
  header.data_start = 8 + n;
  std::vector<Entry>& entries = header.entries;
  json::Parser json(reinterpret_cast<const char*>(bytes + 8), header_size, kNotSafetensors + std::string("its header"),
                    "the header");
  if (!json.at('{')) bad("its header is not a JSON object (it must start with '{')");
  json.object([&](const std::string& key) {
    if (key == "__metadata__") {
      read_metadata(json, header.metadata);
    } else {
      limit_entry(json, "the entry of tensor " + quoted(key));
      entries.push_back(tensor_entry(key, json.value(1), accepts, supported));
    }
  });
  json.finish();

  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  std::uint64_t at = 0;
  for (const Entry& e : entries) {
    if (e.begin != at) {
      bad("tensor " + quoted(e.name) + (e.begin < at ? " overlaps the tensor before it" : " leaves a gap before it") +
          " (its data starts at byte " + std::to_string(e.begin) + " of the data, expected " + std::to_string(at) +
          ")");
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
  return header;
}

}  // namespace mha::safetensors
