// safetensors: the writer's exact bytes (worked out by hand from the specification), ordering,
// padding and escapes; round trips bit for bit; F16/BF16/F64 decoding against hand-computed values;
// one test per rule of the reader with a hand-made bad file; and a fuzz of 12,000 mutated files
// (also run under ASan+UBSan in native-sanitize): each parses or throws mha::Error, nothing else.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "mha/mha.hpp"
#include "test_support.hpp"

using namespace mha;

namespace {

using Bytes = std::vector<std::uint8_t>;
using Metadata = std::vector<std::pair<std::string, std::string>>;

void put_u64(Bytes& out, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}

std::uint64_t get_u64(const Bytes& b) {
  std::uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = n << 8 | b[static_cast<std::size_t>(k)];
  return n;
}

// A file with this exact header text (no padding added) and data.
Bytes file_of(const std::string& header, const Bytes& data = {}) {
  Bytes out;
  put_u64(out, header.size());
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// Reads from an allocation of exactly the file's size, so ASan sees any read past its end.
SafetensorsFile read(const Bytes& bytes) {
  std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[bytes.size() + (bytes.empty() ? 1 : 0)]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  return read_safetensors(exact.get(), bytes.size());
}

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

Bytes f32_bytes(std::initializer_list<float> values) {
  Bytes out;
  for (float v : values)
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(bits(v) >> (8 * k)));
  return out;
}

Bytes u16_bytes(std::initializer_list<std::uint16_t> values) {
  Bytes out;
  for (std::uint16_t v : values) {
    out.push_back(static_cast<std::uint8_t>(v));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  return out;
}

Bytes f64_bytes(std::initializer_list<double> values) {
  Bytes out;
  for (double v : values) {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    put_u64(out, b);
  }
  return out;
}

// One tensor entry of the header.
std::string entry(const std::string& name, const std::string& dtype, const std::string& shape,
                  const std::string& offsets) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}";
}

const Bytes kOne = f32_bytes({1.0f});
const std::string kX = entry("x", "F32", "[1]", "[0,4]");  // a valid entry for kOne

std::string header_of(const Bytes& file) {
  const std::uint64_t n = get_u64(file);
  return std::string(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
}

}  // namespace

// ---- Writer ----------------------------------------------------------------------------------

TEST_CASE("writer: exact bytes of small files, worked out from the specification") {
  SECTION("one tensor whose header is 64 bytes: no padding") {
    const Bytes out = write_safetensors({{"attn.0", Tensor::from_vector({1, 2, 3}, {0, 1, 2, 3, 4, 5})}});
    REQUIRE(out == file_of(R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})",
                           f32_bytes({0, 1, 2, 3, 4, 5})));
    REQUIRE(out.size() == 8 + 64 + 24);
  }
  SECTION("a header of 65 bytes is padded with 7 spaces to 72") {
    const Bytes out = write_safetensors({{"attn0", Tensor::from_vector({1, 1, 2, 3}, {0, 1, 2, 3, 4, 5})}});
    REQUIRE(out == file_of(R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})"
                           "       ",
                           f32_bytes({0, 1, 2, 3, 4, 5})));
  }
  SECTION("no tensors: {} and 6 spaces") {
    REQUIRE(write_safetensors({}) == Bytes{8, 0, 0, 0, 0, 0, 0, 0, '{', '}', ' ', ' ', ' ', ' ', ' ', ' '});
  }
  SECTION("metadata only: 35 bytes padded to 40") {
    REQUIRE(write_safetensors({}, {{"framework", "pt"}}) == file_of(R"({"__metadata__":{"framework":"pt"}}     )"));
  }
  SECTION("metadata first, tensors by name, offsets contiguous from 0") {
    const Bytes out =
        write_safetensors({{"b", Tensor::from_vector({2}, {1.0f, 2.0f})}, {"a", Tensor::from_vector({1, 1}, {3.0f})}},
                          {{"format", "pt"}});
    REQUIRE(out == file_of(R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},)"
                           R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}   )",
                           f32_bytes({3.0f, 1.0f, 2.0f})));
  }
  SECTION("a 0-d tensor has shape [] and one element") {
    REQUIRE(write_safetensors({{"s", Tensor::from_vector({}, {7.0f})}}) ==
            file_of(R"({"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}   )", f32_bytes({7.0f})));
  }
}

TEST_CASE("writer: names ordered bytewise, every header padded so the data starts at a multiple of 8") {
  std::vector<NamedTensor> tensors;
  for (const char* name : {"b", "\xC3\xA9", "a_b", "a0", "B", "a", "a.b"})
    tensors.push_back({name, Tensor::from_vector({1}, {1.0f})});
  const Bytes out = write_safetensors(tensors);
  const std::string header = header_of(out);
  const std::vector<std::string> sorted{"B",   "a", "a.b",     "a0",
                                        "a_b", "b", "\xC3\xA9"};  // byte values 42 61 2E 30 5F 62 C3
  std::size_t last = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const std::size_t at = header.find("\"" + sorted[i] + "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[" +
                                       std::to_string(4 * i) + "," + std::to_string(4 * i + 4) + "]}");
    INFO(sorted[i]);
    REQUIRE(at != std::string::npos);
    REQUIRE(at >= last);
    last = at;
  }
  const SafetensorsFile back = read(out);
  REQUIRE(back.tensors.size() == sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) REQUIRE(back.tensors[i].name == sorted[i]);

  for (std::size_t length = 1; length <= 16; ++length) {
    const Bytes one = write_safetensors({{std::string(length, 'w'), Tensor::from_vector({1}, {1.0f})}});
    const std::string h = header_of(one);
    const std::size_t json_end = h.find_last_of('}') + 1;
    INFO("name length " << length);
    REQUIRE(h.size() % 8 == 0);
    REQUIRE(h.size() - json_end < 8);
    REQUIRE(h.find_first_not_of(' ', json_end) == std::string::npos);
    REQUIRE(json_end ==
            2 + (length + 2) + 1 + 48);  // {} + "name" + : + {"dtype":"F32","shape":[1],"data_offsets":[0,4]}
  }
}

TEST_CASE("writer: strings escaped as serde_json writes them, UTF-8 kept as is") {
  const std::string name = "q\"b\\s/\n\t\b\f\r\x01\x1f\x7f \xC3\xA9 \xF0\x9F\x98\x80";
  const Bytes out = write_safetensors({{name, Tensor::from_vector({1}, {1.0f})}}, {{"k\n", "v\"\\"}});
  const std::string header = header_of(out);
  REQUIRE(header.find(R"("__metadata__":{"k\n":"v\"\\"})") != std::string::npos);
  REQUIRE(header.find("\"q\\\"b\\\\s/\\n\\t\\b\\f\\r\\u0001\\u001f\x7f \xC3\xA9 \xF0\x9F\x98\x80\":{") !=
          std::string::npos);
  const SafetensorsFile back = read(out);
  REQUIRE(back.tensors[0].name == name);
  REQUIRE(back.metadata == Metadata{{"k\n", "v\"\\"}});
}

TEST_CASE("writer: refuses what the reader would refuse") {
  const Tensor one = Tensor::from_vector({1}, {1.0f});
  REQUIRE_ERROR_MENTIONS(write_safetensors({{"a", one}, {"a", one}}), "two tensors named 'a'");
  REQUIRE_ERROR_MENTIONS(write_safetensors({{"__metadata__", one}}), "cannot be named '__metadata__'");
  REQUIRE_ERROR_MENTIONS(write_safetensors({{"bad\xFF", one}}), "UTF-8");
  REQUIRE_ERROR_MENTIONS(write_safetensors({{"a", one}}, {{"k", "1"}, {"k", "2"}}), "two metadata entries named 'k'");
  REQUIRE_ERROR_MENTIONS(write_safetensors({{"a", one}}, {{"k", "\xC0\x80"}}), "metadata 'k' is not UTF-8");
  REQUIRE_ERROR_MENTIONS(write_safetensors({{"e", Tensor()}}), "tensor 'e' is empty");
}

// ---- Round trips -----------------------------------------------------------------------------

TEST_CASE("round trip: values bit for bit, names, shapes, metadata in its order, non-contiguous inputs") {
  MultiHeadAttention m({8, 2}, std::make_shared<Generator>(4));
  const auto sd = m.state_dict();
  const Metadata meta{{"format", "pt"}, {"zeta", "last key first"}, {"", "empty key"}, {"\xE4\xB8\xAD", ""}};
  const SafetensorsFile f = read(write_safetensors(sd, meta));
  REQUIRE(f.metadata == meta);
  REQUIRE(f.tensors.size() == sd.size());
  for (const NamedTensor& t : f.tensors) {
    const auto same = std::find_if(sd.begin(), sd.end(), [&](const NamedTensor& s) { return s.name == t.name; });
    REQUIRE(same != sd.end());
    REQUIRE(t.value.shape() == same->value.shape());
    REQUIRE(t.value.to_vector() == same->value.to_vector());
  }
  MultiHeadAttention other({8, 2}, std::make_shared<Generator>(5));
  other.load_state_dict(f.tensors);
  for (std::size_t i = 0; i < sd.size(); ++i)
    REQUIRE(other.state_dict()[i].value.to_vector() == sd[i].value.to_vector());

  const std::vector<std::uint32_t> special{0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC12345,
                                           0x7F812345, 0x00000001, 0x007FFFFF, 0x7F7FFFFF, 0x3F800001, 0xC2F6E979};
  std::vector<float> values;
  for (std::uint32_t b : special) values.push_back(from_bits(b));
  const Tensor grid = Tensor::from_vector({3, 4}, values);
  const SafetensorsFile g = read(write_safetensors({{"special", grid}, {"t", grid.transpose(0, 1)}}));
  REQUIRE(g.tensors[0].name == "special");
  for (std::size_t i = 0; i < special.size(); ++i) REQUIRE(bits(g.tensors[0].value.data()[i]) == special[i]);
  REQUIRE(g.tensors[1].value.shape() == Shape{4, 3});
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 3; ++c) REQUIRE(bits(g.tensors[1].value.data()[r * 3 + c]) == special[c * 4 + r]);
}

// ---- Decoding --------------------------------------------------------------------------------

TEST_CASE("F16 is converted to float32 exactly: zeros, subnormals, normals, infinities, NaN payloads") {
  const std::vector<std::uint16_t> in{0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x3C01,
                                      0xC100, 0x3555, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0xFE01};
  const std::vector<float> expected{0.0f,
                                    -0.0f,
                                    std::ldexp(1.0f, -24),
                                    std::ldexp(1023.0f, -24),
                                    std::ldexp(1.0f, -14),
                                    1.0f,
                                    1.0f + std::ldexp(1.0f, -10),
                                    -2.5f,
                                    0.333251953125f,
                                    65504.0f,
                                    INFINITY,
                                    -INFINITY,
                                    from_bits(0x7FC00000),
                                    from_bits(0xFFC02000)};
  Bytes data;
  for (std::uint16_t h : in)
    data.push_back(static_cast<std::uint8_t>(h)), data.push_back(static_cast<std::uint8_t>(h >> 8));
  const std::string n = std::to_string(in.size());
  const SafetensorsFile f =
      read(file_of("{" + entry("h", "F16", "[" + n + "]", "[0," + std::to_string(2 * in.size()) + "]") + "}", data));
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO("half 0x" << std::hex << in[i]);
    REQUIRE(bits(f.tensors[0].value.data()[i]) == bits(expected[i]));
  }
}

TEST_CASE("BF16 is the high half of a float32: subnormals, infinities, NaN payloads") {
  const SafetensorsFile f = read(file_of("{" + entry("b", "BF16", "[2,4]", "[0,16]") + "}",
                                         u16_bytes({0x3F80, 0xBF00, 0x0001, 0x4049, 0x7F80, 0xFF80, 0x7FC1, 0x8000})));
  const std::vector<float> expected{1.0f,     -0.5f,     std::ldexp(1.0f, -133), 3.140625f,
                                    INFINITY, -INFINITY, from_bits(0x7FC10000),  -0.0f};
  REQUIRE(f.tensors[0].value.shape() == Shape{2, 4});
  for (std::size_t i = 0; i < expected.size(); ++i) REQUIRE(bits(f.tensors[0].value.data()[i]) == bits(expected[i]));
}

TEST_CASE("F64 is rounded to the nearest float32, ties to even") {
  const double one_and_half_ulp = 1.0 + 3.0 * std::ldexp(1.0, -24);  // halfway between 1 + 2^-23 and 1 + 2^-22
  const SafetensorsFile f = read(file_of("{" + entry("d", "F64", "[9]", "[0,72]") + "}",
                                         f64_bytes({0.1, -0.0, 1e300, -1e300, 1e-50, 1.0 + std::ldexp(1.0, -24),
                                                    one_and_half_ulp, std::ldexp(1.0, -149), NAN})));
  const float* d = f.tensors[0].value.data();
  REQUIRE(d[0] == 0.1f);
  REQUIRE(bits(d[1]) == 0x80000000u);
  REQUIRE(d[2] == INFINITY);
  REQUIRE(d[3] == -INFINITY);
  REQUIRE(bits(d[4]) == 0u);
  REQUIRE(d[5] == 1.0f);
  REQUIRE(d[6] == 1.0f + std::ldexp(1.0f, -22));
  REQUIRE(d[7] == std::ldexp(1.0f, -149));
  REQUIRE(std::isnan(d[8]));
}

TEST_CASE("the data may start at any address: bytes are copied, never cast") {
  const Bytes file = file_of("{" + entry("a", "F32", "[2]", "[0,8]") + "," + entry("h", "F16", "[1]", "[8,10]") + "," +
                                 entry("d", "F64", "[1]", "[10,18]") + "}",
                             [] {
                               Bytes b = f32_bytes({1.5f, -2.0f});
                               for (std::uint8_t c : u16_bytes({0x3C00})) b.push_back(c);
                               for (std::uint8_t c : f64_bytes({0.25})) b.push_back(c);
                               return b;
                             }());
  for (std::size_t shift = 0; shift < 8; ++shift) {
    std::vector<std::uint8_t> storage(file.size() + shift);
    std::memcpy(storage.data() + shift, file.data(), file.size());
    const SafetensorsFile f = read_safetensors(storage.data() + shift, file.size());
    REQUIRE(f.tensors.size() == 3);
    REQUIRE(f.tensors[0].value.to_vector() == std::vector<float>{1.5f, -2.0f});
    REQUIRE(f.tensors[1].value.to_vector() == std::vector<float>{1.0f});
    REQUIRE(f.tensors[2].value.to_vector() == std::vector<float>{0.25f});
  }
}

TEST_CASE("reader: what a valid file may hold") {
  SECTION("entries in any order are returned in the order of their offsets; scalars have shape []") {
    const SafetensorsFile f =
        read(file_of("{" + entry("z", "F32", "[1]", "[4,8]") + R"(,"__metadata__":{"b":"1","a":"2"},)" +
                         entry("y", "F32", "[]", "[0,4]") + "}",
                     f32_bytes({1.0f, 2.0f})));
    REQUIRE(f.tensors.size() == 2);
    REQUIRE(f.tensors[0].name == "y");
    REQUIRE(f.tensors[0].value.dim() == 0);
    REQUIRE(f.tensors[0].value.to_vector() == std::vector<float>{1.0f});
    REQUIRE(f.tensors[1].name == "z");
    REQUIRE(f.metadata == Metadata{{"b", "1"}, {"a", "2"}});
  }
  SECTION("JSON whitespace anywhere, escapes and surrogate pairs in names") {
    const SafetensorsFile f = read(
        file_of(" \r\n\t{ \"a\\u00e9\\ud83d\\ude00\\/\\\"\" : { \"shape\" : [ 1 ] , \"data_offsets\" : [ 0 , 4 ] , "
                "\"dtype\" : \"F32\" } , \"__metadata__\" : { } }  \n ",
                kOne));
    REQUIRE(f.tensors[0].name == "a\xC3\xA9\xF0\x9F\x98\x80/\"");
    REQUIRE(f.metadata.empty());
  }
  SECTION("no tensors at all") { REQUIRE(read(file_of("{}")).tensors.empty()); }
}

// ---- One test per rule of the reader -----------------------------------------------------------

TEST_CASE("reader rule: at least 8 bytes") {
  for (std::size_t size = 0; size < 8; ++size)
    REQUIRE_ERROR_MENTIONS(read(Bytes(size, 0)), "has " + std::to_string(size) + " bytes, fewer than the 8");
}

TEST_CASE("files often taken for .safetensors are named") {
  const auto bytes = [](const std::string& s) { return Bytes(s.begin(), s.end()); };
  REQUIRE_ERROR_MENTIONS(read(bytes(std::string("PK\x03\x04", 4) + std::string(60, '\0'))),
                         "zip archive, as torch.save writes", "safetensors.torch.save_file(model.state_dict()");
  REQUIRE_ERROR_MENTIONS(read(bytes(std::string("\x80\x02\x8a\x0a", 4) + std::string(40, '\0'))), "Python pickle");
  REQUIRE_ERROR_MENTIONS(read(bytes("\x93NUMPY\x01\x00v")), "NumPy .npy file");
  REQUIRE_ERROR_MENTIONS(read(bytes("{\n  \"cells\": [],\n  \"metadata\": {}\n}\n")), "starts with text (\"{\n  \"cel",
                         "it is a text file, not a .safetensors file");
  // A header length whose first bytes are a pickle's (640 = 0x80 0x02) is read as a length when it fits.
  Bytes pickle_like;
  put_u64(pickle_like, 640);
  pickle_like.push_back('{');
  pickle_like.push_back('}');
  pickle_like.resize(8 + 640, ' ');
  REQUIRE(pickle_like[0] == 0x80);
  REQUIRE(pickle_like[1] == 0x02);
  REQUIRE(read(pickle_like).tensors.empty());
}

TEST_CASE("reader rule: the header length is at most 100,000,000") {
  Bytes b;
  put_u64(b, 100'000'001);
  REQUIRE_ERROR_MENTIONS(read(b), "its length is 100000001 bytes, more than the 100,000,000 allowed");
  b.clear();
  put_u64(b, ~std::uint64_t{0});  // 8 + N would wrap to 7
  REQUIRE_ERROR_MENTIONS(read(b), "18446744073709551615 bytes, more than the 100,000,000 allowed");
}

TEST_CASE("reader rule: the header fits in the file (by subtraction)") {
  Bytes b = file_of("{}");
  b[0] = 50;
  REQUIRE_ERROR_MENTIONS(read(b),
                         "the header says its length is 50 bytes but the file has only 2 bytes after the first 8");
  Bytes c;
  put_u64(c, 1);
  REQUIRE_ERROR_MENTIONS(read(c), "its length is 1 bytes but the file has only 0 bytes");
}

TEST_CASE("reader rule: the header is UTF-8") {
  for (const char* text : {"{\"\xC3\x28\":1}", "{\"\xC0\x80\":1}", "{\"\xED\xA0\x80\":1}", "{\"\xF4\x90\x80\x80\":1}",
                           "{\"\xFF\":1}", "{}\xE2\x82"}) {
    INFO(text);
    REQUIRE_ERROR_MENTIONS(read(file_of(text)), "not valid UTF-8");
  }
}

TEST_CASE("reader rule: the header is a JSON object") {
  for (const char* text : {"", "   ", "[1, 2]", "\"x\"", "1", "null"})
    REQUIRE_ERROR_MENTIONS(read(file_of(text)), "its header is not a JSON object");
}

TEST_CASE("reader rule: the header is strict JSON, with the position of the error") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"{\"a\": }", "unexpected character '}'"},
      {"{\"__metadata__\":{\"a\":\"1\",}}", "expected a key in double quotes"},
      {"{a:1}", "expected a key in double quotes"},
      {"{'a':1}", "expected a key in double quotes"},
      {"{\"a\" 1}", "expected ':' after the key 'a'"},
      {"{\"__metadata__\":{\"a\":\"1\" \"b\":\"2\"}}", "expected ',' or '}'"},
      {"{\"a\":[1 2]}", "expected ',' or ']'"},
      {"{\"a\":[1,2}", "expected ',' or ']'"},
      {"{\"a\":[1,", "it ends where a value should be"},
      {"{\"__metadata__\":{\"a\":\"1\"", "an object is not closed"},
      {"{\"a", "a string is not closed"},
      {"{\"a\tb\":1}", "control character"},
      {"{\"a\\x\":1}", "unknown escape '\\x'"},
      {"{\"a\\", "a string ends with '\\'"},
      {"{\"\\u12G4\":1}", "four hexadecimal digits"},
      {"{\"\\u12", "cut short"},
      {"{\"\\ud800\":1}", "high surrogate without a low one"},
      {"{\"\\ud800\\u0041\":1}", "high surrogate without a low one"},
      {"{\"\\udc00\":1}", "low surrogate without a high one"},
      {"{\"a\":01}", "leading zero"},
      {"{\"a\":1.}", "no digit after '.'"},
      {"{\"a\":1e}", "empty exponent"},
      {"{\"a\":-}", "unexpected character '}'"},
      {"{\"a\":tru}", "unexpected character 't'"},
      {"{\"a\":+1}", "unexpected character '+'"},
      {"{} x", "unexpected characters after the JSON object"},
      {"{}{}", "unexpected characters after the JSON object"},
      {std::string("{}\0", 3), "unexpected characters after the JSON object"},
  };
  for (const auto& [text, fragment] : cases) {
    INFO(text);
    REQUIRE_ERROR_MENTIONS(read(file_of(text)), std::string("its header is not valid JSON"), fragment,
                           std::string("(at byte "));
  }
  REQUIRE_ERROR_MENTIONS(read(file_of("{\"a\": }")), "(at byte 6 of the header)");
  REQUIRE(read(file_of("{}  \t\r\n")).tensors.empty());
}

TEST_CASE("reader rule: nesting is limited") {
  REQUIRE_ERROR_MENTIONS(read(file_of("{\"a\":" + std::string(40, '['))), "nests deeper than 16 levels");
  REQUIRE_ERROR_MENTIONS(read(file_of("{\"__metadata__\":{\"k\":" + std::string(100000, '['))),
                         "nests deeper than 16 levels");
  std::string deep = "{\"a\":";
  for (int i = 0; i < 20; ++i) deep += "{\"b\":";
  REQUIRE_ERROR_MENTIONS(read(file_of(deep)), "nests deeper than 16 levels");
}

TEST_CASE("reader rule: an entry of the header has at most 64 JSON values") {
  std::string wide = "{\"x\":{\"shape\":[";
  for (int i = 0; i < 100; ++i) wide += i ? ",1" : "1";
  REQUIRE_ERROR_MENTIONS(read(file_of(wide + "]}}")), "the entry of tensor 'x' is too large: more than 64 JSON values");
  std::string list = "{\"__metadata__\":{\"k\":[0";
  for (int i = 0; i < 70; ++i) list += ",0";
  REQUIRE_ERROR_MENTIONS(read(file_of(list + "]}}")), "__metadata__ 'k' is too large");
}

TEST_CASE("reader rule: no duplicate keys at any level") {
  const std::vector<std::string> headers{
      "{" + kX + "," + kX + "}",                                                             // two tensors
      "{\"x\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",  // a field
      R"({"__metadata__":{"a":"1","a":"2"}})",                                               // metadata
      R"({"__metadata__":{},"__metadata__":{}})",                                            // __metadata__ itself
      R"({"__metadata__":{"v":{"b":1,"b":2}}})",                                             // deep inside a value
      R"({"__metadata__":{"x":"1","\u0078":"2"}})",  // the same key, once escaped
  };
  for (const std::string& h : headers) {
    INFO(h);
    REQUIRE_ERROR_MENTIONS(read(file_of(h, kOne)), "twice in one object");
  }
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + kX + "," + kX + "}", kOne)), "the key 'x' twice");
}

TEST_CASE("reader rule: __metadata__ is an object of strings") {
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"__metadata__":["a"]})")),
                         "__metadata__ is an array; it must be an object of strings");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"__metadata__":null})")), "__metadata__ is null");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"__metadata__":{"a":1}})")),
                         "__metadata__ 'a' is the number '1'; metadata values must be strings");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"__metadata__":{"a":"x","b":true}})")), "__metadata__ 'b' is true");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"__metadata__":{"a":{}}})")), "__metadata__ 'a' is an object");
}

TEST_CASE("reader rule: a tensor is an object with exactly dtype, shape and data_offsets") {
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":[0,4]})", kOne)),
                         "tensor 'x' is described by an array, not by an object");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":"F32"})", kOne)), "tensor 'x' is described by the string 'F32'");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}})", kOne)),
                         "tensor 'x' has an unknown field 'extra'");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"shape":[1],"data_offsets":[0,4]}})", kOne)), "tensor 'x' has no dtype");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","data_offsets":[0,4]}})", kOne)),
                         "tensor 'x' has no shape");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1]}})", kOne)), "tensor 'x' has no data_offsets");
}

TEST_CASE("reader rule: dtype is F32, F16, BF16 or F64, others rejected by name") {
  for (const char* dtype : {"I8", "U8", "BOOL", "I64", "F8_E4M3", "f32", ""}) {
    const std::string d = dtype;
    REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("W_q.weight", d, "[1]", "[0,1]") + "}", {1})),
                           "tensor 'W_q.weight': dtype '" + d + "' is not supported; supported: F32, F16, BF16, F64");
  }
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":4,"shape":[1],"data_offsets":[0,4]}})", kOne)),
                         "tensor 'x': dtype is the number '4'; it must be a string");
}

TEST_CASE("reader rule: shape is an array of at most 8 whole numbers") {
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "1", "[0,4]") + "}", kOne)),
                         "tensor 'x': shape is the number '1'; it must be an array");
  for (const char* size : {"1.0", "-1", "1e2", "1E0", "-0", "9007199254740993", "123456789012345678901234567890"}) {
    INFO(size);
    REQUIRE_ERROR_MENTIONS(
        read(file_of("{" + entry("x", "F32", std::string("[1,") + size + "]", "[0,4]") + "}", kOne)),
        std::string("tensor 'x': shape[1] is '") + size + "'; it must be a whole number from 0 to 2^53");
  }
  for (const char* size : {"\"2\"", "true", "null", "[1]"}) {
    INFO(size);
    REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", std::string("[") + size + "]", "[0,4]") + "}", kOne)),
                           "tensor 'x': shape[0] is", "it must be a whole number");
  }
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[1,1,1,1,1,1,1,1,1]", "[0,4]") + "}", kOne)),
                         "tensor 'x' has 9 dimensions; at most 8 are supported");
  REQUIRE(read(file_of("{" + entry("x", "F32", "[1,1,1,1,1,1,1,1]", "[0,4]") + "}", kOne)).tensors[0].value.dim() == 8);
}

TEST_CASE("reader rule: element count and byte size use checked multiplication") {
  // 2^32 · 2^32 wraps to 0 in 64 bits, which with data_offsets [0, 0] would pass the offset checks.
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[4294967296,4294967296]", "[0,0]") + "}")),
                         "tensor 'x': the element count of shape [4294967296, 4294967296] overflows 64 bits");
  // 2^31 · 2^31 = 2^62 elements fit, but 2^62 · 4 bytes wraps to 0.
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[2147483648,2147483648]", "[0,0]") + "}")),
                         "the byte size of shape [2147483648, 2147483648] in F32 overflows 64 bits");
  // A zero makes the count 0, but the other sizes still may not overflow.
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[0,4294967296,4294967296]", "[0,0]") + "}")),
                         "the element count of shape [0, 4294967296, 4294967296] overflows");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F64", "[0,2147483648,2147483648]", "[0,0]") + "}")),
                         "the byte size of shape [0, 2147483648, 2147483648] in F64 overflows");
}

TEST_CASE("reader rule: empty tensors are valid safetensors but not supported here") {
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[0]", "[0,0]") + "}")),
                         "tensor 'x' is empty (shape [0]); empty tensors are not supported");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("e", "F32", "[3,0,4294967296]", "[4,4]") + "," + kX + "}", kOne)),
                         "tensor 'e' is empty (shape [3, 0, 4294967296])");
  // Every other rule is checked first.
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[0]", "[0,0]") + "}", kOne)),
                         "4 bytes after the last tensor");
}

TEST_CASE("reader rule: tensors respect the core's shape caps") {
  const Bytes big = file_of("{" + entry("big", "BF16", "[16777217,1]", "[0,33554434]") + "}", Bytes(33554434, 0));
  REQUIRE_ERROR_MENTIONS(read_safetensors(big.data(), big.size()), "tensor 'big' has shape [16777217, 1]",
                         "every size must be between 1 and 16777216");
}

TEST_CASE("reader rule: data_offsets are two whole numbers with END >= BEGIN") {
  for (const char* offsets : {"4", "[0]", "[0,4,8]", "{}", "\"0,4\""}) {
    INFO(offsets);
    REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[1]", offsets) + "}", kOne)),
                           "tensor 'x': data_offsets must be an array of two whole numbers");
  }
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[1]", "[0,9007199254740993]") + "}", kOne)),
                         "data_offsets[1] is '9007199254740993'; it must be a whole number from 0 to 2^53");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[1]", "[0.0,4]") + "}", kOne)),
                         "data_offsets[0] is '0.0'");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[1]", "[-4,0]") + "}", kOne)),
                         "data_offsets[0] is '-4'");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[1]", "[0,4e0]") + "}", kOne)),
                         "data_offsets[1] is '4e0'");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[1]", "[0,null]") + "}", kOne)),
                         "data_offsets[1] is null");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[1]", "[4,0]") + "}", kOne)),
                         "tensor 'x': data_offsets [4, 0] end before they begin");
}

TEST_CASE("reader rule: END - BEGIN is the tensor's byte size") {
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[2]", "[0,4]") + "}", kOne)),
                         "tensor 'x' of shape [2] and dtype F32 needs 8 bytes, but its data_offsets [0, 4] cover 4");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F16", "[2,3]", "[0,6]") + "}", Bytes(6, 0))),
                         "dtype F16 needs 12 bytes");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F64", "[]", "[0,4]") + "}", kOne)),
                         "of shape [] and dtype F64 needs 8 bytes");
}

TEST_CASE("reader rule: offsets sorted are contiguous from 0, without gap or overlap") {
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + entry("x", "F32", "[1]", "[4,8]") + "}", f32_bytes({1, 2}))),
                         "tensor 'x' leaves a gap before it (its data starts at byte 4 of the data, expected 0)");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + kX + "," + entry("y", "F32", "[1]", "[8,12]") + "}", f32_bytes({1, 2, 3}))),
                         "tensor 'y' leaves a gap before it (its data starts at byte 8 of the data, expected 4)");
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + kX + "," + entry("y", "F32", "[1]", "[0,4]") + "}", kOne)),
                         "overlaps the tensor before it");
  REQUIRE_ERROR_MENTIONS(
      read(file_of("{" + entry("x", "F32", "[2]", "[0,8]") + "," + entry("y", "F32", "[1]", "[4,8]") + "}",
                   f32_bytes({1, 2}))),
      "tensor 'y' overlaps the tensor before it (its data starts at byte 4 of the data, expected 8)");
}

TEST_CASE("reader rule: the last END is the end of the file") {
  REQUIRE_ERROR_MENTIONS(read(file_of("{" + kX + "}", f32_bytes({1, 2}))),
                         "it has 4 bytes after the last tensor's data");
  REQUIRE_ERROR_MENTIONS(read(file_of("{}", {0})), "it has 1 bytes after its header, which describes no tensor");
  REQUIRE_ERROR_MENTIONS(
      read(file_of("{" + entry("x", "F32", "[2]", "[0,8]") + "}", kOne)),
      "its tensors need 8 bytes of data but the file has only 4 after the header (is it cut short?)");
}

TEST_CASE("reader: long names are cut in messages at a character boundary") {
  std::string name;
  for (int i = 0; i < 100; ++i) name += "\xC3\xA9";  // 200 bytes of two-byte characters
  try {
    read(file_of("{" + entry(name, "I8", "[1]", "[0,1]") + "}", {1}));
    FAIL("expected an error");
  } catch (const Error& e) {
    const std::string message = e.what();
    REQUIRE(message.find(name.substr(0, 80) + "...' (200 bytes)") != std::string::npos);
  }
}

// ---- Fuzz --------------------------------------------------------------------------------------

namespace {

// A message without its quoted text and numbers: which rule rejected the file.
std::string rule_of(const std::string& message) {
  std::string out;
  bool quoted = false;
  for (const char c : message) {
    if (c == '\'') quoted = !quoted;
    else if (!quoted && !(c >= '0' && c <= '9')) out += c;
  }
  return out;
}

}  // namespace

TEST_CASE("fuzz: 12,000 mutated files each parse or throw mha::Error, nothing else") {
  MultiHeadAttention m({8, 2}, std::make_shared<Generator>(0));
  const std::vector<Bytes> seeds{
      write_safetensors(m.state_dict(), {{"format", "pt"}}),
      file_of("{" + entry("x", "F16", "[2,1]", "[0,4]") + "," + entry("y", "BF16", "[1]", "[4,6]") + "}",
              u16_bytes({0x3C00, 0xC100, 0x3F80})),
      file_of(R"({"__metadata__":{"k\u00e9":"v\ud83d\ude00","a":"b"},)" + entry("s", "F64", "[]", "[0,8]") + "," +
                  entry("m", "F32", "[2,1,1]", "[8,16]") + "}  ",
              [] {
                Bytes b = f64_bytes({-3.5});
                for (std::uint8_t c : f32_bytes({1.0f, 2.0f})) b.push_back(c);
                return b;
              }()),
  };
  for (const Bytes& s : seeds) REQUIRE_NOTHROW(read(s));

  std::mt19937 gen(20261122);
  const auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(gen() % n); };
  const std::string alphabet = "{}[]\",:0123456789.-+eE \\u/tfnlrsa\x7f\xc3\xff";
  const std::vector<std::string> numbers{"0",
                                         "1",
                                         "4294967296",
                                         "18446744073709551615",
                                         "18446744073709551616",
                                         "9007199254740992",
                                         "9007199254740993",
                                         "-1",
                                         "1e2",
                                         "1.5",
                                         "00",
                                         "-0",
                                         "99999999999999999999999"};
  const auto set_length = [](Bytes& b, std::uint64_t n) {
    for (int k = 0; k < 8; ++k) b[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(n >> (8 * k));
  };
  constexpr int kMutations = 12000;
  int parsed = 0, rejected = 0;
  std::set<std::string> messages;  // the rules that rejected a file
  for (int i = 0; i < kMutations; ++i) {
    Bytes b = seeds[static_cast<std::size_t>(i) % seeds.size()];
    const std::uint64_t n = get_u64(b);
    const std::size_t header_byte = 8 + pick(static_cast<std::size_t>(n));
    switch (pick(10)) {
      case 0:  // bit flips anywhere
        for (std::size_t k = 0, c = 1 + pick(4); k < c; ++k)
          b[pick(b.size())] ^= static_cast<std::uint8_t>(1u << pick(8));
        break;
      case 1:  // byte overwrites anywhere
        for (std::size_t k = 0, c = 1 + pick(4); k < c; ++k) b[pick(b.size())] = static_cast<std::uint8_t>(gen());
        break;
      case 2: b.resize(pick(b.size())); break;                                             // truncation
      case 3: b.resize(b.size() + 1 + pick(16), static_cast<std::uint8_t>(gen())); break;  // extension
      case 4:  // the header length: random, near the true one, or huge
        switch (pick(3)) {
          case 0: set_length(b, (std::uint64_t{gen()} << 32) | gen()); break;
          case 1: set_length(b, n + pick(17) - 8); break;
          default: set_length(b, n | (std::uint64_t{1} << (32 + pick(32)))); break;
        }
        break;
      case 5: b[header_byte] = static_cast<std::uint8_t>(alphabet[pick(alphabet.size())]); break;
      case 6:  // remove a header byte, the length kept or corrected
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(header_byte));
        if (pick(2)) set_length(b, n - 1);
        break;
      case 7:  // insert a header byte, the length kept or corrected
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(header_byte),
                 static_cast<std::uint8_t>(alphabet[pick(alphabet.size())]));
        if (pick(2)) set_length(b, n + 1);
        break;
      case 8: {  // swap two digits of the header (offsets, shapes), or change one
        std::vector<std::size_t> digits;
        for (std::size_t k = 8; k < 8 + n; ++k)
          if (b[k] >= '0' && b[k] <= '9') digits.push_back(k);
        if (digits.empty()) break;
        if (pick(2)) std::swap(b[digits[pick(digits.size())]], b[digits[pick(digits.size())]]);
        else b[digits[pick(digits.size())]] = static_cast<std::uint8_t>('0' + pick(10));
        break;
      }
      default: {  // replace a number of the header by an awkward one, the length corrected
        std::string header(b.begin() + 8, b.begin() + 8 + static_cast<std::ptrdiff_t>(n));
        const std::size_t start = header.find_first_of("0123456789", pick(header.size()));
        if (start == std::string::npos) break;
        const std::size_t end = header.find_first_not_of("0123456789", start);
        header.replace(start, (end == std::string::npos ? header.size() : end) - start, numbers[pick(numbers.size())]);
        Bytes rebuilt = file_of(header);
        rebuilt.insert(rebuilt.end(), b.begin() + 8 + static_cast<std::ptrdiff_t>(n), b.end());
        b = std::move(rebuilt);
      }
    }
    try {
      const SafetensorsFile f = read(b);
      std::set<std::string> names;
      for (const NamedTensor& t : f.tensors) {
        REQUIRE(t.value.numel() >= 1);
        REQUIRE(names.insert(t.name).second);
      }
      ++parsed;
    } catch (const Error& e) {
      messages.insert(rule_of(e.what()));
      ++rejected;
    } catch (const std::exception& e) {
      FAIL("mutation " << i << " threw something other than mha::Error: " << e.what());
    } catch (...) {
      FAIL("mutation " << i << " threw something other than a std::exception");
    }
  }
  REQUIRE(parsed + rejected == kMutations);
  REQUIRE(parsed > 500);          // flips in the data keep a file valid
  REQUIRE(rejected > 5000);       // most mutations break it
  REQUIRE(messages.size() > 30);  // by many different rules (44 with this seed)
}
