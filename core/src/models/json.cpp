// Stand-in JSON reader until the loading floor's parser (core/src/loading/json.cpp) is merged.
#include "models/json.hpp"

#include <cstring>

#include "mha/error.hpp"

namespace mha::json {

namespace {

class Reader {
 public:
  Reader(const std::string& text, const std::string& what) : s_(text), what_(what) {}

  Json document() {
    Json v = value(0);
    space();
    if (i_ != s_.size()) fail("unexpected characters after the value");
    return v;
  }

 private:
  const std::string& s_;
  const std::string& what_;
  std::size_t i_ = 0;

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(what_ + " is not valid JSON: " + why + " (at byte " + std::to_string(i_) + ")");
  }
  void space() {
    while (i_ < s_.size() && std::strchr(" \t\r\n", s_[i_]) && s_[i_]) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }

  Json value(int depth) {
    if (depth > 64) fail("it nests too deep");
    space();
    if (i_ >= s_.size()) fail("it ends where a value should be");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      v.kind = Json::Object;
      ++i_;
      if (eat('}')) return v;
      do {
        space();
        std::string key = string();
        expect(':');
        v.members.emplace_back(std::move(key), value(depth + 1));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      v.kind = Json::Array;
      ++i_;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::String;
      v.text = string();
    } else {
      v = word();
    }
    return v;
  }

  Json word() {
    for (const char* w : {"true", "false", "null"}) {
      if (s_.compare(i_, std::strlen(w), w) == 0) {
        i_ += std::strlen(w);
        Json v;
        v.kind = w[0] == 'n' ? Json::Null : Json::Bool;
        if (v.kind == Json::Bool) v.text = w;
        return v;
      }
    }
    const std::size_t start = i_;
    while (i_ < s_.size() && std::strchr("+-0123456789.eE", s_[i_]) && s_[i_]) ++i_;
    if (i_ == start) fail("unexpected character");
    Json v;
    v.kind = Json::Number;
    v.text = s_.substr(start, i_ - start);
    return v;
  }

  std::string string() {
    if (i_ >= s_.size() || s_[i_] != '"') fail("expected a string");
    std::string out;
    for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
      if (s_[i_] != '\\') {
        out += s_[i_];
        continue;
      }
      if (++i_ >= s_.size()) break;
      const char e = s_[i_];
      if (e == 'u') {  // kept as written: configs' keys and values the core reads are ASCII
        out += "\\u";
        continue;
      }
      const char* from = "\"\\/bfnrt";
      const char* to = "\"\\/\b\f\n\r\t";
      const char* at = std::strchr(from, e);
      if (!at || !e) fail("a bad escape in a string");
      out += to[at - from];
    }
    if (i_ >= s_.size()) fail("a string is not closed");
    ++i_;
    return out;
  }
};

}  // namespace

Json parse(const std::string& text, const std::string& what) { return Reader(text, what).document(); }

}  // namespace mha::json
