// config.json's JSON tree, for parse_model_config and the tests' checkpoint reader.
//
// Adapter: the strict parser is the loading floor's (core/src/loading/json.hpp, moved out of
// safetensors.cpp); until that branch is merged, json.cpp holds a minimal stand-in with the same
// tree. Swapping means replacing this header's body with the loading floor's include.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mha::json {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  std::string text;  // String: decoded; Number: as written; Bool: "true" or "false"
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;  // in file order
};

// Parses one JSON value (RFC 8259); throws mha::Error "<what> is not valid JSON: ...".
Json parse(const std::string& text, const std::string& what);

}  // namespace mha::json
