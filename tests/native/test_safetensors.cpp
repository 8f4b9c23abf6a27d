// safetensors: the writer's exact bytes, round trips, every rule of the reader with its own message,
// F16/BF16/F64 decoding, and a fuzz of 10,000 mutated files (run under ASan+UBSan in
// native-sanitize): each parses or throws mha::Error, nothing else.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "mha/mha.hpp"
#include "test_support.hpp"

using namespace mha;

namespace {

std::vector<std::uint8_t> file_of(const std::string& header, const std::vector<std::uint8_t>& data = {}) {
  std::vector<std::uint8_t> out;
  out.reserve(8 + header.size() + data.size());
  const std::uint64_t n = header.size();
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<std::uint8_t>(n >> (8 * k)));
  for (char c : header) out.push_back(static_cast<std::uint8_t>(c));
  for (std::uint8_t c : data) out.push_back(c);
  return out;
}

SafetensorsFile read(const std::vector<std::uint8_t>& bytes) { return read_safetensors(bytes.data(), bytes.size()); }

std::vector<std::uint8_t> f32_bytes(std::initializer_list<float> values) {
  std::vector<std::uint8_t> out;
  for (float v : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(bits >> (8 * k)));
  }
  return out;
}

}  // namespace

TEST_CASE("the writer's bytes follow the reference writer: sorted names, offsets from 0, header padded to 8") {
  const std::vector<NamedTensor> tensors{{"b", Tensor::from_vector({2}, {1.0f, 2.0f})}, {"a", Tensor::from_vector({1, 1}, {3.0f})}};
  const std::vector<std::uint8_t> bytes = write_safetensors(tensors, {{"format", "pt"}});
  const std::string expected_header =
      R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},)"
      R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
  std::uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = n << 8 | bytes[k];
  REQUIRE(n % 8 == 0);
  REQUIRE((8 + n) % 8 == 0);
  const std::string header(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(n));
  REQUIRE(header.substr(0, expected_header.size()) == expected_header);
  REQUIRE(header.find_first_not_of(' ', expected_header.size()) == std::string::npos);
  REQUIRE(std::vector<std::uint8_t>(bytes.begin() + 8 + static_cast<std::ptrdiff_t>(n), bytes.end()) == f32_bytes({3.0f, 1.0f, 2.0f}));
  const SafetensorsFile back = read(bytes);
  REQUIRE(back.tensors.size() == 2);
  REQUIRE(back.tensors[0].name == "a");
  REQUIRE(back.tensors[1].value.to_vector() == std::vector<float>{1.0f, 2.0f});
  REQUIRE(back.metadata == std::vector<std::pair<std::string, std::string>>{{"format", "pt"}});
}

TEST_CASE("a module's state_dict round-trips bit for bit, names with escapes and Unicode too") {
  MultiHeadAttention m({8, 2}, std::make_shared<Generator>(4));
  const auto sd = m.state_dict();
  const SafetensorsFile f = read(write_safetensors(sd));
  MultiHeadAttention other({8, 2}, std::make_shared<Generator>(5));
  other.load_state_dict(f.tensors);
  for (std::size_t i = 0; i < sd.size(); ++i) REQUIRE(other.state_dict()[i].value.to_vector() == sd[i].value.to_vector());
  const std::string odd = "quote\" back\\slash \x01 é 中 \xF0\x9F\x98\x80";
  const SafetensorsFile g = read(write_safetensors({{odd, Tensor::from_vector({1}, {NAN})}}));
  REQUIRE(g.tensors[0].name == odd);
  REQUIRE(std::isnan(g.tensors[0].value.data()[0]));
}

TEST_CASE("F16, BF16 and F64 are read as float32 exactly (subnormals, infinities, NaN)") {
  // F16: 1.0 = 0x3C00, -2.5 = 0xC100, smallest subnormal 0x0001 = 2^-24, +inf 0x7C00, NaN 0x7E00
  const SafetensorsFile h = read(file_of(R"({"x":{"dtype":"F16","shape":[5],"data_offsets":[0,10]}})",
                                         {0x00, 0x3C, 0x00, 0xC1, 0x01, 0x00, 0x00, 0x7C, 0x00, 0x7E}));
  const float* x = h.tensors[0].value.data();
  REQUIRE(x[0] == 1.0f);
  REQUIRE(x[1] == -2.5f);
  REQUIRE(x[2] == std::ldexp(1.0f, -24));
  REQUIRE(x[3] == INFINITY);
  REQUIRE(std::isnan(x[4]));
  // BF16: the high half of a float32: 1.0 = 0x3F80, -0.5 = 0xBF00
  const SafetensorsFile b = read(file_of(R"({"x":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})", {0x80, 0x3F, 0x00, 0xBF}));
  REQUIRE(b.tensors[0].value.to_vector() == std::vector<float>{1.0f, -0.5f});
  // F64 0.1 rounds to the float32 nearest
  std::vector<std::uint8_t> d(8);
  const double tenth = 0.1;
  std::memcpy(d.data(), &tenth, 8);
  const SafetensorsFile f = read(file_of(R"({"x":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", d));
  REQUIRE(f.tensors[0].value.data()[0] == 0.1f);
}

TEST_CASE("every rule of the reader has its own message") {
  const auto one = f32_bytes({1.0f});
  REQUIRE_ERROR_MENTIONS(read_safetensors(one.data(), 4), "fewer than the 8");
  std::vector<std::uint8_t> huge(16, 0);
  huge[4] = 0x10;  // 2^36
  REQUIRE_ERROR_MENTIONS(read(huge), "more than the 100,000,000 allowed");
  std::vector<std::uint8_t> longer = file_of("{}");
  longer[0] = 50;
  REQUIRE_ERROR_MENTIONS(read(longer), "the header says its length is 50 bytes but the file has only 2");
  REQUIRE_ERROR_MENTIONS(read(file_of("{\"\xC3\x28\":1}")), "not valid UTF-8");
  REQUIRE_ERROR_MENTIONS(read(file_of("[1, 2]")), "not a JSON object");
  REQUIRE_ERROR_MENTIONS(read(file_of("{\"a\": }")), "not valid JSON");
  REQUIRE_ERROR_MENTIONS(read(file_of("{} x")), "unexpected characters after the JSON object");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", one)),
                         "names 'x' twice");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"__metadata__":{"a":1}})")), "__metadata__ 'a' is not a string");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}})", one)), "unknown field 'extra'");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"I8","shape":[1],"data_offsets":[0,1]}})", {1})), "dtype 'I8' is not supported");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", one)), "whole number");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", one)), "whole number");
  // 2^32 · 2^32 wraps to 0 in 64-bit arithmetic: caught by the checked product
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})")), "too large");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", one)), "needs 8 bytes, but its data_offsets cover 4");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", one)), "end before they begin");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", f32_bytes({1, 2}))), "leaves a gap");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"y":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", one)),
                         "overlaps");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", f32_bytes({1, 2}))), "4 bytes after the last tensor");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", one)), "need 8 bytes of data but the file has 4");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}})")), "empty tensors are not supported");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}})", one)), "at most 8");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,9007199254740993]}})", one)), "two whole numbers");
  REQUIRE_ERROR_MENTIONS(read(file_of(R"({"a\ud800":1})")), "unpaired surrogate");
  std::string deep(40, '[');
  REQUIRE_ERROR_MENTIONS(read(file_of("{\"a\":" + deep)), "nested too deeply");
}

TEST_CASE("a fuzz of 10,000 mutated files: each parses or throws mha::Error") {
  MultiHeadAttention m({8, 2}, std::make_shared<Generator>(0));
  const std::vector<std::vector<std::uint8_t>> seeds{
      write_safetensors(m.state_dict(), {{"format", "pt"}}),
      file_of(R"({"x":{"dtype":"F16","shape":[2,1],"data_offsets":[0,4]},"y":{"dtype":"BF16","shape":[1],"data_offsets":[4,6]}})", {0, 0x3C, 0, 0xC1, 0x80, 0x3F}),
  };
  std::mt19937 gen(20261122);
  const auto pick = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(gen() % n); };
  const std::string alphabet = "{}[]\",:0123456789.-eE \\u";
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 10000; ++i) {
    std::vector<std::uint8_t> b = seeds[static_cast<std::size_t>(i) % seeds.size()];
    std::uint64_t n = 0;
    for (int k = 7; k >= 0; --k) n = n << 8 | b[k];
    switch (pick(7)) {
      case 0: for (std::size_t k = 0, c = 1 + pick(4); k < c; ++k) b[pick(b.size())] ^= static_cast<std::uint8_t>(1u << pick(8)); break;
      case 1: b.resize(pick(b.size())); break;
      case 2: b.resize(b.size() + 1 + pick(16), static_cast<std::uint8_t>(gen())); break;
      case 3: for (int k = 0; k < 8; ++k) b[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(gen()); if (pick(2)) for (int k = 4; k < 8; ++k) b[static_cast<std::size_t>(k)] = 0; break;
      case 4: b[8 + pick(n)] = static_cast<std::uint8_t>(alphabet[pick(alphabet.size())]); break;
      case 5: b.erase(b.begin() + static_cast<std::ptrdiff_t>(8 + pick(n))); break;
      default: {  // swap two digits inside the header (offsets, shapes)
        std::vector<std::size_t> digits;
        for (std::size_t k = 8; k < 8 + n; ++k) if (b[k] >= '0' && b[k] <= '9') digits.push_back(k);
        if (digits.size() >= 2) std::swap(b[digits[pick(digits.size())]], b[digits[pick(digits.size())]]);
        b[digits.empty() ? 8 : digits[pick(digits.size())]] = static_cast<std::uint8_t>('0' + pick(10));
      }
    }
    try {
      const SafetensorsFile f = read_safetensors(b.data(), b.size());
      ++parsed;
    } catch (const Error& e) {
      REQUIRE(std::strlen(e.what()) > 10);
      ++rejected;
    }
  }
  REQUIRE(parsed + rejected == 10000);
  REQUIRE(rejected > 5000);
}
