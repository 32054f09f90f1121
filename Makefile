# Table Companion: every target sets up what it needs on a fresh Debian machine.
#   make run    start the companion on its embedded defaults (simulated hardware)
#   make test   lint, format check and the whole test suite
#   make bench  the benchmarks in bench/
#   make tournament  a broker, a director (pages on HTTP=127.0.0.1:8080) and eight simulated tables
#   make pi-check  install and test as on a Raspberry Pi: arm64 Debian under qemu (slow, root)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEBSTAMP := $(VENV)/.debian-packages
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages the project uses on any machine (word lists, WordNet, fonts, tools).
APT_PACKAGES := python3-venv scowl wordnet-base dict-gcide fonts-dejavu-core openscad systemd tmux fonts-liberation fonts-freefont-ttf fonts-urw-base35
# The fonts the board reader's cell model is taught in (`make vision-model`) and the tests'
# cross-profile check draws with; the model itself is shipped in the package, so every install
# reads with the same one.
APT_PACKAGES += fonts-dejavu-extra fonts-open-sans fonts-roboto-unhinted fonts-lato fonts-croscore fonts-crosextra-carlito fonts-league-spartan fonts-cantarell
# the OLED's font for names in Chinese, Japanese, Korean (5 MB; fonts-noto-cjk is 90 MB)
APT_PACKAGES += fonts-wqy-microhei
# The tournament: the MQTT broker, and the headless browser the director's pages are tested in.
APT_PACKAGES += mosquitto mosquitto-clients chromium chromium-driver openssl
# Extras installed only on a Raspberry Pi (64-bit Raspberry Pi OS).
ARCH := $(shell uname -m)
ifeq ($(ARCH),aarch64)
PIP_EXTRAS := dev,pi
else
PIP_EXTRAS := dev
endif
# 32-bit ARM (armhf userland, even on a Pi 4/5's 64-bit kernel) is refused at once: numpy, Pillow,
# OpenCV, marisa-trie and regex have no wheels for it, pip would compile for hours (docs/pi.md)
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
ifneq ($(filter armhf armel,$(DEB_ARCH))$(filter armv6l armv7l,$(ARCH)),)
$(error this is a 32-bit system ($(DEB_ARCH) $(ARCH)): the Table Companion needs Raspberry Pi OS (64-bit), bookworm; write it with Raspberry Pi Imager (Raspberry Pi OS (other) -> Raspberry Pi OS Lite (64-bit)). See docs/pi.md)
endif

LINT_DIRS = $(wildcard companion tests bench firmware)

.PHONY: run test lint bench deps clean install firmware tournament vision-model pi-check

$(DEBSTAMP): Makefile
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	  if echo " $$missing " | grep -q " mosquitto " && [ -d /run/systemd/system ]; then \
	    echo "Debian's mosquitto service stopped and disabled: companion director starts a broker of its own on 1883"; \
	    $(SUDO) systemctl disable --now mosquitto.service >/dev/null 2>&1 || true; \
	  fi; \
	fi
	@mkdir -p $(VENV) && touch $@

$(STAMP): pyproject.toml $(DEBSTAMP)
	@[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[$(PIP_EXTRAS)]"
	touch $@

deps: $(STAMP)

# the table's lexicon, the Wordinoes judge's caches and judge --explain's index are built here,
# before the table service starts (never inside it), as `make install` does on the box
run: $(STAMP)
	$(BIN)/companion lexicon build
	$(BIN)/companion wordinoes warm
	$(BIN)/companion lexicon explain-index
	$(BIN)/companion sim

# a broker, a director and eight simulated tables playing rounds on this machine (docs/tournament.md)
HTTP ?= 127.0.0.1:8080
tournament: $(STAMP)
	$(BIN)/python -m companion.tournament.demo --tables 8 --http $(HTTP)

lint: $(STAMP)
	$(BIN)/ruff check $(LINT_DIRS)
	$(BIN)/ruff format --check $(LINT_DIRS)

test: lint
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench

# rebuild the board reader's shipped cell model from scratch (companion/vision/learn.py): wide
# renders in every installed Latin font, seeded, trained with PyTorch's CPU build (the train
# extra, installed here only), written as ONNX with its recipe beside it (data/cellnet.json)
vision-model: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[$(PIP_EXTRAS),train]"
	$(BIN)/companion vision train --output companion/vision/data/cellnet.onnx
	@git diff --quiet -- companion/vision/data/cellnet.onnx 2>/dev/null; [ $$? -ne 1 ] || echo "cellnet.onnx differs from the one committed: a new model; measure it (.venv/bin/python -m bench vision_validation: no wrong board trusted) before committing it (docs/vision.md, 'Rebuilding it')"

# flash the Pico timer head (firmware/) with mpremote; PORT=/dev/ttyACM0 overrides [head] port
firmware: $(STAMP)
	$(BIN)/companion head flash $(if $(PORT),--port $(PORT))

# install the table service on Raspberry Pi OS (companion/platform/install.py; safe to run twice);
# `make install DRY_RUN=1` prints the steps only
install:
	$(if $(DRY_RUN),,$(SUDO)) $(PYTHON) -m companion.platform.install $(if $(DRY_RUN),--dry-run)

# install and test as on a Raspberry Pi: an arm64 Debian bookworm root under qemu (kept in
# /var/tmp/table-companion-pi, reused), `make install` there, the tests of what the box runs
# (pi_check.PI_SELECTION), the camera's imports and the judge cache's memory peak
# (companion/platform/pi_check.py); PI_TESTS="tests/test_x.py" runs those tests instead,
# PI_TESTS=tests the whole suite (hours under qemu on a 2-core machine)
pi-check:
	$(SUDO) $(PYTHON) -m companion.platform.pi_check $(if $(PI_ROOT),--root $(PI_ROOT)) $(if $(PI_TESTS),-- $(PI_TESTS))

clean:
	rm -rf $(VENV) build *.egg-info
