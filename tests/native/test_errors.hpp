// REQUIRE_ERROR_MENTIONS, apart from test_support.hpp: suites of real checkpoints include
// mha/models.hpp, whose ModelConfig would clash with mha.hpp's (train.hpp).
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "mha/error.hpp"

// Catches mha::Error and checks that its message contains every fragment.
#define REQUIRE_ERROR_MENTIONS(expression, ...)                                   \
  do {                                                                            \
    bool thrown_ = false;                                                         \
    try {                                                                         \
      (void)(expression);                                                         \
    } catch (const mha::Error& e_) {                                              \
      thrown_ = true;                                                             \
      const std::string message_ = e_.what();                                     \
      for (const std::string fragment_ : {__VA_ARGS__}) {                         \
        INFO("message: " << message_ << "\nexpected to contain: " << fragment_);  \
        CHECK(message_.find(fragment_) != std::string::npos);                     \
      }                                                                           \
    }                                                                             \
    CHECK(thrown_);                                                               \
  } while (false)
