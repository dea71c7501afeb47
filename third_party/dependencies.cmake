# Included from the top level (imported targets must be visible everywhere). Every dependency
# comes from a Debian package (see README.md here); this file only finds them
# and wraps the ones without a CMake package in imported targets.
find_package(Boost 1.81 CONFIG REQUIRED COMPONENTS headers)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED)  # SHA-256 digests of skill files (MCP Skills extension)
# SQLite (Debian libsqlite3-dev, with FTS5): the trackers' history and the Helper's index.
find_package(SQLite3 REQUIRED)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBGIT2 REQUIRED IMPORTED_TARGET GLOBAL libgit2)
pkg_check_modules(XLSXWRITER REQUIRED IMPORTED_TARGET GLOBAL xlsxwriter)
add_library(skillrt_thirdparty_libgit2 INTERFACE)
target_link_libraries(skillrt_thirdparty_libgit2 INTERFACE PkgConfig::LIBGIT2)
add_library(skillrt::libgit2 ALIAS skillrt_thirdparty_libgit2)
add_library(skillrt_thirdparty_xlsxwriter INTERFACE)
target_link_libraries(skillrt_thirdparty_xlsxwriter INTERFACE PkgConfig::XLSXWRITER)
add_library(skillrt::xlsxwriter ALIAS skillrt_thirdparty_xlsxwriter)
# PCRE2 (8-bit, JIT): the schema seam's `pattern` keywords.
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET GLOBAL libpcre2-8)
add_library(skillrt_thirdparty_pcre2 INTERFACE)
target_link_libraries(skillrt_thirdparty_pcre2 INTERFACE PkgConfig::PCRE2)
add_library(skillrt::pcre2 ALIAS skillrt_thirdparty_pcre2)

# valijson is header-only and ships no CMake package in Debian 12.
find_path(VALIJSON_INCLUDE_DIR valijson/validator.hpp REQUIRED)
add_library(skillrt_thirdparty_valijson INTERFACE)
target_include_directories(skillrt_thirdparty_valijson SYSTEM INTERFACE ${VALIJSON_INCLUDE_DIR})
# Without exceptions valijson aborts the process on a schema it cannot parse.
target_compile_definitions(skillrt_thirdparty_valijson INTERFACE VALIJSON_USE_EXCEPTIONS=1)
add_library(skillrt::valijson ALIAS skillrt_thirdparty_valijson)

find_package(Catch2 2 REQUIRED)
