#define CATCH_CONFIG_MAIN
#if defined(__EMSCRIPTEN__)
#define CATCH_CONFIG_NO_POSIX_SIGNALS
#endif
#include <catch2/catch.hpp>
