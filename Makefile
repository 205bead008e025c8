# OpenBench contract: `make EXE=<path> [EVALFILE=<net>]` builds the luft engine at <path>,
# optimised for this CPU, with <net> embedded as the default net when given.
EXE ?= luft
EVALFILE ?=

ifneq ($(EVALFILE),)
    NET_ENV := EVALFILE=$(abspath $(EVALFILE))
endif

.PHONY: all clean

all:
	$(NET_ENV) cargo rustc --release -p engine --bin luft -- -C target-cpu=native --emit link=$(abspath $(EXE))

clean:
	cargo clean
