# litegpu build. `make demo` and `make test` are the two commands a newcomer needs;
# both install what they need on a fresh Debian 12 machine (scripts/install-deps.sh).
CC      ?= cc
CLANG   ?= clang
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith \
           -Wformat=2 -Wvla -Werror
BASEFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc $(WARN)
CFLAGS  ?= -O2 -g
LDLIBS  := -llapack -lblas -lpthread -lm

B       := build
# V=1 shows the full compiler command lines
Q       := $(if $(V),,@)
LIB_SRC := $(sort $(shell find src -name '*.c'))
CLI_SRC := $(sort $(wildcard tools/cli/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c tests/models/*.c))

# normal build
LIB_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC))
CLI_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(CLI_SRC))
UNIT_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(UNIT_SRC))
# sanitizer build (ASan + UBSan, no recovery: any report fails the run)
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SLIB_OBJ := $(patsubst %.c,$(B)/san/%.o,$(LIB_SRC))
SCLI_OBJ := $(patsubst %.c,$(B)/san/%.o,$(CLI_SRC))
SUNIT_OBJ := $(patsubst %.c,$(B)/san/%.o,$(UNIT_SRC))

.PHONY: all deps verify-deps corpus demo test unit fuzz check-gen check-half-exhaustive bench clean

all: $(B)/litegpu $(B)/liblitegpu.a

# The kernels get -O3 (vectorization) and -fno-math-errno (sqrt without errno; results are
# unchanged). Never -ffast-math.
KFLAGS  := -O3 -fno-math-errno
$(B)/obj/src/run/%.o: src/run/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(BASEFLAGS) $(CFLAGS) $(KFLAGS) -MMD -MP -c $< -o $@

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(BASEFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/san/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC san  $<")
	$(Q)$(CC) $(BASEFLAGS) -O1 -g $(SAN) -DLG_CHECK_HALF_CLAIMS -MMD -MP -c $< -o $@

$(B)/liblitegpu.a: $(LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(B)/litegpu: $(CLI_OBJ) $(B)/liblitegpu.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(B)/liblitegpu.a $(LDLIBS)

$(B)/test_unit: $(UNIT_OBJ) $(B)/liblitegpu.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $(UNIT_OBJ) $(B)/liblitegpu.a $(LDLIBS)

$(B)/san/litegpu: $(SCLI_OBJ) $(SLIB_OBJ)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(SAN) -o $@ $^ $(LDLIBS)

$(B)/san/test_unit: $(SUNIT_OBJ) $(SLIB_OBJ)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(SAN) -o $@ $^ $(LDLIBS)

# libFuzzer target for the .tflite reader (clang + libclang-rt-14-dev): the reader, the
# writer, info and check on every accepted input (the interpreter and the passes, which
# run it, are not linked in).
FUZZ_SRC := $(filter-out src/run/% src/passes/% src/import/% src/refactor/%,$(LIB_SRC))
$(B)/fuzz/fuzz_tflite_read: fuzz/fuzz_tflite_read.c tests/tools/lg_harness.h $(FUZZ_SRC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CLANG) $(BASEFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -o $@ fuzz/fuzz_tflite_read.c $(FUZZ_SRC) -lm

# libFuzzer target for the ONNX reader: only the reader and the utilities it uses are linked.
FUZZ_ONNX_SRC := $(filter src/io/onnx/% src/util/arena.c src/util/file.c src/util/status.c,$(LIB_SRC))
$(B)/fuzz/fuzz_onnx_read: fuzz/fuzz_onnx_read.c tests/tools/onnx_harness.h tests/tools/lg_harness.h $(FUZZ_ONNX_SRC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CLANG) $(BASEFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -o $@ fuzz/fuzz_onnx_read.c $(FUZZ_ONNX_SRC) -lm

# Seeds for the ONNX target: a few conformance models (Debian libonnx-testdata) with
# initializers, subgraphs (If, Loop, Scan) and typed data.
ONNX_DATA ?= /usr/share/libonnx-testdata/data
ONNX_SEEDS := pytorch-operator/test_operator_conv node/test_if node/test_loop11 node/test_scan9_sum \
              node/test_layer_normalization_3d_axis_negative_1_epsilon_expanded node/test_constant \
              node/test_cast_FLOAT_to_STRING node/test_gather_0 pytorch-converted/test_Conv2d

deps:
	@scripts/install-deps.sh

verify-deps:
	@scripts/verify-deps.sh

corpus: deps
	@scripts/fetch-corpus.sh $(B)/corpus
	@scripts/fetch-quant-corpus.sh $(B)/quant

demo: deps all
	@scripts/demo.sh

# The whole suite: unit tests (normal and sanitized), end-to-end tests on the real corpus
# against flatc and LiteRT.js, the malformed-input sweep under ASan/UBSan, a bounded fuzz run.
test: deps corpus all $(B)/test_unit $(B)/san/test_unit $(B)/san/litegpu $(B)/fuzz/fuzz_tflite_read $(B)/fuzz/fuzz_onnx_read
	@tests/run.sh

unit: $(B)/test_unit
	$(B)/test_unit

fuzz: $(B)/fuzz/fuzz_tflite_read $(B)/fuzz/fuzz_onnx_read corpus
	@mkdir -p $(B)/fuzz/corpus && cp -n $(B)/corpus/*.tflite examples/*.tflite $(B)/fuzz/corpus/ 2>/dev/null || true
	$(B)/fuzz/fuzz_tflite_read -max_total_time=$${FUZZ_SECONDS:-300} -rss_limit_mb=2048 $(B)/fuzz/corpus
	@mkdir -p $(B)/fuzz/onnx_corpus && for s in $(ONNX_SEEDS); do \
	    cp -n $(ONNX_DATA)/$$s/model.onnx $(B)/fuzz/onnx_corpus/$$(echo $$s | tr / _).onnx 2>/dev/null; done; true
	$(B)/fuzz/fuzz_onnx_read -max_total_time=$${FUZZ_SECONDS:-300} -rss_limit_mb=2048 $(B)/fuzz/onnx_corpus

# The generator's input: TFLite's schema (a copy in tools/gen/, Apache-2.0 header kept).
GEN_SCHEMA ?= tools/gen/tflite-schema.fbs
check-gen:
	@test -f $(GEN_SCHEMA) || { echo "FAIL missing $(GEN_SCHEMA) (the generator reads the TFLite schema from there)"; echo "generated: 0 passed, 1 failed"; exit 1; }
	@d=$$(mktemp -d) && python3 tools/gen/gen_schema.py $(GEN_SCHEMA) $$d 2>/dev/null && \
	  for f in include/lg/options.h include/lg/ops.def src/ir/schema_gen.c; do \
	    cmp -s $$d/$$f $$f || { echo "stale generated file: $$f (run tools/gen/gen_schema.py)"; exit 1; }; done; \
	  echo "generated: 1 passed, 0 failed"

check-half-exhaustive:
	@mkdir -p $(B) && $(CC) $(BASEFLAGS) -O2 -o $(B)/half_exhaustive tests/tools/half_exhaustive.c && $(B)/half_exhaustive

bench: all corpus
	@bench/run.sh

clean:
	rm -rf $(B)/obj $(B)/san $(B)/fuzz $(B)/litegpu $(B)/liblitegpu.a $(B)/test_unit

# ---- install (README "Install"): the CLI, the static library, the public headers, litegpu.pc
# and the man page. `make install PREFIX=/opt/litegpu [DESTDIR=staging]`; `make uninstall`
# with the same variables removes exactly those files (and include/lg/ when it is left empty).
# Both only depend on the built targets: nothing is rebuilt when the build is current.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL    ?= install
LG_VERSION := $(shell sed -n 's/^\#define LG_VERSION_STRING "\(.*\)"/\1/p' include/lg/lg.h)
# lg/lg.h includes lg/ops.def (the op list), so it is a public header too.
PUB_HDR    := $(sort $(wildcard include/lg/*.h)) include/lg/ops.def
INSTALLED  := $(DESTDIR)$(BINDIR)/litegpu $(DESTDIR)$(LIBDIR)/liblitegpu.a \
              $(addprefix $(DESTDIR)$(INCLUDEDIR)/lg/,$(notdir $(PUB_HDR))) \
              $(DESTDIR)$(PKGCONFIGDIR)/litegpu.pc $(DESTDIR)$(MANDIR)/man1/litegpu.1
# in litegpu.pc, a directory under PREFIX is written ${prefix}/...
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

.PHONY: install uninstall install-check-prefix

# The man page, generated from the help texts (tools/cli/man.c): it cannot drift from them.
all: $(B)/litegpu.1
$(B)/litegpu.1: $(B)/litegpu
	@$(if $(Q),echo "  MAN     $@")
	$(Q)$(B)/litegpu help --man >$@.tmp && mv $@.tmp $@

clean: clean-man
.PHONY: clean-man
clean-man:
	rm -f $(B)/litegpu.1

install-check-prefix:
	@case "$(PREFIX)" in /*) ;; *) echo "make install: PREFIX must be an absolute path (got '$(PREFIX)')" >&2; exit 2;; esac

install: install-check-prefix $(B)/litegpu $(B)/liblitegpu.a $(B)/litegpu.1 litegpu.pc.in
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/lg \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 755 $(B)/litegpu $(DESTDIR)$(BINDIR)/litegpu
	$(INSTALL) -m 644 $(B)/liblitegpu.a $(DESTDIR)$(LIBDIR)/liblitegpu.a
	$(INSTALL) -m 644 $(PUB_HDR) $(DESTDIR)$(INCLUDEDIR)/lg/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call pc_dir,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(call pc_dir,$(INCLUDEDIR))|' -e 's|@VERSION@|$(LG_VERSION)|' \
	    litegpu.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/litegpu.pc.tmp
	mv $(DESTDIR)$(PKGCONFIGDIR)/litegpu.pc.tmp $(DESTDIR)$(PKGCONFIGDIR)/litegpu.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/litegpu.pc
	$(INSTALL) -m 644 $(B)/litegpu.1 $(DESTDIR)$(MANDIR)/man1/litegpu.1

uninstall:
	rm -f $(INSTALLED)
	@if [ -d $(DESTDIR)$(INCLUDEDIR)/lg ]; then rmdir $(DESTDIR)$(INCLUDEDIR)/lg 2>/dev/null || \
	    echo "make uninstall: kept $(DESTDIR)$(INCLUDEDIR)/lg (it holds files litegpu did not install)"; fi

-include $(shell find $(B) -name '*.d' 2>/dev/null)
