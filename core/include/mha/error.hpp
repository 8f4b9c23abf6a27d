// mha::Error: the one exception of the core. The bindings (wasm/) catch it and return its message as a value.
#pragma once

#include <stdexcept>
#include <string>

namespace mha {

// Every invalid call into the core throws this, with a message written for a student.
class Error : public std::invalid_argument {
 public:
  explicit Error(const std::string& message) : std::invalid_argument(message) {}
};

}  // namespace mha
