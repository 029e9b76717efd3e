# ag — a reverse-mode autograd engine in C, with a calculator shell on top.
#
#   make            the library and the shell ./ag (release mode)
#   make run        builds and starts the shell
#   make test       debug build (invariants asserted), every test, with and
#                   without readline
#   make asan       the tests under AddressSanitizer + UBSan
#   make valgrind   the tests under valgrind (apt-get install valgrind)
#   make clean      remove build/ and ./ag
#
# MODE selects flags and the build directory: release, debug, asan, valgrind.
# READLINE=0 builds the shell without GNU readline (found automatically).

MODE ?= release
CC ?= cc
BUILD := build/$(MODE)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wformat=2 -Wvla
BASE := -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -ffp-contract=off $(WARN)

ifeq ($(MODE),release)
  OPT := -O2 -march=native -DNDEBUG
else ifeq ($(MODE),debug)
  OPT := -O2 -g -march=native -DAG_DEBUG
else ifeq ($(MODE),valgrind)
  # valgrind cannot run AVX-512 code: build for the baseline x86-64 instead.
  OPT := -O1 -g -DAG_DEBUG
else ifeq ($(MODE),asan)
  OPT := -O1 -g -march=native -DAG_DEBUG -fno-omit-frame-pointer \
         -fsanitize=address,undefined -fno-sanitize-recover=all
  LDOPT := -fsanitize=address,undefined
else
  $(error MODE must be release, debug, asan or valgrind, not '$(MODE)')
endif

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

CFLAGS_ALL := $(BASE) $(OPT) $(CFLAGS)
LDLIBS_ALL := $(LDOPT) $(LDFLAGS) -lm

LIB_SRC := $(wildcard src/*.c src/ops/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libag.a
LIB_HEADERS := $(wildcard include/*.h src/*.h)

REPL_SRC := $(wildcard repl/*.c)
REPL_OBJ := $(REPL_SRC:repl/%.c=$(SHELL_BUILD)/%.o)
REPL_HEADERS := include/ag.h $(wildcard repl/*.h)
AG := $(SHELL_BUILD)/ag

TEST_SRC := $(wildcard tests/engine/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(BUILD)/test_engine
README_BIN := $(BUILD)/readme_example
PRINT_TEST := $(BUILD)/test_print
PTY_TEST := $(BUILD)/pty_test
TRANSCRIPT := $(BUILD)/transcript

.PHONY: all lib shell run test check check-shell asan valgrind clean

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
$(BUILD)/tests/engine/%.o: tests/engine/%.c $(LIB_HEADERS) tests/engine/harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -c $< -o $@

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	$(CC) $(CFLAGS_ALL) $(TEST_OBJ) $(LIB) -o $@ $(LDLIBS_ALL)

$(PRINT_TEST): tests/repl/test_print.c repl/print.c repl/strbuf.c $(REPL_HEADERS) $(LIB)
	$(CC) $(CFLAGS_ALL) -Irepl tests/repl/test_print.c repl/print.c repl/strbuf.c $(LIB) \
	  -o $@ $(LDLIBS_ALL)

$(BUILD)/%: tests/repl/%.c tests/repl/pty.c tests/repl/pty.h
	$(CC) $(CFLAGS_ALL) $< tests/repl/pty.c -o $@ $(LDLIBS_ALL)

# The README's C example, cut out of README.md so that it cannot drift.
$(BUILD)/readme_example.c: README.md
	@mkdir -p $(dir $@)
	sed -n '/^```c$$/,/^```$$/p' README.md | sed '1d;$$d' > $@

$(README_BIN): $(BUILD)/readme_example.c $(LIB)
	$(CC) $(CFLAGS_ALL) $< $(LIB) -o $@ $(LDLIBS_ALL)

# Every test of one MODE: the shell's with readline (when found) and without.
check: $(TEST_BIN) $(README_BIN) $(PRINT_TEST) $(PTY_TEST) $(TRANSCRIPT) $(AG)
	@$(MAKE) --no-print-directory READLINE=0 shell
	@sh tests/run.sh $(BUILD)

test:
	@$(MAKE) --no-print-directory MODE=debug check

asan:
	@$(MAKE) --no-print-directory MODE=asan check

valgrind:
	@command -v valgrind >/dev/null || \
	  { echo "make valgrind needs valgrind: apt-get install valgrind"; exit 1; }
	@$(MAKE) --no-print-directory MODE=valgrind build/valgrind/test_engine \
	  build/valgrind/readme_example build/valgrind/test_print build/valgrind/pty_test \
	  build/valgrind/transcript shell
	@$(MAKE) --no-print-directory MODE=valgrind READLINE=0 shell
	@VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
	  sh tests/run.sh build/valgrind

clean:
	rm -rf build ag
