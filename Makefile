# OpenBench contract: `make EXE=<path> [EVALFILE=<net>]` builds the luft engine at <path>,
# optimised for this CPU, with <net> embedded as the default net when given.
# FEATURES=tune builds the tuning engine (every search tunable a UCI option; `luft spsa`);
# an SPSA branch for OpenBench sets `FEATURES ?= tune` here.
EXE ?= luft
EVALFILE ?=
FEATURES ?=

ifneq ($(EVALFILE),)
    NET_ENV := EVALFILE=$(abspath $(EVALFILE))
endif

.PHONY: all clean

all:
	$(NET_ENV) cargo rustc --release -p engine --bin luft $(if $(FEATURES),--features $(FEATURES)) -- -C target-cpu=native --emit link=$(abspath $(EXE))

clean:
	cargo clean
