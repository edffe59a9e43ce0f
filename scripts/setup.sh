#!/usr/bin/env bash
# Sets up this checkout on a fresh machine, the README's first command:
#   1. checks Node (20.19 or later: it cannot install Node itself, and says so);
#   2. installs the system tools toolhost uses when they are missing (ripgrep, bubblewrap, git) with
#      apt-get when it runs as root or sudo works without a password, and says what it could not
#      install and the command to do it;
#   3. installs pnpm 12.4.2 when another pnpm (or none) is on PATH;
#   4. installs the dependencies from the lockfile and builds every package;
#   5. reports what this machine has (`toolhost doctor`) and replays the recorded example through the
#      whole pipeline.
# It fails only when a step toolhost cannot do without fails (Node, pnpm, install, build, replay).
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=12.4.2
say() { printf 'setup: %s\n' "$*" >&2; }

# 1. Node.
if ! command -v node >/dev/null 2>&1; then
  say "Node.js 20.19 or later is needed and none is on PATH: install it from https://nodejs.org (or: nvm install --lts), then run this again"
  exit 1
fi
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  say "Node.js $(node --version) is too old: toolhost needs 20.19 or later (https://nodejs.org, or: nvm install --lts)"
  exit 1
fi

# 2. System tools (Linux: the shell sandbox is bubblewrap; grep prefers ripgrep; run uses git).
missing=()
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v git >/dev/null 2>&1 || missing+=(git)
if [ "$(uname -s)" = "Linux" ] && ! command -v bwrap >/dev/null 2>&1 && [ ! -x /usr/bin/bwrap ]; then
  missing+=(bubblewrap)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  can_install=no
  if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then
      can_install=yes
    elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
      sudo="sudo"
      can_install=yes
    fi
  fi
  if [ "$can_install" = "yes" ]; then
    say "installing ${missing[*]} with apt-get"
    if ! { $sudo apt-get update && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${missing[@]}"; }; then
      say "could not install ${missing[*]} with apt-get; \`toolhost doctor\` below says what is missing"
    fi
  elif command -v apt-get >/dev/null 2>&1; then
    say "not installed (needs root): ${missing[*]}; run: sudo apt-get install -y ${missing[*]}"
  else
    say "not installed (no apt-get here): ${missing[*]}; install them with your package manager (\`toolhost doctor\` below names the command)"
  fi
fi

# 3. pnpm, the version the repository's packageManager field names.
if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  say "installing pnpm $PNPM_VERSION with npm"
  if ! npm install -g "pnpm@$PNPM_VERSION"; then
    say "npm install -g pnpm@$PNPM_VERSION failed (a global npm directory this user cannot write?); run it with sudo, or set npm's prefix to a directory of yours (npm config set prefix ~/.local) and put its bin on PATH"
    exit 1
  fi
  hash -r
fi

# 4. Dependencies and build.
pnpm install --frozen-lockfile
pnpm build

# 5. What this machine has, then the example through the whole pipeline.
pnpm --silent toolhost doctor || say "some of what toolhost uses is missing here (above); shell calls need bubblewrap"
pnpm --silent toolhost replay examples/explore.jsonl
