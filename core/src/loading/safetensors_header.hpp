// A safetensors file's header, read from its first 8 + N bytes alone (the data need not be in
// memory: the checkpoint loader reads the data in slices afterwards). Internal to the core: the
// lessons' reader (read_safetensors) and the checkpoint loader share it.
//
//   std::uint64_t n = safetensors::header_length(first_8_bytes, std::min(8, size), size);
//   safetensors::Header h = safetensors::parse_header(first_8_plus_n_bytes, n, size, accepts, "F32, F16");
//   // h.entries: by data offset; tensor e's bytes are [h.data_start + e.begin, h.data_start + e.end)
//
// Every rule of the format is checked here, each with its own message (see safetensors.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mha::safetensors {

// "this is not a valid .safetensors file: ": the start of every message about the format.
extern const char kNotSafetensors[];

// A dtype the format defines, with its size in bytes.
struct FormatDType {
  const char* name;
  std::uint64_t bytes;
};

struct Entry {
  std::string name;
  const FormatDType* dtype = nullptr;
  std::vector<std::uint64_t> dims;
  std::uint64_t begin = 0, end = 0, elements = 0, bytes = 0;  // begin, end: offsets in the data
};

struct Header {
  std::vector<Entry> entries;                                 // by data offset, contiguous from 0
  std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__", in file order
  std::uint64_t data_start = 0;                               // 8 + N
};

// N, from the first `available` = min(8, file_size) bytes of a file of `file_size` bytes: checks
// that N fits the file and the 100,000,000 cap, and names the formats most often mistaken for
// safetensors (zip, pickle, .npy, HDF5, text) when it cannot.
std::uint64_t header_length(const std::uint8_t* first, std::size_t available, std::uint64_t file_size);

// The header from `bytes`: the file's first 8 + n bytes, n = header_length(...). `accepts`
// decides which dtypes the caller takes; the others are refused, listing `supported`.
Header parse_header(const std::uint8_t* bytes, std::uint64_t n, std::uint64_t file_size, bool (*accepts)(const std::string& dtype),
                    const char* supported);

// An `accepts` that takes every dtype of the format, and their names (for `supported`): BOOL, U8,
// I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64.
bool every_dtype(const std::string& dtype);
extern const char kFormatDTypes[];

std::string dims_text(const std::vector<std::uint64_t>& dims);

}  // namespace mha::safetensors
