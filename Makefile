# ag — a reverse-mode autograd engine in C, with a calculator shell on top.
#
#   make            build the library (and, with the shell, ./ag) in release mode
#   make test       build in debug mode (invariants asserted) and run every test
#   make asan       the tests under AddressSanitizer + UBSan
#   make valgrind   the tests under valgrind (apt-get install valgrind)
#   make clean      remove build/ and ./ag
#
# MODE selects flags and the build directory: release, debug, asan, valgrind.

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

CFLAGS_ALL := $(BASE) $(OPT) $(CFLAGS)
LDLIBS_ALL := $(LDOPT) $(LDFLAGS) -lm

LIB_SRC := $(wildcard src/*.c src/ops/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libag.a
HEADERS := $(wildcard include/*.h src/*.h)

TEST_SRC := $(wildcard tests/engine/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(BUILD)/test_engine
README_BIN := $(BUILD)/readme_example

.PHONY: all lib run test check asan valgrind clean

all: lib

lib: $(LIB)

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	$(CC) $(CFLAGS_ALL) -Isrc $(TEST_OBJ) $(LIB) -o $@ $(LDLIBS_ALL)

$(BUILD)/tests/engine/%.o: CFLAGS_ALL += -Isrc

# The README's C example, cut out of README.md so that it cannot drift.
$(BUILD)/readme_example.c: README.md
	@mkdir -p $(dir $@)
	sed -n '/^```c$$/,/^```$$/p' README.md | sed '1d;$$d' > $@

$(README_BIN): $(BUILD)/readme_example.c $(LIB)
	$(CC) $(CFLAGS_ALL) $< $(LIB) -o $@ $(LDLIBS_ALL)

run:
	@echo "The ag shell arrives with issue 3; for now 'make' builds the library" \
	      "(build/release/libag.a) and 'make test' tests it."

# Debug build: the design's invariants (9) and (10) are asserted.
test:
	@$(MAKE) --no-print-directory MODE=debug check

check: $(TEST_BIN) $(README_BIN)
	@sh tests/run.sh $(BUILD)

asan:
	@$(MAKE) --no-print-directory MODE=asan check

valgrind:
	@command -v valgrind >/dev/null || \
	  { echo "make valgrind needs valgrind: apt-get install valgrind"; exit 1; }
	@$(MAKE) --no-print-directory MODE=valgrind build/valgrind/test_engine \
	  build/valgrind/readme_example
	@VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
	  sh tests/run.sh build/valgrind

clean:
	rm -rf build ag
