# ag — a reverse-mode autograd engine in C, with a calculator shell on top.
#
#   make            the library build/release/libag.a and the shell ./ag
#   make run        builds and starts the shell
#   make test       every test on the debug build (invariants asserted) and
#                   under ASan + UBSan, with and without readline, with ag's
#                   own matrix kernel and OpenBLAS's (when it can be loaded),
#                   and the README's build commands
#   make test T=NAME  one engine group, golden file or Python golden by name
#   make bench-compare THREADS=N  ag against PyTorch, both at N threads (default 1);
#                   ONLY=a,b for a subset of workloads, PYTHON=P for another PyTorch
#   make install    the header, the library and the shell under PREFIX
#   make install-kernel  the Jupyter kernel 'ag' (needs python3-ipykernel): for
#                   this user, running this checkout's ./ag; with PREFIX=DIR,
#                   in DIR/share/jupyter after make install
#   make test-notebook   examples/notebooks/ run by the kernel through Jupyter
#                   (python3-ipykernel, python3-nbconvert; chromium if present)
#   make asan       the tests under AddressSanitizer + UBSan
#   make valgrind   the tests under valgrind (apt-get install valgrind)
#   make test-graphviz  :dot FILE.svg and draw() through Graphviz (apt-get install graphviz)
#   make difftest   ag against PyTorch on random programs (DIFF_SEED=, DIFF_COUNT=, DIFF_DTYPES=, DIFF_GRADGRAD=;
#                   apt-get install python3-torch)
#   make clean      remove build/ and ./ag
#
# MODE selects flags and the build directory: release, debug, asan, valgrind.
# READLINE=0 builds the shell without GNU readline (used when found);
# OpenBLAS is never linked: matmul.c loads it at run time where it is faster
# than ag's own kernel (docs/performance.md; AG_BLAS=own|openblas overrides).

MODE ?= release
CC ?= cc
# The debug build's optimisation (make matrix tries -O0 too), and a suffix
# for the build directory (make matrix builds each compiler apart).
OPTLEVEL ?= -O2
TAG ?=
BUILD := build/$(MODE)$(TAG)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wformat=2 -Wvla
BASE := -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -ffp-contract=off -fopenmp-simd $(WARN)

ifeq ($(MODE),release)
  OPT := -O3 -march=native -DNDEBUG
else ifeq ($(MODE),debug)
  OPT := $(OPTLEVEL) -g -march=native -DAG_DEBUG
else ifeq ($(MODE),valgrind)
  # valgrind cannot run AVX-512 code: build for the baseline x86-64 instead.
  OPT := -O1 -g -DAG_DEBUG
else ifeq ($(MODE),asan)
  # No fake stacks for use-after-return (the runtime's default since GCC 13
  # and LLVM 15): GCC 13 places 64-byte-aligned locals misaligned in them
  # (GCC PR 110027), and AVX-512 moves of a Value then fault (issue 22 item 0,
  # a Sapphire Rapids server).
  ASAN_UAR := $(shell $(CC) --version 2>/dev/null | grep -q clang && \
                echo -fsanitize-address-use-after-return=never || echo --param=asan-use-after-return=0)
  OPT := -O1 -g -march=native -DAG_DEBUG -fno-omit-frame-pointer $(ASAN_UAR) \
         -fsanitize=address,undefined -fno-sanitize-recover=all
  LDOPT := -fsanitize=address,undefined
else
  $(error MODE must be release, debug, asan or valgrind, not '$(MODE)')
endif

# dlopen (for OpenBLAS) is in the C library since glibc 2.34; older ones
# need -ldl.
DL_LIBS := $(shell echo 'int main(void) { return dlopen("", 0) == 0; }' | \
             $(CC) -x c -include dlfcn.h - -o /dev/null >/dev/null 2>&1 || echo -ldl)
FEATURE_CFLAGS :=
FEATURE_LIBS := $(DL_LIBS)

# glibc's vector math library (exp, log, tanh, sin, cos on whole vectors),
# when the compiler can call it: LIBMVEC=0 turns it off.
ifeq ($(origin LIBMVEC),undefined)
  LIBMVEC := $(shell printf '%s\n' '__attribute__((simd("notinbranch"))) double tanh(double);' \
                'double x[64]; int main(void) { for (int i = 0; i < 64; i++) x[i] = tanh(x[i]); return 0; }' | \
                $(CC) -x c - -O2 -fopenmp-simd -o /dev/null -lmvec -lm >/dev/null 2>&1 \
                && echo 1 || echo 0)
endif
ifeq ($(LIBMVEC),1)
  FEATURE_CFLAGS += -DAG_LIBMVEC
  FEATURE_LIBS += -lmvec
endif

# SLEEF, the vector math library PyTorch's CPU kernels call (exp, log, tanh,
# sin, cos, erf, log1p on whole vectors), is loaded at run time where it is
# installed (apt-get install libsleef-dev or libsleef3: src/ops/vecmath.c),
# so nothing here looks for it and libag.a links with -lm alone.

# GNU readline, when its headers and library are here (else a plain reader).
ifeq ($(origin READLINE),undefined)
  READLINE := $(shell echo 'int main(void) { return rl_initialize(); }' | \
                $(CC) -x c -include stdio.h -include readline/readline.h - -o /dev/null \
                -lreadline >/dev/null 2>&1 && echo 1 || echo 0)
endif
ifeq ($(READLINE),1)
  SHELL_BUILD := $(BUILD)/rl
  RL_CFLAGS := -DAG_READLINE
  RL_LIBS := -lreadline
else
  SHELL_BUILD := $(BUILD)/plain
endif

CFLAGS_ALL := $(BASE) $(OPT) $(FEATURE_CFLAGS) $(CFLAGS)
LDLIBS_ALL := $(LDOPT) $(LDFLAGS) $(FEATURE_LIBS) -lm -pthread

LIB_SRC := $(wildcard src/*.c src/ops/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libag.a
LIB_HEADERS := $(wildcard include/*.h src/*.h src/ops/*.h) Makefile

REPL_SRC := $(wildcard repl/*.c)
REPL_OBJ := $(REPL_SRC:repl/%.c=$(SHELL_BUILD)/%.o)
REPL_HEADERS := include/ag.h $(wildcard repl/*.h) Makefile
AG := $(SHELL_BUILD)/ag

TEST_SRC := $(wildcard tests/engine/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(BUILD)/test_engine
README_BIN := $(BUILD)/readme_example
PRINT_TEST := $(BUILD)/test_print
PYFORMAT_TEST := $(BUILD)/test_pyformat
PTY_TEST := $(BUILD)/pty_test
TRANSCRIPT := $(BUILD)/transcript

.PHONY: install-kernel test-notebook
.PHONY: all lib shell ag run install test test-binaries test-readme check asan valgrind bench \
        bench-compare bench-micrograd difftest fuzz matrix clean

all: ag

lib: $(LIB)
shell: $(AG)

ag: $(AG)
	cp $(AG) ag

run: ag
	./ag

# ---- the library ----
$(BUILD)/src/%.o: src/%.c $(LIB_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

# Element-wise loops: full-width vectors where the machine has them (gcc
# otherwise stops at 256 bits on AVX-512 parts), for libmvec's 8-wide calls.
$(BUILD)/src/ops/unary.o $(BUILD)/src/ops/binary.o $(BUILD)/src/ops/activation.o \
  $(BUILD)/src/ops/select.o: CFLAGS_ALL += -mprefer-vector-width=512


$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# ---- the shell: a client of the library, seeing only include/ ----
$(SHELL_BUILD)/%.o: repl/%.c $(REPL_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(RL_CFLAGS) -c $< -o $@

$(AG): $(REPL_OBJ) $(LIB)
	$(CC) $(CFLAGS_ALL) $(REPL_OBJ) $(LIB) -o $@ $(RL_LIBS) $(LDLIBS_ALL)

# ---- tests ----
$(BUILD)/tests/engine/%.o: tests/engine/%.c $(LIB_HEADERS) $(wildcard tests/engine/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -c $< -o $@

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	$(CC) $(CFLAGS_ALL) $(TEST_OBJ) $(LIB) -o $@ $(LDLIBS_ALL)

$(PRINT_TEST): tests/repl/test_print.c tests/repl/check.h repl/print.c repl/strbuf.c $(REPL_HEADERS) $(LIB)
	$(CC) $(CFLAGS_ALL) -Irepl tests/repl/test_print.c repl/print.c repl/strbuf.c $(LIB) \
	  -o $@ $(LDLIBS_ALL)

# Python's formatting (repl/pyformat.c) against CPython's own output, kept
# in tests/repl/pyformat_cases.h (regenerated by tests/repl/pyformat_cases.py).
$(PYFORMAT_TEST): tests/repl/test_pyformat.c tests/repl/check.h tests/repl/pyformat_cases.h repl/pyformat.c \
                  repl/print.c repl/strbuf.c $(REPL_HEADERS) $(LIB)
	$(CC) $(CFLAGS_ALL) -Irepl tests/repl/test_pyformat.c repl/pyformat.c repl/print.c \
	  repl/strbuf.c $(LIB) -o $@ $(LDLIBS_ALL)

$(BUILD)/%: tests/repl/%.c tests/repl/pty.c tests/repl/pty.h tests/repl/check.h
	$(CC) $(CFLAGS_ALL) $< tests/repl/pty.c -o $@ $(LDLIBS_ALL)

# The README's C example, cut out of README.md so that it cannot drift.
$(BUILD)/readme_example.c: README.md
	@mkdir -p $(dir $@)
	sed -n '/^```c$$/,/^```$$/p' README.md | sed '1d;$$d' > $@

$(README_BIN): $(BUILD)/readme_example.c $(LIB)
	$(CC) $(CFLAGS_ALL) $< $(LIB) -o $@ $(LDLIBS_ALL)

# The C example of training with an optimizer (examples/c/train.c): it checks
# its own figures against PyTorch's and exits non-zero on a mismatch.
TRAIN_EXAMPLE := $(BUILD)/train_example
$(TRAIN_EXAMPLE): examples/c/train.c $(LIB)
	$(CC) $(CFLAGS_ALL) $< $(LIB) -o $@ $(LDLIBS_ALL)
test-binaries: $(TRAIN_EXAMPLE)

# Every test binary of one MODE; the shell with readline (when found) and
# without.
test-binaries: $(TEST_BIN) $(README_BIN) $(PRINT_TEST) $(PYFORMAT_TEST) $(PTY_TEST) $(TRANSCRIPT) $(AG)
	@$(MAKE) --no-print-directory READLINE=0 shell

# The suite on the given build directories, with the matrix kernel this
# machine chooses, then again with the other one when there is one
# (AG_BLAS=openblas if OpenBLAS can be loaded, AG_BLAS=own if it was the
# choice): the same tests, so the two agree up to rounding.
run-suites = engine=$(firstword $(1))/test_engine && \
	if $$engine --blas | grep -q '^OpenBLAS'; then other=own; \
	elif AG_BLAS=openblas $$engine --blas | grep -q '^OpenBLAS'; then other=openblas; \
	else other=; echo "(OpenBLAS cannot be loaded here: ag's own kernel only)"; fi && \
	sh tests/run.sh $(1) && \
	{ [ -z "$$other" ] || { echo "=== again with AG_BLAS=$$other"; \
	                        AG_BLAS=$$other sh tests/run.sh $(1); }; }

# T=NAME runs only the tests named (tests/one.sh): an engine group (core,
# optim, ...), a golden file of the shell (tests/shell/NAME.ag or .sh) or a
# Python golden (NAME.py); T="a b" runs both.
T ?=

check: test-binaries
ifeq ($(strip $(T)),)
	@VALGRIND="$(VALGRIND)" $(call run-suites,$(BUILD))
else
	@VALGRIND="$(VALGRIND)" sh tests/one.sh $(BUILD) $(T)
endif

# The debug build (the design's invariants (9) and (10) asserted) and the
# same tests under AddressSanitizer and UndefinedBehaviorSanitizer, so that
# no memory error lands; the debug build again without SLEEF where it
# loads (a fresh machine may lack it); then the README's build commands. With T=NAME:
# those tests alone, on the debug build.
test:
ifeq ($(strip $(T)),)
	@$(MAKE) --no-print-directory MODE=debug test-binaries
	@$(MAKE) --no-print-directory MODE=asan test-binaries
	@$(call run-suites,build/debug$(TAG) build/asan$(TAG))
	@if [ "$$(build/debug$(TAG)/test_engine --vecmath)" = SLEEF ]; then \
	  echo "=== again without SLEEF (AG_SLEEF=0), as on a machine without libsleef3"; \
	  AG_SLEEF=0 sh tests/run.sh build/debug$(TAG); fi
	@$(MAKE) --no-print-directory test-readme
else
	@$(MAKE) --no-print-directory MODE=debug T= test-binaries
	@sh tests/one.sh build/debug$(TAG) $(T)
endif

# The README's commands for building a program against the library, run as
# written (tests/readme_build.sh): against build/release after make, and
# after make install PREFIX=$$HOME/.local with HOME a scratch directory.
test-readme: lib
	@sh tests/readme_build.sh

# ---- installing: make install PREFIX=/usr/local (DESTDIR for staging) ----
PREFIX ?= /usr/local

install: $(LIB) $(AG)
	mkdir -p "$(DESTDIR)$(PREFIX)/include" "$(DESTDIR)$(PREFIX)/lib" "$(DESTDIR)$(PREFIX)/bin"
	cp include/ag.h "$(DESTDIR)$(PREFIX)/include/"
	cp $(LIB) "$(DESTDIR)$(PREFIX)/lib/"
	cp $(AG) "$(DESTDIR)$(PREFIX)/bin/"

# ---- Jupyter (optional: apt-get install python3-ipykernel python3-nbconvert) ----
# The kernel is repl/jupyter/ag_kernel.py over `ag --kernel` (docs/language.md,
# "Jupyter notebooks"); install.py writes its kernelspec. Without PREFIX on
# the command line: the user's Jupyter directory, running this checkout's ./ag.
JUPYTER_PYTHON ?= $(firstword $(foreach p,python3 /usr/bin/python3,\
                    $(shell $(p) -c 'import ipykernel' 2>/dev/null && echo $(p))))
ifeq ($(filter command line environment,$(origin PREFIX)),)
install-kernel: ag
	@$(if $(JUPYTER_PYTHON),,echo "make install-kernel needs Python's ipykernel: apt-get install python3-ipykernel (or pip install ipykernel)"; exit 1)
	@$(JUPYTER_PYTHON) repl/jupyter/install.py $(CURDIR)/ag
else
install-kernel: install
	@$(if $(JUPYTER_PYTHON),,echo "make install-kernel needs Python's ipykernel: apt-get install python3-ipykernel (or pip install ipykernel)"; exit 1)
	@$(JUPYTER_PYTHON) repl/jupyter/install.py $(PREFIX)/bin/ag --prefix $(PREFIX)
endif

test-notebook: ag
	@JUPYTER_PYTHON=$(JUPYTER_PYTHON) sh tests/notebook/run.sh ./ag

asan:
	@$(MAKE) --no-print-directory MODE=asan check

# The valgrind build's own kernel is the baseline one, so OpenBLAS is chosen
# where it loads; it picks AVX-512 kernels, which valgrind cannot run.
# Possibly-lost blocks are not errors here, and not shown: the shell's thread
# (main.c) ends the process while it runs, its thread-local block with it.
valgrind:
	@command -v valgrind >/dev/null || \
	  { echo "make valgrind needs valgrind: apt-get install valgrind"; exit 1; }
	@OPENBLAS_CORETYPE=Haswell $(MAKE) --no-print-directory MODE=valgrind \
	  VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-possibly-lost=no" \
	  check

# Every supported way to build, each warning-free (-Werror) and passing the
# whole suite: gcc and clang, -O0 and -O2; within each, with and without
# readline (if installed), with both matrix kernels (OpenBLAS if loadable).
matrix:
	@for cc in gcc clang; do for opt in -O0 -O2; do \
	  echo "=== $$cc $$opt"; \
	  $(MAKE) --no-print-directory MODE=debug CC=$$cc OPTLEVEL=$$opt TAG=-$$cc$$opt check \
	    | tail -n 1 | grep ' 0 failed$$' || exit 1; \
	done; done

# ---- benchmarks (release mode): the workloads of shared/bench/torch_ref.py ----
BENCH := $(BUILD)/bench
# shared/ beside the repository (or beside the repository of a worktree under wt/)
TORCH_REF ?= $(firstword $(wildcard ../shared/bench/torch_ref.py ../../shared/bench/torch_ref.py \
                                    ../../../shared/bench/torch_ref.py) \
               ../shared/bench/torch_ref.py)

$(BENCH): bench/bench.c $(LIB)
	$(CC) $(CFLAGS_ALL) $< $(LIB) -o $@ $(LDLIBS_ALL)

# THREADS=N: every side at N threads (ag's, OpenBLAS's, OpenMP's); 1 unless
# given, so that figures compare with the single-threaded tables.
THREADS ?= 1
BENCH_ENV = AG_NUM_THREADS=$(THREADS) OPENBLAS_NUM_THREADS=$(THREADS) OMP_NUM_THREADS=$(THREADS)

bench: $(BENCH) $(AG)
	@$(BENCH_ENV) $(BENCH) --ag $(AG)
	@$(BENCH_ENV) $(BENCH) --only mlp_memory 2>/dev/null

# Ours and PyTorch's in one run, with ratios (needs apt-get install python3-torch).
ONLY ?=
PYTHON ?= /usr/bin/python3
bench-compare: $(BENCH) $(AG)
	@$(BENCH_ENV) AG_BENCH_ONLY=$(ONLY) AG_BENCH_PYTHON=$(PYTHON) sh bench/compare.sh $(BENCH) $(AG) $(TORCH_REF) 3 $(THREADS)

# Issue 17's micrograd step: ag against CPython running the same file
# (PYTHON, the CPython every other optional target uses: a python3 found
# first on PATH may be another build of another speed).
bench-micrograd: $(AG)
	@sh bench/micrograd.sh $(AG) $(PYTHON) 5

# ---- differential test against PyTorch (optional: apt-get install python3-torch) ----
# Random programs in ag and in PyTorch, every value and gradient compared
# exactly; each disagreement shrunk into build/difftest/failures/.
# DIFF_DTYPES: the share of Python programs over dtypes and in-place
# statements (tests/diff/dtypes.py), run by ag as .py text; DIFF_GRADGRAD:
# the share of Python programs differentiating gradients (autograd.grad with
# create_graph, backward through x.grad, retain_grad, hooks: tests/diff/gradgrad.py).
DIFF_SEED ?= 1
DIFF_COUNT ?= 1000
DIFF_DTYPES ?= 0.3
DIFF_GRADGRAD ?= 0.1

difftest: ag
	@sh tests/diff/run.sh --ag ./ag --seed $(DIFF_SEED) --count $(DIFF_COUNT) \
		--dtypes $(DIFF_DTYPES) --gradgrad $(DIFF_GRADGRAD) --out build/difftest

# ---- Python scripts from teaching material (optional: apt-get install python3-torch) ----
# examples/python/*.py, as published (examples/python/SOURCES.md); each
# NAME.out is what CPython + PyTorch print (float64 default): check_oracle.sh
# proves it, then run.sh compares ./ag's output with it.  Not part of make test.
.PHONY: test-python
# examples/python/RUNS lists the files ag runs today (make test checks them
# too, without Python); the others wait on the issues their SOURCES.md rows
# name, and are listed as pending, not failed.
test-python: ag $(TEST_BIN)
	@sh tests/python/check_oracle.sh
	@sh tests/python/run.sh ./ag $$(sed 's|^|examples/python/|' examples/python/RUNS)
	@if [ "$$($(TEST_BIN) --vecmath)" = SLEEF ]; then \
	  sh tests/python/run.sh ./ag $$(sed 's|^|examples/python/|' examples/python/RUNS_SLEEF); \
	else echo "(SLEEF cannot be loaded here: examples/python/RUNS_SLEEF not run; apt-get install libsleef3)"; fi
	@for f in examples/python/*.py; do grep -qx "$${f##*/}" examples/python/RUNS examples/python/RUNS_SLEEF || \
	  echo "pending: $$f"; done

# ---- pictures of graphs (optional: apt-get install graphviz) ----
# dot parses the golden DOT text, :dot FILE.svg and draw() write SVG an XML
# parser accepts, a failing dot leaves no file. Says it skipped without dot.
.PHONY: test-graphviz
test-graphviz: ag
	@sh tests/graphviz.sh ./ag

# ---- fuzzing (clang's libFuzzer): make fuzz FUZZ_SECONDS=60 ----
FUZZ_SECONDS ?= 60
FUZZ_DIR := build/fuzz
FUZZ_BIN := $(FUZZ_DIR)/fuzz_shell
FUZZ_SRC := $(LIB_SRC) $(filter-out repl/main.c,$(REPL_SRC)) tests/fuzz/fuzz_shell.c

$(FUZZ_BIN): $(FUZZ_SRC) $(LIB_HEADERS) $(REPL_HEADERS)
	@command -v clang >/dev/null || \
	  { echo "make fuzz needs clang and libFuzzer: apt-get install clang libclang-rt-14-dev"; exit 1; }
	@mkdir -p $(FUZZ_DIR)
	clang $(BASE) -Irepl -O1 -g -DAG_DEBUG -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all $(FUZZ_SRC) -o $@ -lm $(DL_LIBS)

# Seeds: every script the tests and examples use; each .py file twice, behind
# the first byte that runs it as a .py file (0x02) and line by line (0x01:
# tests/fuzz/README.md). A finding (crash, sanitizer report, leak, hang) is
# written to build/fuzz/ and make fuzz fails.
FUZZ_PY_SEEDS = $(wildcard tests/shell/*.py tests/shell/python/*.py examples/python/*.py \
                           tests/fuzz/seeds/*.py tests/fuzz/regressions/*.py)
fuzz: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds
	@cp tests/shell/*.ag tests/shell/*.inc examples/*.ag tests/fuzz/regressions/*.ag $(FUZZ_DIR)/seeds/ 2>/dev/null; true
	@for f in $(FUZZ_PY_SEEDS); do n=$$(echo "$$f" | tr / _); \
	  printf '\002' | cat - "$$f" >$(FUZZ_DIR)/seeds/file_$$n; \
	  printf '\001' | cat - "$$f" >$(FUZZ_DIR)/seeds/lines_$$n; done
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
	  -dict=tests/fuzz/ag.dict \
	  -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds

clean:
	rm -rf build ag
