/* Force-included into every file of the fuzz tree (`make fuzz`). Debian 12's clang 16 implements
 * what libstdc++ 12's <expected> needs (P0848) but reports an older __cpp_concepts value, which
 * <expected> is gated on. Only C++23 files get the newer value: the C++17 plugin libraries keep
 * the compiler's own, since libstdc++ misbehaves below C++20 when told otherwise. */
#if defined(__cplusplus) && __cplusplus > 202002L
#undef __cpp_concepts
#define __cpp_concepts 202002L
#endif
