// The source that builds the test binaries' shared precompiled header (tests/CMakeLists.txt):
// CMake lets other targets reuse a precompiled header only from a target with a source that
// includes it.
