// Strict JSON (RFC 8259) for untrusted files: safetensors headers, config.json,
// model.safetensors.index.json. Internal to the core (not a public header).
//
//   json::Value config = json::parse(text, "config.json");       // a whole document
//   if (const json::Value* n = config.find("n_layer")) ...
//
// or, streaming a large object member by member (the safetensors header):
//
//   json::Parser p(bytes, size, "this is not a valid .safetensors file: its header", "the header");
//   p.object([&](const std::string& key) { p.limit(64, "... is too large"); use(p.value(1)); });
//   p.finish();
//
// Duplicate keys are errors at every level; nesting depth and the number of values built are
// limited, so a hostile file cannot make a parse tree many times its own size. Every error is an
// mha::Error whose message starts with the subject given to the parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mha::json {

constexpr int kMaxDepth = 16;
constexpr std::uint64_t kMaxWhole = std::uint64_t{1} << 53;  // beyond it JSON numbers are not exact doubles

struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool whole = false;      // Number: digits only (no sign, '.', exponent), at most 2^53
  std::uint64_t uint = 0;  // Number, when whole
  std::string text;        // String: decoded; Number: as written; Bool: "true" or "false"
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> members;  // in file order

  const Value* find(const std::string& key) const;  // an Object's member, or nullptr
  double number() const;                            // a Number's value, rounded to the nearest double
};

using Json = Value;  // the name core/src/models' stand-in used

// Text from a file, for a message: quoted, and cut (at a UTF-8 boundary) when long.
std::string quoted(const std::string& s);
// "null", "true", "the number '1.5'", "the string 'x'", "an array", "an object".
std::string kind_name(const Value& v);
// Well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool valid_utf8(const unsigned char* s, std::size_t n);
bool valid_utf8(const std::string& s);

// Over text already checked to be UTF-8. Messages read
//   "<subject> is not valid JSON: <why> (at byte <i> of <unit>)".
class Parser {
 public:
  Parser(const char* p, std::size_t n, std::string subject, std::string unit, int max_depth = kMaxDepth);

  // Skips whitespace; true when the next character is c.
  bool at(char c);

  // The next value() calls may build at most `values` values; beyond that mha::Error(message).
  void limit(std::size_t values, std::string message);

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
      if (!at(':')) fail("expected ':' after the key " + json::quoted(key));  // qualified: std::quoted is found by ADL
      ++p_;
      if (!seen.insert(key).second) duplicate(key);
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

  Value value(int depth);

  // Only whitespace may follow the top-level object (the reference writer pads with spaces).
  void finish();

  [[noreturn]] void fail(const std::string& why);

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
  std::string subject_, unit_;
  int max_depth_;
  std::size_t budget_ = 0;
  std::string budget_message_;

  [[noreturn]] void duplicate(const std::string& key);
  void skip_space();
  bool digit() const;
  Value number();
  std::uint32_t hex4();
  std::string string();
};

// A whole document: UTF-8, one JSON object and whitespace, at most `max_values` values. `name`
// (the file's name) is the subject of every message.
Value parse(const std::string& text, const std::string& name, std::size_t max_values = 1'000'000);

}  // namespace mha::json
