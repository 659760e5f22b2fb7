#!/usr/bin/env bash
# peers/install.sh — install the external peers, pinned, under
# $RETRIEVALBENCH_CACHE/peers (default: the user cache dir, as the Go code
# reads it — $XDG_CACHE_HOME, else ~/.cache — + /retrievalbench/peers).
#
#   bash peers/install.sh [pydocs-mcp|codira|context7|neuledge ...]   (default: all)
#
# Idempotent: each peer is rebuilt only when its pins (the lock files beside
# this script, or the peer's recipe version below) changed since its last
# complete install, recorded in <peer>/.installed. A peer whose interpreter or models
# are missing is not installed: a loud "peers: SKIP" line says why and the
# script goes on (its cells then skip, or fail under RETRIEVALBENCH_REQUIRE).
# The exit status is non-zero only when an install that could run failed.
#
# Offline configuration is NOT written here: each peers/*.json config writes
# its own config files into its work directory ("files"), so the config hash
# covers them. This script writes the one thing those files point at that
# is not in the model cache: pydocs-mcp's local model folder.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The same default as cache.Dir (os.UserCacheDir): a peer installed anywhere
# else would be one the suite never finds.
cache=${RETRIEVALBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/retrievalbench}
peers=$cache/peers
models=$cache/models
mkdir -p "$peers"

# Every peer process, the installer's included, stays off the network.
export ORT_DISABLE_TELEMETRY=1 HF_HUB_OFFLINE=1 OTEL_SDK_DISABLED=true
export PIP_DISABLE_PIP_VERSION_CHECK=1 npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

status=0
skip() { echo "peers: SKIP $1: $2" >&2; }
fail() { echo "peers: FAIL $1: $2" >&2; status=1; }

# stamp RECIPE FILE... prints the pin hash of a peer: its recipe version
# (bump it when the install steps of that peer change) and its lock files.
stamp() {
	local recipe=$1
	shift
	{ echo "$recipe"; cat "$@"; } | sha256sum | cut -c1-16
}

# uptodate NAME HASH: the peer's last complete install had these pins.
uptodate() { [[ -f $peers/$1/.installed && $(cat "$peers/$1/.installed") == "$2" ]]; }

# pyfind MINOR: a python3.MINOR interpreter — pyenv's newest
# versions/3.MINOR.*, else python3.MINOR on PATH (not a pyenv shim that
# would resolve to another version).
pyfind() {
	local minor=$1 root cand best=
	if root=$(pyenv root 2>/dev/null); then
		best=$(printf '%s\n' "$root"/versions/3."$minor".*/bin/python3."$minor" | sort -V | while read -r cand; do
			[[ -x $cand ]] && echo "$cand"
		done | tail -1)
	fi
	if [[ -z $best ]] && cand=$(command -v python3."$minor") &&
		"$cand" -c "import sys; sys.exit(sys.version_info[:2] != (3, $minor))" 2>/dev/null; then
		best=$cand
	fi
	[[ -n $best ]] && echo "$best"
}

# venv NAME PYTHON LOCK: a fresh virtual environment with exactly the lock.
venv() {
	local name=$1 py=$2 lock=$3 dir=$peers/$1
	rm -rf "$dir"
	"$py" -m venv "$dir" || return 1
	"$dir/bin/pip" install -q --no-input -r "$lock" || return 1
	# The lock must be the whole environment: nothing more, nothing less.
	diff <(grep -v '^#' "$lock" | grep . | tr 'A-Z_' 'a-z-' | sort) \
		<("$dir/bin/pip" freeze | tr 'A-Z_' 'a-z-' | sort) >&2 ||
		{ echo "peers: $name: installed set differs from $lock" >&2; return 1; }
}

done_line() { # NAME SECONDS
	echo "peers: $1 installed in ${2}s, $(du -sh "$peers/$1" | cut -f1) at $peers/$1" >&2
}

install_pydocs() {
	local name=pydocs-mcp lock=$here/pydocs-mcp.lock h py t0=$SECONDS
	h=$(stamp pydocs-mcp-recipe-1 "$lock")
	if [[ ! -f $models/bge-small-q/model.onnx || ! -f $models/bge-small-q/tokenizer.json ]]; then
		skip $name "model files $models/bge-small-q/{model.onnx,tokenizer.json} missing; run make setup first"
		return
	fi
	if uptodate $name "$h"; then echo "peers: $name up to date ($peers/$name)" >&2; return; fi
	if ! py=$(pyfind 11); then
		skip $name "no python3.11 interpreter (pyenv versions/3.11.* or python3.11 on PATH); pydocs-mcp 0.8.1 needs Python >= 3.11"
		return
	fi
	echo "peers: $name: installing with $py" >&2
	venv $name "$py" "$lock" || { fail $name "pip install failed"; return; }
	# The offline model folder fastembed loads: this project's bge-small-q
	# files plus the tokenizer_config.json its loader insists on.
	local m=$peers/$name/model/bge-small-q
	mkdir -p "$m"
	ln -sf "$models/bge-small-q/model.onnx" "$m/model.onnx"
	ln -sf "$models/bge-small-q/tokenizer.json" "$m/tokenizer.json"
	printf '%s\n' '{"model_max_length": 512, "pad_token": "[PAD]"}' >"$m/tokenizer_config.json"
	# pydocs-mcp has no --version flag (-v is verbose): ask the package metadata.
	[[ $("$peers/$name/bin/python" -c 'import importlib.metadata as m; print(m.version("pydocs-mcp"))') == 0.8.1 ]] ||
		{ fail $name "pydocs-mcp 0.8.1 not importable in $peers/$name"; return; }
	"$peers/$name/bin/pydocs-mcp" --help >/dev/null 2>&1 || { fail $name "pydocs-mcp --help failed"; return; }
	echo "$h" >"$peers/$name/.installed"
	done_line $name $((SECONDS - t0))
}

install_codira() {
	local name=codira lock=$here/codira.lock h py t0=$SECONDS
	h=$(stamp codira-recipe-1 "$lock")
	if [[ ! -f $models/minilm-l6-q/model.onnx || ! -f $models/minilm-l6-q/tokenizer.json ]]; then
		# Only the minilm-l6-q config needs them; install anyway for the lexical one.
		echo "peers: NOTE codira: $models/minilm-l6-q missing (make setup); only codira/lexical can run" >&2
	fi
	if uptodate $name "$h"; then echo "peers: $name up to date ($peers/$name)" >&2; return; fi
	if ! py=$(pyfind 13); then
		skip $name "no python3.13 interpreter (pyenv versions/3.13.* or python3.13 on PATH); codira 1.55.0 needs Python >= 3.13"
		return
	fi
	echo "peers: $name: installing with $py" >&2
	venv $name "$py" "$lock" || { fail $name "pip install failed"; return; }
	HOME=$peers/$name/home XDG_CONFIG_HOME=$peers/$name/home/.config "$peers/$name/bin/codira" --version >/dev/null 2>&1 ||
		{ fail $name "codira --version failed"; return; }
	echo "$h" >"$peers/$name/.installed"
	done_line $name $((SECONDS - t0))
}

install_context7() {
	local name=context7 h t0=$SECONDS dir=$peers/context7 v
	h=$(stamp context7-recipe-1 "$here/context7/package.json" "$here/context7/package-lock.json")
	if uptodate $name "$h"; then echo "peers: $name up to date ($dir)" >&2; return; fi
	if ! v=$(node --version 2>/dev/null); then
		skip $name "node not found; @upstash/context7-mcp 4.1.1 needs Node >= 20.18.1"
		return
	fi
	# sort -V: the lower of the two is the minimum only if ours is new enough.
	if [[ $(printf '%s\n' "20.18.1" "${v#v}" | sort -V | head -1) != 20.18.1 ]]; then
		skip $name "node $v is older than the 20.18.1 that @upstash/context7-mcp 4.1.1 needs"
		return
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$here/context7/package.json" "$here/context7/package-lock.json" "$dir/"
	# npm ci: exactly the lock (versions and integrity hashes), or an error.
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || { fail $name "npm ci failed"; return; }
	[[ -f $dir/node_modules/@upstash/context7-mcp/dist/index.js ]] || { fail $name "dist/index.js missing after npm ci"; return; }
	echo "$h" >"$dir/.installed"
	done_line $name $((SECONDS - t0))
}

install_neuledge() {
	# @neuledge/context is not served by the npm registry these machines
	# reach (npm view: E404), so there is nothing to install; peers/neuledge.json
	# keeps its config, and its cell skips on the missing binary.
	skip neuledge "@neuledge/context is not in the npm registry reachable here (E404); peers/neuledge.json is kept, blocked"
}

want=("$@")
[[ ${#want[@]} -eq 0 ]] && want=(pydocs-mcp codira context7 neuledge)
for p in "${want[@]}"; do
	case $p in
	pydocs-mcp) install_pydocs ;;
	codira) install_codira ;;
	context7) install_context7 ;;
	neuledge) install_neuledge ;;
	*) fail "$p" "unknown peer (known: pydocs-mcp codira context7 neuledge)" ;;
	esac
done
exit $status
