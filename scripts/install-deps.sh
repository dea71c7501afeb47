#!/usr/bin/env bash
# Installs the Debian packages skillrt needs, and only those that are missing. Idempotent.
# Runs apt-get directly as root, through sudo otherwise.
set -euo pipefail

packages=(
  cmake ninja-build pkg-config g++ make git
  libboost1.81-dev nlohmann-json3-dev libyaml-cpp-dev libcurl4-openssl-dev
  libspdlog-dev libfmt-dev catch2 libcli11-dev libvalijson-dev libxlsxwriter-dev libgit2-dev zlib1g-dev
  libpcre2-dev libssl-dev
  python3 python3-openpyxl python3-numpy python3-torch json-schema-test-suite
  flake8 pycodestyle clang-format chromium
  openssh-client openssh-server
  libsqlite3-dev python3-aiosmtpd
)
for option in "$@"; do
  case "$option" in
    # A Node from another source (NodeSource's nodejs carries npm and conflicts with Debian's npm)
    # is kept as it is.
    --with-node) command -v npm >/dev/null 2>&1 || packages+=(nodejs npm) ;;
    --with-clang) packages+=(clang-16) ;;  # make fuzz: libFuzzer comes with Debian's clang
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  echo "install-deps: missing packages (${missing[*]}) and not root, and no sudo: install them and retry" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
