# libprofil - the only build description (GNU make).
#
#   make            library, pcprof, tests, examples
#   make deps       install missing Debian packages (idempotent; root)
#   make check      build and run every test (TAP through prove)
#   make demo       profile the bundled demo program
#   make install    PREFIX=/usr/local DESTDIR=
#   make bench      benchmarks (bench/README.md); not part of check
#
# Sources are found by wildcard: a new engine, subcommand or test is a new
# file, not a Makefile edit.

VERSION    := 1.0.0
SOVERSION  := 1
PREFIX     ?= /usr/local
DESTDIR    ?=
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man

CC      ?= cc
AR      ?= ar
CFLAGS  ?= -O2 -g
WERROR  ?= -Werror
WARN    := -Wall -Wextra $(WERROR)
STD     := -std=gnu11 -D_GNU_SOURCE
B       := build
ARCH    := $(shell $(CC) -dumpmachine | cut -d- -f1)

# A sanitizer build (make check-asan, make check-tsan) sets SAN to the
# -fsanitize list and B to its own directory: the library, pcprof and the
# tests are instrumented; the LD_AUDIT module and the test targets are not
# (tests/README.md, "Build directories and sanitizers").  The runtime must
# be the first library of a process, so pcprof run of such a build puts it
# first in the target's LD_PRELOAD (PCPROF_PRELOAD_FIRST).  glibc declares
# profil's buffer nonnull, but profil(NULL, 0, 0, 0) is how the classic
# interface turns profiling off (spec/semantics.md), so UBSan's
# nonnull-attribute check would report every correct program.
SAN     ?=
, := ,
ifneq ($(SAN),)
SAN_RT_NAME := $(if $(findstring thread,$(SAN)),libtsan.so,libasan.so)
SAN_RT      := $(shell $(CC) -print-file-name=$(SAN_RT_NAME))
SAN_FLAGS   := -fsanitize=$(SAN) -fno-omit-frame-pointer \
	$(if $(findstring undefined,$(SAN)),-fno-sanitize-recover=undefined \
	-fno-sanitize=nonnull-attribute)
CFLAGS      += $(SAN_FLAGS)
# ThreadSanitizer: the library stays plain.  Every thread a program creates
# starts in the library's start routine (lib/threads.c) before TSan's own
# thread start has set the thread up, and TSan's runtime calls sigaction
# and pthread_create, which the library interposes, before it is itself
# initialised: instrumented library code there crashes in TSan.  TSan then
# checks pcprof and the tests; ASan and UBSan check the library.
LIB_SAN_FLAGS := $(if $(findstring thread,$(SAN)),,$(SAN_FLAGS))
endif

.PHONY: all lib cli tests examples deps check check-asan check-tsan demo demo-bin install uninstall clean \
	format-check bench
.DELETE_ON_ERROR:

all: lib cli tests examples

# ---- the library ----------------------------------------------------------

LIB_SRC := $(wildcard lib/*.c lib/sig/*.c lib/arch/*.c)
LIB_ASM := $(wildcard lib/arch/*-$(ARCH).S)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o) $(LIB_ASM:%.S=$(B)/%.o)
# -fno-delete-null-pointer-checks: glibc declares profil's buffer
# __nonnull((1)), and our definition sees that prototype; without the flag
# GCC may drop the "NULL buffer turns profiling off" test it then assumes
# cannot be true.
# -fstack-usage: each object's frame sizes in a .su file beside it, which
# tests/abi/t-frames.sh holds to a limit (the library runs on other
# people's stacks: docs/signal-safety.md, "The handler's stack budget").
STACK_USAGE := $(shell $(CC) -fstack-usage -E -x c /dev/null >/dev/null 2>&1 && echo -fstack-usage)
LIB_CFLAGS := $(STD) $(WARN) $(filter-out $(SAN_FLAGS),$(CFLAGS)) $(LIB_SAN_FLAGS) -fPIC \
	-fvisibility=hidden -pthread -fno-delete-null-pointer-checks $(STACK_USAGE)

SONAME  := libprofil.so.$(SOVERSION)
LIB_SO  := $(B)/$(SONAME)
LIB_A   := $(B)/libprofil.a
LIB_PC  := $(B)/libprofil.pc
# The module tracker pcprof loads with LD_AUDIT (lib/audit/audit.c): its own
# small object, sharing only the raw-file code with the library.
AUDIT_SO  := $(B)/libprofil-audit.so.1
AUDIT_OBJ := $(B)/audit/audit.o $(B)/audit/rawfile.o $(B)/audit/sig/filters.o
# Never instrumented: the dynamic loader runs audit modules in a namespace
# of their own, where a second sanitizer runtime cannot start.
AUDIT_CFLAGS := $(filter-out $(SAN_FLAGS),$(LIB_CFLAGS))
AUDIT_LDFLAGS :=
# Where lib/audit/nolibc.c has system calls, the module needs no library at
# all: a module that needs libc gets a second libc loaded and relocated in
# its namespace, in every process image (docs/benchmarks.md, "Cost per
# exec").  No stack protector, fortified calls or TLS there, no loop
# turned back into a call of the memcpy it implements, and on aarch64 no
# out-of-line atomics (libgcc's need getauxval from libc).
ifneq ($(filter x86_64 aarch64,$(ARCH)),)
AUDIT_OBJ    += $(B)/audit/nolibc.o
AUDIT_CFLAGS += -fno-stack-protector -U_FORTIFY_SOURCE -fno-tree-loop-distribute-patterns \
	$(if $(filter aarch64,$(ARCH)),-mno-outline-atomics)
AUDIT_LDFLAGS := -nostdlib -Wl,-z,now
AUDIT_LIBS    := -lgcc
endif

lib: $(LIB_SO) $(B)/libprofil.so $(LIB_A) $(LIB_PC) $(B)/include.stamp $(AUDIT_SO)

$(B)/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/lib/%.o: lib/%.S
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -c -o $@ $<

$(LIB_SO): $(LIB_OBJ) lib/libprofil.map
	$(CC) $(LIB_SAN_FLAGS) -shared -pthread -Wl,-soname,$(SONAME) -Wl,--version-script=lib/libprofil.map \
		-Wl,-z,defs -Wl,-z,now -o $@ $(LIB_OBJ) -ldl

$(B)/audit/%.o: lib/audit/%.c
	@mkdir -p $(@D)
	$(CC) $(AUDIT_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/audit/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(AUDIT_CFLAGS) -MMD -MP -c -o $@ $<

$(AUDIT_SO): $(AUDIT_OBJ)
	$(CC) -shared $(AUDIT_LDFLAGS) -Wl,-soname,libprofil-audit.so.1 -Wl,-z,defs -o $@ \
		$(AUDIT_OBJ) $(AUDIT_LIBS)

$(B)/libprofil.so: $(LIB_SO)
	ln -sf $(SONAME) $@

# libprofil.a has objects of its own, compiled with PROFIL_STATIC_ARCHIVE,
# because a static program cannot interpose pthread_create the way the
# shared library does (lib/pthread-create.c): the archive offers the
# linker's --wrap instead, which libprofil.pc's static flags request.
LIB_A_OBJ := $(LIB_OBJ:$(B)/%=$(B)/static/%)

$(B)/static/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -DPROFIL_STATIC_ARCHIVE -MMD -MP -c -o $@ $<

$(B)/static/lib/%.o: lib/%.S
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -c -o $@ $<

$(LIB_A): $(LIB_A_OBJ)
	rm -f $@
	$(AR) rcs $@ $(LIB_A_OBJ)

# The .pc names the install directories, so make install writes it again
# with the PREFIX given at install time.
make_pc = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' libprofil.pc.in > $(1)

$(LIB_PC): libprofil.pc.in Makefile
	@mkdir -p $(@D)
	$(call make_pc,$@)

# The headers as they are installed, so that tests and examples compile
# exactly as users' programs do (-I$(B)/include/libprofil).
HEADERS := $(shell find include -name '*.h')
$(B)/include.stamp: $(HEADERS)
	@mkdir -p $(B)/include/libprofil
	cp -R include/. $(B)/include/libprofil/
	@touch $@

# ---- pcprof (cli/) ---------------------------------------------------------

CLI_SRC := $(wildcard cli/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
CLI_PKGS := libdw libelf zlib libdebuginfod
CLI_CFLAGS = $(STD) $(WARN) $(CFLAGS) $(shell pkg-config --cflags $(CLI_PKGS) 2>/dev/null)
# libiberty: the C++/Rust demangler (static only on Debian; libiberty-dev)
CLI_LIBS = $(shell pkg-config --libs $(CLI_PKGS) 2>/dev/null || echo -ldw -lelf -lz -ldebuginfod) -liberty

ifneq ($(CLI_SRC),)
cli: $(B)/pcprof
else
cli:
endif

$(B)/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -Ilib -DPCPROF_VERSION=\"$(VERSION)\" -MMD -MP -c -o $@ $<

# pcprof run looks for libprofil.so.1 next to itself (the build tree), then
# in PCPROF_LIBDIR, where `make install` puts it.  make install links a
# copy of its own, $(B)/install/pcprof, whose cmd-run.o is rebuilt whenever
# LIBDIR changes (install/libdir.txt): installing with another PREFIX than
# the build's gives a pcprof that looks in the right place, and never
# relinks the build tree's pcprof under tests that are running it.
$(B)/cli/cmd-run.o: CLI_CFLAGS += -DPCPROF_LIBDIR=\"$(LIBDIR)\" \
	$(if $(LIB_SAN_FLAGS),-DPCPROF_PRELOAD_FIRST=\"$(SAN_RT)\")

$(B)/install/libdir.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(LIBDIR)' | cmp -s - $@ || echo '$(LIBDIR)' >$@
FORCE:

$(B)/install/cmd-run.o: cli/cmd-run.c $(B)/install/libdir.txt
	$(CC) $(CLI_CFLAGS) -Ilib -DPCPROF_VERSION=\"$(VERSION)\" \
		-DPCPROF_LIBDIR=\"$(LIBDIR)\" -MMD -MP -c -o $@ $<

$(B)/install/pcprof: $(B)/install/cmd-run.o $(filter-out $(B)/cli/cmd-run.o,$(CLI_OBJ))
	$(CC) $(CFLAGS) -o $@ $^ $(CLI_LIBS) -lcapstone -lm

install: $(if $(CLI_SRC),$(B)/install/pcprof)

# The HTML page's script, cli/html-flame.js, becomes a C string literal
# (tabs as spaces: the page holds no control characters, t-names.sh).
$(B)/cli/html-flame.inc: cli/html-flame.js
	@mkdir -p $(@D)
	sed -e 's/\t/  /g' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@
$(B)/cli/out-html.o: $(B)/cli/html-flame.inc
$(B)/cli/out-html.o: CLI_CFLAGS += -I$(B)/cli
# The same for the source view's script, cli/html-annotate.js.
$(B)/cli/html-annotate.inc: cli/html-annotate.js
	@mkdir -p $(@D)
	sed -e 's/\t/  /g' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@
$(B)/cli/out-html-annotate.o: $(B)/cli/html-annotate.inc
$(B)/cli/out-html-annotate.o: CLI_CFLAGS += -I$(B)/cli

# Capstone disassembles for `pcprof annotate --asm` (cmd-annotate.c only)
$(B)/pcprof: $(CLI_OBJ)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(CLI_LIBS) -lcapstone -lm

# ---- tests -----------------------------------------------------------------
# tests/<group>/t-*.c: one program per test, linked with the shared library.
# tests/targets/*.c: programs the tests run.  tests/unit may include lib/.

TEST_SRC   := $(wildcard tests/*/t-*.c)
TEST_BIN   := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TARGET_SRC := $(wildcard tests/targets/*.c)
TARGET_BIN := $(TARGET_SRC:tests/%.c=$(B)/tests/%)
TEST_HDRS  := $(wildcard tests/*.h tests/*/*.h)
TEST_CFLAGS := $(STD) $(WARN) $(CFLAGS) -pthread -I$(B)/include/libprofil -Itests \
	-fno-omit-frame-pointer
TEST_LDFLAGS := -L$(B) -Wl,-rpath,$(CURDIR)/$(B)

tests: $(TEST_BIN) $(TARGET_BIN) $(if $(SAN),$(B)/test.env)

# What tests/run-one needs to know of a sanitizer build (tests/README.md).
$(B)/test.env: Makefile
	@mkdir -p $(@D)
	printf "SANITIZE='%s'\nSAN_CFLAGS='%s'\nSAN_PRELOAD='%s'\n" \
		'$(SAN)' '$(SAN_FLAGS)' '$(if $(LIB_SAN_FLAGS),$(SAN_RT))' >$@

$(B)/tests/unit/%: tests/unit/%.c $(LIB_A) $(B)/include.stamp $(TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -Ilib -o $@ $< $(LIB_A) -ldl

$(B)/tests/%: tests/%.c $(LIB_SO) $(B)/libprofil.so $(B)/include.stamp $(TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(TEST_LDFLAGS) -lprofil -lm

# tests/stacks: the stack walker (lib/sig/unwind*.c) called from the
# tests' own signal handlers, so linked with libprofil.a for its hidden
# entry points; built with -O2 and without frame pointers, as Debian builds
# its binaries, with a shared library (libstk.so) and a plugin they
# dlopen (stkplugin.so) of their own.
STACKS := $(B)/tests/stacks
STACKS_CFLAGS = $(STD) $(WARN) $(CFLAGS) -O2 -g -fomit-frame-pointer -pthread \
	-I$(B)/include/libprofil -Itests -Ilib
$(STACKS)/libstk.so: tests/stacks/stklib.c tests/stacks/stacks.h
	@mkdir -p $(@D)
	$(CC) $(STACKS_CFLAGS) -fPIC -shared -o $@ $<
$(STACKS)/stkplugin.so: tests/stacks/stkplugin.c tests/stacks/stacks.h
	@mkdir -p $(@D)
	$(CC) $(STACKS_CFLAGS) -fPIC -shared -o $@ $<
# Two plugins alike but for one byte of their call-frame information
# (tests/stacks/stkswap.c).
$(STACKS)/stkswap1.so $(STACKS)/stkswap2.so: $(STACKS)/stkswap%.so: tests/stacks/stkswap.c
	@mkdir -p $(@D)
	$(CC) $(STACKS_CFLAGS) -fPIC -shared -Wl,--build-id -DSWAP=$* \
		-DSWAP_CFA=$(if $(filter 1,$*),16,48) -o $@ $<
$(STACKS)/%: tests/stacks/%.c tests/stacks/stacks.h $(LIB_A) $(B)/include.stamp $(TEST_HDRS) \
		$(STACKS)/libstk.so $(STACKS)/stkplugin.so $(STACKS)/stkswap1.so \
		$(STACKS)/stkswap2.so
	$(CC) $(STACKS_CFLAGS) -rdynamic -o $@ $< $(LIB_A) -L$(STACKS) -lstk \
		-Wl,-rpath,$(CURDIR)/$(STACKS) -ldl

# tests/static: programs linked statically with libprofil.a, the plain way
# (cc -static prog.c libprofil.a -lpthread).  Where that cannot be done (no
# static libc; a sanitizer build, whose runtimes are shared libraries) each
# is built as a program that skips and says why.
STATIC_LIBC := $(shell $(CC) -print-file-name=libc.a)
STATIC_NO = $(if $(findstring -fsanitize,$(TEST_CFLAGS)),a sanitizer build cannot link \
	static programs,$(if $(filter /%,$(STATIC_LIBC)),,no static C library (libc.a)))
$(B)/tests/static/%: tests/static/%.c $(LIB_A) $(B)/include.stamp $(TEST_HDRS)
	@mkdir -p $(@D)
	$(if $(STATIC_NO),$(CC) $(TEST_CFLAGS) -DT_NO_STATIC='"$(STATIC_NO)"' -o $@ $<,\
		$(CC) $(TEST_CFLAGS) -static -o $@ $< $(LIB_A) -lpthread)

# Targets are built without libprofil: they are profiled from outside.
$(B)/tests/targets/%: tests/targets/%.c $(TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O1 -g -fno-omit-frame-pointer -pthread -o $@ $< -lm

# tests/cli-run/*.c test pcprof's own code (the data file, the raw
# recordings) directly, so they link those objects instead of libprofil;
# ppdump is not a test but the reader the shell tests there query.
CLI_TEST_OBJ := $(B)/cli/data.o $(B)/cli/file.o $(B)/cli/frames.o $(B)/cli/raw.o $(B)/cli/util.o
CLI_TEST_CFLAGS = $(CLI_CFLAGS) -Icli -Ilib -Itests
$(B)/tests/cli-run/%: tests/cli-run/%.c $(CLI_TEST_OBJ) tests/test.h
	@mkdir -p $(@D)
	$(CC) $(CLI_TEST_CFLAGS) -o $@ $< $(CLI_TEST_OBJ) $(CLI_LIBS)

tests: $(B)/tests/cli-run/ppdump

# tests/cli-report: mkfixture writes profiles with known samples at its own
# functions and at those of three test libraries (libcold.so stripped,
# libdbg.so with a separate debug file);
# jsoncheck validates JSON without python.  Neither is a test: the t-*.sh
# scripts run them.
CLI_REPORT := $(B)/tests/cli-report
$(CLI_REPORT)/lib%.so: tests/cli-report/%lib.c
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O1 -g -fPIC -shared -Wl,-soname,$(@F) \
		$(if $(filter cold,$*),-s) -o $@ $<
# libdbg.so: stripped, its symbols in libdbg.so.debug beside it (debuglink)
$(CLI_REPORT)/libdbg.so: tests/cli-report/dbglib.c
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O1 -g -fPIC -shared -Wl,-soname,$(@F) -o $@.full $<
	objcopy --only-keep-debug $@.full $@.debug
	cd $(@D) && objcopy --strip-all --add-gnu-debuglink=$(@F).debug $(@F).full $(@F)
	rm -f $@.full
$(CLI_REPORT)/mkfixture: tests/cli-report/mkfixture.c $(CLI_TEST_OBJ) $(CLI_REPORT)/libhot.so \
		$(CLI_REPORT)/libcold.so $(CLI_REPORT)/libdbg.so
	$(CC) $(CLI_TEST_CFLAGS) -o $@ $< $(CLI_TEST_OBJ) -L$(CLI_REPORT) -lhot \
		-Wl,-rpath,$(CURDIR)/$(CLI_REPORT) $(CLI_LIBS) -ldl
$(CLI_REPORT)/jsoncheck: tests/cli-report/jsoncheck.c
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) -o $@ $<
# mkcrafted writes hostile data files and archives with an encoder of its
# own (what pcprof's refuses to write).
$(CLI_REPORT)/mkcrafted: tests/cli-report/mkcrafted.c
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) -o $@ $< -lz

# t-random calls the report code in-process on random profiles, built with
# the sanitizers so that what goes wrong quietly shows (in a sanitizer
# build, with that build's).
CLI_LIB_SRC := $(filter-out cli/main.c cli/cmd-%.c,$(CLI_SRC))
$(CLI_REPORT)/t-random: tests/cli-report/t-random.c $(CLI_LIB_SRC) $(wildcard cli/*.h) tests/test.h \
		$(B)/cli/html-flame.inc
	@mkdir -p $(@D)
	$(CC) $(CLI_TEST_CFLAGS) -I$(B)/cli -DPCPROF_VERSION=\"$(VERSION)\" $(if $(SAN),,-fsanitize=address$(,)undefined \
		-fno-sanitize-recover=undefined -fno-omit-frame-pointer) -o $@ $< $(CLI_LIB_SRC) \
		$(CLI_LIBS) -lm
$(CLI_REPORT)/t-random: $(B)/cli/html-annotate.inc
$(CLI_REPORT)/t-random: CLI_LIBS += -lcapstone

tests: $(CLI_REPORT)/mkfixture $(CLI_REPORT)/jsoncheck $(CLI_REPORT)/mkcrafted

# tests/helpers/datashim.c: preloaded into pcprof by the t-data-*.sh tests
# (plain or sanitizer build alike), so never instrumented.
$(B)/tests/helpers/datashim.so: tests/helpers/datashim.c
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O1 -g -fPIC -shared -o $@ $< -ldl -pthread
tests: $(B)/tests/helpers/datashim.so

# ---- profil-family tests and examples (tests/family, tests/compat, examples/)
# The family tests share tests/family/family.h.  examples/*.c are programs
# written as on each seed system (HP-UX, IRIX, Solaris, Tru64, AIX); here
# they are built against $(B)/include/libprofil for convenience, while
# tests/compat/t-examples.sh builds them against a staged `make install`
# through pkg-config, as their users would.

$(filter $(B)/tests/family/%,$(TEST_BIN)): tests/family/family.h

EXAMPLE_SRC := $(wildcard examples/*.c)
EXAMPLE_BIN := $(EXAMPLE_SRC:%.c=$(B)/%)

examples: $(EXAMPLE_BIN)

$(B)/examples/%: examples/%.c $(LIB_SO) $(B)/libprofil.so $(B)/include.stamp
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -I$(B)/include/libprofil -o $@ $< $(TEST_LDFLAGS) -lprofil

# ---- check -----------------------------------------------------------------

# check and demo install missing packages first (make deps), then build.
check:
	$(MAKE) deps
	$(MAKE) all
	tests/check

# The whole suite again with AddressSanitizer and UBSan, and with
# ThreadSanitizer, each in a build directory of its own.
check-asan check-tsan: SANB = $(if $(findstring tsan,$@),build-tsan,build-asan)
check-asan check-tsan: SANL = $(if $(findstring tsan,$@),thread,address$(,)undefined)
check-asan check-tsan:
	$(MAKE) deps
	$(MAKE) B=$(SANB) SAN=$(SANL) all
	B=$(SANB) tests/check

# ---- demo ------------------------------------------------------------------
# tests/demo builds demo-bin and profiles pcprof-demo with pcprof run.  The
# demo has hot code in its executable, in a shared library of its own
# (found through its RUNPATH, $ORIGIN) and in a plugin it dlopen()s, and is
# built like any program, without libprofil.  selfprof is the library's own
# demo: it calls profil() on itself.

DEMO_CFLAGS := $(STD) $(WARN) -O2 -g -fno-omit-frame-pointer -pthread

demo:
	$(MAKE) deps
	$(MAKE) all
	tests/demo

demo-bin: $(B)/demo/pcprof-demo $(B)/demo/demo-plugin.so $(B)/demo/selfprof

$(B)/demo/libdemowork.so: demo/work.c demo/demo.h
	@mkdir -p $(@D)
	$(CC) $(DEMO_CFLAGS) -fPIC -shared -o $@ $<

$(B)/demo/demo-plugin.so: demo/plugin.c demo/demo.h
	@mkdir -p $(@D)
	$(CC) $(DEMO_CFLAGS) -fPIC -shared -o $@ $<

$(B)/demo/pcprof-demo: demo/demo.c demo/demo.h $(B)/demo/libdemowork.so
	$(CC) $(DEMO_CFLAGS) -o $@ $< -L$(B)/demo -ldemowork -Wl,-rpath,'$$ORIGIN' -ldl

# (selfprof is built with the flags it always had: with -Wall, glibc's
# <unistd.h> declares profil's buffer nonnull, and profil(NULL, ...) is how
# profiling is turned off.)
$(B)/demo/selfprof: demo/selfprof.c $(LIB_SO) $(B)/libprofil.so $(B)/include.stamp
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -rdynamic -pthread -I$(B)/include/libprofil -o $@ $< \
		$(TEST_LDFLAGS) -lprofil

# ---- fuzzing -----------------------------------------------------------------
# A libFuzzer build of the pcprof.data reader and of what reads its profiles
# (the model, the views, the writers) for tests/cli-run/t-fuzz.sh.  It needs
# clang's fuzzer runtime: built with the tests when a probe (once per build
# directory, kept in $(B)/fuzz/probe) finds it, and only in a build without
# sanitizers (it has its own); t-fuzz.sh SKIPs without it.  Each file is
# compiled on its own, so that a change rebuilds what it touches.
FUZZ_CFLAGS := $(STD) -g -O1 -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -Icli -Ilib -I$(B)/cli -DPCPROF_VERSION=\"$(VERSION)\"
FUZZ_OBJ := $(CLI_LIB_SRC:cli/%.c=$(B)/fuzz/%.o)
$(B)/fuzz/%.o: cli/%.c $(wildcard cli/*.h) lib/record-format.h $(B)/cli/html-flame.inc \
		$(B)/cli/html-annotate.inc
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
$(B)/fuzz/fuzz-data: tests/cli-run/fuzz-data.c $(FUZZ_OBJ)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(CLI_LIBS) -lcapstone -lm
FUZZ_PROBE = $(shell [ -e $(B)/fuzz/probe ] || { mkdir -p $(B)/fuzz && \
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' | \
	clang -x c -fsanitize=fuzzer -o $(B)/fuzz/probe.bin - >/dev/null 2>&1 && \
	echo yes >$(B)/fuzz/probe || echo no >$(B)/fuzz/probe; }; cat $(B)/fuzz/probe)
ifeq ($(SAN),)
tests: $(if $(filter yes,$(FUZZ_PROBE)),$(B)/fuzz/fuzz-data)
endif

# ---- dependencies ------------------------------------------------------------

deps:
	scripts/deps

# ---- install ---------------------------------------------------------------

install: lib cli
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/libprofil/sys $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/$(SONAME)
	install -m 755 $(AUDIT_SO) $(DESTDIR)$(LIBDIR)/libprofil-audit.so.1
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libprofil.so
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libprofil.a
	$(call make_pc,$(DESTDIR)$(LIBDIR)/pkgconfig/libprofil.pc)
	cd include && find . -name '*.h' -exec install -D -m 644 {} \
		$(DESTDIR)$(INCLUDEDIR)/libprofil/{} \;
	for m in $(wildcard man/*.[137]); do \
		s=$${m##*.}; install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	if [ -x $(B)/install/pcprof ]; then install -d $(DESTDIR)$(BINDIR) && \
		install -m 755 $(B)/install/pcprof $(DESTDIR)$(BINDIR)/pcprof; fi

# Removes what install installed, the man pages too (same list), and the
# libprofil include directory, which is ours alone.
uninstall:
	rm -rf $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libprofil.so \
		$(DESTDIR)$(LIBDIR)/libprofil.a $(DESTDIR)$(LIBDIR)/pkgconfig/libprofil.pc \
		$(DESTDIR)$(LIBDIR)/libprofil-audit.so.1 \
		$(DESTDIR)$(INCLUDEDIR)/libprofil $(DESTDIR)$(BINDIR)/pcprof
	for m in $(wildcard man/*.[137]); do \
		s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; done

# ---- misc ------------------------------------------------------------------

bench: lib
	bench/run

format-check:
	clang-format --dry-run --Werror $(LIB_SRC) $(CLI_SRC) $(wildcard lib/*.h lib/*/*.h lib/audit/*.c cli/*.h)

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
