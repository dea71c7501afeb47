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
# build-fuzz/artifacts: add it to tests/fuzz/corpus/<target> with the fix. A target with its own
# dictionary (tests/fuzz/<target>.dict) uses it, the others the JSON one. Allocations are capped
# so that a reader allocating what a hostile header claims fails the run.
FUZZ_SECONDS ?= 60
# The code under test is instrumented too (fuzzer-no-link). tests/fuzz/clang16_cpp_concepts.h
# works around Debian 12's clang 16 with libstdc++ 12's <expected> (see the header).
FUZZ_CXX_FLAGS ?= -fsanitize=fuzzer-no-link,address,undefined \
  -include $(CURDIR)/tests/fuzz/clang16_cpp_concepts.h
FUZZ_TARGETS ?= call_scan schema_text jsonrpc_line tensor_npy torch_schema npu_graph_logs \
  ci_fix_tokens apidoc_page
FUZZ_LIMITS ?= -malloc_limit_mb=256 -rss_limit_mb=1024
fuzz:
	@scripts/install-deps.sh --with-clang
	@CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSKILLRT_FUZZ=ON -DCMAKE_CXX_FLAGS="$(FUZZ_CXX_FLAGS)" >/dev/null
	@cmake --build build-fuzz --target $(addsuffix _fuzz,$(FUZZ_TARGETS)) -j $(JOBS)
	@mkdir -p build-fuzz/artifacts
	@for t in $(FUZZ_TARGETS); do \
	  dict=tests/fuzz/$$t.dict; [ -f $$dict ] || dict=tests/fuzz/json.dict; \
	  mkdir -p build-fuzz/corpus/$$t && cp -n tests/fuzz/corpus/$$t/* build-fuzz/corpus/$$t/; \
	  build-fuzz/tests/fuzz/$${t}_fuzz -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    $(FUZZ_LIMITS) -dict=$$dict -artifact_prefix=build-fuzz/artifacts/$$t- \
	    build-fuzz/corpus/$$t || exit 1; \
	done

clean:
	rm -rf $(BUILD) build-asan build-fuzz
