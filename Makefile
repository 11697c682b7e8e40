# Builds and installs gitbay-sync, its manual page and its shell completions.
#
#   make                      build the release binary (static Swift runtime)
#   make install              install under PREFIX (default /usr/local)
#   make uninstall            remove exactly what install put there
#
# PREFIX and DESTDIR work as usual: `make install DESTDIR=/tmp/pkg PREFIX=/usr` stages a
# package. BINARY names an already built executable to install instead of building one.

PREFIX ?= /usr/local
DESTDIR ?=
SHELL := /bin/sh

RELEASE_BINARY := .build/release/gitbay-sync
BINARY ?= $(RELEASE_BINARY)

BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man/man1
BASHDIR := $(PREFIX)/share/bash-completion/completions
ZSHDIR := $(PREFIX)/share/zsh/site-functions
FISHDIR := $(PREFIX)/share/fish/vendor_completions.d

INSTALLED := \
	$(BINDIR)/gitbay-sync \
	$(MANDIR)/gitbay-sync.1 \
	$(BASHDIR)/gitbay-sync \
	$(ZSHDIR)/_gitbay-sync \
	$(FISHDIR)/gitbay-sync.fish

SOURCES := Package.swift $(shell find Sources Migrations -type f 2>/dev/null)

.PHONY: all install uninstall

all: $(RELEASE_BINARY)

# The installable build (README, Install): release, with the Swift runtime linked in
# (scripts/release-build says how it links). swift build leaves an up-to-date binary as it
# is: `touch` tells make that it is built.
$(RELEASE_BINARY): $(SOURCES)
	scripts/release-build --product gitbay-sync
	touch $@

install: $(BINARY)
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)" "$(DESTDIR)$(BASHDIR)" "$(DESTDIR)$(ZSHDIR)" "$(DESTDIR)$(FISHDIR)"
	install -m 0755 "$(BINARY)" "$(DESTDIR)$(BINDIR)/gitbay-sync"
	"$(BINARY)" man > "$(DESTDIR)$(MANDIR)/gitbay-sync.1"
	"$(BINARY)" completions bash > "$(DESTDIR)$(BASHDIR)/gitbay-sync"
	"$(BINARY)" completions zsh > "$(DESTDIR)$(ZSHDIR)/_gitbay-sync"
	"$(BINARY)" completions fish > "$(DESTDIR)$(FISHDIR)/gitbay-sync.fish"
	chmod 0644 "$(DESTDIR)$(MANDIR)/gitbay-sync.1" "$(DESTDIR)$(BASHDIR)/gitbay-sync" \
		"$(DESTDIR)$(ZSHDIR)/_gitbay-sync" "$(DESTDIR)$(FISHDIR)/gitbay-sync.fish"

uninstall:
	rm -f $(foreach file,$(INSTALLED),"$(DESTDIR)$(file)")
