# The two setup commands (README): `make demo` and `make test`. Both install what is missing.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
CTEST_ARGS ?=

.PHONY: deps configure build demo test asan-test fuzz bench clean

deps:
	@scripts/install-deps.sh

# RelWithDebInfo with line tables only (-g1): backtraces and sanitizer reports keep file and
# line, and the build is about a quarter cheaper than with full debug info. For a debugger
# session, build BUILD_TYPE=Debug.
RELWITHDEBINFO_FLAGS ?= -O2 -g1 -DNDEBUG
configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(RELWITHDEBINFO_FLAGS)" \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$(RELWITHDEBINFO_FLAGS)" $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# Address and undefined-behaviour sanitizers over the whole suite, in its own build tree.
asan-test:
	@$(MAKE) --no-print-directory test BUILD=build-asan BUILD_TYPE=Debug \
	  CMAKE_FLAGS="-DSKILLRT_SANITIZE=ON $(CMAKE_FLAGS)"

# libFuzzer targets (tests/fuzz) in their own clang tree, each run for FUZZ_SECONDS on a copy of
# its corpus; new inputs stay in build-fuzz/corpus. A crash leaves its reproducer in
# build-fuzz/artifacts: add it to tests/fuzz/corpus/<target> with the fix.
FUZZ_SECONDS ?= 60
# The code under test is instrumented too (fuzzer-no-link). Debian 12's clang 16 implements what
# libstdc++ 12's <expected> needs (P0848) but still reports the older __cpp_concepts value that
# <expected> is gated on, so this tree, and only this tree, states the newer one.
FUZZ_CXX_FLAGS ?= -fsanitize=fuzzer-no-link,address,undefined -D__cpp_concepts=202002L \
  -Wno-macro-redefined
FUZZ_TARGETS ?= call_scan schema_text jsonrpc_line
fuzz:
	@scripts/install-deps.sh --with-clang
	@CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSKILLRT_FUZZ=ON -DCMAKE_CXX_FLAGS="$(FUZZ_CXX_FLAGS)" >/dev/null
	@cmake --build build-fuzz --target skillrt_fuzz_targets -j $(JOBS)
	@mkdir -p build-fuzz/artifacts
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus/$$t && cp -n tests/fuzz/corpus/$$t/* build-fuzz/corpus/$$t/; \
	  build-fuzz/tests/fuzz/$${t}_fuzz -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -dict=tests/fuzz/json.dict -artifact_prefix=build-fuzz/artifacts/$$t- \
	    build-fuzz/corpus/$$t || exit 1; \
	done

clean:
	rm -rf $(BUILD) build-asan build-fuzz
