#!/usr/bin/env bash
# ctest: Neovim (headless, built-in LSP client) against `stoker server`. Usage: run_nvim_e2e.sh STOKER_BINARY
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v nvim >/dev/null || { echo "nvim not found (setup.sh installs Debian's neovim)" >&2; exit 1; }
export STOKER_BINARY="$1" STOKER_FIXTURE="$here/starved_train.py"
# Rule documents (rules/*.md) give the diagnostics their links and the hover its text.
STOKER_HAS_RULE_DOCS=0; "$1" rule DL001 >/dev/null 2>&1 && STOKER_HAS_RULE_DOCS=1
export STOKER_HAS_RULE_DOCS
export XDG_CONFIG_HOME="$(mktemp -d)" XDG_DATA_HOME="$(mktemp -d)" XDG_STATE_HOME="$(mktemp -d)" XDG_CACHE_HOME="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"' EXIT
# -u NONE: no user config; filetype detection on so the buffer is Python.
timeout 120 nvim --headless -u NONE -i NONE -n --cmd 'filetype on' -c "luafile $here/nvim_e2e.lua" 2>&1 </dev/null
