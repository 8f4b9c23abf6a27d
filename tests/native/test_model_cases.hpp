// The oracle's model cases (build/models/index.json, tests/models/make_checkpoints.py) for the suites that run every
// case through the core's own paths and compare them bit for bit (test_layer_attention.cpp, test_threads.cpp).
// Under the sanitizers (MHA_ONE_CASE_PER_FAMILY: -O0 runs 10-20x slower) the first case of each family only: the same
// code paths; the half-precision weights' widening at every tile and block boundary is test_kernels' and test_threads'.
#pragma once

#include "ground/json.hpp"  // before Catch2 (test_models.cpp says why)

#include <set>
#include <string>
#include <vector>

#include "test_model_fixtures.hpp"

namespace mha_test {

struct ModelCase {
  std::string name, family;
};

inline std::vector<ModelCase> model_cases() {
  const mha::json::Value index =
      mha::json::parse("{\"v\": " + read_text(kModelFixtures + "/index.json") + "}", "index.json").members.at(0).second;
  std::vector<ModelCase> out;
#ifdef MHA_ONE_CASE_PER_FAMILY
  std::set<std::string> families;
#endif
  for (const mha::json::Value& c : index.items) {
    ModelCase m{c.find("case")->text, c.find("family")->text};
#ifdef MHA_ONE_CASE_PER_FAMILY
    if (!families.insert(m.family).second) continue;
#endif
    out.push_back(m);
  }
  REQUIRE(!out.empty());
  return out;
}

}  // namespace mha_test
