// The strict JSON parser of json.hpp (safetensors headers, config.json, shard indexes): UTF-8 checked, limits on depth
// and size, duplicate keys refused, each failure a message naming the file.
#include "ground/json.hpp"

#include <cstdlib>
#include <cstring>

#include "mha/error.hpp"

namespace mha::json {

const Value* Value::find(const std::string& key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

double Value::number() const { return std::strtod(text.c_str(), nullptr); }

std::string quoted(const std::string& s) {
  constexpr std::size_t kShown = 80;
  if (s.size() <= kShown) return "'" + s + "'";
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return "'" + s.substr(0, cut) + "...' (" + std::to_string(s.size()) + " bytes)";
}

std::string kind_name(const Value& v) {
  switch (v.kind) {
    case Value::Null: return "null";
    case Value::Bool: return v.text;
    case Value::Number: return "the number " + quoted(v.text);
    case Value::String: return "the string " + quoted(v.text);
    case Value::Array: return "an array";
    case Value::Object: return "an object";
  }
  return "a value";
}

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

Parser::Parser(const char* p, std::size_t n, std::string subject, std::string unit, int max_depth)
    : begin_(p), p_(p), end_(p + n), subject_(std::move(subject)), unit_(std::move(unit)), max_depth_(max_depth) {}

bool Parser::at(char c) {
  skip_space();
  return p_ != end_ && *p_ == c;
}

void Parser::limit(std::size_t values, std::string message) {
  budget_ = values;
  budget_message_ = std::move(message);
}

void Parser::duplicate(const std::string& key) {
  throw Error(subject_ + " has the key " + quoted(key) +
              " twice in one object (duplicate keys are ambiguous: JSON readers disagree on which one counts)");
}

Value Parser::value(int depth) {
  if (depth > max_depth_) fail("it nests deeper than " + std::to_string(max_depth_) + " levels");
  if (budget_ == 0) throw Error(budget_message_);
  --budget_;
  skip_space();
  if (p_ == end_) fail("it ends where a value should be");
  Value v;
  switch (*p_) {
    case '{':
      v.kind = Value::Object;
      object([&](const std::string& key) { v.members.emplace_back(key, value(depth + 1)); });
      return v;
    case '[':
      ++p_;
      v.kind = Value::Array;
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
      v.kind = Value::String;
      v.text = string();
      return v;
    default:
      for (const char* word : {"true", "false", "null"}) {
        const std::size_t n = std::strlen(word);
        if (static_cast<std::size_t>(end_ - p_) >= n && std::memcmp(p_, word, n) == 0) {
          p_ += n;
          v.kind = word[0] == 'n' ? Value::Null : Value::Bool;
          if (v.kind == Value::Bool) v.text = word;
          return v;
        }
      }
      return number();
  }
}

void Parser::finish() {
  skip_space();
  if (p_ != end_) fail("unexpected characters after the JSON object");
}

void Parser::fail(const std::string& why) {
  throw Error(subject_ + " is not valid JSON: " + why + " (at byte " + std::to_string(p_ - begin_) + " of " + unit_ +
              ")");
}

void Parser::skip_space() {
  while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
}

bool Parser::digit() const { return p_ != end_ && *p_ >= '0' && *p_ <= '9'; }

Value Parser::number() {
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
  Value v;
  v.kind = Value::Number;
  v.text.assign(start, p_);
  if (integer && int_end - start <= 16) {  // 16 digits cannot overflow 64 bits
    std::uint64_t n = 0;
    for (const char* c = start; c != int_end; ++c) n = n * 10 + static_cast<std::uint64_t>(*c - '0');
    v.whole = n <= kMaxWhole;
    v.uint = n;
  }
  return v;
}

namespace {
void append_utf8(std::string& out, std::uint32_t cp) {
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
}  // namespace

std::uint32_t Parser::hex4() {
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
// text is and escapes give only code points (surrogates must come in pairs).
std::string Parser::string() {
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
          if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
            fail("a \\u escape is a high surrogate without a low one after it");
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

Value parse(const std::string& text, const std::string& name, std::size_t max_values) {
  if (!valid_utf8(text)) throw Error(name + " is not valid UTF-8 text");
  Parser p(text.data(), text.size(), name, name);
  if (!p.at('{')) throw Error(name + " is not a JSON object (it must start with '{')");
  p.limit(max_values, name + " is too large: more than " + std::to_string(max_values) + " JSON values");
  Value v = p.value(1);
  p.finish();
  return v;
}

}  // namespace mha::json
